package eigen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/par"
)

// symFromSpectrum returns Q diag(lam) Q^T (both triangles set) for Q
// (n x len(lam)) with orthonormal columns: a matrix whose eigenpairs are
// known exactly, independently of any eigensolver.
func symFromSpectrum(Q *mat.Dense, lam []float64) *mat.SymDense {
	n, _ := Q.Dims()
	var A mat.Dense
	A.Mul(Q, mat.NewDiagDense(len(lam), lam))
	A.Mul(&A, Q.T())
	S := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			S.SetSym(i, j, 0.5*(A.At(i, j)+A.At(j, i)))
		}
	}
	return S
}

// checkEigenpairs checks the identities of P computed eigenpairs of S:
// V^T V = I, ||S v - lambda v|| <= tol lambda_1 (lanczosTol, with room for
// the rounding in forming S), and the sign convention of FixSign.
func checkEigenpairs(t *testing.T, what string, S *mat.SymDense, V *mat.Dense, vals []float64) {
	t.Helper()
	_, P := V.Dims()
	var G mat.Dense
	G.Mul(V.T(), V)
	if !mat.EqualApprox(&G, eye(P), 1e-12) {
		t.Errorf("%s: V^T V != I", what)
	}
	var R mat.Dense
	R.Mul(S, V)
	for k := range P {
		r := mat.Col(nil, k, &R)
		v := mat.Col(nil, k, V)
		floats.AddScaled(r, -vals[k], v)
		if nr := floats.Norm(r, 2); nr > 4*lanczosTol*math.Abs(vals[0]) {
			t.Errorf("%s: eigenpair %d: residual %.3g > %.3g", what, k, nr, 4*lanczosTol*math.Abs(vals[0]))
		}
		if i := floats.MaxIdx(absAll(v)); v[i] < 0 {
			t.Errorf("%s: eigenvector %d: entry of largest magnitude is negative (FixSign)", what, k)
		}
		if k > 0 && vals[k] > vals[k-1] {
			t.Errorf("%s: eigenvalues not descending at %d", what, k)
		}
	}
}

// wishart returns X^T X for X (m x n) of standard normal entries from
// rng, row by row: crowded eigenvalues, like a real scatter matrix's.
func wishart(rng *rand.Rand, n, m int) *mat.SymDense {
	X := mat.NewDense(m, n, nil)
	for i := range m {
		for j := range n {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	S := mat.NewSymDense(n, nil)
	S.SymOuterK(1, X.T())
	return S
}

func absAll(v []float64) []float64 {
	a := make([]float64, len(v))
	for i, x := range v {
		a[i] = math.Abs(x)
	}
	return a
}

// outside returns ||(I - B B^T) v|| for B with orthonormal columns: how
// far v lies from span(B).
func outside(B *mat.Dense, v []float64) float64 {
	n, c := B.Dims()
	r := append([]float64(nil), v...)
	for j := range c {
		b := mat.Col(nil, j, B)
		floats.AddScaled(r, -floats.Dot(b, v), b)
	}
	_ = n
	return floats.Norm(r, 2)
}

// TestLanczosKnownSpectrum: on S = Q diag(lambda) Q^T (Q a random
// orthogonal matrix) with an eigenvalue of multiplicity 4 straddling the
// P boundary (positions 9..12 for P = 11) and a pair repeated inside,
// lanczosTop returns the known eigenvalues, vectors equal to Q's columns
// up to sign where the eigenvalue is simple, and vectors inside the
// eigenspace where it is repeated; and the same bits again, with 1 or 2
// threads.
func TestLanczosKnownSpectrum(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 5))
	const n, P = 400, 11
	Q := randomOrthonormal(rng, n, n)
	lam := make([]float64, n)
	for i := range lam {
		lam[i] = 100 / float64(i+1)
	}
	lam[3], lam[4] = 20, 20                        // a pair inside
	lam[9], lam[10], lam[11], lam[12] = 9, 9, 9, 9 // across the boundary
	S := symFromSpectrum(Q, lam)
	raw := S.RawSymmetric()
	full := func() []float64 { // both triangles, as TopEigenvectors gives
		a := make([]float64, n*n)
		for i := range n {
			for j := range n {
				a[i*n+j] = S.At(i, j)
			}
		}
		return a
	}
	_ = raw
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	split := &Routes{SplitAll: true} // split every product
	var ref *mat.Dense
	var refVals []float64
	for _, threads := range []int{1, 2, 1} {
		runtime.GOMAXPROCS(threads)
		V, vals, ok, err := lanczosTop(full(), n, nil, n, P, nil, nil, split)
		if err != nil || !ok {
			t.Fatalf("lanczosTop: ok = %v, err = %v", ok, err)
		}
		if ref == nil {
			ref, refVals = V, vals
			continue
		}
		if !mat.Equal(V, ref) || !floats.Equal(vals, refVals) {
			t.Errorf("%d threads: result differs from the first run", threads)
		}
	}
	checkEigenpairs(t, "known spectrum", S, ref, refVals)
	for k := range P {
		// The eigenvalues are known; Ritz values are accurate to
		// residual^2 / gap, far below rounding here.
		if math.Abs(refVals[k]-lam[k]) > 1e-12*lam[0] {
			t.Errorf("eigenvalue %d: %v, want %v", k, refVals[k], lam[k])
		}
		v := mat.Col(nil, k, ref)
		switch {
		case k == 3 || k == 4:
			if d := outside(mat.DenseCopyOf(Q.Slice(0, n, 3, 5)), v); d > 1e-10 {
				t.Errorf("eigenvector %d: %.3g outside the eigenspace of the repeated 20", k, d)
			}
		case k >= 9:
			if d := outside(mat.DenseCopyOf(Q.Slice(0, n, 9, 13)), v); d > 1e-10 {
				t.Errorf("eigenvector %d: %.3g outside the eigenspace of the repeated 9", k, d)
			}
		default:
			// A simple eigenvalue: the vector up to sign, within
			// residual / gap (gaps here >= 100/6 - 100/7 = 2.4).
			q := mat.Col(nil, k, Q)
			if floats.Dot(q, v) < 0 {
				floats.Scale(-1, q)
			}
			if d := maxAbsDiff(q, v); d > 1e-10 {
				t.Errorf("eigenvector %d differs from Q's column by %.3g", k, d)
			}
		}
	}
}

// TestLanczosRankDeficient: S = B B^T of rank r (B n x r): with P = r the
// vectors span range(B) exactly (the next eigenvalue is 0); with P > r
// the extra vectors are orthonormal zero-eigenvalue vectors (the
// iteration's Krylov space is exhausted and refilled with pseudo-random
// vectors); with P < r the top P agree with the dense path (gonum's
// EigenSym).
func TestLanczosRankDeficient(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 6))
	const n, r = 500, 30
	B := mat.NewDense(n, r, nil)
	for i := range n {
		for j := range r {
			B.Set(i, j, rng.NormFloat64())
		}
	}
	S := mat.NewSymDense(n, nil)
	S.SymOuterK(1, B)
	var qr mat.QR
	qr.Factorize(B)
	var QB mat.Dense
	qr.QTo(&QB)
	rangeB := mat.DenseCopyOf(QB.Slice(0, n, 0, r))
	want, wantVals, err := DenseTop(S, r)
	if err != nil {
		t.Fatal(err)
	}
	a := make([]float64, n*n) // both triangles, for lanczosTop directly
	for i := range n {
		for j := range n {
			a[i*n+j] = S.At(i, j)
		}
	}
	for _, P := range []int{10, r, r + 5} {
		// lanczosTop itself (TopEigenvectors would take the tridiagonal
		// path for P = r + 5 > 6% of n).
		V, vals, ok, err := lanczosTop(append([]float64(nil), a...), n, nil, n, P, nil, nil, nil)
		if err != nil || !ok {
			t.Fatalf("P = %d: ok = %v, err = %v", P, ok, err)
		}
		checkEigenpairs(t, "rank deficient", S, V, vals)
		for k := range P {
			v := mat.Col(nil, k, V)
			if k < r {
				if d := outside(rangeB, v); d > 1e-10 {
					t.Errorf("P = %d: vector %d: %.3g outside range(B)", P, k, d)
				}
				if math.Abs(vals[k]-wantVals[k]) > 1e-12*wantVals[0] {
					t.Errorf("P = %d: eigenvalue %d: %v, dense %v", P, k, vals[k], wantVals[k])
				}
				// Simple eigenvalues (gaps of a Wishart matrix of
				// rank 30): equal to the dense path within
				// (lanczosTol + n eps) lambda_1 / gap.
				gap := wantVals[k] - wantVals[k+1]
				if k > 0 {
					gap = min(gap, wantVals[k-1]-wantVals[k])
				}
				bound := 1e-12 * float64(n) * wantVals[0] / gap
				if d := maxAbsDiff(v, mat.Col(nil, k, want)); d > bound {
					t.Errorf("P = %d: vector %d differs from the dense path by %.3g (bound %.3g)", P, k, d, bound)
				}
			} else if math.Abs(vals[k]) > 1e-12*vals[0] {
				t.Errorf("P = %d: eigenvalue %d = %v, want 0", P, k, vals[k])
			}
		}
	}
}

// TestTopEigenvectorsLanczos: on a Wishart matrix (crowded eigenvalues,
// like a real scatter matrix), the iterative path agrees with the dense
// eigendecomposition within (lanczosTol + n eps) lambda_1 / gap, and
// TopEigenvectors does take it.
func TestTopEigenvectorsLanczos(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 7))
	const n, m, P = 600, 900, 20
	S := wishart(rng, n, m)
	want, wantVals, err := DenseTop(S, P)
	if err != nil {
		t.Fatal(err)
	}
	used := false
	rt := &Routes{LanczosTrace: func(int, int) { used = true }}
	Sc := mat.NewSymDense(n, nil)
	Sc.CopySym(S)
	got, gotVals, err := TopEigenvectors(Sc, P, nil, nil, rt)
	if err != nil {
		t.Fatal(err)
	}
	if !used {
		t.Fatal("TopEigenvectors did not take the Lanczos path")
	}
	checkEigenpairs(t, "wishart", S, got, gotVals)
	for j := range P {
		if math.Abs(gotVals[j]-wantVals[j]) > 1e-12*wantVals[0] {
			t.Errorf("eigenvalue %d: %v, want %v", j, gotVals[j], wantVals[j])
		}
		gap := wantVals[j] - wantVals[j+1]
		if j > 0 {
			gap = min(gap, wantVals[j-1]-wantVals[j])
		}
		bound := (lanczosTol + 1e-13*n) * wantVals[0] / gap
		if d := maxAbsDiff(mat.Col(nil, j, got), mat.Col(nil, j, want)); d > bound {
			t.Errorf("eigenvector %d differs by %.3g (bound %.3g)", j, d, bound)
		}
	}
}

// TestLanczosFallback: when block Lanczos runs out of its budget of
// products, TopEigenvectors still returns the top eigenpairs (from the
// tridiagonal path), equal to the dense path's (gonum's EigenSym) within
// n eps lambda_1 / gap, on a Wishart matrix that Lanczos does not finish
// in one cycle.
func TestLanczosFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 9))
	const n, m, P = 400, 800, 20
	S := wishart(rng, n, m)
	want, wantVals, err := DenseTop(S, P)
	if err != nil {
		t.Fatal(err)
	}
	called := false
	rt := &Routes{LanczosGiveUp: true, LanczosTrace: func(int, int) { called = true }}
	Sc := mat.NewSymDense(n, nil)
	Sc.CopySym(S)
	V, vals, err := TopEigenvectors(Sc, P, nil, nil, rt)
	if err != nil {
		t.Fatal(err)
	}
	if called {
		t.Fatal("lanczosTop converged within a budget of 0 products")
	}
	checkEigenpairs(t, "fallback", S, V, vals)
	for k := range P {
		if math.Abs(vals[k]-wantVals[k]) > 1e-12*wantVals[0] {
			t.Errorf("eigenvalue %d: %v, want %v", k, vals[k], wantVals[k])
		}
		gap := wantVals[k] - wantVals[k+1]
		if k > 0 {
			gap = min(gap, wantVals[k-1]-wantVals[k])
		}
		if d := maxAbsDiff(mat.Col(nil, k, V), mat.Col(nil, k, want)); d > 1e-13*n*wantVals[0]/gap {
			t.Errorf("eigenvector %d differs from the dense path by %.3g", k, d)
		}
	}
}

// TestLanczosRitzPaths: the Rayleigh-Ritz step by the tridiagonal
// reduction and inverse iteration (ritz's default) and by Dsyev (its
// fallback) give eigenpairs that both pass checkEigenpairs and agree with
// each other and with the dense path (gonum's EigenSym) within
// (lanczosTol + n eps) lambda_1 / gap, on a Wishart matrix that takes
// several restarts; with 1 and 2 threads, the same bits.
func TestLanczosRitzPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 10))
	const n, m, P = 500, 900, 16
	S := wishart(rng, n, m)
	want, wantVals, err := DenseTop(S, P)
	if err != nil {
		t.Fatal(err)
	}
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			a[i*n+j] = S.At(i, j)
		}
	}
	restarts := 0
	trace := func(r, _ int) { restarts = r }
	got := map[bool]*mat.Dense{}
	for _, dense := range []bool{false, true} {
		rt := &Routes{DenseRitz: dense, LanczosTrace: trace}
		var first *mat.Dense
		for _, threads := range []int{1, 2} {
			var V *mat.Dense
			var vals []float64
			var ok bool
			var err error
			onTeam(threads, func(crew *par.Team) { V, vals, ok, err = lanczosTop(a, n, nil, n, P, nil, crew, rt) })
			if err != nil || !ok {
				t.Fatalf("dense Ritz %v: ok %v, %v", dense, ok, err)
			}
			if restarts < 2 {
				t.Fatalf("dense Ritz %v: %d restarts: the case does not exercise the restarts", dense, restarts)
			}
			if first == nil {
				first = V
				checkEigenpairs(t, fmt.Sprintf("dense Ritz %v", dense), S, V, vals)
			} else if !equalBits(V.RawMatrix().Data, first.RawMatrix().Data) {
				t.Errorf("dense Ritz %v: 2 threads differ from 1", dense)
			}
		}
		got[dense] = first
	}
	for k := range P {
		gap := wantVals[k] - wantVals[k+1]
		if k > 0 {
			gap = min(gap, wantVals[k-1]-wantVals[k])
		}
		bound := (lanczosTol + 1e-13*n) * wantVals[0] / gap
		for _, V := range []*mat.Dense{got[false], got[true]} {
			if d := maxAbsDiff(mat.Col(nil, k, V), mat.Col(nil, k, want)); d > bound {
				t.Errorf("eigenvector %d differs from the dense path's by %.3g (bound %.3g)", k, d, bound)
			}
		}
	}
}

// TestLanczosCancel: a cancel that turns true stops lanczosTop with
// par.ErrCanceled, at whichever of its polls it comes.
func TestLanczosCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 8))
	const n = 300
	Q := randomOrthonormal(rng, n, n)
	lam := make([]float64, n)
	for i := range lam {
		lam[i] = 1 + 1/float64(i+1)
	}
	S := symFromSpectrum(Q, lam)
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			a[i*n+j] = S.At(i, j)
		}
	}
	total := 0
	if _, _, ok, err := lanczosTop(a, n, nil, n, 5, func() bool { total++; return false }, nil, nil); !ok || err != nil {
		t.Fatalf("without cancel: ok = %v, err = %v", ok, err)
	}
	for after := range total {
		polls := 0
		cancel := func() bool { polls++; return polls > after }
		_, _, _, err := lanczosTop(a, n, nil, n, 5, cancel, nil, nil)
		if !errors.Is(err, par.ErrCanceled) {
			t.Errorf("cancel after %d polls: err = %v, want par.ErrCanceled", after, err)
		}
	}
}
