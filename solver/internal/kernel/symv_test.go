package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSymvUpper checks SymvUpper (the AVX2 symmetric product of fullApply)
// against the plain row-by-row loop sum_j S[i,j] v[j], for every n that
// is a multiple of 4 up to 96. The two differ only by rounding: each
// entry is a sum of n products, so they agree to within about n eps
// sum_j |S[i,j] v[j]| (the standard bound for recursive summation, with
// eps = 2^-53; 4 n eps allows for both orders). The matrix's lower
// triangle outside the diagonal blocks is filled with NaN: the kernel
// must not read it. Then the result must not depend on dst's contents,
// and a second product must give the same bits.
func TestSymvUpper(t *testing.T) {
	if !AVX2() {
		t.Skip("no AVX2 kernels")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 4; n <= 96; n += 4 {
		s := make([]float64, n*n)
		for i := range n {
			for j := i; j < n; j++ {
				x := rng.NormFloat64()
				s[i*n+j], s[j*n+i] = x, x
			}
		}
		want, bound := make([]float64, n), make([]float64, n)
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		for i := range n {
			for j := range n {
				want[i] += s[i*n+j] * v[j]
				bound[i] += math.Abs(s[i*n+j] * v[j])
			}
		}
		for i := range n {
			for j := range i - i%4 {
				s[i*n+j] = math.NaN()
			}
		}
		got := make([]float64, n)
		for i := range got {
			got[i] = math.NaN()
		}
		SymvUpper(got, s, n, v)
		for i := range n {
			if d := math.Abs(got[i] - want[i]); !(d <= 4*float64(n)*0x1p-53*bound[i]) {
				t.Fatalf("n=%d: (S v)[%d] = %v, want %v (|diff| %.3g, bound %.3g)", n, i, got[i], want[i], d, 4*float64(n)*0x1p-53*bound[i])
			}
		}
		again := make([]float64, n)
		SymvUpper(again, s, n, v)
		for i := range n {
			if math.Float64bits(again[i]) != math.Float64bits(got[i]) {
				t.Fatalf("n=%d: a second product differs at %d: %v vs %v", n, i, again[i], got[i])
			}
		}
	}
}
