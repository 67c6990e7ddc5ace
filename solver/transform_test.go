package solver

import (
	"errors"
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

// TestInverseTransform: a sample mean + A c in the span of the model's
// projections (A's column p is feature p's projection) has the features
// z = A^T A c (by definition of the transform), and the least-squares
// reconstruction mean + A (A^T A)^+ z gives it back when A^T A has full
// rank; for every method, orthonormal projections or not (UMPCA, TROD).
// TransformTo of the sample gives z, so this also checks the two agree.
func TestInverseTransform(t *testing.T) {
	shape := []int{5, 4, 3}
	const m = 30
	data := randomTensors(3, m, shape)
	rng := randomTensors(4, 2, []int{4})
	for _, meth := range []Method{SOMPCA, FOMPCA, TROD, UMPCA, PCA, MPCA, CSA} {
		model, _ := fitOrFatal(t, data, m, shape, Options{Method: meth, Components: 3, Q: 0.9})
		P := model.Components()
		a := model.basis()
		x := make([]float64, 2*len(model.Mean))
		for s := range 2 {
			row := x[s*len(model.Mean) : (s+1)*len(model.Mean)]
			copy(row, model.Mean)
			for p := range P {
				for i := range row {
					row[i] += rng[s*4+p%4] * a.At(i, p)
				}
			}
		}
		src, err := NewSliceSource(x, 2, shape)
		if err != nil {
			t.Fatal(err)
		}
		z, err := model.TransformTo(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // twice on one model: nothing is left over
			got, err := model.InverseTransformTo(nil, z)
			if err != nil {
				t.Fatalf("%v: %v", meth, err)
			}
			for i := range x {
				if math.Abs(got[i]-x[i]) > 1e-10 {
					t.Fatalf("%v: element %d: reconstructed %v, want %v", meth, i, got[i], x[i])
				}
			}
		}
	}
	model, _ := fitOrFatal(t, data, m, shape, Options{Method: SOMPCA, Components: 2})
	if _, err := model.InverseTransformTo(nil, []float64{1, 2, 3}); !errors.Is(err, ErrShape) {
		t.Errorf("3 values for P = 2: %v, want ErrShape", err)
	}
	var se *SampleError
	if _, err := model.InverseTransformTo(nil, []float64{1, 2, 3, math.NaN()}); !errors.As(err, &se) || se.Index != 1 {
		t.Errorf("a NaN in sample 1: %v, want a SampleError of sample 1", err)
	}
	if _, err := model.InverseTransformTo(make([]float64, 5), []float64{1, 2}); !errors.Is(err, ErrShape) {
		t.Errorf("a short dst: %v, want ErrShape", err)
	}
}
