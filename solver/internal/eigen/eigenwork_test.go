package eigen

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestEigenWorkMatchesGonum: the dense eigen path's own LAPACK calls
// (Work) give gonum's results on problems of the sizes one workspace
// meets in turn (larger, smaller, constrained), the reference below being
// the code Work replaced: the Tucker fits' top vectors and
// complement bases bit for bit; the mode updates' top eigenpair, which
// topPair finds without the full decomposition, to rounding (the gaps of
// these random scatters are of order 1, so the vectors' error is a few
// n eps, and 1e-12 would still catch a wrong or unnormalised vector).
func TestEigenWorkMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var w Work
	for _, c := range []struct{ n, c int }{{12, 0}, {5, 0}, {16, 3}, {9, 1}, {16, 0}, {7, 6}} {
		A := mat.NewDense(c.n+3, c.n, nil)
		for i := range c.n + 3 {
			for j := range c.n {
				A.Set(i, j, rng.NormFloat64())
			}
		}
		S := mat.NewSymDense(c.n, nil)
		S.SymOuterK(1, A.T())
		var C *mat.Dense
		if c.c > 0 {
			C = randomOrthonormal(rng, c.n, c.c)
		}
		want := make([]float64, c.n)
		wantVal := referenceDense(t, want, S, C)
		got := make([]float64, c.n)
		var val float64
		var ok bool
		if C == nil {
			val, ok = w.Top(got, S, nil)
		} else {
			val, ok = w.topConstrained(got, S, mat.DenseCopyOf(C.T()), nil)
		}
		if !ok {
			t.Fatalf("n = %d, c = %d: no convergence", c.n, c.c)
		}
		FixSign(got) // signs as topWith fixes them
		FixSign(want)
		if math.Abs(val-wantVal) > 1e-13*wantVal || !floats.EqualApprox(got, want, 1e-12) {
			t.Errorf("n = %d, c = %d: Work gives %v %v, gonum %v %v", c.n, c.c, val, got, wantVal, want)
		}
		// The Tucker fits' calls: the top r vectors (DenseTop through
		// gonum's EigenSym) and the complement basis (gonum's QR).
		r := max(1, c.n/3)
		U := mat.NewDense(c.n, r, nil)
		if !w.TopVectors(U, S) {
			t.Fatalf("n = %d: no convergence", c.n)
		}
		if wantU, _, err := DenseTop(S, r); err != nil || !mat.Equal(U, wantU) {
			t.Errorf("n = %d: Work.TopVectors differs from DenseTop (%v)", c.n, err)
		}
		B := mat.NewDense(c.n, c.n-r, nil)
		w.ComplementTo(B, U)
		if !mat.Equal(B, complementBasis(U)) {
			t.Errorf("n = %d: Work.ComplementTo differs from complementBasis", c.n)
		}
	}
}

// referenceDense is the dense path through gonum's mat types: the top
// eigenvector of B^T S B, B the complement of span(C) from the full Q of
// C's QR factorisation.
func referenceDense(t *testing.T, u []float64, S *mat.SymDense, C *mat.Dense) float64 {
	var es mat.EigenSym
	if C == nil {
		if !es.Factorize(S, true) {
			t.Fatal("EigenSym failed")
		}
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		n := S.SymmetricDim()
		mat.Col(u, n-1, &vecs)
		return es.Values(nil)[n-1]
	}
	B := complementBasis(C)
	_, r := B.Dims()
	var BSB, T mat.Dense
	BSB.Mul(B.T(), S)
	T.Mul(&BSB, B)
	Ts := mat.NewSymDense(r, nil)
	for i := range r {
		for j := i; j < r; j++ {
			Ts.SetSym(i, j, 0.5*(T.At(i, j)+T.At(j, i)))
		}
	}
	if !es.Factorize(Ts, true) {
		t.Fatal("EigenSym failed")
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	w := mat.Col(nil, r-1, &vecs)
	uv := mat.NewVecDense(len(u), u)
	uv.MulVec(B, mat.NewVecDense(r, w))
	floats.Scale(1/floats.Norm(u, 2), u)
	return es.Values(nil)[r-1]
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := range n {
		d.Set(i, i, 1)
	}
	return d
}
