package solver

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestScales sweeps every method across data scales from subnormal to
// 1e300. Expected values come from the identity that a fit of s*X is the
// fit of X with the mean scaled by s and variances (and objective
// histories) by s^2, projections unchanged: exact for powers of two,
// within rounding (1e-9 relative, the same tolerance as the fixtures'
// worst cases after 20 sweeps) for other s. Where s^2 times X's total
// variance is outside float64's normal range, the fit must fail with
// ErrData naming the scale, never an internal error or a model of Infs.
// A fit session (the Dask and C drivers' path) over blocks of
// BlockMultiple samples must give Model.Fit's model bit for bit, or its
// error, at every scale: one rescaling rule for every path.
func TestScales(t *testing.T) {
	shape := []int{5, 4, 3}
	const m = 30
	x := randomTensors(3, m, shape)
	cases := append([]methodCase{{PCA, false}, {MPCA, false}, {CSA, false}}, tvpCases...)
	scales := []float64{1e-320, 1e-300, 1e-200, 1e-160, 1e-150, 1e-100, 1e-20, 1, 1e20, 1e100, 1e150, 1e154, 1e160, 1e200, 1e300}
	for _, c := range cases {
		opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3}
		ref, _ := fitOrFatal(t, x, m, shape, opts)
		for _, s := range scales {
			xs := make([]float64, len(x))
			for i, v := range x {
				xs[i] = v * s
			}
			src := must(NewSliceSource(xs, m, shape))
			var model Model
			err := model.Fit(src, opts)
			got, _, serr := sessionFit(t, src, opts, []int{BlockMultiple})
			if (err == nil) != (serr == nil) || err != nil && err.Error() != serr.Error() {
				t.Errorf("%v at scale %g: session error %v, Fit's %v", c, s, serr, err)
			} else if err == nil && !reflect.DeepEqual(*got, model) {
				t.Errorf("%v at scale %g: the session's model differs from Fit's", c, s)
			}
			// Representable: the scaled total variance is a normal float64,
			// computed here in logarithms so that it cannot overflow.
			logTotal := math.Log2(ref.TotalVariance) + 2*math.Log2(s)
			if logTotal < -1021 || logTotal > 1022 || s < 0x1p-1022 { // subnormal samples: not representable either
				if err == nil || !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "scale") {
					t.Errorf("%v at scale %g: want ErrData naming the scale, got %v", c, s, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%v at scale %g: %v", c, s, err)
				continue
			}
			rel := func(what string, got, want []float64, factor float64) {
				for i := range want {
					w := want[i] * factor
					if d := math.Abs(got[i] - w); !(d <= 1e-9*math.Abs(factor)*(1+math.Abs(want[i]))) {
						t.Errorf("%v at scale %g: %s[%d] = %g, want %g", c, s, what, i, got[i], w)
						return
					}
				}
			}
			rel("mean", model.Mean, ref.Mean, s)
			rel("variance", model.Variance, ref.Variance, s*s)
			for n := range ref.Projections {
				rel("projection", model.Projections[n].RawMatrix().Data, ref.Projections[n].RawMatrix().Data, 1)
			}
			for j := range ref.History {
				rel("history", model.History[j], ref.History[j], s*s)
			}
			if r := model.TotalVariance / (ref.TotalVariance * s * s); math.Abs(r-1) > 1e-9 {
				t.Errorf("%v at scale %g: total variance ratio to s^2 * reference is %v", c, s, r)
			}
		}
	}
}

// TestIdenticalSamples: samples that are all the same (but not integers,
// so that their computed mean differs from them by rounding) are the
// promised zero-variance error, for every method, not a fit of rounding
// noise.
func TestIdenticalSamples(t *testing.T) {
	shape := []int{5, 4}
	one := randomTensors(5, 1, shape)
	const m = 20
	x := make([]float64, 0, m*len(one))
	for range m {
		x = append(x, one...)
	}
	for _, c := range append([]methodCase{{PCA, false}, {MPCA, false}, {CSA, false}}, tvpCases...) {
		var model Model
		err := model.Fit(must(NewSliceSource(x, m, shape)), Options{Method: c.method, RelaxedStart: c.rs})
		if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "zero variance") {
			t.Errorf("%v: want the zero-variance ErrData, got %v", c, err)
		}
	}
}
