package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks measure a whole fit (K = 20 sweeps) at the sizes the issue
// names: 2000 images of 32 x 32, and the paper's gait data, 731 sequences
// of 32 x 22 x 10, each in float64 and uint8.

func benchData(m int, shape []int, elem Elem) Source {
	rng := rand.New(rand.NewPCG(1, 2))
	size := 1
	for _, d := range shape {
		size *= d
	}
	switch elem {
	case Uint8:
		x := make([]uint8, m*size)
		for i := range x {
			x[i] = uint8(rng.IntN(256))
		}
		return must(NewSliceSource(x, m, shape))
	default:
		x := make([]float64, m*size)
		for i := range x {
			x[i] = float64(rng.IntN(256))
		}
		return must(NewSliceSource(x, m, shape))
	}
}

func benchmarkFit(b *testing.B, m int, shape []int, elem Elem, opts Options) {
	src := benchData(m, shape, elem)
	b.ResetTimer()
	for range b.N {
		var model Model
		if err := model.Fit(src, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFit(b *testing.B) {
	for _, c := range []struct {
		name  string
		m     int
		shape []int
		P     int
	}{
		{"Small", 200, []int{16, 16}, 16},
		{"Medium", 2000, []int{32, 32}, 10},
		{"Large", 731, []int{32, 22, 10}, 10},
	} {
		for _, elem := range []Elem{Float64, Uint8} {
			b.Run(fmt.Sprintf("%s/%v/%v", c.name, c.shape, elem), func(b *testing.B) {
				benchmarkFit(b, c.m, c.shape, elem, Options{Method: SOMPCA, RelaxedStart: true, Components: c.P})
			})
		}
	}
}

// BenchmarkTransform times Model.TransformTo of the training samples
// (P = 32): 2000 images of 32 x 32 and the gait data, uint8 and float64;
// cpu-ns/elem is the process's CPU time per sample element (see
// reportCPU), the figure to compare on a shared machine.
func BenchmarkTransform(b *testing.B) {
	for _, c := range []struct {
		name  string
		m     int
		shape []int
	}{
		{"Medium", 2000, []int{32, 32}},
		{"Gait", 731, []int{32, 22, 10}},
	} {
		for _, elem := range []Elem{Uint8, Float64} {
			b.Run(fmt.Sprintf("%s/%v/%v", c.name, c.shape, elem), func(b *testing.B) {
				src := benchData(c.m, c.shape, elem)
				var model Model
				if err := model.Fit(src, Options{Method: SOMPCA, RelaxedStart: true, Components: 32, MaxIter: 2}); err != nil {
					b.Fatal(err)
				}
				dst := make([]float64, c.m*32)
				b.ResetTimer()
				defer reportCPU(b, c.m*len(model.Mean))()
				for range b.N {
					if _, err := model.TransformTo(dst, src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
