package solver

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/eigen"
)

// From gram_test.go.

// TestPCAIntegerGram: PCA of integer samples (M < D, so the Gram path;
// P small beside M, so block Lanczos) by the exact integer Gram matrix
// agrees with the float64 Gram path within 1e-10 (both are within about
// 1e-13 lambda_1 / gap of the true eigenvectors: the Gram matrices differ
// by rounding, ~1e-16 relative, and Lanczos stops at residual 1e-13); a
// uint8 source and a float64 one holding the same values give the same
// model bit for bit, at 1 to 3 threads with every block product of the
// int32 operator (gramop.go) split between them: the float64 samples read
// as they are (NoNarrowing: a float64 copy, checked for integers, the map
// from it) and the uint8 ones, given or narrowed (where narrowing is on:
// narrowingExact), read where they are (residentU8, GramMapInt).
func TestPCAIntegerGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 18))
	const M = 300
	shape := []int{20, 31}
	u8 := make([]uint8, M*20*31)
	f64 := make([]float64, len(u8))
	for i := range u8 {
		u8[i] = uint8(rng.IntN(256))
		f64[i] = float64(u8[i])
	}
	opts := Options{Method: PCA, Components: 12, Threads: 1}
	if !eigen.LanczosFits(M, opts.Components) {
		t.Fatal("the case no longer takes block Lanczos with the int32 operator (gramop.go)")
	}
	copied := opts
	copied.NoNarrowing = true
	ref, src := fitOrFatal(t, f64, M, shape, copied)
	if f, err := newFitter(src, copied); err != nil {
		t.Fatal(err)
	} else if x16, _ := f.residentU8(nil); x16 != nil {
		t.Fatal("float64 samples read as they are took the uint8 path")
	}
	// Split every block product between the threads (IntGram.apply).
	opts.routes = &routes{eigen: eigen.Routes{SplitAll: true}}
	for _, threads := range []int{1, 2, 3} {
		opts.Threads = threads
		u8src, err := NewSliceSource(u8, M, shape)
		if err != nil {
			t.Fatal(err)
		}
		for what, src := range map[string]Source{"uint8": u8src, "narrowed float64": src} {
			if f, err := newFitter(src, opts); err != nil {
				t.Fatal(err)
			} else if x16, _ := f.residentU8(nil); x16 == nil && (what == "uint8" || narrowingExact(Uint8)) {
				t.Fatalf("%s source: not read as resident uint8", what)
			}
			var m Model
			if err := m.Fit(src, opts); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&m, ref) {
				t.Errorf("%s source, %d threads: model differs from the float64 source's read as it is", what, threads)
			}
		}
	}
	// Block Lanczos out of its budget: the tridiagonal path on the matrix
	// the operator forms (IntGram.sym), equal within the paths' accuracy.
	func() {
		opts := opts
		opts.routes = &routes{eigen: eigen.Routes{LanczosGiveUp: true}}
		u8src, err := NewSliceSource(u8, M, shape)
		if err != nil {
			t.Fatal(err)
		}
		var m Model
		if err := m.Fit(u8src, opts); err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(m.Projections[0].RawMatrix().Data, ref.Projections[0].RawMatrix().Data); d > 1e-10 {
			t.Errorf("Lanczos fallback: projections differ by %.3g", d)
		}
		for j, v := range ref.Variance {
			if math.Abs(v-m.Variance[j]) > 1e-12*ref.Variance[0] {
				t.Errorf("Lanczos fallback: variance %d: %v, want %v", j, m.Variance[j], v)
			}
		}
	}()
	opts.routes = &routes{eigen: eigen.Routes{FloatGram: true}}
	float, _ := fitOrFatal(t, f64, M, shape, opts)
	if reflect.DeepEqual(float, ref) {
		// The two Gram matrices round differently; equal bits would mean
		// the exact path was not taken.
		t.Error("the float64 Gram path gave the same bits: was the integer path taken?")
	}
	if d := maxAbsDiff(float.Projections[0].RawMatrix().Data, ref.Projections[0].RawMatrix().Data); d > 1e-10 {
		t.Errorf("projections differ from the float64 Gram path's by %.3g", d)
	}
	for j, v := range ref.Variance {
		if math.Abs(v-float.Variance[j]) > 1e-12*ref.Variance[0] {
			t.Errorf("variance %d: %v, float64 Gram path %v", j, v, float.Variance[j])
		}
	}
}

// From krylov_test.go.

// TestGramPath: mode updates from the partial projections (Krylov on
// Y^T Y, switching to the formed scatter past its budget) agree with the
// dense eigendecomposition of the formed scatter for every TVP method, on
// shapes above denseLimit, with M above and below I_n.
func TestGramPath(t *testing.T) {
	for _, c := range []struct {
		m     int
		shape []int
	}{{60, []int{40, 24}}, {20, []int{40, 24}}, {30, []int{20, 18, 5}}} {
		data := randomTensors(5, c.m, c.shape)
		for _, mc := range tvpCases {
			opts := Options{Method: mc.method, RelaxedStart: mc.rs, Components: 4}
			if mc.method == UMPCA {
				opts.Components = 3
			}
			iter, _ := fitOrFatal(t, data, c.m, c.shape, opts)
			var dense *Model
			dopts := opts
			dopts.routes = &routes{eigen: eigen.Routes{DenseAll: true}}
			dense, _ = fitOrFatal(t, data, c.m, c.shape, dopts)
			if ok, d := closeTo(iter.Variance, dense.Variance, 1e-11); !ok {
				t.Errorf("M = %d %v %v: variances differ by %.3g", c.m, c.shape, mc, d)
			}
			for n := range c.shape {
				if !mat.EqualApprox(iter.Projections[n], dense.Projections[n], 1e-10) {
					t.Errorf("M = %d %v %v: mode %d vectors differ", c.m, c.shape, mc, n+1)
				}
			}
		}
	}
}

// TestGramPathDeterminism: the Krylov products with the partial
// projections are split over threads in fixed chunks, so fits with the
// Krylov path are bit-identical whatever the number of threads.
func TestGramPathDeterminism(t *testing.T) {
	// Several reads, the last chunk partial: the products and the scatter
	// formation are dealt to the team per read (gramOp.layout, formS).
	const M = 2*readUnit + 3*4*grain + 7 // 4 grains: the eigen step's chunk of rows
	shape := []int{40, 6}
	data := randomTensors(12, M, shape)
	for _, c := range tvpCases {
		opts := Options{Method: c.method, RelaxedStart: c.rs, Threads: 1, Components: 3}
		ref, src := fitOrFatal(t, data, M, shape, opts)
		for _, threads := range []int{2, 3} {
			opts.Threads = threads
			var m Model
			if err := m.Fit(src, opts); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&m, ref) {
				t.Errorf("%v: fit with %d threads differs from 1 thread", c, threads)
			}
			// one-unit reads: another layout of the same trees
			if err := m.Fit(&smallReads{src: src, max: 1}, opts); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&m, ref) {
				t.Errorf("%v: fit with %d threads and one-unit reads differs from 1 thread", c, threads)
			}
		}
	}
}

// TestTuckerComplements: MPCA and CSA through the complement projectors
// (I - W W^T, and the full mode scatter from the first pass) give the fit
// of the direct projections U U^T: the identity U U^T = I - W W^T holds
// exactly, so they differ by rounding only. Q = 0.97 keeps ranks above
// I_n / 2 here (and the full rank in the 3-mode).
func TestTuckerComplements(t *testing.T) {
	const M = 90
	shape := []int{9, 7, 3}
	data := randomTensors(31, M, shape)
	for _, method := range []Method{MPCA, CSA} {
		opts := Options{Method: method}
		got, _ := fitOrFatal(t, data, M, shape, opts)
		off := opts
		off.routes = &routes{complementsOff: true}
		want, _ := fitOrFatal(t, data, M, shape, off)
		if !reflect.DeepEqual(got.Ranks, want.Ranks) {
			t.Fatalf("%v: ranks %v, want %v", method, got.Ranks, want.Ranks)
		}
		complement := false
		for n, r := range got.Ranks {
			complement = complement || 2*r > shape[n]
		}
		if !complement {
			t.Fatalf("%v: ranks %v: no mode goes through its complement", method, got.Ranks)
		}
		if ok, d := closeTo(got.Variance, want.Variance, 1e-11); !ok {
			t.Errorf("%v: variances differ by %.3g", method, d)
		}
		for n := range shape {
			if !mat.EqualApprox(got.Projections[n], want.Projections[n], 1e-10) {
				t.Errorf("%v: mode %d vectors differ", method, n)
			}
		}
	}
}

// readCounter counts the Reads of a source: each pass of a fit on fewer
// than readUnit samples reads once.
type readCounter struct {
	Source
	n int
}

func (c *readCounter) Read(start, n int) (Block, error) {
	c.n++
	return c.Source.Read(start, n)
}

// TestTuckerSkipsWholeModes: an MPCA mode update whose other modes are all
// kept at full rank (U U^T = I) makes no pass, and the fit is the one that
// makes it, bit for bit: the pass would give a zero scatter, to which the
// full mode scatter is added. Q = 1 keeps every mode whole on these data,
// so the fit reads them 4 times (the mean, the total variance, the full
// scatters, the core moments) instead of 4 + K N times; at Q = 0.97 (TestTuckerComplements' ranks) no
// mode update has every other mode whole, and no pass is skipped.
func TestTuckerSkipsWholeModes(t *testing.T) {
	const M, K = 90, 4
	shape := []int{9, 7, 3}
	data := randomTensors(31, M, shape)
	for _, c := range []struct {
		q           float64
		passes, all int
	}{{1, 4, 4 + K*len(shape)}, {0.97, 4 + K*len(shape), 4 + K*len(shape)}} {
		opts := Options{Method: MPCA, Q: c.q, MaxIter: K}
		fit := func() (*Model, int) {
			src := &readCounter{Source: must(NewSliceSource(data, M, shape))}
			var m Model
			if err := m.Fit(src, opts); err != nil {
				t.Fatal(err)
			}
			return &m, src.n
		}
		got, passes := fit()
		opts.routes = &routes{skipOff: true}
		want, all := fit()
		if passes != c.passes || all != c.all {
			t.Errorf("Q %v: %d passes, %d without skipping; want %d, %d", c.q, passes, all, c.passes, c.all)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Q %v (ranks %v): the fit differs from the one that makes every pass", c.q, got.Ranks)
		}
	}
}

// TestModeRowsPass: the rows of an OpModeRows pass (offset and TROD-style
// deflation included) have as Gram matrix the partial of the same
// OpModeScatter pass, and as cross term its Cross part (one leaf).
func TestModeRowsPass(t *testing.T) {
	const m = grain
	shape := []int{5, 4, 3}
	data := randomTensors(41, m, shape)
	rng := rand.New(rand.NewPCG(4, 2))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	coef := [][]float64{vec(m), vec(m)}
	for mode := range shape {
		In := shape[mode]
		p := Pass{Op: OpModeScatter, Shape: shape, Samples: m, Mode: mode,
			Vectors: [][]float64{vec(5), vec(4), vec(3)}, Offset: vec(In), Coef: coef, Deflate: vec(In * 2), Cross: true}
		scatter := make([]float64, p.PartialLen())
		p.Partial(NewWorkspace(), scatter, 0, Block{F64: data})
		p.Op, p.Cross = OpModeRows, false
		rows := make([]float64, m*p.RowLen())
		p.Partial(NewWorkspace(), rows, 0, Block{F64: data})
		Y := mat.NewDense(m, In, rows)
		var G, A mat.Dense
		G.Mul(Y.T(), Y)
		C := mat.NewDense(m, 2, nil)
		C.SetCol(0, coef[0])
		C.SetCol(1, coef[1])
		A.Mul(Y.T(), C)
		for i := range In {
			for j := i; j < In; j++ {
				if math.Abs(G.At(i, j)-scatter[i*In+j]) > 1e-12*math.Abs(G.At(i, i)) {
					t.Fatalf("mode %d: Gram (%d, %d) = %v, scatter pass %v", mode, i, j, G.At(i, j), scatter[i*In+j])
				}
			}
			for q := range 2 {
				if math.Abs(A.At(i, q)-scatter[In*In+i*2+q]) > 1e-12*math.Sqrt(G.At(i, i)*floats.Dot(coef[q], coef[q])) {
					t.Fatalf("mode %d: cross (%d, %d) = %v, scatter pass %v", mode, i, q, A.At(i, q), scatter[In*In+i*2+q])
				}
			}
		}
	}
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
