package solver

import (
	"math"
	"testing"
)

// TestTuckerTransform: MPCA and CSA transforms through the factor matrices
// (tuckerFactors: a few mode products per sample) equal the per-feature
// contractions of every sample (the path of every other model) to
// rounding, for float64 and uint8 samples, full and truncated feature
// sets, orders 2 to 4.
func TestTuckerTransform(t *testing.T) {
	for _, shape := range [][]int{{7, 5}, {6, 5, 4}, {4, 3, 5, 2}} {
		const m = 40
		data := randomTensors(18, m, shape)
		u8 := make([]uint8, len(data))
		for i, v := range data {
			u8[i] = uint8(int(math.Abs(v)*40) % 256)
		}
		for _, meth := range []Method{MPCA, CSA} {
			for _, p := range []int{0, 3} {
				model, src := fitOrFatal(t, data, m, shape, Options{Method: meth, Components: p, Q: 0.9})
				u8src, err := NewSliceSource(u8, m, shape)
				if err != nil {
					t.Fatal(err)
				}
				if f, idx := model.tuckerFactors(); f == nil || len(idx) != model.Components() {
					t.Fatalf("%v %v P=%d: no factors for a Tucker model", shape, meth, p)
				}
				for _, s := range []Source{src, u8src} {
					got, err := model.TransformTo(nil, s)
					if err != nil {
						t.Fatal(err)
					}
					want, err := model.transform(nil, s, 0, nil, true) // per feature
					if err != nil {
						t.Fatal(err)
					}
					scale := 0.0
					for _, v := range want {
						scale = math.Max(scale, math.Abs(v))
					}
					for i := range want {
						if math.Abs(got[i]-want[i]) > 1e-12*scale {
							t.Fatalf("%v %v P=%d: feature %d of sample %d: %v by factors, %v by contractions",
								shape, meth, p, i%model.Components(), i/model.Components(), got[i], want[i])
						}
					}
				}
			}
		}
	}
	// Not a Tucker model: no factors.
	model, _ := fitOrFatal(t, randomTensors(1, 30, []int{5, 4}), 30, []int{5, 4}, Options{Method: SOMPCA, Components: 3})
	if f, idx := model.tuckerFactors(); f != nil || idx != nil {
		t.Error("SO-MPCA model: tuckerFactors returned factors")
	}
}
