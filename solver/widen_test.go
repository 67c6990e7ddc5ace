package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// TestCentreInto checks centreInto, by the AVX2 kernels where there are,
// against the Go loops it stands for (toFloat64, then floats.Sub): the
// same bits, for lengths around the kernels' 16 elements an iteration,
// with and without a mean, and nothing written past the elements.
func TestCentreInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	on := kernel.AVX2()
	{
		for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 47, 100, 7040} {
			x := make([]uint8, n)
			mean := make([]float64, n)
			for i := range x {
				x[i] = uint8(rng.IntN(256))
				// Means with full mantissas, so that the subtraction rounds.
				mean[i] = 255 * rng.Float64()
			}
			if n > 0 {
				x[n-1] = 255 // the largest value, last (in the tail or a vector)
			}
			for _, m := range [][]float64{nil, mean} {
				want := make([]float64, n)
				toFloat64(want, Block{U8: x})
				if m != nil {
					floats.Sub(want, m)
				}
				got := make([]float64, n+1)
				got[n] = -7 // past the end: must stay
				centreInto(got[:n], Block{U8: x}, m)
				for i := range n {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("avx2 %v n %d mean %v: element %d = %v, want %v", on, n, m != nil, i, got[i], want[i])
					}
				}
				if got[n] != -7 {
					t.Fatalf("avx2 %v n %d: wrote past the end", on, n)
				}
			}
		}
	}
}
