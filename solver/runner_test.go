package solver

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/sompca/sompca/solver/internal/par"
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
			for _, s := range par.Spans(nil, a, b) {
				if s.First != next || s.First%(1<<s.Level) != 0 || s.First+1<<s.Level > b {
					t.Fatalf("par.Spans(%d, %d): bad span %+v", a, b, s)
				}
				// maximal: the span's parent is not inside [a, b)
				if up := s.Level + 1; s.First%(1<<up) == 0 && s.First+1<<up <= b {
					t.Fatalf("par.Spans(%d, %d): %+v is not maximal", a, b, s)
				}
				next += 1 << s.Level
			}
			if next != b {
				t.Fatalf("par.Spans(%d, %d) covers up to %d", a, b, next)
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
// (deal.takeRange): cut at random, the rows (and the cache of X x_k
// u^(k) filled on the way) come out bit for bit as when made a sample
// at a time, for uint8 samples (the exact fixed-point kernels) and
// float64 ones, of order 2 and 3, with and without the Kronecker dot,
// for every Pass.Lead; and made from the samples, filling the cache or
// from it, they are the same.
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
				leads := []int{0}
				for k := range shape {
					if len(shape) >= 3 && k != n {
						leads = append(leads, k+1)
					}
				}
				for _, lead := range leads {
					p := &Pass{Op: OpModeRows, Shape: shape, Samples: M, Mode: n, Vectors: vs, Lead: lead}
					ins := []input{fromX}
					if p.usesCache() {
						ins = []input{fromX, fromXFillZ, fromZ}
					}
					zs := p.zRow()
					zWant, zGot := make([]float64, M*zs), make([]float64, M*zs)
					var fromSamples []float64 // the rows made from the samples without a cache
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
								t.Fatalf("%v %v mode %d lead %d input %d: row %d entry %d %v in pieces, %v a sample at a time",
									shape, x.elem(), n, lead, in, i/shape[n], i%shape[n], got[i], want[i])
							}
						}
						for i := range zWant {
							if zGot[i] != zWant[i] {
								t.Fatalf("%v %v mode %d lead %d input %d: cache entry %d differs", shape, x.elem(), n, lead, in, i)
							}
						}
						// Every input gives the rows made from the samples.
						if fromSamples == nil {
							fromSamples = want
						} else if !slices.Equal(want, fromSamples) {
							t.Fatalf("%v %v mode %d lead %d: input %d gives other rows than the samples", shape, x.elem(), n, lead, in)
						}
					}
				}
			}
		}
	}
}

// residentReads is a SliceSource read at most max readUnits at a time.
type residentReads struct {
	*SliceSource
	max int
}

func (s *residentReads) MaxRead() int { return s.max * readUnit }

// TestPassOrder: the fits of every method and both kinds of TVP mode
// update (rows passes and sum passes) are the same bit for bit whatever
// the number of goroutines and the reads (here of one unit each, several
// reads and a partial last grain): the leaves and pieces each member
// takes change, the fixed reduction tree does not.
func TestPassOrder(t *testing.T) {
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
				ref, src := fitOrFatal(t, data, M, shape, opts)
				for _, threads := range []int{1, 2, 3} {
					opts.Threads = threads
					var m Model
					if err := m.Fit(src, opts); err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(&m, ref) {
						t.Errorf("%v %v %v: %d threads differ from 1", shape, c, upd, threads)
					}
					reads := &residentReads{SliceSource: src, max: 1}
					if err := m.Fit(reads, opts); err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(&m, ref) {
						t.Errorf("%v %v %v: %d threads, reads of one unit, differ from 1 thread", shape, c, upd, threads)
					}
				}
			}
		}
	}
}

// cacheKeyPasses are the passes of TestRunCachedKey and
// TestPassPartialCacheKey on samples of shape 3 x 5 x 5, in order, with
// whether each may be made from the cache the ones before leave.
var cacheKeyPasses = []struct {
	mode, lead int
	change     bool // change vs[lead-1] before the pass
	fromCache  bool
}{
	{0, 3, false, false}, // fills the cache of mode 2
	{1, 3, false, true},  // reads it
	{2, 2, false, false}, // mode 1 with the same vector: must not read mode 2's
	{0, 2, false, true},
	{0, 2, true, false}, // u^(1) changed in place
	{2, 1, false, false},
	{1, 1, false, true},
	{2, 0, false, true}, // Lead 0 and 1: the same order and cache (a session's cache size differs)
}

// TestRunCachedKey: the runner's cache serves a pass only when it holds
// the samples contracted in the pass's cache mode with the pass's vector
// of that mode: here the vectors of modes 1 and 2 are equal (modes of
// equal size), so only the mode tells the caches apart, and a vector
// changed in place (as a mode update does) makes the runner read the
// samples again. Every pass gives the rows made from the samples alone.
func TestRunCachedKey(t *testing.T) {
	const M = 40
	shape := []int{3, 5, 5}
	data := randomTensors(17, M, shape)
	src := must(NewSliceSource(data, M, shape))
	r := newRunner(src, prod(shape), 2)
	defer r.close()
	r.z = make([]float64, M*25)
	u := []float64{0.3, -0.2, 0.5, 0.1, 0.7}
	vs := [][]float64{{0.2, 0.9, -0.4}, u, slices.Clone(u)}
	for i, c := range cacheKeyPasses {
		if c.change {
			vs[c.lead-1][0] += 0.25
		}
		p := &Pass{Op: OpModeRows, Shape: shape, Samples: M, Mode: c.mode, Vectors: vs, Lead: c.lead}
		want := make([]float64, M*shape[c.mode])
		if err := r.Run(p, want); err != nil {
			t.Fatal(err)
		}
		reads := 0
		counted := &readCounter{Source: src}
		r.src = counted
		got := make([]float64, len(want))
		if err := r.runCached(p, got); err != nil {
			t.Fatal(err)
		}
		r.src, reads = src, counted.n
		if (reads == 0) != c.fromCache || !slices.Equal(got, want) {
			t.Errorf("pass %d (mode %d, lead %d): %d reads, want from the cache %v; rows equal %v", i, c.mode, c.lead, reads, c.fromCache, slices.Equal(got, want))
		}
	}
}

// TestSumFloat32: the sum pass finds the first sample holding a value
// that is not a float32 value (0.1, 1 + 2^-40 and 1e300 are not; 0.5,
// -0.0 and 2^100 are; -1 when there is none), the same whatever the
// threads and blocks (the index folds like the first non-finite one's);
// float32 samples hold none.
func TestSumFloat32(t *testing.T) {
	const M = 3*grain + 5
	shape := []int{4, 3}
	size := prod(shape)
	for _, c := range []struct {
		at   int
		bad  float64
		want int
	}{{-1, 0, -1}, {40, 0.1, 40}, {0, 1 + 0x1p-40, 0}, {M - 1, 1e300, M - 1}, {17, 0.5, -1}, {3, math.Copysign(0, -1), -1}, {9, 0x1p100, -1}} {
		x := make([]float64, M*size)
		for i := range x {
			x[i] = float64(i%251) - 7.25
		}
		if c.at >= 0 {
			x[c.at*size+5] = c.bad
			if c.want >= 0 && c.at+1 < M {
				x[(c.at+1)*size+1] = 0.3 // the next sample too: the first one counts
			}
		}
		x32 := make([]float32, len(x))
		for i, v := range x {
			x32[i] = float32(v)
		}
		wantOf := func(b Block) int {
			if b.F32 != nil {
				return -1
			}
			return c.want
		}
		for _, b := range []Block{{F64: x}, {F32: x32}} {
			p := &Pass{Op: OpSum, Shape: shape, Samples: M}
			for _, threads := range []int{1, 2} {
				var src Source = must(NewSliceSource(x, M, shape))
				if b.F32 != nil {
					src = must(NewSliceSource(x32, M, shape))
				}
				r := newRunner(src, size, threads)
				out := make([]float64, p.PartialLen())
				if err := r.Run(p, out); err != nil {
					t.Fatal(err)
				}
				r.close()
				if got, want := int(out[size+1]), wantOf(b); got != want {
					t.Errorf("%v at %d, %v, %d threads: first sample with a value not float32 %d, want %d", c.bad, c.at, b.elem(), threads, got, want)
				}
			}
			var f Fold
			f.Pass = p
			for first := 0; first < M; first += grain {
				n := min(grain, M-first)
				for _, s := range p.BlockSpans(NewWorkspace(), first, b.slice(first*size, (first+n)*size)) {
					f.Add(s)
				}
			}
			if got, want := int(f.Result()[size+1]), wantOf(b); got != want {
				t.Errorf("%v at %d, %v, in blocks: first sample with a value not float32 %d, want %d", c.bad, c.at, b.elem(), got, want)
			}
		}
	}
}

// hiddenSource hides a source's Resident method: its samples are read
// only through Read.
type hiddenSource struct{ s *SliceSource }

func (h hiddenSource) Shape() []int                     { return h.s.Shape() }
func (h hiddenSource) Len() int                         { return h.s.Len() }
func (h hiddenSource) Read(start, n int) (Block, error) { return h.s.Read(start, n) }

// TestRowsBlock: rows passes read samples held in memory in one read of
// all M (one task of the team a pass), but take reads of r.block from a
// source that is not resident, that bounds its reads (MaxRead), or whose
// reads are scaled copies; and the fit is the same bits either way
// (TestPassOrder compares reads of one unit with one read).
func TestRowsBlock(t *testing.T) {
	const M = 3*readUnit + 17
	shape := []int{5, 4, 3}
	src := must(NewSliceSource(randomTensors(2, M, shape), M, shape))
	size := prod(shape)
	for _, c := range []struct {
		name string
		src  Source
		all  bool
	}{
		{"resident", &scaledSource{Source: src}, true},
		{"scaled", &scaledSource{Source: src, exp: 3}, false},
		{"reads of one unit", &scaledSource{Source: &residentReads{SliceSource: src, max: 1}}, false},
		{"not resident", &scaledSource{Source: hiddenSource{src}}, false},
	} {
		r := newRunner(c.src, size, 2)
		r.block = readUnit // several reads
		want := r.block
		if c.all {
			want = M
		}
		if got := r.rowsBlock(); got != want {
			t.Errorf("%s: rows passes read %d samples at a time, want %d", c.name, got, want)
		}
	}
}
