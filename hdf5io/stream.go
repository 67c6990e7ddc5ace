package hdf5io

// #include "shim.h"
import "C"

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/sompca/sompca/solver"
)

// How a Source reads a dataset that it streams:
//
//   - Each HDF5 read is one hyperslab of whole samples, read into a memory
//     dataspace of the hyperslab's own shape (see sompca_h5_hyperslab),
//     so that HDF5 copies (or decompresses) each chunk to memory in one
//     piece, whatever the chunk's shape across the sample's axes.
//   - Reads hold whole chunks along the sample axis where the read size
//     allows; the chunks a read boundary cuts through (the caller's run
//     length need not be a multiple of the chunk's) stay in the dataset's
//     chunk cache, sized for one row of chunks along the sample axis, so
//     that no chunk is read or decompressed twice in a pass.
//   - Unfiltered chunks whose stored element type is the type read need
//     no decoding: they are read as stored (H5Dread_chunk), a row of
//     chunks at a time, and the read's block written in order from them
//     (sompca_h5_read_chunks), or a chunk read straight into the block
//     when it lies there in one piece; for small chunks (h5py's
//     chunks=True) that is several times faster than HDF5's selections.
//     A chunk never written falls back to the ordinary read.
//   - Filters (gzip, shuffle, ...) are HDF5's own, at their decode speed.
//   - Data that must be converted or transposed (samples last) is read
//     into a raw buffer of about rawTarget bytes at a time, whole chunks
//     along the sample axis, so that the conversion works in cache.
//   - The read of the next run happens on a goroutine of its own while the
//     caller works on the current one (double buffering): Read predicts
//     that the next call asks for the run that follows (the first run of
//     the next pass at the end), as the solver's passes do.

// fetch is one read of samples [start, start+n) into s.bufs[buf].
type fetch struct {
	start, n int
	buf      int
	blk      solver.Block
	err      error
	done     chan struct{} // closed when the read has finished
}

// setStorage reads the dataset's chunk shape, sets the samples per HDF5
// read from the bound on its bytes, and opens the read handle with a
// chunk cache sized for those reads. Callers hold h5mu.
func (s *Source) setStorage(readBytes int64) error {
	rank := len(s.dims)
	chunk := make([]C.hsize_t, rank)
	switch C.sompca_h5_chunk_dims(hid(s.dset), C.int(rank), &chunk[0]) {
	case 1:
		s.chunk = make([]uint, rank)
		for i, c := range chunk {
			s.chunk[i] = uint(c)
		}
	case 0:
	default:
		return h5err(ErrCorrupt, "cannot read the storage layout")
	}
	if s.chunk != nil {
		switch C.sompca_h5_raw_chunks(hid(s.dset), C.int(s.kind)) {
		case 1:
			s.rawChunks, s.cchnk = true, chunk
		case 0:
		default:
			return h5err(ErrCorrupt, "cannot read the storage layout")
		}
	}
	s.setBlock(readBytes)
	return s.reopen(true)
}

// rawTarget is the bytes of one HDF5 read into the raw buffer (data that
// is converted or transposed after the read): small enough to stay in
// cache for the conversion, large enough that each read is worth its
// overhead.
const rawTarget = 1 << 20

// rawSamples returns the samples of one HDF5 read into the raw buffer:
// about rawTarget bytes, whole chunks along the sample axis (one at
// least), at most s.block.
func (s *Source) rawSamples() int {
	b := int(max(rawTarget/s.sampleBytes(), 1))
	if c := s.chunkSamples(); c > 1 {
		b = max(b/c, 1) * c
	}
	return min(b, s.block)
}

// chunkRowBytes returns the bytes, as stored, of the chunks of one unit
// (one chunk index along axis 0, and along axis 1 for rank >= 3) that an
// HDF5 read of the samples meets: what sompca_h5_read_chunks holds at once.
func (s *Source) chunkRowBytes() int64 {
	per := s.block
	if !s.direct() {
		per = s.rawSamples()
	}
	b := s.chunkBytes()
	first := 1 // the first axis a unit spans
	if len(s.dims) >= 3 {
		first = 2
	}
	for d := first; d < len(s.dims); d++ {
		c := s.chunk[d]
		n := (s.dims[d] + c - 1) / c
		if d == s.sampleAxis() { // a read of per samples from anywhere
			n = min(n, (uint(per)+c-1)/c+1)
		}
		b *= int64(n)
	}
	return b
}

// chunkBytes returns the bytes of one chunk as stored (0: not chunked).
func (s *Source) chunkBytes() int64 {
	if s.chunk == nil {
		return 0
	}
	b := int64(s.kind.bytes())
	for _, c := range s.chunk {
		b *= int64(c)
	}
	return b
}

// sampleAxis returns the axis of the dataset that indexes the samples.
func (s *Source) sampleAxis() int {
	if s.layout == SamplesLast {
		return len(s.dims) - 1
	}
	return 0
}

// sampleBytes returns the bytes of one sample in the file's element type.
func (s *Source) sampleBytes() int64 { return int64(s.size) * int64(s.kind.bytes()) }

// chunkSamples returns the chunk's extent along the sample axis, 0 for a
// dataset that is not chunked.
func (s *Source) chunkSamples() int {
	if s.chunk == nil {
		return 0
	}
	return int(s.chunk[s.sampleAxis()])
}

// setBlock sets the samples per HDF5 read to what readBytes holds (at
// least one sample, at most M), rounded down to whole chunks along the
// sample axis when it holds at least one.
func (s *Source) setBlock(readBytes int64) {
	s.block = s.wholeChunks(int(min(max(readBytes/s.sampleBytes(), 1), int64(s.m))), 1)
}

// wholeChunks returns b rounded down to whole chunks along the sample
// axis if that leaves at least floor samples, else b.
func (s *Source) wholeChunks(b, floor int) int {
	if c := s.chunkSamples(); c > 1 && b/c*c >= max(floor, c) && b < s.m {
		return b / c * c
	}
	return b
}

// rowBytes returns the bytes, decompressed, of one row of chunks along
// the sample axis: the chunks that a read boundary can cut through, which
// the chunk cache keeps. 0 for a dataset that is not chunked.
func (s *Source) rowBytes() int64 {
	if s.chunk == nil {
		return 0
	}
	b := int64(s.kind.bytes())
	for i, c := range s.chunk {
		if i == s.sampleAxis() {
			b *= int64(c)
		} else {
			b *= int64((s.dims[i] + c - 1) / c * c)
		}
	}
	return b
}

// reopen opens the read handle of the dataset. With cache, chunks read
// as stored get a buffer of one chunk, others a chunk cache that holds one
// row of chunks (none for a dataset that is not chunked); without, reads
// go through HDF5's selections with no chunk cache (the least memory).
// s.cached is then the bytes held. Callers hold h5mu.
func (s *Source) reopen(cache bool) error {
	if s.rd >= 0 {
		C.sompca_h5_close_dataset(s.rd)
		s.rd = -1
	}
	s.rawChunks = s.rawChunks && cache
	s.rowbuf, s.cached = nil, 0
	var cacheBytes int64
	switch {
	case s.rawChunks:
		s.cached = s.chunkRowBytes() // s.rowbuf, allocated by the first read
	case cache:
		cacheBytes = s.rowBytes()
		s.cached = cacheBytes
	}
	slots := 521 // HDF5's default
	if cacheBytes > 0 {
		// HDF5 advises about 100 hash slots per chunk the cache holds, a
		// prime number of them.
		slots = nextPrime(int(min(100*max(cacheBytes/s.chunkBytes(), 1), 1<<20)))
	}
	name := cstr(s.dataset)
	defer freeCString(name)
	if s.rd = C.sompca_h5_open_cached(hid(s.file), name, C.size_t(cacheBytes), C.size_t(slots)); s.rd < 0 {
		return h5err(ErrCorrupt, "cannot open the dataset")
	}
	return nil
}

// nextPrime returns the least prime >= n (n >= 2).
func nextPrime(n int) int {
	for ; ; n++ {
		prime := true
		for d := 2; d*d <= n; d++ {
			if n%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			return n
		}
	}
}

// PlanMemory implements solver.MemoryPlanner: a fit calls it with the
// bytes the Source may hold. If the whole dataset, converted to Elem,
// fits (with one read's raw buffer and the chunk cache while it loads),
// it is read now, at the speed of the file, and every pass of the fit
// runs from memory; otherwise reads are sized so that two runs of
// samples (one processed, one read ahead), the raw buffer of one HDF5
// read and the chunk cache fit, minRead samples at least. It returns the
// bytes it holds, or an error wrapping solver.ErrMemory naming the
// limit and the bytes one run of minRead samples needs.
func (s *Source) PlanMemory(budget int64, minRead int) (int64, error) {
	if s.mem != nil {
		return s.memBytes(), nil
	}
	s.wait()
	elem := int64(s.size) * elemBytes(s.elem) // one sample, converted
	var raw int64                             // one sample in the raw buffer
	if !s.direct() {
		raw = int64(s.size) * int64(s.kind.memBytes())
	}
	minRead = min(max(minRead, 1), s.m)
	if whole := int64(s.m) * elem; whole+raw*int64(s.rawSamples())+s.cached <= budget {
		lock()
		defer unlock()
		if err := s.load(); err != nil {
			return 0, &Error{Op: "read", Path: s.path, Object: s.dataset, Err: err}
		}
		return whole, nil
	}
	perRun := 2*elem + raw // per sample of a run, the raw buffer at its largest
	if budget-s.cached < perRun*int64(minRead) && s.cached > 0 {
		// Without the chunk cache, reads across chunk boundaries read
		// those chunks twice; slower, but within the limit.
		lock()
		err := s.reopen(false)
		unlock()
		if err != nil {
			return 0, &Error{Op: "read", Path: s.path, Object: s.dataset, Err: err}
		}
	}
	b := (budget - s.cached) / perRun
	if b < int64(minRead) {
		return 0, &Error{Op: "read", Path: s.path, Object: s.dataset, Err: fmt.Errorf(
			"%w: %s left for reading samples of %s: streaming needs at least %s (two runs of %d samples, one processed while the other is read)",
			solver.ErrMemory, solver.FormatBytes(max(budget, 0)), solver.FormatBytes(s.sampleBytes()), solver.FormatBytes(perRun*int64(minRead)+s.cached), minRead)}
	}
	// Options.ChunkBytes still bounds one HDF5 read; the engine's runs,
	// which the two blocks hold, are at least minRead samples.
	s.block = s.wholeChunks(int(min(b, int64(s.block))), 1)
	return 2*elem*int64(max(s.block, minRead)) + raw*int64(s.rawSamples()) + s.cached, nil
}

// memBytes returns the bytes of the dataset loaded in memory.
func (s *Source) memBytes() int64 { return int64(s.m) * int64(s.size) * elemBytes(s.elem) }

// elemBytes returns the size of one element of type e.
func elemBytes(e solver.Elem) int64 {
	switch e {
	case solver.Float64:
		return 8
	case solver.Float32:
		return 4
	}
	return 1
}

// direct reports whether reads go straight into the output block: data
// samples first whose memory type is the handed-out type (kind.direct),
// with nothing to convert or reorder.
func (s *Source) direct() bool {
	return s.layout == SamplesFirst && s.kind.direct()
}

// Read returns the samples [start, start+n) sample-major, in a block that
// is valid until the next Read (solver.Source). Before it returns, the
// read of the run that follows starts on a goroutine of its own.
func (s *Source) Read(start, n int) (solver.Block, error) {
	if start < 0 || n < 0 || start > s.m-n {
		return solver.Block{}, &Error{Op: "read", Path: s.path, Object: s.dataset,
			Err: fmt.Errorf("samples [%d, %d) outside [0, %d)", start, start+n, s.m)}
	}
	if s.mem != nil {
		return s.mem.Read(start, n)
	}
	if s.opts.Cancel != nil && s.opts.Cancel() {
		return solver.Block{}, solver.ErrCanceled
	}
	f, err := s.waitCancel()
	if err != nil {
		return solver.Block{}, err
	}
	if f == nil || f.start != start || f.n != n {
		// Not the run read ahead (the first Read, or a caller reading
		// out of order): read it now. Both buffers are free: the caller
		// gave up the last block by calling Read.
		f = &fetch{start: start, n: n, buf: s.next}
		s.fill(f)
	}
	if f.err != nil {
		return solver.Block{}, &Error{Op: "read", Path: s.path, Object: s.dataset, Err: f.err}
	}
	if s.hook != nil && !s.hook() {
		return solver.Block{}, solver.ErrCanceled
	}
	// Read ahead into the other buffer.
	s.next = 1 - f.buf
	next := start + n
	if next >= s.m {
		next = 0
	}
	a := &fetch{start: next, n: min(n, s.m-next), buf: s.next, done: make(chan struct{})}
	s.ahead = a
	go func() {
		defer close(a.done)
		s.fill(a)
	}()
	return f.blk, nil
}

// wait waits for the read ahead, if one is under way, and returns it.
func (s *Source) wait() *fetch {
	f := s.ahead
	if f != nil {
		<-f.done
		s.ahead = nil
	}
	return f
}

// waitCancel is wait, polling Options.Cancel meanwhile: a read of a slow
// file (a network file system, a failing disk) takes as long as it takes
// in libhdf5, but the fit need not wait for it to be canceled. On
// ErrCanceled the read goes on, still s.ahead; Close does not wait for
// it either.
func (s *Source) waitCancel() (*fetch, error) {
	f := s.ahead
	if f == nil || s.opts.Cancel == nil {
		return s.wait(), nil
	}
	tick := time.NewTicker(cancelPoll)
	defer tick.Stop()
	for {
		select {
		case <-f.done:
			s.ahead = nil
			return f, nil
		case <-tick.C:
			if s.opts.Cancel() {
				return nil, solver.ErrCanceled
			}
		}
	}
}

// cancelPoll is how often waitCancel polls Options.Cancel.
const cancelPoll = 10 * time.Millisecond

// fill performs the read f.
func (s *Source) fill(f *fetch) {
	defer func() {
		// On the read-ahead goroutine a panic would end the process: hand
		// it to the caller as an error instead.
		if r := recover(); r != nil {
			f.err = fmt.Errorf("internal error while reading samples [%d, %d): %v\n%s", f.start, f.start+f.n, r, debug.Stack())
		}
	}()
	lock()
	defer unlock()
	if s.rd < 0 {
		f.err = fmt.Errorf("%w: source is closed", ErrIO)
		return
	}
	f.blk, f.err = s.read(&s.bufs[f.buf], f.start, f.n, false)
}

// read reads samples [start, start+n) into buf, s.block samples per HDF5
// read, and returns it. With between, it polls Options.Cancel and calls
// the read hook after each HDF5 read but the last, releasing h5mu while it
// does (for a long load on the caller's goroutine). Callers hold h5mu.
func (s *Source) read(buf *solver.Block, start, n int, between bool) (solver.Block, error) {
	total := n * s.size
	switch s.elem {
	case solver.Float64:
		*buf = solver.Block{F64: grow(buf.F64, total)}
	case solver.Float32:
		*buf = solver.Block{F32: grow(buf.F32, total)}
	default:
		*buf = solver.Block{U8: grow(buf.U8, total)}
	}
	per := s.block // samples per HDF5 read
	if !s.direct() {
		per = s.rawSamples()
	}
	for done := 0; done < n; {
		k := min(per, n-done)
		if err := s.readSlab(*buf, start+done, k, done*s.size); err != nil {
			return solver.Block{}, err
		}
		done += k
		if between && !s.between() {
			return solver.Block{}, solver.ErrCanceled
		}
	}
	return *buf, nil
}

// between polls Options.Cancel and calls the read hook with h5mu
// released, and reports whether to go on. Callers hold h5mu.
func (s *Source) between() bool {
	if s.opts.Cancel == nil && s.hook == nil {
		return true
	}
	unlock()
	defer lock()
	return !(s.opts.Cancel != nil && s.opts.Cancel()) && (s.hook == nil || s.hook())
}

// readSlab reads k samples from sample start into out at element off.
// Callers hold h5mu.
func (s *Source) readSlab(out solver.Block, start, k, off int) error {
	rank := len(s.dims)
	offset, count := make([]C.hsize_t, rank), make([]C.hsize_t, rank)
	for i, d := range s.dims {
		count[i] = C.hsize_t(d)
	}
	axis := s.sampleAxis()
	offset[axis], count[axis] = C.hsize_t(start), C.hsize_t(k)
	n := k * s.size

	// Data already in the handed-out type and order goes straight into
	// the output block; everything else through the raw buffer.
	var dst *uint64
	direct := s.direct()
	if direct {
		dst = outPointer(out, off)
	} else {
		s.raw = words(s.raw, n, s.kind)
		dst = &s.raw[0]
	}
	if s.rawChunks && s.rowbuf == nil {
		s.rowbuf = make([]uint64, (s.cached+7)/8)
	}
	read := s.rawChunks && C.sompca_h5_read_chunks(s.rd, C.int(rank), &s.cchnk[0], &offset[0], &count[0],
		C.size_t(s.kind.memBytes()), unsafePointer(dst), unsafePointer(&s.rowbuf[0]), C.size_t(8*len(s.rowbuf))) == 0
	if !read && C.sompca_h5_hyperslab(s.rd, C.int(s.kind), C.int(rank), &offset[0], &count[0], unsafePointer(dst), 0) < 0 {
		return h5err(ErrCorrupt, fmt.Sprintf("cannot read samples [%d, %d)", start, start+k))
	}
	// libhdf5 reads the part of a dataset beyond the end of a truncated
	// file as zeros, without an error: a file that changed size while it
	// is read (truncated, rewritten, appended to) is an error instead.
	if now := int64(C.sompca_h5_file_size(hid(s.file))); s.size0 >= 0 && now != s.size0 && !(s.swmr && now > s.size0) {
		return fmt.Errorf("%w: the file changed size from %d to %d bytes while samples [%d, %d) were read from it (was it truncated or rewritten?)", ErrIO, s.size0, now, start, start+k)
	}
	if !direct {
		convertKind(out, off, s.raw, s.kind, s.size, k, s.layout == SamplesLast, s.perm)
	}
	s.bytesRead.Add(int64(n) * int64(s.kind.bytes()))
	return nil
}

// outPointer returns the address of element off of out.
func outPointer(out solver.Block, off int) *uint64 {
	switch {
	case out.F64 != nil:
		return (*uint64)(unsafePointer(&out.F64[off]))
	case out.F32 != nil:
		return (*uint64)(unsafePointer(&out.F32[off]))
	}
	return (*uint64)(unsafePointer(&out.U8[off]))
}

// grow returns buf resized to n, reallocated if too small; never nil, so
// that an empty block still says its element type.
func grow[T any](buf []T, n int) []T {
	if cap(buf) >= n && buf != nil {
		return buf[:n]
	}
	return make([]T, n)
}

// BytesRead returns the bytes of samples read from the file so far, in
// the file's element type (a pass over the dataset adds DataBytes). It
// may be called from any goroutine (solver.ReadCounter).
func (s *Source) BytesRead() int64 { return s.bytesRead.Load() }

// DataBytes returns the bytes of the dataset's samples in the file's
// element type, M times the bytes of one sample (solver.ReadCounter).
func (s *Source) DataBytes() int64 { return int64(s.m) * s.sampleBytes() }

// SetReadHook sets the function (nil: none) that the Source calls on the
// goroutine that uses it, with no lock held: at the end of each Read that
// read from the file, and after each HDF5 read of a dataset loaded whole
// by PlanMemory. When it returns false, that Read or PlanMemory fails
// with solver.ErrCanceled (solver.ReadCounter: a fit's
// Options.ReadProgress).
func (s *Source) SetReadHook(hook func() bool) { s.hook = hook }
