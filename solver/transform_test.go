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

// TestStridedSource: samples read through NewStridedSource (a stride
// between samples, or uint16/int16 widened per read) give the model and
// features of the same values as consecutive float32 samples, bit for bit
// (the same element type reaches the same kernels; the reads' sizes
// change nothing), and the caller's data are left alone.
func TestStridedSource(t *testing.T) {
	shape := []int{4, 3, 5}
	const m, size, stride = 40, 60, 67
	values := randomTensors(9, m, shape)
	f32 := make([]float32, m*size)
	u16 := make([]uint16, (m-1)*stride+size)
	i16 := make([]int16, m*size)
	f64 := make([]float64, (m-1)*stride+size)
	for s := range m {
		for i := range size {
			v := math.Round(math.Abs(values[s*size+i]) * 100) // 0..~400: int16 holds v - 500
			f32[s*size+i], u16[s*stride+i], i16[s*size+i], f64[s*stride+i] = float32(v), uint16(v), int16(v-500), v
		}
	}
	for i := range u16 { // the gaps between samples must never be read
		if i%stride >= size {
			u16[i], f64[i] = 65535, math.NaN()
		}
	}
	opts := Options{Method: SOMPCA, Components: 3, NoNarrowing: true}
	ref, err := NewSliceSource(f32, m, shape)
	if err != nil {
		t.Fatal(err)
	}
	var wantModel Model
	if err := wantModel.Fit(ref, opts); err != nil {
		t.Fatal(err)
	}
	wantZ, err := wantModel.TransformTo(nil, ref)
	if err != nil {
		t.Fatal(err)
	}
	u16src, err := NewStridedSource(u16, m, stride, shape)
	if err != nil {
		t.Fatal(err)
	}
	f64src, err := NewStridedSource(f64, m, stride, shape)
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]Source{"uint16 strided": u16src, "float64 strided": f64src} {
		var got Model
		if err := got.Fit(src, opts); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		z, err := wantModel.TransformTo(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		if name == "uint16 strided" {
			for j := range got.Variance {
				if got.Variance[j] != wantModel.Variance[j] {
					t.Errorf("%s: variance %d is %v, want %v (float32 samples)", name, j, got.Variance[j], wantModel.Variance[j])
				}
			}
			for i := range z {
				if z[i] != wantZ[i] {
					t.Fatalf("%s: feature value %d is %v, want %v", name, i, z[i], wantZ[i])
				}
			}
		} else { // float64 elements: other kernels, the same values
			for i := range z {
				if math.Abs(z[i]-wantZ[i]) > 1e-9*math.Abs(wantZ[i])+1e-9 {
					t.Fatalf("%s: feature value %d is %v, want %v", name, i, z[i], wantZ[i])
				}
			}
		}
	}
	// int16: the values shifted by -500 move the mean, not the features.
	i16src, err := NewStridedSource(i16, m, 0, shape)
	if err != nil {
		t.Fatal(err)
	}
	z, err := wantModel.TransformTo(nil, i16src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range z {
		shift := 0.0 // -500 times the sum of feature i%P's projection
		for k := range size {
			prod := 1.0
			idx := k
			for n := len(shape) - 1; n >= 0; n-- {
				prod *= wantModel.Projections[n].At(idx%shape[n], i%3)
				idx /= shape[n]
			}
			shift -= 500 * prod
		}
		if math.Abs(z[i]-(wantZ[i]+shift)) > 1e-9*math.Abs(wantZ[i])+1e-9 {
			t.Fatalf("int16: feature value %d is %v, want %v", i, z[i], wantZ[i]+shift)
		}
	}
	for i := range u16 {
		if i%stride >= size && u16[i] != 65535 {
			t.Fatal("the gaps between samples were written")
		}
	}
	if _, err := NewStridedSource(u16, m, size-1, shape); !errors.Is(err, ErrShape) {
		t.Errorf("overlapping samples: %v, want ErrShape", err)
	}
	if _, err := NewStridedSource(u16[:len(u16)-1], m, stride, shape); !errors.Is(err, ErrShape) {
		t.Errorf("data one element short: %v, want ErrShape", err)
	}
}
