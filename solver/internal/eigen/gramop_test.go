package eigen

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
	"github.com/sompca/sompca/solver/internal/par"
)

// intGramCase returns integer samples (m x d, values in [lo, lo+span)), the
// operator of their centred Gram matrix and the formed matrix
// (GramCentredInt's without the operator), having checked that the
// operator forms the same matrix, bit for bit (IntGram.sym).
func intGramCase(t *testing.T, m, d, lo, span int) (*mat.Dense, *IntGram, *mat.SymDense) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, uint64(m)))
	X := mat.NewDense(m, d, nil)
	for i := range m {
		for c := range d {
			X.Set(i, c, float64(lo+rng.IntN(span)))
		}
	}
	x16, ld := GramIntegers(X, nil, nil)
	if x16 == nil {
		t.Fatal("integer samples refused")
	}
	K, _, err := GramCentredInt(x16, ld, m, d, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	K2, op, err := GramCentredInt(x16, ld, m, d, nil, nil, true)
	if err != nil || op == nil || K2 != nil {
		t.Fatalf("GramCentredInt: op %v, K %v, %v", op, K2, err)
	}
	onTeam(2, func(crew *par.Team) { K2 = op.sym(crew) })
	if !mat.Equal(K, K2) {
		t.Fatalf("%d x %d: the operator's matrix differs from GramCentredInt's", m, d)
	}
	return X, op, K
}

// TestIntGramApply checks the int32 operator's products K z against
// X_c (X_c^T z) from the centred samples X_c in float64 (an independent
// computation: no L, e or Gram matrix), its split K = L + e 1^T + 1 e^T
// against GramCentredInt's formed K, and that its products are the same
// bit for bit whatever the threads, and in Go and assembly.
func TestIntGramApply(t *testing.T) {
	for _, tc := range []struct{ m, d, lo, span, b int }{
		{200, 333, 0, 256, 8},    // uint8-like, mean near 127: large raw Gram entries
		{301, 130, -255, 511, 5}, // signed, rows not a multiple of 3, block not of 4
		{97, 1029, 200, 56, 13},  // large mean, small spread; columns past a chunk
	} {
		X, op, K := intGramCase(t, tc.m, tc.d, tc.lo, tc.span)
		m, d := tc.m, tc.d
		// L + e_i + e_j against the formed K (both exact to rounding).
		for i := range m {
			for j := range m {
				got := float64(op.l[i*m+j]) + op.e[i] + op.e[j]
				if math.Abs(got-K.At(i, j)) > 1e-15*math.Abs(K.At(i, i))+1e-9 {
					t.Fatalf("%+v: L+e+e (%d,%d) = %v, K %v", tc, i, j, got, K.At(i, j))
				}
			}
		}
		mean := make([]float64, d)
		for c := range d {
			for i := range m {
				mean[c] += X.At(i, c)
			}
			mean[c] /= float64(m)
		}
		Xc := mat.NewDense(m, d, nil)
		Xc.Apply(func(i, c int, v float64) float64 { return v - mean[c] }, X)
		rng := rand.New(rand.NewPCG(6, 6))
		z := make([]float64, tc.b*m)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		op.setBlock(tc.b)
		ref := make([]float64, tc.b*m)
		op.apply(ref, z, tc.b, nil)
		var xtz, want mat.VecDense
		for j := range tc.b {
			zj := mat.NewVecDense(m, z[j*m:(j+1)*m])
			xtz.MulVec(Xc.T(), zj)
			want.MulVec(Xc, &xtz)
			scale := mat.Norm(&want, 2)
			got := mat.NewVecDense(m, ref[j*m:(j+1)*m])
			var diff mat.VecDense
			diff.SubVec(got, &want)
			// Both are rounded products of norm about scale; float64
			// rounding over d + m terms stays far below 1e-12 of it.
			if e := mat.Norm(&diff, 2); e > 1e-12*scale {
				t.Errorf("%+v: row %d of K z off by %.3g (norm %.3g)", tc, j, e, scale)
			}
		}
		op.rt = &Routes{SplitAll: true}
		for _, threads := range []int{2, 3} {
			got := make([]float64, len(ref))
			onTeam(threads, func(crew *par.Team) { op.apply(got, z, tc.b, par.NewTasks(crew)) })
			if !equalBits(got, ref) {
				t.Errorf("%+v: %d threads differ from 1", tc, threads)
			}
		}
		op.rt = nil
		if kernel.AVX2() {
			got := make([]float64, len(ref))
			op.portable = true
			op.apply(got, z, tc.b, nil)
			op.portable = false
			if !equalBits(got, ref) {
				t.Errorf("%+v: Go kernel differs from the assembly", tc)
			}
		}
	}
}

// TestIntGramOverflow: entries of L beyond int32 give no operator (the
// formed matrix serves then), not a wrapped one.
func TestIntGramOverflow(t *testing.T) {
	// Raw Gram entries near 2^31 + 2^30 with a small centred part:
	// 4 samples of 25000 values 255 and a few variations.
	const m, d = 4, 25000
	k0 := make([]float64, m*m)
	for i := range m {
		for j := i; j < m; j++ {
			k0[i*m+j] = float64(d * 255 * 255)
		}
	}
	// U_i = sum_c x_ic S_c with S_c = 4*255: the means cancel everything
	// but the diagonal excess, which is set beyond int32.
	U := make([]int64, m)
	for i := range U {
		U[i] = int64(d) * 255 * 4 * 255
	}
	V := int64(d) * 16 * 255 * 255
	if newIntGram(k0, m, m, U, V, nil) == nil {
		t.Fatal("no operator for a matrix that fits: the test is wrong")
	}
	k0[0] += 1 << 32
	if op := newIntGram(k0, m, m, U, V, nil); op != nil {
		t.Errorf("operator made although L_00 = %d does not fit in int32", int64(k0[0])-int64(d*255*255))
	}
}

// equalBits reports whether a and b hold the same float64 bits.
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
