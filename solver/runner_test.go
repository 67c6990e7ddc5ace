package solver

import (
	"errors"
	"math/rand/v2"
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

// TestRowsPieces: each row of a rows pass is a function of its sample
// alone, so the runner may cut a read into pieces of any length
// (deal.takeRange): cut at random, the rows (and the cache of X x_1
// u^(1) filled on the way) come out bit for bit as when made a sample
// at a time, for uint8 samples (the exact fixed-point kernels) and
// float64 ones, of order 2 and 3, with and without the Kronecker dot.
func TestRowsPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const M = 53
	for _, shape := range [][]int{{80, 60}, {32, 22, 10}, {5, 4, 3}, {7, 6}, {12, 70, 3}} {
		size := prod(shape)
		u8, f64 := make([]uint8, M*size), make([]float64, M*size)
		for i := range u8 {
			u8[i] = uint8(rng.IntN(256))
			f64[i] = float64(u8[i]) + rng.Float64()
		}
		for _, x := range []Block{{U8: u8}, {F64: f64}} {
			for n := range shape {
				vs := make([][]float64, len(shape))
				for k, d := range shape {
					vs[k] = make([]float64, d)
					for i := range vs[k] {
						vs[k][i] = rng.NormFloat64()
					}
				}
				p := &Pass{Op: OpModeRows, Shape: shape, Samples: M, Mode: n, Vectors: vs}
				ins := []input{fromX}
				if p.usesCache() {
					ins = []input{fromXFillZ, fromZ}
				}
				zs := cacheRow(shape)
				zWant, zGot := make([]float64, M*zs), make([]float64, M*zs)
				for _, in := range ins {
					want, got := make([]float64, M*shape[n]), make([]float64, M*shape[n])
					ws := NewWorkspace()
					ws.ready(p)
					piece := func(dst, z []float64, lo, hi int) {
						var zl []float64
						if in != fromX {
							zl = z[lo*zs : hi*zs]
						}
						p.leaf(ws, dst[lo*shape[n]:hi*shape[n]], lo, x.slice(lo*size, hi*size), in, zl)
					}
					for i := range M {
						piece(want, zWant, i, i+1)
					}
					for lo := 0; lo < M; {
						hi := min(M, lo+1+rng.IntN(2*grain))
						piece(got, zGot, lo, hi)
						lo = hi
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%v %v mode %d input %d: row %d entry %d %v in pieces, %v a sample at a time",
								shape, x.elem(), n, in, i/shape[n], i%shape[n], got[i], want[i])
						}
					}
					for i := range zWant {
						if zGot[i] != zWant[i] {
							t.Fatalf("%v %v mode %d input %d: cache entry %d differs", shape, x.elem(), n, in, i)
						}
					}
				}
			}
		}
	}
}

// residentReads is a SliceSource read at most max readUnits at a time
// (Resident, so that rows passes may take its reads in any order), which
// logs the first sample of each read.
type residentReads struct {
	*SliceSource
	max    int
	starts []int
}

func (s *residentReads) MaxRead() int { return s.max * readUnit }
func (s *residentReads) Read(start, n int) (Block, error) {
	s.starts = append(s.starts, start)
	return s.SliceSource.Read(start, n)
}

// TestPassOrder: passes that walk their samples backward every other time
// (turnPasses: the pieces and leaves of each read from its end, each
// member from the other end of its run; a rows pass over samples in
// memory also takes the reads in reverse order) give the fits of
// forward-only passes bit for bit, whatever the number of goroutines and
// the reads, for every method and both kinds of TVP mode update (rows
// passes and sum passes); and the backward reads do happen.
// Fails with the pieces of a backward rows pass off by one sample
// (j.n-hi+1) or its leaves by one leaf, and without the turn.
func TestPassOrder(t *testing.T) {
	defer func() { turnPasses = true }()
	const M = 3*readUnit + 17 // several reads of one unit, the last grain partial
	for _, shape := range [][]int{{5, 4, 3}, {7, 6}} {
		data := randomTensors(12, M, shape)
		for _, c := range append(tvpCases, methodCase{PCA, false}, methodCase{MPCA, false}) {
			updates := []ModeUpdates{ModeUpdatesAuto}
			if c.method.IsTVP() {
				updates = []ModeUpdates{ModeUpdatesRows, ModeUpdatesScatter}
			}
			for _, upd := range updates {
				opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3, ModeUpdates: upd, Threads: 1}
				turnPasses = false
				ref, src := fitOrFatal(t, data, M, shape, opts)
				turnPasses = true
				for _, threads := range []int{1, 2, 3} {
					opts.Threads = threads
					var m Model
					if err := m.Fit(src, opts); err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(&m, ref) {
						t.Errorf("%v %v %v: %d threads, passes turning, differs from forward passes", shape, c, upd, threads)
					}
					reads := &residentReads{SliceSource: src, max: 1}
					if err := m.Fit(reads, opts); err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(&m, ref) {
						t.Errorf("%v %v %v: %d threads, passes turning, reads of one unit, differs from forward passes", shape, c, upd, threads)
					}
					back := false
					for i := 1; i < len(reads.starts); i++ {
						back = back || reads.starts[i] == reads.starts[i-1]-readUnit
					}
					// Mode updates by rows passes: every other one backward.
					if upd == ModeUpdatesRows && !back {
						t.Errorf("%v %v %v: no reads taken backward", shape, c, upd)
					}
				}
			}
		}
	}
}
