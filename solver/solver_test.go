package solver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/sompca/sompca/solver/internal/eigen"
)

// randomTensors returns m samples of the given shape: Gaussian noise plus
// a few random rank-one components, so that eigenvalues are distinct.
func randomTensors(seed uint64, m int, shape []int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	size := 1
	for _, d := range shape {
		size *= d
	}
	x := make([]float64, m*size)
	for i := range x {
		x[i] = rng.NormFloat64() + 3
	}
	for range 3 {
		comp := make([]float64, size)
		for i := range comp {
			comp[i] = 1
		}
		stride := size
		for _, d := range shape {
			stride /= d
			v := make([]float64, d)
			for j := range v {
				v[j] = rng.NormFloat64()
			}
			for i := range comp {
				comp[i] *= v[(i/stride)%d]
			}
		}
		for s := range m {
			a := 3 * rng.NormFloat64()
			floats.AddScaled(x[s*size:(s+1)*size], a, comp)
		}
	}
	return x
}

var testShapes = [][]int{{9}, {7, 5}, {4, 7, 3}, {3, 5, 2, 4}}

type methodCase struct {
	method Method
	rs     bool
}

var tvpCases = []methodCase{
	{SOMPCA, false}, {SOMPCA, true}, {FOMPCA, false}, {FOMPCA, true},
	{TROD, false}, {TROD, true}, {UMPCA, false}, {UMPCA, true},
}

func (c methodCase) String() string {
	if c.rs {
		return c.method.String() + "-rs"
	}
	return c.method.String()
}

func fitOrFatal(t testing.TB, data []float64, m int, shape []int, opts Options) (*Model, *SliceSource) {
	t.Helper()
	src, err := NewSliceSource(data, m, shape)
	if err != nil {
		t.Fatal(err)
	}
	var model Model
	if err := model.Fit(src, opts); err != nil {
		t.Fatalf("%v: %v", opts.Method, err)
	}
	return &model, src
}

// TestInvariants checks, on random tensors of orders 1 to 4, what the
// math guarantees for every TVP method: unit vectors; orthonormal nu-mode
// vectors for SO-MPCA and every mode for FO-MPCA; uncorrelated training
// features for UMPCA; captured variance equal to the sample variance of
// the transformed training data; the exactly uniform first EMP of relaxed
// start; and objectives that do not decrease over the sweeps.
func TestInvariants(t *testing.T) {
	const M = 23
	for si, shape := range testShapes {
		data := randomTensors(uint64(si+1), M, shape)
		for _, c := range tvpCases {
			t.Run(fmt.Sprintf("%v/%v", shape, c), func(t *testing.T) {
				model, src := fitOrFatal(t, data, M, shape, Options{Method: c.method, RelaxedStart: c.rs})
				P := model.Components()
				for n, U := range model.Projections {
					for j := range P {
						if nrm := floats.Norm(mat.Col(nil, j, U), 2); math.Abs(nrm-1) > 1e-12 {
							t.Errorf("mode %d vector of feature %d has norm %v", n, j, nrm)
						}
					}
					if c.method == FOMPCA || (c.method == SOMPCA && n == model.Mode) {
						var G mat.Dense
						G.Mul(U.T(), U) // orthonormal columns: U^T U = I
						if !mat.EqualApprox(&G, eye(P), 1e-12) {
							t.Errorf("mode %d vectors are not orthonormal:\n%v", n+1, mat.Formatted(&G))
						}
					}
				}
				feats, err := model.TransformTo(nil, src)
				if err != nil {
					t.Fatal(err)
				}
				F := mat.NewDense(M, P, feats)
				for j := range P {
					v := stat.Variance(mat.Col(nil, j, F), nil) // divides by M-1
					if math.Abs(v-model.Variance[j]) > 1e-10*model.Variance[j] {
						t.Errorf("feature %d: captured variance %v, variance of its training features %v", j, model.Variance[j], v)
					}
				}
				if c.method == UMPCA {
					var cov mat.SymDense
					stat.CovarianceMatrix(&cov, F, nil)
					for i := range P {
						for j := range i {
							if r := cov.At(i, j) / math.Sqrt(cov.At(i, i)*cov.At(j, j)); math.Abs(r) > 1e-9 {
								t.Errorf("UMPCA features %d and %d have correlation %v", i, j, r)
							}
						}
					}
				}
				if c.rs {
					j := indexOf(model.Extraction, 0)
					for n, U := range model.Projections {
						want := 1 / math.Sqrt(float64(shape[n]))
						for i := range shape[n] {
							if U.At(i, j) != want {
								t.Fatalf("relaxed start: mode %d entry %d of the first EMP is %v, want exactly %v", n+1, i, U.At(i, j), want)
							}
						}
					}
				}
				checkMonotone(t, model, c)
			})
		}
	}
}

// checkMonotone checks that each EMP's objective does not decrease over
// its sweeps. Every mode update maximises the objective over a set that
// holds the current vector, once that vector satisfies the constraint;
// the uniform start satisfies it only for TROD and for the first EMP
// of the other methods, so elsewhere the check starts after sweep 1.
func checkMonotone(t *testing.T, model *Model, c methodCase) {
	t.Helper()
	for j, h := range model.History {
		from := 1
		if c.method == TROD || (model.Extraction[j] == 0 && !c.rs) {
			from = 0
		}
		for k := from; k+1 < len(h); k++ {
			if h[k+1] < h[k]-1e-10*math.Abs(h[k]) {
				t.Errorf("EMP %d: objective fell from %v to %v in sweep %d", model.Extraction[j]+1, h[k], h[k+1], k+1)
			}
		}
	}
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := range n {
		d.Set(i, i, 1)
	}
	return d
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestOrder1SOMPCAIsPCA: for vectors (N = 1) an EMP is one unit vector and
// SO-MPCA's constraint is PCA's, so both give the same projections and
// variances (up to sign), whatever the number of sweeps.
func TestOrder1SOMPCAIsPCA(t *testing.T) {
	const M = 30
	shape := []int{11}
	data := randomTensors(3, M, shape)
	so, _ := fitOrFatal(t, data, M, shape, Options{Method: SOMPCA})
	pca, _ := fitOrFatal(t, data, M, shape, Options{Method: PCA, Components: 11})
	if ok, d := closeTo(so.Variance, pca.Variance, 1e-10); !ok {
		t.Errorf("variances differ by %.3g:\nso-mpca %v\npca     %v", d, so.Variance, pca.Variance)
	}
	want := &fixArray{Shape: []int{11, 11}, Data: pca.Projections[0].RawMatrix().Data}
	if err := columnsUpToSign(so.Projections[0], want, 1e-8); err != nil {
		t.Error(err)
	}
}

// TestCompleteBasis: with P = I_nu, SO-MPCA's nu-mode vectors are I_nu
// orthonormal vectors in R^I_nu, a complete basis: U U^T = I as well.
func TestCompleteBasis(t *testing.T) {
	const M = 17
	for _, rs := range []bool{false, true} {
		shape := []int{4, 6, 3}
		model, _ := fitOrFatal(t, randomTensors(5, M, shape), M, shape, Options{Method: SOMPCA, RelaxedStart: rs, Components: 6})
		if model.Mode != 1 {
			t.Fatalf("mode = %d, want 1 (argmax of %v, 0-based)", model.Mode, shape)
		}
		U := model.Projections[1]
		var G mat.Dense
		G.Mul(U, U.T())
		if !mat.EqualApprox(&G, eye(6), 1e-12) {
			t.Errorf("rs=%v: U U^T != I:\n%v", rs, mat.Formatted(&G))
		}
	}
}

// TestElementTypes: the same integer-valued samples as float64, float32
// and uint8 give the same model (kernels accumulate in float64; only the
// order of additions may differ).
func TestElementTypes(t *testing.T) {
	const M = 40
	shape := []int{6, 5, 4}
	rng := rand.New(rand.NewPCG(9, 9))
	u8 := make([]uint8, M*120)
	for i := range u8 {
		u8[i] = uint8(rng.IntN(256))
	}
	f32 := make([]float32, len(u8))
	f64 := make([]float64, len(u8))
	for i, v := range u8 {
		f32[i], f64[i] = float32(v), float64(v)
	}
	for _, c := range append(tvpCases, methodCase{PCA, false}, methodCase{MPCA, false}, methodCase{CSA, false}) {
		opts := Options{Method: c.method, RelaxedStart: c.rs}
		want, _ := fitOrFatal(t, f64, M, shape, opts)
		for name, src := range map[string]Source{"float32": must(NewSliceSource(f32, M, shape)), "uint8": must(NewSliceSource(u8, M, shape))} {
			var got Model
			if err := got.Fit(src, opts); err != nil {
				t.Fatal(err)
			}
			if ok, d := closeTo(got.Variance, want.Variance, 1e-10); !ok {
				t.Errorf("%v %s: variances differ from float64 by %.3g", c, name, d)
			}
			for n := range got.Projections {
				if !mat.EqualApprox(got.Projections[n], want.Projections[n], 1e-8) {
					t.Errorf("%v %s: mode %d projections differ from float64", c, name, n+1)
				}
			}
		}
	}
}

// TestDeterminism: results do not depend on the number of goroutines nor
// on how the passes split the data into reads, and fitting twice on the
// same receiver gives the same model (bit for bit in both cases).
func TestDeterminism(t *testing.T) {
	const M = 3*readUnit + 17 // several reads, the last grain partial
	shape := []int{5, 4, 3}
	frac := randomTensors(11, M, shape)
	for _, data := range [][]float64{frac, byteValues(frac)} { // the sweep's two orders (tvpFit.lead)
		for _, c := range append(tvpCases, methodCase{PCA, false}, methodCase{MPCA, false}) {
			ref, src := fitOrFatal(t, data, M, shape, Options{Method: c.method, RelaxedStart: c.rs, Threads: 1, Components: 3})
			var m Model
			for _, threads := range []int{3, 2, 7} {
				if err := m.Fit(src, Options{Method: c.method, RelaxedStart: c.rs, Threads: threads, Components: 3}); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(&m, ref) {
					t.Errorf("%v: fit with %d threads differs from 1 thread", c, threads)
				}
			}
			small := &smallReads{src: src, max: 1}
			if err := m.Fit(small, Options{Method: c.method, RelaxedStart: c.rs, Components: 3}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&m, ref) {
				t.Errorf("%v: fit through one-unit reads differs", c)
			}
		}
	}
}

// smallReads is a Source that copies each read into a fresh buffer and
// reports a preferred read of at most max grains.
type smallReads struct {
	src Source
	max int
}

func (s *smallReads) Shape() []int { return s.src.Shape() }
func (s *smallReads) Len() int     { return s.src.Len() }
func (s *smallReads) Read(start, n int) (Block, error) {
	b, err := s.src.Read(start, n)
	return Block{F64: append([]float64(nil), b.F64...)}, err
}
func (s *smallReads) MaxRead() int { return s.max * readUnit }

// TestTol: tol > 0 stops EMPs early, and every stop is where the relative
// change of the objective first fell to tol.
func TestTol(t *testing.T) {
	const M = 30
	shape := []int{6, 7}
	tol := 1e-4
	model, _ := fitOrFatal(t, randomTensors(13, M, shape), M, shape, Options{Method: SOMPCA, Tol: tol, Order: ByExtraction})
	early := false
	for j, h := range model.History {
		it := model.Iterations[j]
		if len(h) != it+1 {
			t.Fatalf("feature %d: %d history values for %d sweeps", j, len(h), it)
		}
		for k := 1; k <= it; k++ {
			stop := math.Abs(h[k]-h[k-1]) <= tol*math.Abs(h[k-1])
			if stop != (k == it) && k != 20 {
				t.Errorf("feature %d: sweep %d change %v, stopped after %d", j, k, math.Abs(h[k]-h[k-1])/h[k-1], it)
			}
		}
		early = early || it < 20
	}
	if !early {
		t.Error("tol = 1e-4 stopped no EMP early")
	}
}

// TestProgressCancel: the callback sees each EMP, and returning false
// stops the fit with ErrCanceled, leaving the receiver as it was.
func TestProgressCancel(t *testing.T) {
	const M = 20
	shape := []int{5, 6}
	src := must(NewSliceSource(randomTensors(2, M, shape), M, shape))
	var calls []int
	var m Model
	err := m.Fit(src, Options{Progress: func(done, total int, v float64) bool {
		calls = append(calls, done)
		if total != 6 || v <= 0 {
			t.Errorf("progress(%d, %d, %v)", done, total, v)
		}
		return done < 2
	}})
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("err = %v, want ErrCanceled", err)
	}
	if !reflect.DeepEqual(calls, []int{1, 2}) || m.Fitted() {
		t.Errorf("calls %v, fitted %v", calls, m.Fitted())
	}
}

// TestErrors: bad input gives an error that names what is wrong.
func TestErrors(t *testing.T) {
	shape := []int{4, 6}
	good := randomTensors(1, 10, shape)
	nan := append([]float64(nil), good...)
	nan[7*24+3] = math.NaN()
	inf := append([]float64(nil), good...)
	inf[2*24] = math.Inf(-1)
	same := make([]float64, 10*24)
	for i := range same {
		same[i] = float64(i % 24)
	}
	cases := []struct {
		name string
		data []float64
		m    int
		opts Options
		want string
	}{
		{"so-mpca P > I_nu", good, 10, Options{Components: 7}, "at most I_nu = 6 (the size of orthogonal mode 1)"},
		{"fo-mpca P > min I", good, 10, Options{Method: FOMPCA, Components: 5}, "min_n I_n = 4"},
		{"umpca P > M-1", good[:4*24], 4, Options{Method: UMPCA, Components: 4}, "min(min_n I_n, M-1) = 3"},
		{"trod P > prod I", good, 10, Options{Method: TROD, Components: 25}, "prod_n I_n = 24"},
		{"pca P > M-1", good, 10, Options{Method: PCA, Components: 10}, "at most min(M-1, prod_n I_n) = 9"},
		{"mpca P > prod P_n", good, 10, Options{Method: MPCA, Components: 25}, "mode ranks"},
		{"mode too large", good, 10, Options{Mode: OrthogonalMode(2)}, "orthogonal mode 2 outside 0..1 (0-based)"},
		{"mode negative", good, 10, Options{Mode: OrthogonalMode(-1)}, "orthogonal mode -1 outside 0..1"},
		{"one sample", good[:24], 1, Options{}, "1 samples: a fit needs at least 2"},
		{"NaN", nan, 10, Options{}, "sample 7 holds a NaN or Inf"},
		{"Inf", inf, 10, Options{Method: PCA}, "sample 2 holds a NaN or Inf"},
		{"zero variance", same, 10, Options{}, "zero variance"},
		{"relaxed pca", good, 10, Options{Method: PCA, RelaxedStart: true}, "relaxed start applies only"},
		{"negative P", good, 10, Options{Components: -1}, "Components = -1"},
		{"bad Q", good, 10, Options{Method: MPCA, Q: 1.5}, "Q = 1.5"},
		{"bad method", good, 10, Options{Method: 42}, "unknown method"},
		{"negative tol", good, 10, Options{Tol: -1}, "Tol = -1"},
	}
	for _, c := range cases {
		src, err := NewSliceSource(c.data, c.m, shape)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var m Model
		err = m.Fit(src, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		shape []int
		n     int
		want  string
	}{
		{[]int{4, 0}, 0, "mode 1 of sample shape [4 0] has size 0"},
		{nil, 0, "empty sample shape"},
		{[]int{4, 6}, 23, "data has 240 elements, want 23 samples"},
	} {
		if _, err := NewSliceSource(good, c.n, c.shape); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewSliceSource(%v, %d): %v, want %q", c.shape, c.n, err, c.want)
		}
	}
	var m Model
	src := must(NewSliceSource(good, 10, shape))
	if _, err := m.TransformTo(nil, src); err == nil || !strings.Contains(err.Error(), "not fitted") {
		t.Errorf("transform before fit: %v", err)
	}
	if err := m.Fit(src, Options{}); err != nil {
		t.Fatal(err)
	}
	other := must(NewSliceSource(good, 10, []int{6, 4}))
	if _, err := m.TransformTo(nil, other); err == nil || !strings.Contains(err.Error(), "shape [6 4]") {
		t.Errorf("transform of another shape: %v", err)
	}
	if _, err := m.TransformTo(make([]float64, 5), src); err == nil || !strings.Contains(err.Error(), "destination has 5 values") {
		t.Errorf("transform into a short slice: %v", err)
	}
}

func TestParseMethod(t *testing.T) {
	for _, c := range []struct {
		in string
		m  Method
		rs bool
	}{{"so-mpca-rs", SOMPCA, true}, {"SO-MPCA", SOMPCA, false}, {"sompca_rs", SOMPCA, true}, {"trod-rs", TROD, true}, {"umpca", UMPCA, false}, {"Fo-Mpca", FOMPCA, false}, {"csa", CSA, false},
		// The estimators' names mean their default, relaxed start (issue 35: one vocabulary).
		{"sompca", SOMPCA, true}, {"SOMPCA", SOMPCA, true}, {"fompca", FOMPCA, true}} {
		m, rs, err := ParseMethod(c.in)
		if err != nil || m != c.m || rs != c.rs {
			t.Errorf("ParseMethod(%q) = %v, %v, %v", c.in, m, rs, err)
		}
	}
	for _, bad := range []string{"pca-rs", "so-pca", ""} {
		if _, _, err := ParseMethod(bad); err == nil {
			t.Errorf("ParseMethod(%q) succeeded", bad)
		}
	}
}

// byteValues returns data rounded to integers 0..255: samples of uint8
// values, float32 values too, which a TVP fit contracts in mode 1 first
// (tvpFit.lead).
func byteValues(data []float64) []float64 {
	out := make([]float64, len(data))
	for i, v := range data {
		out[i] = math.Min(255, math.Max(0, math.Round(20*v)))
	}
	return out
}

// TestContractionCache: the caches of X x_k u^(k) change how often the
// data are read, not one bit of the result: a fit with room for every
// cache, for the cache of X x_1 u^(1) only (then the passes of a sweep
// whose cache rows are longer read the samples) and for none is the same,
// on samples of uint8 values (float32 values: read as uint8 when there
// is room, as float64 when not) and on others.
func TestContractionCache(t *testing.T) {
	const M = grain + 9
	for _, shape := range [][]int{{4, 7, 3}, {3, 5, 2, 4}} {
		frac := randomTensors(21, M, shape)
		for _, data := range [][]float64{frac, byteValues(frac)} {
			for _, c := range tvpCases {
				opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 2, Threads: 2}
				with, src := fitOrFatal(t, data, M, shape, opts)
				// The smallest limit that holds the cache of X x_1 u^(1),
				// and one byte less.
				f, err := newFitter(src, opts)
				if err != nil {
					t.Fatal(err)
				}
				cache := int64(len(data)/shape[0]) * 8 // M x prod_{n>=2} I_n float64
				opts.MemoryLimit = f.workspaceBytes(2) + cache
				if f, err = newFitter(src, opts); err != nil || !f.cacheFits() {
					t.Fatalf("%v %v: limit %d: the cache does not fit (%v)", shape, c, opts.MemoryLimit, err)
				}
				var some Model
				if err := some.Fit(src, opts); err != nil {
					t.Fatal(err)
				}
				opts.MemoryLimit--
				if f, err = newFitter(src, opts); err != nil || f.cacheFits() {
					t.Fatalf("%v %v: limit %d: the cache fits (%v)", shape, c, opts.MemoryLimit, err)
				}
				var without Model
				if err := without.Fit(src, opts); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(with, &without) || !reflect.DeepEqual(with, &some) {
					t.Errorf("%v %v: the cache changes the fit (all caches = one: %v, all = none: %v)", shape, c, reflect.DeepEqual(with, &some), reflect.DeepEqual(with, &without))
				}
			}
		}
	}
}

// TestSweepReads: with its caches a TVP fit reads the samples twice a
// sweep when their values are all float32 values, as uint8 values are
// (Lead 0: a read for mode 2, whose cache of X x_1 u^(1) serves modes
// 2..N, and one for mode 1 by the Kronecker dot), and N times in N-1 sweeps otherwise (tvpFit.lead):
// order 3, K = 4 sweeps of one EMP, 8 against 6 (t = 0, 2, 4, 6, 8,
// 10); order 4, K = 3, 6 against 4 (t = 0, 3, 6, 9). Every other pass
// (the mean, the total scatter) is the same, so the difference is
// counted; without the caches both make the K N passes.
func TestSweepReads(t *testing.T) {
	const M = grain + 9 // one read a pass
	for _, c := range []struct {
		shape    []int
		k, saved int
	}{{[]int{4, 7, 3}, 4, 2}, {[]int{3, 5, 2, 4}, 3, 2}} {
		frac := randomTensors(5, M, c.shape)
		reads := func(data []float64, limit int64) int {
			src := &readCounter{Source: must(NewSliceSource(data, M, c.shape))}
			var m Model
			if err := m.Fit(src, Options{Method: SOMPCA, Components: 1, MaxIter: c.k, Threads: 2, MemoryLimit: limit}); err != nil {
				t.Fatal(err)
			}
			return src.n
		}
		single := make([]float64, len(frac))
		for i, v := range frac {
			single[i] = float64(float32(v))
		}
		if got := reads(byteValues(frac), 0) - reads(frac, 0); got != c.saved {
			t.Errorf("%v: the fit on fractions reads %d times less than on uint8 values, want %d", c.shape, got, c.saved)
		}
		if a, b := reads(single, 0), reads(byteValues(frac), 0); a != b {
			t.Errorf("%v: the fit reads %d times on float32 values, %d on uint8 values", c.shape, a, b)
		}
		f := must(newFitter(must(NewSliceSource(frac, M, c.shape)), Options{Method: SOMPCA, Components: 1}))
		tight := f.workspaceBytes(2) // no room for a cache
		if a, b := reads(byteValues(frac), tight), reads(frac, tight); a != b {
			t.Errorf("%v: without caches the fit reads %d times on float32 values, %d on fractions", c.shape, a, b)
		}
		// Three EMPs: the second and third read the samples contracted
		// with the uniform vector from runner.kept, one sample pass an
		// EMP less (keepStart off: they read the samples).
		reads3 := func(keep bool) int {
			src := &readCounter{Source: must(NewSliceSource(frac, M, c.shape))}
			var m Model
			if err := m.Fit(src, Options{Method: SOMPCA, Components: 3, MaxIter: c.k, Threads: 2, routes: &routes{keepStartOff: !keep}}); err != nil {
				t.Fatal(err)
			}
			return src.n
		}
		if got := reads3(false) - reads3(true); got != 2 {
			t.Errorf("%v: 3 EMPs read the samples %d times less with the kept uniform contraction, want 2", c.shape, got)
		}
	}
}

// TestMemoryLimitErrors: a negative limit is invalid; one below the
// workspaces is ErrMemory naming both sizes.
func TestMemoryLimitErrors(t *testing.T) {
	const M = 30
	shape := []int{4, 5, 3}
	src := must(NewSliceSource(randomTensors(3, M, shape), M, shape))
	var m Model
	if err := m.Fit(src, Options{MemoryLimit: -1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("MemoryLimit -1: %v, want ErrInvalid", err)
	}
	err := m.Fit(src, Options{MemoryLimit: 1000, Threads: 1})
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "1000 bytes") || !strings.Contains(err.Error(), "workspace") {
		t.Errorf("MemoryLimit 1000: %v, want ErrMemory naming the limit and the workspace", err)
	}
	if m.Fitted() {
		t.Error("a failed fit left a fitted model")
	}
}

// TestLanczos: above denseLimit the top eigenvectors come from Lanczos
// iterations; they must agree with the dense eigendecomposition, with and
// without the orthogonality constraint.
func TestLanczos(t *testing.T) {
	const M = 40
	shape := []int{140, 3}
	data := randomTensors(17, M, shape)
	for _, c := range []methodCase{{SOMPCA, false}, {SOMPCA, true}, {UMPCA, false}} {
		opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3}
		iter, _ := fitOrFatal(t, data, M, shape, opts)
		var dense *Model
		dopts := opts
		dopts.routes = &routes{eigen: eigen.Routes{DenseAll: true}}
		dense, _ = fitOrFatal(t, data, M, shape, dopts)
		if ok, d := closeTo(iter.Variance, dense.Variance, 1e-11); !ok {
			t.Errorf("%v: variances differ by %.3g", c, d)
		}
		for n := range shape {
			if !mat.EqualApprox(iter.Projections[n], dense.Projections[n], 1e-9) {
				t.Errorf("%v: mode %d vectors differ", c, n+1)
			}
		}
	}
}

// TestErrorKinds: errors carry their kind for errors.Is.
func TestErrorKinds(t *testing.T) {
	shape := []int{4, 6}
	good := randomTensors(1, 10, shape)
	nan := append([]float64(nil), good...)
	nan[30] = math.NaN()
	for _, c := range []struct {
		data []float64
		m    int
		opts Options
		kind error
	}{
		{good, 10, Options{Components: 7}, ErrInvalid},
		{good, 10, Options{Method: MPCA, Q: 2}, ErrInvalid},
		{good[:24], 1, Options{}, ErrData},
		{nan, 10, Options{}, ErrData},
	} {
		var m Model
		if err := m.Fit(must(NewSliceSource(c.data, c.m, shape)), c.opts); !errors.Is(err, c.kind) {
			t.Errorf("%+v: error %v is not %v", c.opts, err, c.kind)
		}
	}
	if _, err := NewSliceSource(good, 9, shape); !errors.Is(err, ErrShape) {
		t.Errorf("length mismatch: %v is not ErrShape", err)
	}
	var m Model
	if _, err := m.TransformTo(nil, must(NewSliceSource(good, 10, shape))); !errors.Is(err, ErrNotFitted) {
		t.Errorf("transform before fit: %v is not ErrNotFitted", err)
	}
}

// TestWorkerPanic: a panic inside a pass (here an index out of range:
// Coef holds coefficients for the first grain only) reaches the caller's
// goroutine, where it can be recovered.
func TestWorkerPanic(t *testing.T) {
	M := 4 * readUnit
	src := must(NewSliceSource(make([]float64, M*2), M, []int{2}))
	r := newRunner(src, 2, 2)
	defer r.close()
	defer func() {
		if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "panic in a pass") {
			t.Errorf("recovered %v, want the worker's panic", v)
		}
	}()
	p := &Pass{Op: OpModeScatter, Shape: []int{2}, Samples: M, Vectors: [][]float64{{1, 1}},
		Deflate: []float64{1, 1}, Coef: [][]float64{make([]float64, grain)}}
	_ = r.Run(p, make([]float64, p.PartialLen()))
	t.Error("the panic did not reach the caller")
}

// TestTransformNaN: a NaN or Inf in a sample to transform is an error
// that names the sample, for every kind of model.
func TestTransformNaN(t *testing.T) {
	shape := []int{4, 5}
	data := randomTensors(4, 12, shape)
	for _, c := range []methodCase{{SOMPCA, true}, {PCA, false}, {CSA, false}} {
		model, _ := fitOrFatal(t, data, 12, shape, Options{Method: c.method, RelaxedStart: c.rs})
		for _, bad := range []float64{math.NaN(), math.Inf(1)} {
			x := append([]float64(nil), data...)
			x[5*20+7] = bad
			_, err := model.TransformTo(nil, must(NewSliceSource(x, 12, shape)))
			if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "sample 5 ") {
				t.Errorf("%v, %v in sample 5: %v", c, bad, err)
			}
		}
	}
}

// TestDefaults compares the defaults table with the values the paper and
// the baselines' papers give: K = 20 sweeps and tol = 0 (Shi and Lu 2015,
// Sec. 5.1), relaxed start for SO-MPCA and FO-MPCA (Sec. 3.3), Q = 97%
// for MPCA and CSA (Lu et al. 2008), features by variance. The C and
// Python tests compare their surfaces with the same values.
func TestDefaults(t *testing.T) {
	relaxed := map[Method]bool{SOMPCA: true, FOMPCA: true}
	for m := SOMPCA; m <= CSA; m++ {
		want := Options{Method: m, RelaxedStart: relaxed[m], MaxIter: 20, Q: 0.97, Order: ByVariance}
		got := DefaultOptions(m)
		if got.Method != want.Method || got.RelaxedStart != want.RelaxedStart || got.MaxIter != want.MaxIter ||
			got.Tol != 0 || got.Q != want.Q || got.Order != want.Order || got.Mode != nil || got.Components != 0 || got.Threads != 0 {
			t.Errorf("DefaultOptions(%v) = %+v, want %+v", m, got, want)
		}
	}
	// nil Mode selects argmax_n I_n, 0-based: mode 2 of 3 x 4 x 5.
	const M = 9
	shape := []int{3, 4, 5}
	model, _ := fitOrFatal(t, randomTensors(3, M, shape), M, shape, DefaultOptions(SOMPCA))
	if model.Mode != 2 || !model.RelaxedStart || model.MaxIter != 20 {
		t.Errorf("fit with DefaultOptions(SOMPCA): mode %d, relaxed start %v, max_iter %d; want 2, true, 20", model.Mode, model.RelaxedStart, model.MaxIter)
	}
	model, _ = fitOrFatal(t, randomTensors(3, M, shape), M, shape, DefaultOptions(FOMPCA))
	if model.Mode != -1 {
		t.Errorf("fo-mpca model has mode %d, want -1", model.Mode)
	}
}

// TestUniformStartKept: the mode-1 partial projections at the uniform
// start, made by the first EMP that sweeps and copied by the later ones
// (tvpFit.start), give the fit that makes them anew in every EMP, bit for
// bit, for every TVP method (TROD keeps none), order and thread count.
// Three EMPs, so that with relaxed start (whose first EMP does not sweep)
// one EMP copies them. The shapes have prod_{k>1} I_k = startMinRest.
func TestUniformStartKept(t *testing.T) {
	const M = 40
	for i, shape := range [][]int{{3, 128}, {4, 8, 16}, {3, 4, 4, 8}} {
		frac := randomTensors(uint64(30+i), M, shape)
		for _, data := range [][]float64{frac, byteValues(frac)} { // order >= 3: tvpFit.start for float32 values, runner.kept for the others (tvpFit.lead)
			for _, c := range tvpCases {
				for _, threads := range []int{1, 2} {
					opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3, MaxIter: 3, Threads: threads, ModeUpdates: ModeUpdatesRows}
					if slices.Min(shape) < 3 && (c.method == FOMPCA || c.method == UMPCA) {
						opts.Components = 2 // their bound
					}
					kept, src := fitOrFatal(t, data, M, shape, opts)
					var anew Model
					aopts := opts
					aopts.routes = &routes{keepStartOff: true}
					err := anew.Fit(src, aopts)
					if err != nil {
						t.Fatal(err)
					}
					sameModelBits(t, kept, &anew, fmt.Sprintf("%v %v threads %d", shape, c, threads))
				}
			}
		}
	}
}

// TestUniformStartMemory: the partial projections at the uniform start are
// not part of the workspace a fit needs (they only save passes): SO-MPCA
// fits under the same smallest memory limit as TROD, whose workspace is
// the same formula without them (TROD's deflation changes its start, so it
// keeps none). Under that limit the fit makes them anew in every EMP; with
// room for them (M I_1 float64 more) it makes them once and reads the
// samples P - 2 times fewer (relaxed start: the first EMP does not sweep);
// the features are the same bits either way.
func TestUniformStartMemory(t *testing.T) {
	const M, P = 40, 4
	shape := []int{6, startMinRest} // order 2: no cache of partial contractions
	data := randomTensors(41, M, shape)
	src := must(NewSliceSource(data, M, shape))
	opts := Options{RelaxedStart: true, Components: P, MaxIter: 3, Threads: 1, ModeUpdates: ModeUpdatesRows}
	smallest := func(method Method) int64 {
		o := opts
		o.Method = method
		lo, hi := int64(1), int64(1<<24) // fails at lo, fits at hi
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			var m Model
			if err := m.Fit(src, withLimit(o, mid)); err == nil {
				hi = mid
			} else if errors.Is(err, ErrMemory) {
				lo = mid
			} else {
				t.Fatal(err)
			}
		}
		return hi
	}
	limit := smallest(SOMPCA)
	if trod := smallest(TROD); limit != trod {
		t.Fatalf("SO-MPCA needs a memory limit of %d bytes, TROD %d: the kept start is counted in the workspace", limit, trod)
	}
	opts.Method = SOMPCA
	fit := func(limit int64) (*Model, int) {
		c := &readCounter{Source: src}
		var m Model
		if err := m.Fit(c, withLimit(opts, limit)); err != nil {
			t.Fatal(err)
		}
		return &m, c.n
	}
	tight, tightReads := fit(limit)
	roomy, roomyReads := fit(limit + M*int64(shape[0])*8)
	if tightReads-roomyReads != P-2 {
		t.Errorf("reads: %d at the smallest limit, %d with room for the start: want %d fewer", tightReads, roomyReads, P-2)
	}
	sameModelBits(t, tight, roomy, "smallest limit vs room for the start")
	// Samples of fewer than startMinRest values past the first mode keep
	// none, whatever the room: as many reads as with keepStart off.
	small := []int{6, startMinRest - 1}
	smallSrc := must(NewSliceSource(randomTensors(42, M, small), M, small))
	reads := func() int {
		c := &readCounter{Source: smallSrc}
		var m Model
		if err := m.Fit(c, opts); err != nil {
			t.Fatal(err)
		}
		return c.n
	}
	withStart := reads()
	opts.routes = &routes{keepStartOff: true}
	without := reads()
	opts.routes = nil
	if withStart != without {
		t.Errorf("%v: %d reads, %d without keeping the start: want as many", small, withStart, without)
	}
}

func withLimit(o Options, limit int64) Options {
	o.MemoryLimit = limit
	return o
}
