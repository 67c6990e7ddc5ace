package solver

import (
	"fmt"
	"sync"
)

// A Session is a fit whose passes over the samples are made by its
// caller: the engine runs as it does in Model.Fit, on its own goroutine,
// but each pass it would make over a Source is handed out as requests,
// one per block of samples, and the partial results of the blocks, which
// the caller computes wherever the blocks live with PassPartial, are fed
// back and folded by the engine in block order. The caller (a driver on
// Dask, MPI, or anything else) moves bytes only; nothing of the
// algorithm runs outside this package.
//
//	s, err := NewSession(m, shape, opts)
//	for {
//		more, err := s.Next()           // runs the engine to its next pass
//		if err != nil || !more { break }
//		for each block [first, first+n) in order:
//			req, _ := s.Request(first, n)
//			partial, _ := PassPartial(nil, req, samples of the block, cache)  // anywhere
//			s.Feed(first, n, partial)
//	}
//	model, err := s.Model()
//
// The blocks of a pass tile [0, M) in increasing order and may differ
// from pass to pass. The model equals Model.Fit's on the same samples
// with the same options bit for bit when every block starts at a multiple
// of BlockMultiple samples, since the engine's sums are then made of the
// same leaves by the same fixed reduction tree; otherwise the leaves cut
// by block boundaries are summed in two parts, and the model agrees to
// rounding (about 1e-12 relative). Samples at an extreme scale are
// rescaled as Model.Fit rescales them, decided from the same passes:
// the requests carry the scale (Pass.Scale), which PassPartial applies.
// Options.Threads does not apply, and Options.Progress is
// called from Next, on the caller's goroutine.
//
// A Session is used by one goroutine at a time. Once a call fails, the
// session keeps failing with the same error (Close excepted).
type Session struct {
	m     int
	shape []int
	size  int
	opts  Options

	events chan sessionEvent // engine -> Next
	resume chan bool         // Next -> engine: pass fed (true) / progress answer
	quit   chan struct{}     // closed by Close
	once   sync.Once
	start  sync.Once

	pass  *sessionPass // the waiting pass, nil between passes
	fed   int          // samples of the waiting pass fed so far
	model *Model
	taken bool
	err   error
}

// sessionEvent is what the engine goroutine tells Next: a pass is waiting
// (pass), an EMP is done (progress), or the fit ended (done).
type sessionEvent struct {
	pass     *sessionPass
	progress *[3]float64 // done, total, variance
	done     bool
	model    *Model
	err      error
	panicked any
}

// errClosed ends the engine goroutine of a closed session.
var errClosed = errorf(ErrInvalid, "solver: the fit session was closed")

// NewSession begins a fit of m samples of the given shape whose passes
// the caller makes (see Session). No pass runs yet; the options are
// checked as Model.Fit checks them.
func NewSession(m int, shape []int, opts Options) (*Session, error) {
	size, err := sampleSize(shape)
	if err != nil {
		return nil, err
	}
	s := &Session{
		m: m, shape: append([]int(nil), shape...), size: size, opts: opts,
		events: make(chan sessionEvent),
		resume: make(chan bool),
		quit:   make(chan struct{}),
	}
	// Check what can be checked before any pass, as Fit does.
	if _, err := newFitterFor(shape, m, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// Len returns the number of samples M.
func (s *Session) Len() int { return s.m }

// Shape returns the sample shape; the caller must not modify it.
func (s *Session) Shape() []int { return s.shape }

// Next runs the fit to its next pass (true) or to its end (false: take
// the model with Model). The waiting pass, if any, must have been fed
// whole.
func (s *Session) Next() (bool, error) {
	if s.err != nil {
		return false, s.err
	}
	if s.model != nil || s.taken {
		return false, nil
	}
	if s.pass != nil {
		if s.fed != s.m {
			return false, s.fail(errorf(ErrInvalid, "solver: sompca_session_next before the pass was fed whole (samples [0, %d) of %d fed)", s.fed, s.m))
		}
		s.pass = nil
		s.resume <- true
	}
	s.start.Do(func() { go s.runEngine() })
	for {
		ev := <-s.events
		switch {
		case ev.panicked != nil:
			s.err = errorf(ErrInvalid, "solver: the fit session's engine panicked")
			panic(fmt.Sprintf("solver: panic in a fit session: %v", ev.panicked))
		case ev.done:
			if ev.err != nil {
				return false, s.fail(ev.err)
			}
			s.model = ev.model
			return false, nil
		case ev.progress != nil:
			ok := s.opts.Progress == nil || s.opts.Progress(int(ev.progress[0]), int(ev.progress[1]), ev.progress[2])
			s.resume <- ok
		default:
			s.pass, s.fed = ev.pass, 0
			return true, nil
		}
	}
}

// fail records err as the session's error and returns it.
func (s *Session) fail(err error) error {
	if s.err == nil {
		s.err = err
	}
	return s.err
}

// Request returns the waiting pass's request for the block of samples
// [first, first+n).
func (s *Session) Request(first, n int) ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.pass == nil {
		return nil, errorf(ErrInvalid, "solver: no pass is waiting: call sompca_session_next (Session.Next) first")
	}
	if n <= 0 || first < 0 || first > s.m-n {
		return nil, errorf(ErrInvalid, "solver: block [%d, %d) is empty or outside the %d samples", first, first+n, s.m)
	}
	return s.pass.request(first, n), nil
}

// Feed folds the partial result of the block [first, first+n) of the
// waiting pass; blocks are fed in increasing order and tile [0, M). A
// partial that does not belong to this pass and block fails the session.
func (s *Session) Feed(first, n int, partial []byte) error {
	if s.err != nil {
		return s.err
	}
	if s.pass == nil {
		return s.fail(errorf(ErrInvalid, "solver: no pass is waiting for partials"))
	}
	if first != s.fed || n <= 0 || n > s.m-first {
		return s.fail(errorf(ErrInvalid, "solver: partial of block [%d, %d) fed, but the next block starts at sample %d (blocks are fed in order and tile [0, %d))", first, first+n, s.fed, s.m))
	}
	if err := s.pass.feed(partial, first, n); err != nil {
		return s.fail(err)
	}
	s.fed += n
	return nil
}

// Model returns the fitted model of a finished session, once.
func (s *Session) Model() (*Model, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.taken {
		return nil, errorf(ErrInvalid, "solver: the session's model was already taken")
	}
	if s.model == nil {
		return nil, errorf(ErrInvalid, "solver: the fit session is not finished: call sompca_session_next (Session.Next) until it reports the end")
	}
	m := s.model
	s.model, s.taken = nil, true
	return m, nil
}

// Close ends the session, abandoning a fit in progress; its goroutine
// exits. Close may be called more than once.
func (s *Session) Close() {
	s.once.Do(func() { close(s.quit) })
	s.fail(errClosed)
}

// runEngine runs the fit on its own goroutine, handing passes and
// progress to Next.
func (s *Session) runEngine() {
	ev := sessionEvent{done: true}
	defer func() {
		if r := recover(); r != nil {
			ev = sessionEvent{panicked: r}
		}
		select {
		case s.events <- ev:
		case <-s.quit:
		}
	}()
	opts := s.opts
	if s.opts.Progress != nil {
		opts.Progress = func(done, total int, variance float64) bool {
			select {
			case s.events <- sessionEvent{progress: &[3]float64{float64(done), float64(total), variance}}:
			case <-s.quit:
				return false
			}
			select {
			case ok := <-s.resume:
				return ok
			case <-s.quit:
				return false
			}
		}
	}
	var m Model
	ev.err = m.FitWith(sessionExec{s}, s.shape, s.m, opts)
	if ev.err == nil {
		ev.model = &m
	}
}

// sessionExec is a session's Executor: Run hands the pass to Next and
// returns once the caller has fed every block's partial (folded by Feed)
// and called Next again.
type sessionExec struct{ s *Session }

func (e sessionExec) Run(p *Pass, out []float64) error {
	s := e.s
	sp := &sessionPass{p: p, out: out, s: s}
	sp.fold.Pass = p
	select {
	case s.events <- sessionEvent{pass: sp}:
	case <-s.quit:
		return errClosed
	}
	select {
	case <-s.resume:
	case <-s.quit:
		return errClosed
	}
	if !p.Rows() {
		copy(out, sp.fold.Result())
	}
	return nil
}
