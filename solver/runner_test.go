package solver

import (
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
)

// blockExec is an Executor as a distributed driver would be: it splits the
// samples into blocks of the given sizes (cycled), computes each block
// alone with Pass.BlockSpans (or Partial for rows passes) on one
// goroutine, and folds the spans in order with a Fold.
type blockExec struct {
	src    Source
	blocks []int
}

func (e *blockExec) Run(p *Pass, out []float64) error {
	ws := NewWorkspace()
	var f Fold
	f.Pass = p
	m := e.src.Len()
	for start, b := 0, 0; start < m; b++ {
		n := min(e.blocks[b%len(e.blocks)], m-start)
		x, err := e.src.Read(start, n)
		if err != nil {
			return err
		}
		if p.Rows() {
			w := p.RowLen()
			p.Partial(ws, out[start*w:(start+n)*w], start, x)
		} else {
			for _, s := range p.BlockSpans(ws, start, x) {
				f.Add(s)
			}
		}
		start += n
	}
	if !p.Rows() {
		copy(out, f.Result())
	}
	return nil
}

// TestBlockDriver: a fit whose passes a driver computes block by block
// (blocks of any multiple of BlockMultiple samples, in any split) equals
// the local fit bit for bit, for every method; this is the contract a
// distributed driver relies on.
func TestBlockDriver(t *testing.T) {
	const M = 5*BlockMultiple + 21
	shape := []int{5, 4, 3}
	data := randomTensors(21, M, shape)
	src := must(NewSliceSource(data, M, shape))
	// The default mode updates (auto) resolve alike in Fit and FitWith
	// (ModeUpdates.Resolve): the default local fit is the reference.
	for _, c := range append(tvpCases, methodCase{PCA, false}, methodCase{MPCA, false}, methodCase{CSA, false}) {
		opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3, Threads: 2}
		var want Model
		if err := want.Fit(src, opts); err != nil {
			t.Fatal(err)
		}
		for _, blocks := range [][]int{{BlockMultiple}, {3 * BlockMultiple, BlockMultiple, 2 * BlockMultiple}, {M}} {
			var got Model
			if err := got.FitWith(&blockExec{src: src, blocks: blocks}, shape, M, opts); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&got, &want) {
				t.Errorf("%v: fit by blocks %v differs from the local fit", c, blocks)
			}
		}
	}
	// PCA on the scatter path (M >= prod I_n), whose grain is the largest.
	shape = []int{4, 3}
	src = must(NewSliceSource(randomTensors(22, M, shape), M, shape))
	var want, got Model
	if err := want.Fit(src, Options{Method: PCA}); err != nil {
		t.Fatal(err)
	}
	if err := got.FitWith(&blockExec{src: src, blocks: []int{2 * BlockMultiple, BlockMultiple}}, shape, M, Options{Method: PCA}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, &want) {
		t.Error("pca (scatter): fit by blocks differs from the local fit")
	}
}

// TestSpans: the blocks' subtrees tile their range with aligned powers of
// two (checked against the definition).
func TestSpans(t *testing.T) {
	for a := 0; a < 40; a++ {
		for b := a; b < 80; b++ {
			next := a
			for _, s := range spans(nil, a, b) {
				if s.First != next || s.First%(1<<s.Level) != 0 || s.First+1<<s.Level > b {
					t.Fatalf("spans(%d, %d): bad span %+v", a, b, s)
				}
				// maximal: the span's parent is not inside [a, b)
				if up := s.Level + 1; s.First%(1<<up) == 0 && s.First+1<<up <= b {
					t.Fatalf("spans(%d, %d): %+v is not maximal", a, b, s)
				}
				next += 1 << s.Level
			}
			if next != b {
				t.Fatalf("spans(%d, %d) covers up to %d", a, b, next)
			}
		}
	}
}

// cancelOnRead sets a flag on its n-th Read.
type cancelOnRead struct {
	Source
	n    int
	flag *atomic.Bool
}

func (c *cancelOnRead) Read(start, n int) (Block, error) {
	if c.n--; c.n == 0 {
		c.flag.Store(true)
	}
	return c.Source.Read(start, n)
}

// TestCancel: Options.Cancel turning true during a pass stops the fit with
// ErrCanceled (the pass under way does not finish: its leaves poll it) and
// leaves the model as it was, for every kind of method.
func TestCancel(t *testing.T) {
	const M = 300
	shape := []int{5, 4, 3}
	src := must(NewSliceSource(randomTensors(3, M, shape), M, shape))
	for _, c := range []methodCase{{SOMPCA, true}, {TROD, false}, {PCA, false}, {MPCA, false}} {
		for _, reads := range []int{1, 2, 3} { // every fit makes at least 3 passes
			var flag atomic.Bool
			var leaves atomic.Int64
			m := Model{Method: CSA} // a marker the failed fit must keep
			err := m.Fit(&cancelOnRead{Source: src, n: reads, flag: &flag}, Options{Method: c.method, RelaxedStart: c.rs, Threads: 2,
				Cancel: func() bool { leaves.Add(1); return flag.Load() }})
			if !errors.Is(err, ErrCanceled) || m.Method != CSA || m.Fitted() {
				t.Errorf("%v, canceled on read %d: err %v, model changed %v", c, reads, err, m.Method != CSA || m.Fitted())
			}
			// polled once per leaf (19 leaves of 16 samples a pass) and per pass
			if n := leaves.Load(); n < int64(reads-1)*(M/grain) {
				t.Errorf("%v: Cancel polled %d times in %d passes", c, n, reads)
			}
		}
	}
	// A leaf checks the flag: a runner canceled before a pass does no leaf.
	r := newRunner(src, 60, 2)
	defer r.close()
	r.cancel()
	p := &Pass{Op: OpSum, Shape: shape, Samples: M}
	if err := r.Run(p, make([]float64, p.PartialLen())); !errors.Is(err, ErrCanceled) {
		t.Errorf("pass on a canceled runner: %v", err)
	}
}
