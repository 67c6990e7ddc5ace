package main

import (
	"errors"
	"math"
	"testing"
)

// FuzzOptions feeds arbitrary field values to the C options validation
// (goOptions). It must never panic, must refuse with SOMPCA_EINVAL, and
// what it accepts the solver must accept too (solver.Options.Validate):
// C never lets through options that Go would refuse. The seeds run in
// `make test`; `make fuzz` explores.
func FuzzOptions(f *testing.F) {
	f.Add(int32(0), int32(-1), int32(0), int32(-1), int32(0), int32(0), int32(0), 0.0, 0.0, uint8(2))
	f.Add(int32(5), int32(0), int32(3), int32(-1), int32(7), int32(2), int32(1), 1e-6, 0.5, uint8(3))
	f.Add(int32(0), int32(1), int32(2), int32(1), int32(20), int32(1), int32(0), math.Inf(1), 0.97, uint8(2))
	f.Add(int32(4), int32(1), int32(-1), int32(9), int32(-1), int32(-3), int32(5), math.NaN(), math.Inf(1), uint8(1))
	f.Add(int32(7), int32(-2), int32(1<<30), int32(-7), int32(1<<31-1), int32(1<<31-1), int32(-1), -1e-300, 1.0000001, uint8(0))
	f.Fuzz(func(t *testing.T, method, relaxed, components, mode, maxIter, threads, order int32, tol, q float64, n uint8) {
		shape := make([]int, n%5)
		for i := range shape {
			shape[i] = 3 + i
		}
		v := optionValues{method: method, relaxedStart: relaxed, components: components, mode: mode,
			maxIter: maxIter, threads: threads, order: order, tol: tol, q: q}
		o, err := goOptionValues(v, len(shape))
		if err != nil {
			var se *statusError
			if !errors.As(err, &se) || se.code != 1 /* SOMPCA_EINVAL */ {
				t.Fatalf("%+v: err = %v, want SOMPCA_EINVAL", v, err)
			}
			return
		}
		if len(shape) == 0 {
			return // the sample shape's own error comes first in Go
		}
		if err := o.Validate(shape, 10); err != nil {
			t.Fatalf("%+v: C accepted options that Go refuses: %v", v, err)
		}
	})
}
