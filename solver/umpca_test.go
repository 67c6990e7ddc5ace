package solver

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUMPCAConstantMode: samples whose values do not vary along one mode
// (every sample x 1 in that mode), the first, second or last. UMPCA's
// features then exist all the same (the constant mode's vectors stay
// near 1/sqrt(I), the others make the features uncorrelated). The
// constraint must not turn the rounding of an already satisfied
// uncorrelation into a direction that the constant mode's vector has to
// avoid, which left [v, 0, 0, ...]; nor, where the constraint is real in
// the constant mode (the first, at each EMP's uniform start), leave that
// mode only 1's complement. The expected variances are those the fit
// reaches on the same samples plus 1e-10 noise, which makes the mode not
// exactly constant (a perturbation of the variances of about 1e-9
// relative: tolerance 1e-6). The features must be uncorrelated
// (covariances below 1e-9 of the variances).
func TestUMPCAConstantMode(t *testing.T) {
	shape := []int{8, 7, 6}
	const m, P = 40, 6
	size := shape[0] * shape[1] * shape[2]
	for _, constant := range []int{0, 1, 2} {
		rng := rand.New(rand.NewPCG(39, uint64(constant)))
		free := make([]float64, m*size)
		for i := range free {
			free[i] = rng.NormFloat64()
		}
		exact := make([]float64, m*size)
		for i := range exact {
			idx := []int{i / size, i % size / (shape[1] * shape[2]), i % (shape[1] * shape[2]) / shape[2], i % shape[2]}
			idx[1+constant] = 0 // the value at index 0 of the constant mode
			exact[i] = free[((idx[0]*shape[0]+idx[1])*shape[1]+idx[2])*shape[2]+idx[3]]
		}
		noisy := make([]float64, len(exact))
		for i, v := range exact {
			noisy[i] = v + 1e-10*rng.NormFloat64()
		}
		opts := Options{Method: UMPCA, Components: P}
		want, _ := fitOrFatal(t, noisy, m, shape, opts)
		got, src := fitOrFatal(t, exact, m, shape, opts)
		t.Logf("constant mode %d: %v", constant, got.Variance)
		if !(want.Variance[P-1] > 1e-3*want.Variance[0]) { // a reference of real features, not one collapsed too
			t.Errorf("constant mode %d: with 1e-10 noise, variances %v: the reference fit collapsed too", constant, want.Variance)
		}
		for j := range P {
			if d := math.Abs(got.Variance[j] - want.Variance[j]); !(d <= 1e-6*want.Variance[j]) {
				t.Errorf("constant mode %d: variances %v, with 1e-10 noise %v", constant, got.Variance, want.Variance)
				break
			}
		}
		y, err := got.TransformTo(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		cov := func(a, b int) float64 {
			var ma, mb, s float64
			for r := range m {
				ma += y[r*P+a] / m
				mb += y[r*P+b] / m
			}
			for r := range m {
				s += (y[r*P+a] - ma) * (y[r*P+b] - mb)
			}
			return s / (m - 1)
		}
		for a := range P {
			for b := range a {
				if c := cov(a, b); math.Abs(c) > 1e-9*math.Sqrt(cov(a, a)*cov(b, b)) {
					t.Errorf("constant mode %d: features %d and %d correlated (covariance %g)", constant, a, b, c)
				}
			}
		}
	}
}
