package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// Fit sessions ("Fit sessions" in sompca.h): thin wrappers over
// solver.Session, which runs the engine and hands out its passes, and
// solver.PassPartial, the pure function a driver runs where a block lives.

// sessionOf returns the session that a handle refers to.
func sessionOf(p *C.sompca_session) (*solver.Session, error) {
	return boxValue[*solver.Session](sessionBox, unsafe.Pointer(p))
}

// sessionCall runs the body of a session export: it checks the handle.
func sessionCall(name string, session *C.sompca_session, body func(s *solver.Session) error) C.int {
	return run(name, func() error {
		s, err := sessionOf(session)
		if err != nil {
			return err
		}
		return body(s)
	})
}

//export sompca_go_session_begin
func sompca_go_session_begin(out **C.sompca_session, nSamples C.size_t, order C.size_t, shape *C.sompca_csize, opts *C.sompca_coptions) C.int {
	return run("sompca_session_begin", func() error {
		if err := clearOut(out, "out"); err != nil {
			return err
		}
		dims, err := samplesShape(nSamples, order, shape)
		if err != nil {
			return err
		}
		if _, err := arrayElems(uint64(nSamples), dims, 1); err != nil {
			return err
		}
		o, err := goOptions(opts, len(dims))
		if err != nil {
			return err
		}
		s, err := solver.NewSession(int(nSamples), dims, o)
		if err != nil {
			return solverError(err)
		}
		box, err := newBox(sessionBox, s)
		if err != nil {
			s.Close()
			return err
		}
		*out = (*C.sompca_session)(box)
		return nil
	})
}

//export sompca_go_session_next
func sompca_go_session_next(session *C.sompca_session, outMore *C.int) C.int {
	return sessionCall("sompca_session_next", session, func(s *solver.Session) error {
		if err := clearOut(outMore, "out_more"); err != nil {
			return err
		}
		more, err := s.Next()
		if err != nil {
			return solverError(err)
		}
		if more {
			*outMore = 1
		}
		return nil
	})
}

//export sompca_go_session_request
func sompca_go_session_request(session *C.sompca_session, first, nSamples C.size_t, dst unsafe.Pointer, capacity C.size_t, outLen *C.size_t) C.int {
	return sessionCall("sompca_session_request", session, func(s *solver.Session) error {
		if err := clearOut(outLen, "out_len"); err != nil {
			return err
		}
		if uint64(first) > uint64(s.Len()) || uint64(nSamples) > uint64(s.Len()) {
			return errorf(C.SOMPCA_EINVAL, "block [%d, %d+%d) is outside the %d samples", uint64(first), uint64(first), uint64(nSamples), s.Len())
		}
		req, err := s.Request(int(first), int(nSamples))
		if err != nil {
			return solverError(err)
		}
		*outLen = C.size_t(len(req))
		return copyBytes(dst, capacity, req, "request")
	})
}

// copyBytes copies src into the caller's buffer dst[capacity]; a NULL dst
// with capacity 0 only asks for the size.
func copyBytes(dst unsafe.Pointer, capacity C.size_t, src []byte, what string) error {
	if dst == nil && capacity == 0 {
		return nil
	}
	if err := checkDst(dst, capacity, len(src), "bytes", "%s", what); err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(dst), len(src)), src)
	return nil
}

//export sompca_go_pass_info
func sompca_go_pass_info(request *C.sompca_cvoid, requestLen C.size_t, outPartial, outCache, outFirst, outN *C.size_t) C.int {
	return run("sompca_pass_info", func() error {
		_, info, err := readRequest(request, requestLen)
		if err != nil {
			return err
		}
		for _, o := range []struct {
			p *C.size_t
			v int
		}{{outPartial, info.PartialLen}, {outCache, info.CacheLen}, {outFirst, info.First}, {outN, info.N}} {
			if o.p != nil {
				*o.p = C.size_t(o.v)
			}
		}
		return nil
	})
}

// readRequest views the caller's request and reads what it asks for.
func readRequest(request *C.sompca_cvoid, n C.size_t) ([]byte, solver.PassInfo, error) {
	req, err := requestBytes(request, n)
	if err != nil {
		return nil, solver.PassInfo{}, err
	}
	info, err := solver.ReadPassInfo(req)
	return req, info, solverError(err)
}

// requestBytes views the caller's request (not copied; used only during
// the call).
func requestBytes(request *C.sompca_cvoid, n C.size_t) ([]byte, error) {
	if request == nil {
		return nil, errorf(C.SOMPCA_EINVAL, "request or partial is NULL")
	}
	if uint64(n) > maxBytes {
		return nil, errorf(C.SOMPCA_EINVAL, "length %d is absurd", uint64(n))
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(request)), int(n)), nil
}

//export sompca_go_pass_partial
func sompca_go_pass_partial(dst unsafe.Pointer, capacity C.size_t, outLen *C.size_t, request *C.sompca_cvoid, requestLen C.size_t,
	data *C.sompca_cvoid, dtype C.int, cache *C.double, cacheCap C.size_t) C.int {
	return run("sompca_pass_partial", func() error {
		if outLen == nil || dst == nil {
			return errorf(C.SOMPCA_EINVAL, "dst or out_len is NULL")
		}
		req, info, err := readRequest(request, requestLen)
		if err != nil {
			return err
		}
		if err := checkDst(dst, capacity, info.PartialLen, "bytes", "partial"); err != nil {
			return err
		}
		src, err := sliceSource(data, dtype, C.size_t(info.N), 0, info.Shape)
		if err != nil {
			return err
		}
		block, err := src.Read(0, info.N)
		if err != nil {
			return solverError(err)
		}
		var c []float64
		if cache != nil && cacheCap > 0 {
			if uint64(cacheCap) > maxBytes/8 {
				return errorf(C.SOMPCA_EINVAL, "cache_cap %d is absurd", uint64(cacheCap))
			}
			c = unsafe.Slice((*float64)(unsafe.Pointer(cache)), int(cacheCap))
		}
		out, err := solver.PassPartial(unsafe.Slice((*byte)(dst), int(capacity))[:0], req, block, c)
		if err != nil {
			return solverError(err)
		}
		*outLen = C.size_t(len(out))
		return nil
	})
}

//export sompca_go_partials_join
func sompca_go_partials_join(dst unsafe.Pointer, capacity C.size_t, outLen *C.size_t, request *C.sompca_cvoid, requestLen C.size_t,
	partials **C.sompca_cvoid, lens *C.sompca_csize, count C.size_t) C.int {
	return run("sompca_partials_join", func() error {
		if outLen == nil || dst == nil || partials == nil || lens == nil {
			return errorf(C.SOMPCA_EINVAL, "dst, out_len, partials or lens is NULL")
		}
		if count == 0 || uint64(count) > maxBytes/8 {
			return errorf(C.SOMPCA_EINVAL, "count %d of partials is 0 or absurd", uint64(count))
		}
		req, err := requestBytes(request, requestLen)
		if err != nil {
			return err
		}
		ptrs := unsafe.Slice(partials, int(count))
		sizes := unsafe.Slice(lens, int(count))
		parts := make([][]byte, count)
		total := 0
		for i := range parts {
			if ptrs[i] == nil {
				return errorf(C.SOMPCA_EINVAL, "partials[%d] is NULL", i)
			}
			if parts[i], err = requestBytes(ptrs[i], C.size_t(sizes[i])); err != nil {
				return err
			}
			if total += len(parts[i]); uint64(total) > maxBytes {
				return errorf(C.SOMPCA_EINVAL, "the partials' lengths add up to an absurd %d", total)
			}
		}
		// A joined partial is never longer than its parts together.
		if err := checkDst(dst, capacity, total, "bytes", "the joined partial"); err != nil {
			return err
		}
		out, err := solver.JoinPartials(unsafe.Slice((*byte)(dst), int(capacity))[:0], req, parts)
		if err != nil {
			return solverError(err)
		}
		*outLen = C.size_t(len(out))
		return nil
	})
}

//export sompca_go_session_feed
func sompca_go_session_feed(session *C.sompca_session, first, nSamples C.size_t, partial *C.sompca_cvoid, n C.size_t) C.int {
	return sessionCall("sompca_session_feed", session, func(s *solver.Session) error {
		p, err := requestBytes(partial, n)
		if err != nil {
			return err
		}
		return solverError(s.Feed(int(first), int(nSamples), p))
	})
}

//export sompca_go_session_finish
func sompca_go_session_finish(session *C.sompca_session, out **C.sompca_model) C.int {
	return run("sompca_session_finish", func() error {
		if err := clearOut(out, "out"); err != nil {
			return err
		}
		s, err := sessionOf(session)
		if err != nil {
			return err
		}
		m, err := s.Model()
		if err != nil {
			return solverError(err)
		}
		return boxInto(out, m)
	})
}

//export sompca_go_session_free
func sompca_go_session_free(session *C.sompca_session) {
	if session == nil {
		return
	}
	run("sompca_session_free", func() error {
		v, err := freeBox(sessionBox, unsafe.Pointer(session))
		if s, ok := v.(*solver.Session); ok {
			s.Close()
		}
		return err
	})
}
