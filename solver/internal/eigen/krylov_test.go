package eigen

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/par"
)

// randomOrthonormal returns an n x c matrix with orthonormal columns.
func randomOrthonormal(rng *rand.Rand, n, c int) *mat.Dense {
	A := mat.NewDense(n, c, nil)
	for i := range n {
		for j := range c {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(A)
	var Q mat.Dense
	qr.QTo(&Q)
	return mat.DenseCopyOf(Q.Slice(0, n, 0, c))
}

// TestKrylovTop: the top eigenvector of Gamma A Gamma for a matrix with a
// known spectrum, against the dense eigendecomposition of B^T A B (B an
// orthonormal basis of range(Gamma)), with and without a constraint, from
// a cold start, a warm start and a start inside span(C).
func TestKrylovTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 90
	Q := randomOrthonormal(rng, n, n)
	lambda := make([]float64, n)
	for i := range lambda {
		lambda[i] = 1 / float64(i+1) // gaps shrink: 1, 1/2, 1/3, ...
	}
	S := symFromSpectrum(Q, lambda)
	for _, c := range []int{0, 1, 7} {
		var C, R *mat.Dense // the constraint and its rows, Solver's R
		if c > 0 {
			// Include the top eigenvector in span(C), so the answer is
			// another one.
			C = mat.NewDense(n, c, nil)
			C.Copy(randomOrthonormal(rng, n, c))
			C.SetCol(0, mat.Col(nil, 0, Q))
			C = orthonormalRange(C, 0)
			R = mat.DenseCopyOf(C.T())
		}
		var want []float64
		var wantVal float64
		var es Solver
		want = make([]float64, n)
		wantVal, err := es.dense(want, S, R)
		if err != nil {
			t.Fatal(err)
		}
		FixSign(want)
		starts := map[string][]float64{"cold": nil, "warm": perturbed(rng, want, 1e-3)}
		if C != nil {
			starts["in span(C)"] = mat.Col(nil, 0, C)
		}
		for name, warm := range starts {
			var kr krylov
			u := make([]float64, n)
			applies := 0
			val, ok := kr.Top(u, new(Solver).symApply(S), constraint(R, n), warm, 1000, &applies)
			if !ok {
				t.Fatalf("c = %d, %s start: did not converge in %d products", c, name, applies)
			}
			FixSign(u)
			// Eigenvalue: relative 1e-13; vector: Davis-Kahan bound
			// krylovTol lambda / gap with gap >= 1/2 - 1/3 here, times a
			// safety factor.
			if math.Abs(val-wantVal) > 1e-13*wantVal {
				t.Errorf("c = %d, %s start: eigenvalue %v, want %v", c, name, val, wantVal)
			}
			if d := maxAbsDiff(u, want); d > 1e-11 {
				t.Errorf("c = %d, %s start: vector differs by %.3g", c, name, d)
			}
			if C != nil {
				ct := mat.NewVecDense(c, nil)
				ct.MulVec(C.T(), mat.NewVecDense(n, u))
				if floats.Norm(ct.RawVector().Data, 2) > 1e-14 {
					t.Errorf("c = %d, %s start: u leaves the constraint by %.3g", c, name, floats.Norm(ct.RawVector().Data, 2))
				}
			}
			if name == "warm" && applies > 20 {
				t.Errorf("c = %d: a warm start within 1e-3 took %d products", c, applies)
			}
			// The Ritz estimates gated by the previous update's count
			// (krylov.expect): fewer, as many or more products than this
			// start needs give the same pair to the same tolerances; the
			// first estimate comes at basis size min(expect, krylovSteps)
			// - krylovRitzLead, so an update runs on to that size at most
			// (plus the restart's product and one of the estimates' parity).
			for _, expect := range []int{2, applies, applies + 10, 1000} {
				var kg krylov
				kg.expect = expect
				ug := make([]float64, n)
				ag := 0
				valg, ok := kg.Top(ug, new(Solver).symApply(S), constraint(R, n), warm, 1000, &ag)
				FixSign(ug)
				if !ok || math.Abs(valg-wantVal) > 1e-13*wantVal || maxAbsDiff(ug, want) > 1e-11 {
					t.Errorf("c = %d, %s start, expect %d: converged %v, eigenvalue %v (want %v), vector off by %.3g", c, name, expect, ok, valg, wantVal, maxAbsDiff(ug, want))
				}
				if ag > max(applies, min(expect, krylovSteps)-krylovRitzLead+1)+1 {
					t.Errorf("c = %d, %s start, expect %d: %d products, %d without the gate", c, name, expect, ag, applies)
				}
			}
		}
	}
	// A budget too small to converge reports so, with a unit vector.
	var kr krylov
	u := make([]float64, n)
	applies := 0
	if _, ok := kr.Top(u, new(Solver).symApply(S), constraint(nil, n), nil, 3, &applies); ok || applies != 3 {
		t.Errorf("3 products: converged = %v after %d products, want false after 3", ok, applies)
	}
	if nu := floats.Norm(u, 2); math.Abs(nu-1) > 1e-14 {
		t.Errorf("non-converged vector has norm %v", nu)
	}
}

// TestKrylovColdClustered: a start from nowhere (the warm vector inside
// span(C)) on a spectrum like that of the faces' first mode update of an
// EMP (721 x 80 x 60 uint8, EMP 11: the constrained scatter's 70
// eigenvalues spread about evenly over [0.32, 1] of the top one, the top
// gap 0.0086 of it). The Lanczos vectors must stay out of span(C): Gamma A
// Gamma maps span(C) to 0, so what rounding leaves of it in the basis is
// not damped by the operator but multiplied by the recurrence's
// subtractions, by about |d_j| / b_j (3.6 here) every step. In the faces
// fit that corrupted T within a restart cycle (Ritz estimates of 1e-14
// while the true residual stayed at 3e-4), and 39 of the 59 such updates
// ran out of krylovMaxApply and went dense. The answer must agree with the
// dense path.
func TestKrylovColdClustered(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, c = 80, 10
	Q := randomOrthonormal(rng, n, n)
	C := mat.DenseCopyOf(Q.Slice(0, n, 0, c)) // span(C) gets eigenvalues too
	// Outside span(C) (Q's columns c..n-1) evenly spaced from 0.32 to 1,
	// as the faces' are, the top gap 0.68 / 69 = 0.0099; inside, from 2
	// down (S's top vectors lie in span(C), the previous EMPs').
	lambda := make([]float64, n)
	for i := range lambda {
		if i < c {
			lambda[i] = 2 - 0.1*float64(i)
		} else {
			lambda[i] = 1 - 0.68*float64(i-c)/float64(n-c-1)
		}
	}
	S := symFromSpectrum(Q, lambda)
	R := mat.DenseCopyOf(C.T())
	var es Solver
	want := make([]float64, n)
	wantVal, err := es.dense(want, S, R)
	if err != nil {
		t.Fatal(err)
	}
	FixSign(want)
	var kr krylov
	kr.expect = 23 // the previous update's count, as in a fit: ignored here
	u := make([]float64, n)
	applies := 0
	val, ok := kr.Top(u, new(Solver).symApply(S), constraint(R, n), mat.Col(nil, 0, C), krylovMaxApply(n), &applies)
	if !ok {
		t.Fatalf("did not converge in %d products", applies)
	}
	FixSign(u)
	// Eigenvalue: relative 1e-13 (krylovTol); vector: Davis-Kahan,
	// krylovTol lambda / gap = 1e-13 / 0.0099, times a safety factor.
	if math.Abs(val-wantVal) > 1e-13*wantVal {
		t.Errorf("eigenvalue %v, want %v (dense)", val, wantVal)
	}
	if d := maxAbsDiff(u, want); d > 1e-10 {
		t.Errorf("vector differs from the dense one by %.3g", d)
	}
	// The basis itself, through the first restart cycle: before the
	// projection followed the subtractions, its vectors' parts in span(C)
	// grew from 1e-16 to 0.02 by the 25th and 0.18 by the 30th.
	var k2 krylov
	applies = 0
	k2.Top(u, new(Solver).symApply(S), constraint(R, n), mat.Col(nil, 0, C), krylovSteps, &applies)
	ct := mat.NewVecDense(c, nil)
	for j := range krylovSteps {
		ct.MulVec(R, mat.NewVecDense(n, k2.q[j*n:(j+1)*n]))
		if d := floats.Norm(ct.RawVector().Data, 2); d > 1e-14 {
			t.Errorf("basis vector %d leaves the complement of span(C) by %.3g", j, d)
		}
	}
}

func perturbed(rng *rand.Rand, v []float64, eps float64) []float64 {
	out := make([]float64, len(v))
	for i := range v {
		out[i] = v[i] + eps*rng.NormFloat64()
	}
	return out
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestTridiagTop: the top P eigenpairs by tridiagonal reduction and
// inverse iteration agree with the full dense eigendecomposition (gonum's
// Dsyev, an independent path) on a Wishart matrix, whose eigenvalues crowd
// like those of real scatter matrices, and on one with a repeated
// eigenvalue (the cluster's vectors must come out orthonormal).
func TestTridiagTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, m, P = 300, 500, 20
	S := wishart(rng, n, m)
	got, gotVals, err := tridiagTop(S, P, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, wantVals, err := DenseTop(S, P)
	if err != nil {
		t.Fatal(err)
	}
	for j := range n {
		if math.Abs(gotVals[j]-wantVals[j]) > 1e-12*wantVals[0] {
			t.Errorf("eigenvalue %d: %v, want %v", j, gotVals[j], wantVals[j])
		}
	}
	for j := range P {
		// Both are backward stable: the vectors differ by about
		// n eps ||S|| / gap.
		gap := wantVals[j] - wantVals[j+1]
		if j > 0 {
			gap = min(gap, wantVals[j-1]-wantVals[j])
		}
		bound := 1e-13 * float64(n) * wantVals[0] / gap
		if d := maxAbsDiff(mat.Col(nil, j, got), mat.Col(nil, j, want)); d > bound {
			t.Errorf("eigenvector %d differs by %.3g (bound %.3g)", j, d, bound)
		}
	}
	// A repeated top eigenvalue: S = Q diag(5, 5, 5, 1, 1/2, ...) Q^T.
	Q := randomOrthonormal(rng, 80, 80)
	lam := make([]float64, 80)
	for i := range lam {
		lam[i] = 1 / float64(i+1)
	}
	lam[0], lam[1], lam[2] = 5, 5, 5
	var A mat.Dense
	A.Mul(Q, mat.NewDiagDense(80, lam))
	A.Mul(&A, Q.T())
	S2 := mat.NewSymDense(80, nil)
	for i := range 80 {
		for j := i; j < 80; j++ {
			S2.SetSym(i, j, 0.5*(A.At(i, j)+A.At(j, i)))
		}
	}
	V, vals, err := tridiagTop(S2, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	var G mat.Dense
	G.Mul(V.T(), V)
	if !mat.EqualApprox(&G, eye(4), 1e-12) {
		t.Errorf("vectors of a repeated eigenvalue are not orthonormal: %v", mat.Formatted(&G))
	}
	var R mat.Dense
	R.Mul(S2, V)
	for j := range 4 {
		r := mat.Col(nil, j, &R)
		floats.AddScaled(r, -vals[j], mat.Col(nil, j, V))
		if floats.Norm(r, 2) > 1e-12*5 {
			t.Errorf("eigenpair %d: residual %.3g", j, floats.Norm(r, 2))
		}
	}
}

// TestKrylovCancel: a cancelled Krylov iteration stops at its next poll
// (every 4 products), and the mode update reports par.ErrCanceled instead of
// going on with the formed scatter or a dense eigendecomposition.
func TestKrylovCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 18))
	m, n := 200, 60
	Y := make([]float64, m*n)
	for i := range Y {
		Y[i] = rng.NormFloat64()
	}
	polls := 0
	var e Solver
	e.threads = 1
	defer e.Close()
	e.kr.cancel = func() bool { polls++; return polls >= 3 }
	u := make([]float64, n)
	hint := 0
	_, err := e.TopGram(u, Y, nil, nil, &hint)
	if !errors.Is(err, par.ErrCanceled) {
		t.Fatalf("topGram with a cancel that fires at the 3rd poll: error %v, want par.ErrCanceled", err)
	}
	// Polls 1 and 2 passed (the restart and 4 products), the 3rd stopped
	// it after 8 products: random 200 x 60 data needs more than that.
	if polls != 3 {
		t.Errorf("cancel polled %d times, want 3", polls)
	}
	// Without cancellation the same problem converges.
	e.kr.cancel = nil
	if _, err := e.TopGram(u, Y, nil, nil, &hint); err != nil {
		t.Fatalf("topGram without cancel: %v", err)
	}
}

// TestTridiagTopPair: the Ritz step's Rayleigh quotient iteration against
// gonum's dense EigenSym of the same tridiagonal T (an independent,
// all-eigenvalue computation). From e_1 or a vector near the top
// eigenvector it must report the top eigenvalue to a few rounding errors
// of ||T|| (the accuracy of both methods: tolerance 1e-13 ||T||) and its
// eigenvector to 1e-9 (rounding over the gap, the gaps of these random
// T being 1e-3 ||T|| or wider); started at another eigenvector it converges
// there, and the Sturm count must then reject it (ok false), which sends
// ritz to tridiagTopIsolated, which must then find the top pair to the
// same tolerances, from the rejected value or from no bound (-norm).
// sturmBelow is checked against the dense eigenvalues too. Orders 2..32,
// and 40 (past rqiStep's quotient from the solve).
func TestTridiagTopPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 5))
	for trial := range 200 {
		m := 2 + trial%31
		if trial%50 == 49 {
			m = krylovSteps + 8 // past rqiStep's quotient from the solve
		}
		d, e := make([]float64, m), make([]float64, m-1)
		for i := range d {
			d[i] = rng.Float64() * 10
		}
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		if trial%3 == 0 {
			d[0] += 50 // a dominant eigenvalue, as a converging Lanczos T has
		}
		T := mat.NewSymDense(m, nil)
		norm := 0.0
		for i := range m {
			T.SetSym(i, i, d[i])
			r := math.Abs(d[i])
			if i > 0 {
				T.SetSym(i, i-1, e[i-1])
				r += math.Abs(e[i-1])
			}
			if i < m-1 {
				r += math.Abs(e[i])
			}
			norm = max(norm, r)
		}
		var es mat.EigenSym
		if !es.Factorize(T, true) {
			t.Fatal("EigenSym failed")
		}
		vals := es.Values(nil) // ascending
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		gap := vals[m-1] - vals[m-2]
		if gap < 1e-3*norm {
			continue
		}
		// sturmBelow counts the eigenvalues below x.
		for _, x := range []float64{vals[0] - 1, vals[m/2] + 1e-9*norm, vals[m-1] + 1e-9*norm} {
			want := 0
			for _, v := range vals {
				if v < x {
					want++
				}
			}
			if got := sturmBelow(d, e, x); got != want {
				t.Fatalf("trial %d: sturmBelow(%g) = %d, dense count %d", trial, x, got, want)
			}
		}
		scratch := make([]float64, 4*m)
		s := make([]float64, m)
		s[0] = 1
		theta, ok := tridiagTopPair(d, e, norm, s, scratch)
		top := mat.Col(nil, m-1, &vecs)
		if ok {
			if math.Abs(theta-vals[m-1]) > 1e-13*norm {
				t.Fatalf("trial %d (m %d): theta %v, dense top %v", trial, m, theta, vals[m-1])
			}
			if c := math.Abs(floats.Dot(s, top)); math.Abs(c-1) > 1e-9 {
				t.Fatalf("trial %d: |s . top| = %v", trial, c)
			}
		} else if trial%3 == 0 {
			t.Fatalf("trial %d: no convergence from e_1 with a dominant d_0", trial)
		}
		// Near the top eigenvector (a previous Ritz vector): must succeed.
		for i := range s {
			s[i] = top[i] + 1e-3*rng.NormFloat64()
		}
		floats.Scale(1/floats.Norm(s, 2), s)
		if theta, ok := tridiagTopPair(d, e, norm, s, scratch); !ok || math.Abs(theta-vals[m-1]) > 1e-13*norm {
			t.Fatalf("trial %d: from near the top vector: %v %v, dense %v", trial, theta, ok, vals[m-1])
		}
		// At the second eigenvector: converges there, rejected.
		copy(s, mat.Col(nil, m-2, &vecs))
		second, ok := tridiagTopPair(d, e, norm, s, scratch)
		if ok {
			t.Fatalf("trial %d: accepted %v from the second eigenvector, top %v", trial, second, vals[m-1])
		}
		// tridiagTopIsolated then finds the top pair, from the value
		// rejected and from no bound (-norm). The gap is at least 1e-3
		// norm, so the vector is within a few eps norm / gap of the
		// dense one (1e-9 leaves room).
		for _, lo := range []float64{second, -norm} {
			theta, ok := tridiagTopIsolated(d, e, norm, lo, s, scratch)
			if !ok || math.Abs(theta-vals[m-1]) > 1e-13*norm {
				t.Fatalf("trial %d (m %d): tridiagTopIsolated from %v: %v %v, dense top %v", trial, m, lo, theta, ok, vals[m-1])
			}
			if c := math.Abs(floats.Dot(s, top)); math.Abs(c-1) > 1e-9 {
				t.Fatalf("trial %d: tridiagTopIsolated: |s . top| = %v", trial, c)
			}
		}
	}
}

// TestNorm2: norm2 against floats.Norm (the scaled sum, independent of the
// square root of v . v) to a few rounding errors, at ordinary scales and
// where v . v would under- or overflow (the fallback).
func TestNorm2(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 18))
	for _, scale := range []float64{1, 1e-5, 1e5, 1e-200, 1e200} {
		v := make([]float64, 37)
		for i := range v {
			v[i] = scale * rng.NormFloat64()
		}
		got, want := norm2(v), floats.Norm(v, 2)
		if math.Abs(got-want) > 1e-14*want || want == 0 {
			t.Errorf("scale %g: norm2 %v, floats.Norm %v", scale, got, want)
		}
	}
}

// TestTopSmall: topWith on unconstrained problems of order
// denseLimit+1..smallTopMax (the Krylov iteration on S, whatever the
// previous update's count in *hint), against Dsyev's (referenceDense):
// the value to 1e-13 relative and the vector to 1e-11 (the Davis-Kahan
// bound krylovTol theta / gap, gap 1/2 - 1/3 of the spectrum 1, 1/2,
// 1/3, ..., with a wide margin), from a warm, a cold and a converged
// start; and with a constraint the answer stays orthogonal to it.
func TestTopSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{denseLimit + 1, 22, smallTopMax} {
		Q := randomOrthonormal(rng, n, n)
		lambda := make([]float64, n)
		for i := range lambda {
			lambda[i] = 1 / float64(i+1)
		}
		S := symFromSpectrum(Q, lambda)
		want := make([]float64, n)
		wantVal := referenceDense(t, want, S, nil)
		FixSign(want)
		warm := perturbed(rng, want, 1e-2)
		var es Solver
		for _, c := range []struct {
			name string
			hint int
			warm []float64
		}{{"warm", 0, warm}, {"warm, many products before", n, warm},
			{"cold", n, nil}, {"converged", n, want}} {
			u := make([]float64, n)
			hint := c.hint
			val, err := es.topWith(u, S, nil, nil, c.warm, &hint)
			if err != nil {
				t.Fatalf("n %d %s: %v", n, c.name, err)
			}
			if math.Abs(val-wantVal) > 1e-13*wantVal || maxAbsDiff(u, want) > 1e-11 {
				t.Errorf("n %d %s: eigenvalue %v (want %v), vector off by %.3g", n, c.name, val, wantVal, maxAbsDiff(u, want))
			}
		}
		// A constraint keeps the answer orthogonal to it.
		R := mat.DenseCopyOf(randomOrthonormal(rng, n, 1).T())
		u := make([]float64, n)
		hint := n
		if _, err := es.topWith(u, S, nil, R, warm, &hint); err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(floats.Dot(R.RawRowView(0), u)); d > 1e-13 {
			t.Errorf("n %d constrained: u leaves the constraint by %.3g", n, d)
		}
	}
}
