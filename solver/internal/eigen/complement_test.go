package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// constrainedGap returns the top two eigenvalues of B^T S B, B an
// orthonormal basis of the complement of span(R^T): the top one and the
// gap that bounds the error of a computed eigenvector (Davis-Kahan).
func constrainedGap(t *testing.T, S *mat.SymDense, R *mat.Dense) (float64, float64) {
	B := complementBasis(mat.DenseCopyOf(R.T()))
	var SB, M mat.Dense
	SB.Mul(S, B)
	M.Mul(B.T(), &SB)
	r, _ := M.Dims()
	sym := mat.NewSymDense(r, nil)
	for i := range r {
		for j := i; j < r; j++ {
			sym.SetSym(i, j, 0.5*(M.At(i, j)+M.At(j, i)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		t.Fatal("EigenSym failed")
	}
	v := eig.Values(nil)
	return v[r-1], v[r-1] - v[r-2]
}

// slowSpectrum returns n eigenvalues 1 / (1 + 0.1 i), a slowly decaying
// spectrum.
func slowSpectrum(n int) []float64 {
	lambda := make([]float64, n)
	for i := range lambda {
		lambda[i] = 1 / (1 + 0.1*float64(i))
	}
	return lambda
}

// TestTopComplement: the top eigenvector of a constrained scatter by
// the complement path (topComplement) against the projected Krylov
// iteration and the dense eigendecomposition of B^T S B, for constraints
// that grow by one row at a time, each new row the previous answer, as
// SO-MPCA's do from EMP to EMP (so the kept basis is extended, not made
// anew), from a warm, a cold and an in-span(C) start. Both iterations
// stop at the residual krylovTol theta, so each vector is within
// krylovTol theta / gap of the exact one (Davis-Kahan, gap from
// constrainedGap), the two within twice that; the factor 4 and the 1e-13
// cover the rounding of the products and of the basis.
func TestTopComplement(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{complementMinN, 81} {
		Q := randomOrthonormal(rng, n, n)
		S := symFromSpectrum(Q, slowSpectrum(n)) // many products
		c0 := n / 2
		C := randomOrthonormal(rng, n, c0)
		R := mat.DenseCopyOf(C.T())
		comp := Solver{fixedRows: true, routes: &Routes{Complement: 1}}
		proj := Solver{fixedRows: true, routes: &Routes{Complement: -1}}
		hc, hp := 0, 0
		for c := c0; c < c0+8; c++ {
			var last []float64 // the complement path's vector from the warm start
			theta, gap := constrainedGap(t, S, R)
			tol := 4*krylovTol*theta/gap + 1e-13
			want := make([]float64, n)
			if _, err := new(Solver).dense(want, S, R); err != nil {
				t.Fatal(err)
			}
			FixSign(want)
			starts := map[string][]float64{"warm": perturbed(rng, want, 1e-2), "cold": nil, "in span(C)": R.RawRowView(c - 1)}
			for _, name := range []string{"warm", "cold", "in span(C)"} {
				warm := starts[name]
				uc, up := make([]float64, n), make([]float64, n)
				valc, err := comp.Top(uc, S, R, warm, &hc)
				if err != nil {
					t.Fatal(err)
				}
				valp, err := proj.Top(up, S, R, warm, &hp)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(valc-theta) > 1e-13*theta || math.Abs(valp-theta) > 1e-13*theta {
					t.Errorf("n = %d, c = %d, %s: eigenvalues %v (complement), %v (projected), want %v", n, c, name, valc, valp, theta)
				}
				if d := maxAbsDiff(uc, want); d > tol {
					t.Errorf("n = %d, c = %d, %s: complement vector off the dense one by %.3g (tolerance %.3g)", n, c, name, d, tol)
				}
				if d := maxAbsDiff(uc, up); d > 2*tol {
					t.Errorf("n = %d, c = %d, %s: complement and projected vectors differ by %.3g (tolerance %.3g)", n, c, name, d, 2*tol)
				}
				if name == "warm" {
					last = uc
				}
				ct := mat.NewVecDense(c, nil)
				ct.MulVec(R, mat.NewVecDense(n, uc))
				if v := floats.Norm(ct.RawVector().Data, 2); v > 1e-14 {
					t.Errorf("n = %d, c = %d, %s: u leaves the constraint by %.3g", n, c, name, v)
				}
			}
			// The basis kept: orthonormal, orthogonal to the rows, and
			// (past the first) extended from the previous one.
			cb := comp.comp.cur
			if cb.c != c || cb.r != n-c {
				t.Fatalf("n = %d, c = %d: basis kept for c = %d", n, c, cb.c)
			}
			B := mat.NewDense(n, cb.rp, cb.b[:n*cb.rp]).Slice(0, n, 0, cb.r)
			var BtB, RB mat.Dense
			BtB.Mul(B.T(), B)
			RB.Mul(R, B)
			for i := range cb.r {
				BtB.Set(i, i, BtB.At(i, i)-1)
			}
			if e := mat.Norm(&BtB, math.Inf(1)); e > 1e-14*float64(n) {
				t.Errorf("n = %d, c = %d: ||B^T B - I|| = %.3g", n, c, e)
			}
			if e := mat.Norm(&RB, math.Inf(1)); e > 1e-14*float64(n) {
				t.Errorf("n = %d, c = %d: ||C^T B|| = %.3g", n, c, e)
			}
			// The next constraint: this one and the answer.
			next := mat.NewDense(c+1, n, nil)
			next.Slice(0, c, 0, n).(*mat.Dense).Copy(R)
			next.SetRow(c, last)
			R = next
		}
	}
}

// TestComplementBasisExtend: extend refuses a row that is not in
// range(B) (so basis makes the basis anew) and takes one that is.
func TestComplementBasisExtend(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, c = 20, 6
	C := randomOrthonormal(rng, n, c+1)
	R := mat.DenseCopyOf(C.T())
	var cw complementWork
	var work Work
	b := cw.basis(mat.DenseCopyOf(R.Slice(0, c, 0, n)), &work)
	if b.extend(R.RawRowView(0)) {
		t.Error("extend took a row of the constraint itself")
	}
	if b.c != c {
		t.Fatalf("a refused extend changed the basis: c = %d", b.c)
	}
	if !b.extend(R.RawRowView(c)) || b.c != c+1 || b.r != n-c-1 || b.rp != (n-c-1+3)&^3 {
		t.Fatalf("extend by an orthogonal row: c = %d, r = %d, rp = %d", b.c, b.r, b.rp)
	}
	// The same rows again: the kept basis, not a new one.
	if got := cw.basis(R, &work); got != b {
		t.Error("the extended basis was not found again for its rows")
	}
	for i := range n {
		for j := b.r; j < b.rp; j++ {
			if b.b[i*b.rp+j] != 0 {
				t.Fatalf("padding column %d of row %d is %v", j, i, b.b[i*b.rp+j])
			}
		}
	}
}

// TestTopConstrainedSmall: topWith on constrained problems of order
// denseLimit+1..smallTopMax (the Krylov iteration with the projection)
// against the dense eigendecomposition of B^T S B by gonum's calls
// (Solver.dense), for constraints of n/3 rows and more that grow by one
// row at a time, each new row the previous answer, as SO-MPCA's do, from
// a warm, a cold, an in-span(C) start and the answer itself, with S given
// both ways topWith meets it: the scatter topGram formed (e.s, both
// triangles) and a SymDense whose lower triangle is NaN (only the upper
// is read). The iteration stops at a residual of krylovTol theta, so
// each vector is within krylovTol theta / gap of the reference
// (Davis-Kahan; gap from constrainedGap) and the tolerance is 1e-12 /
// (gap / theta), and the values within 1e-13 theta (their error is of
// the residual's square over the gap).
func TestTopConstrainedSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{denseLimit + 1, 24, smallTopMax} {
		Q := randomOrthonormal(rng, n, n)
		S := symFromSpectrum(Q, slowSpectrum(n))
		// S with a NaN lower triangle, and S's full storage as topGram
		// leaves it.
		half := mat.NewSymDense(n, nil)
		full := make([]float64, n*n)
		for i := range n {
			for j := range n {
				full[i*n+j] = S.At(i, j)
				if j < i {
					half.RawSymmetric().Data[i*n+j] = math.NaN()
				} else {
					half.SetSym(i, j, S.At(i, j))
				}
			}
		}
		c0 := (n + 2) / 3
		R := mat.DenseCopyOf(randomOrthonormal(rng, n, c0).T())
		es := Solver{fixedRows: true}
		for c := c0; c < n-1; c++ {
			var last []float64
			theta, gap := constrainedGap(t, S, R)
			tol := 1e-12 * theta / gap
			want := make([]float64, n)
			if _, err := new(Solver).dense(want, S, R); err != nil {
				t.Fatal(err)
			}
			FixSign(want)
			starts := map[string][]float64{"warm": perturbed(rng, want, 1e-2), "cold": nil, "in span(C)": R.RawRowView(c - 1), "answer": want}
			for _, name := range []string{"warm", "cold", "in span(C)", "answer"} {
				for _, formed := range []bool{true, false} {
					u := make([]float64, n)
					hint := n
					var val float64
					var err error
					if formed {
						es.s = full
						es.sym.SetRawSymmetric(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: full})
						val, err = es.topWith(u, &es.sym, es.fullApply(n), R, starts[name], &hint)
					} else {
						val, err = es.Top(u, half, R, starts[name], &hint)
					}
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("n = %d, c = %d, %s start, formed %v", n, c, name, formed)
					if math.Abs(val-theta) > 1e-13*theta {
						t.Errorf("%s: eigenvalue %v, want %v", what, val, theta)
					}
					if d := maxAbsDiff(u, want); d > tol {
						t.Errorf("%s: vector off the dense one by %.3g (tolerance %.3g)", what, d, tol)
					}
					ct := mat.NewVecDense(c, nil)
					ct.MulVec(R, mat.NewVecDense(n, u))
					if v := floats.Norm(ct.RawVector().Data, 2); v > 1e-14 {
						t.Errorf("%s: u leaves the constraint by %.3g", what, v)
					}
					if name == "warm" {
						last = u
					}
				}
			}
			next := mat.NewDense(c+1, n, nil)
			next.Slice(0, c, 0, n).(*mat.Dense).Copy(R)
			next.SetRow(c, last)
			R = next
		}
	}
}
