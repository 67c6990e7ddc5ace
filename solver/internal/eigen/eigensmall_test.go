package eigen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// TestSmallTop: smallTop's top pair against gonum's EigenSym (Dsyev) on
// matrices of every order up to smallTopMax with a known spectrum Q diag
// Q^T: well separated (gap 1 of 1..n), a top eigenvalue 1e-6 above the
// next, entries scaled by 1e-160 and 1e+160 (the reflectors' scaled
// norms), an already tridiagonal (diagonal) matrix and the zero matrix;
// from no warm vector, a warm vector near the answer, and the bottom
// eigenvector (so that the Rayleigh quotient iteration meets the wrong
// eigenvalue and Dsterf takes over). The value to 1e-13 relative, the
// vector to 1e-12 (both solvers' vector errors are about n eps ||S|| /
// gap: 1e-14 at gap 1, up to 1e-8 at gap 1e-6, where the check is 1e-7),
// signs by FixSign on both.
func TestSmallTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var w smallTop
	for n := 1; n <= smallTopMax; n++ {
		Q := randomOrthonormal(rng, n, n)
		for _, c := range []struct {
			name  string
			gap   float64
			scale float64
			diag  bool
		}{{"separated", 1, 1, false}, {"close", 1e-6, 1, false}, {"tiny", 1, 1e-160, false},
			{"huge", 1, 1e160, false}, {"diagonal", 1, 1, true}} {
			lambda := make([]float64, n)
			for i := range lambda {
				lambda[i] = float64(i+1) * c.scale
			}
			lambda[n-1] = (float64(max(n-1, 1)) + c.gap) * c.scale
			if n == 1 {
				lambda[0] = 2 * c.scale
			}
			S := mat.NewSymDense(n, nil)
			if c.diag {
				for i := range n {
					S.SetSym(i, i, lambda[(i+3)%n]) // top not first
				}
			} else {
				for i := range n {
					for j := i; j < n; j++ {
						s := 0.0
						for k := range n {
							s += Q.At(i, k) * lambda[k] * Q.At(j, k)
						}
						S.SetSym(i, j, s)
					}
				}
			}
			want := make([]float64, n)
			wantVal := referenceDense(t, want, S, nil)
			FixSign(want)
			bottom := make([]float64, n)
			var es mat.EigenSym
			es.Factorize(S, true)
			var vecs mat.Dense
			es.VectorsTo(&vecs)
			mat.Col(bottom, 0, &vecs)
			near := make([]float64, n)
			for i := range near {
				near[i] = want[i] + 1e-2*rng.NormFloat64()
			}
			tol := 1e-12
			if c.gap < 1 {
				tol = 1e-7
			}
			raw := S.RawSymmetric()
			for _, warm := range []struct {
				name string
				v    []float64
			}{{"cold", nil}, {"near", near}, {"bottom", bottom}} {
				got := make([]float64, n)
				val, ok := w.Top(got, raw.Data, raw.Stride, n, warm.v)
				if !ok {
					t.Fatalf("n = %d %s %s: no convergence", n, c.name, warm.name)
				}
				FixSign(got)
				if math.Abs(val-wantVal) > 1e-13*math.Abs(wantVal) || !floats.EqualApprox(got, want, tol) {
					t.Errorf("n = %d %s %s: %v %v, want %v %v", n, c.name, warm.name, val, got, wantVal, want)
				}
			}
		}
	}
	// The zero matrix: the value 0 and a unit vector.
	z := make([]float64, 9)
	got := make([]float64, 3)
	if val, ok := w.Top(got, z, 3, 3, nil); !ok || val != 0 || math.Abs(floats.Norm(got, 2)-1) > 1e-15 {
		t.Errorf("zero matrix: %v %v %v", val, got, ok)
	}
}

// TestTridiagSolve: tridiagSolve gives Dgtsv's solution of (T - shift I)
// x = b bit for bit (it does Dgtsv's operations in its order), at orders
// 1 to 40, with shifts that make the elimination interchange rows at some
// steps and not at others (shift near T's eigenvalues, far above them,
// 0), on diagonals with exact zeros, and reports the zero pivot Dgtsv
// reports (T - shift I singular: d = 0, e = 0 at order 1 and 2), leaving
// x as it was.
func TestTridiagSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	scratch := make([]float64, 4*40)
	for n := 1; n <= 40; n++ {
		for trial := range 20 {
			d, e := make([]float64, n), make([]float64, max(n-1, 0))
			for i := range d {
				d[i] = rng.NormFloat64()
			}
			for i := range e {
				e[i] = rng.NormFloat64()
				if trial%5 == 4 && i%3 == 0 {
					e[i] = 0
				}
			}
			shift := []float64{0, d[rng.IntN(n)], 10, -0.5 + rng.Float64()}[trial%4]
			b := make([]float64, n)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			dl, dd, du, want := slices.Clone(e), make([]float64, n), slices.Clone(e), slices.Clone(b)
			for i := range dd {
				dd[i] = d[i] - shift
			}
			okWant := (gonum.Implementation{}).Dgtsv(n, 1, dl, dd, du, want, 1)
			got := slices.Clone(b)
			ok := tridiagSolve(d, e, shift, got, scratch)
			if ok != okWant {
				t.Fatalf("n %d trial %d: ok %v, Dgtsv %v", n, trial, ok, okWant)
			}
			if !ok {
				continue
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n %d trial %d: x[%d] = %v, Dgtsv %v", n, trial, i, got[i], want[i])
				}
			}
		}
	}
	for _, c := range []struct{ d, e []float64 }{{[]float64{0}, nil}, {[]float64{0, 1}, []float64{0}}, {[]float64{1, 0}, []float64{0}}} {
		x := []float64{1, 2}[:len(c.d)]
		if tridiagSolve(c.d, c.e, 0, x, scratch) {
			t.Errorf("d %v e %v: singular system solved", c.d, c.e)
		}
		if x[0] != 1 {
			t.Errorf("d %v e %v: x changed on failure: %v", c.d, c.e, x)
		}
	}
}

// TestSterfExtremeNorms: every eigenvalue of tridiagonal matrices far
// from norm 1, where gonum's Dsterf would rescale them itself (and panic,
// "insufficient length of a"). Expected values by hand: the n x n
// tridiagonal Toeplitz matrix of diagonal a and off-diagonal b has the
// eigenvalues a + 2b cos(k pi / (n+1)), k = 1..n; a block 2^-430 times
// smaller than the largest contributes eigenvalues of about 0 to
// rounding. Tolerance: 8 eps of the norm.
func TestSterfExtremeNorms(t *testing.T) {
	toeplitz := func(s float64) []float64 { // a = 2s, b = s, n = 3
		return []float64{(2 - math.Sqrt2) * s, 2 * s, (2 + math.Sqrt2) * s}
	}
	tiny := 0x1p-430
	for _, c := range []struct {
		d, e, want []float64
	}{
		{[]float64{2e-200, 2e-200, 2e-200}, []float64{1e-200, 1e-200}, toeplitz(1e-200)},
		{[]float64{2e200, 2e200, 2e200}, []float64{1e200, 1e200}, toeplitz(1e200)},
		{[]float64{2e-310, 2e-310, 2e-310}, []float64{1e-310, 1e-310}, toeplitz(1e-310)},
		{[]float64{2, 2, 2 * tiny, 2 * tiny, 2 * tiny}, []float64{1, 0, tiny, tiny}, []float64{0, 0, 0, 1, 3}},
		{[]float64{2, 2, 2}, []float64{1, 1}, toeplitz(1)},
	} {
		d, e := slices.Clone(c.d), append(slices.Clone(c.e), 0)
		if !sterf(d, e) {
			t.Fatalf("sterf(%v, %v) failed", c.d, c.e)
		}
		norm := slices.Max(c.want)
		for i, w := range c.want {
			if math.Abs(d[i]-w) > 8*0x1p-52*norm {
				t.Errorf("sterf(%v, %v): eigenvalues %v, want %v", c.d, c.e, d, c.want)
				break
			}
		}
	}
}
