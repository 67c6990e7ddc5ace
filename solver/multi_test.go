package solver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// multiModel returns a fitted-looking TVP model (or, pca, a PCA model on
// the vectorised samples) of shape dims and P features with random
// vectors of magnitude about scale and a random mean.
func multiModel(rng *rand.Rand, dims []int, P int, scale float64, pca bool) *Model {
	size := prod(dims)
	m := &Model{Method: SOMPCA, Shape: dims, Mean: make([]float64, size), Variance: make([]float64, P)}
	for i := range m.Mean {
		m.Mean[i] = 255 * rng.Float64()
	}
	rows := dims
	if pca {
		m.Method, rows = PCA, []int{size}
	}
	for _, d := range rows {
		U := mat.NewDense(d, P, nil)
		for i := range d {
			for p := range P {
				U.Set(i, p, scale*(2*rng.Float64()-1))
			}
		}
		m.Projections = append(m.Projections, U)
	}
	return m
}

// multiSamples returns M samples of dims with values 0..255 (ints:
// integers, else with fractions) as elem.
func multiSamples(rng *rand.Rand, M int, dims []int, elem Elem, ints bool) (Source, []float64) {
	x := make([]float64, M*prod(dims))
	for i := range x {
		x[i] = float64(rng.IntN(256))
		if !ints {
			x[i] += rng.Float64()
		}
	}
	switch elem {
	case Uint8:
		u := make([]uint8, len(x))
		for i, v := range x {
			u[i] = uint8(v)
		}
		return must(NewSliceSource(u, M, dims)), x
	case Float32:
		f := make([]float32, len(x))
		for i, v := range x {
			f[i] = float32(v)
			x[i] = float64(f[i])
		}
		return must(NewSliceSource(f, M, dims)), x
	}
	return must(NewSliceSource(x, M, dims)), x
}

// multiReference returns the features of the samples x by their
// definition, with explicit loops in float64: y_p = sum over every
// element of (x - mean) times the product of the features' vector
// entries, and for each a bound on the rounding of any order of that
// sum (sum |x| |k| + sum |mean| |k|, k the Kronecker vector).
func multiReference(m *Model, x []float64, M int) (want, bound []float64) {
	dims := m.Shape
	size, P := prod(dims), m.Components()
	want, bound = make([]float64, M*P), make([]float64, M*P)
	idx := make([]int, len(dims))
	for s := range M {
		xs := x[s*size : (s+1)*size]
		for p := range P {
			var y, b float64
			for e := range size {
				k := 1.0
				if len(m.Projections) == 1 && len(dims) > 1 {
					k = m.Projections[0].At(e, p)
				} else {
					r := e
					for n := len(dims) - 1; n >= 0; n-- {
						idx[n] = r % dims[n]
						r /= dims[n]
					}
					for n, U := range m.Projections {
						k *= U.At(idx[n], p)
					}
				}
				y += (xs[e] - m.Mean[e]) * k
				b += (math.Abs(xs[e]) + math.Abs(m.Mean[e])) * math.Abs(k)
			}
			want[s*P+p], bound[s*P+p] = y, b
		}
	}
	return want, bound
}

// TestMultiTransform: the transform of TVP and PCA models (multi.go, and
// transformLeaf where the last mode is longer than kernel.MultiMax)
// equals the features by their definition within 1e-12 of the rounding
// bound of multiReference (the exact uint8 contraction and the float64
// one both err by a few 2^-53 of it), for orders 1 to 4, every element
// type, P from 1 to more than any I_n and past the kernels' multiples of
// 16 and 32, odd sizes; and the same bits whatever the number of threads
// and however the samples are split into blocks, and as transformLeaf's
// (the features one by one, as before) within the same bound.
func TestMultiTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const M = 37
	for _, c := range []struct {
		dims  []int
		P     int
		scale float64
		pca   bool
	}{
		{[]int{7}, 3, 1, false},
		{[]int{300}, 2, 1, false}, // longer than kernel.MultiMax: transformLeaf
		{[]int{5, 3}, 1, 1, false},
		{[]int{5, 3}, 6, 1, false}, // P > every I_n
		{[]int{3, 257}, 2, 1, false},
		{[]int{4, 3, 5}, 17, 0.3, false},
		{[]int{3, 90, 3}, 33, 1, false}, // k = 2: two modes after the kernel
		{[]int{2, 3, 2, 5}, 40, 1, false},
		{[]int{32, 22, 10}, 32, 0.1, false},
		{[]int{6, 5}, 7, 1, true},
		{[]int{4, 3, 5}, 5, 1e-300, false}, // no fixed point: the float64 route for uint8
	} {
		for _, elem := range []Elem{Uint8, Float32, Float64} {
			for _, ints := range []bool{true, false} {
				if elem == Uint8 && !ints {
					continue
				}
				name := fmt.Sprintf("%v/P%d/%v/ints=%v/pca=%v/scale=%g", c.dims, c.P, elem, ints, c.pca, c.scale)
				m := multiModel(rng, c.dims, c.P, c.scale, c.pca)
				src, x := multiSamples(rng, M, c.dims, elem, ints)
				want, bound := multiReference(m, x, M)
				var first []float64
				for _, threads := range []int{1, 2, 3} {
					got, err := m.transform(nil, src, threads, nil, false)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if first == nil {
						first = got
						for i := range got {
							if !(math.Abs(got[i]-want[i]) <= 1e-12*bound[i]) {
								t.Fatalf("%s: feature %d = %v, by definition %v (bound %g)", name, i, got[i], want[i], bound[i])
							}
						}
						continue
					}
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
							t.Fatalf("%s: %d threads: feature %d = %v, 1 thread %v", name, threads, i, got[i], first[i])
						}
					}
				}
				// The pass on blocks of 1, 5 and all samples, and one by
				// one feature (transformLeaf).
				pass, ws := multiPass(m, M), NewWorkspace()
				blk, _ := src.Read(0, M)
				size := prod(c.dims)
				for _, step := range []int{1, 5, M} {
					got := make([]float64, M*c.P)
					for lo := 0; lo < M; lo += step {
						hi := min(lo+step, M)
						pass.Partial(ws, got[lo*c.P:hi*c.P], lo, blk.slice(lo*size, hi*size))
					}
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
							t.Fatalf("%s: blocks of %d: feature %d = %v, the transform %v", name, step, i, got[i], first[i])
						}
					}
				}
				ws.ready(pass)
				old := make([]float64, M*c.P)
				pass.transformLeaf(ws, old, blk, M, size)
				for i := range old {
					if !(math.Abs(old[i]-first[i]) <= 1e-12*bound[i]) {
						t.Fatalf("%s: feature %d = %v, one by one %v (bound %g)", name, i, first[i], old[i], bound[i])
					}
				}
			}
		}
	}
}

// multiPass is the pass Model.transform makes for m's TVP features.
func multiPass(m *Model, M int) *Pass {
	dims := m.Shape
	if len(m.Projections) == 1 && len(dims) > 1 {
		dims = []int{len(m.Mean)}
	}
	P := m.Components()
	vs := make([][][]float64, P)
	c := newContractor(dims)
	off := make([]float64, P)
	for p := range P {
		for _, U := range m.Projections {
			vs[p] = append(vs[p], mat.Col(nil, p, U))
		}
		off[p] = c.full(Block{F64: m.Mean}, vs[p])
	}
	return &Pass{Op: OpTransform, Shape: dims, Samples: M, Features: vs, Offset: off}
}

// TestMultiTransformErrors: a NaN or Inf is an error naming its sample
// (the first bad one), on the float64 route of the many-feature
// transform too; a canceled transform stops with ErrCanceled.
func TestMultiTransformErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	dims := []int{4, 3, 5}
	m := multiModel(rng, dims, 9, 1, false)
	for _, elem := range []Elem{Float32, Float64} {
		for _, bad := range []float64{math.NaN(), math.Inf(-1)} {
			_, x := multiSamples(rng, 20, dims, Float64, false)
			x[11*60+17], x[15*60] = bad, bad
			var src Source = must(NewSliceSource(x, 20, dims))
			if elem == Float32 {
				f := make([]float32, len(x))
				for i, v := range x {
					f[i] = float32(v)
				}
				src = must(NewSliceSource(f, 20, dims))
			}
			_, err := m.TransformTo(nil, src)
			var se *SampleError
			if !errors.Is(err, ErrData) || !errors.As(err, &se) || se.Index != 11 || !strings.Contains(err.Error(), "sample 11 ") {
				t.Errorf("%v %v in samples 11 and 15: %v", elem, bad, err)
			}
		}
	}
	src, _ := multiSamples(rng, 600, dims, Uint8, true)
	if _, err := m.TransformToCancel(nil, src, func() bool { return true }); !errors.Is(err, ErrCanceled) {
		t.Errorf("canceled transform: %v", err)
	}
}
