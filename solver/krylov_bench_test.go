package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkModeEigen times the pieces of a mode update on partial
// projections Y (m x n) of random data: forming S = Y^T Y, one product
// Y^T (Y v), one product S v, and the dense eigendecomposition of S. The
// ratios set gramBudget (Syrk / YApply) and denseLimit (Dense against
// about 30 SApply).
func BenchmarkModeEigen(b *testing.B) {
	for _, c := range [][2]int{{721, 80}, {721, 60}, {300, 128}, {300, 16}, {300, 32}, {300, 256}} {
		m, n := c[0], c[1]
		rng := rand.New(rand.NewPCG(1, 2))
		Y := make([]float64, m*n)
		for i := range Y {
			Y[i] = rng.NormFloat64()
		}
		S := mat.NewSymDense(n, nil)
		syrk := func() {
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: m, Cols: n, Stride: n, Data: Y}, 0, S.RawSymmetric())
		}
		syrk()
		v, w := make([]float64, n), make([]float64, n)
		for i := range v {
			v[i] = 1
		}
		b.Run(fmt.Sprintf("%dx%d/Syrk", m, n), func(b *testing.B) {
			for range b.N {
				syrk()
			}
		})
		es0 := eigenSolver{threads: 1}
		ya := es0.gramApply(Y, n)
		b.Run(fmt.Sprintf("%dx%d/YApply", m, n), func(b *testing.B) {
			for range b.N {
				ya(w, v)
			}
		})
		sa := new(eigenSolver).symApply(S)
		b.Run(fmt.Sprintf("%dx%d/SApply", m, n), func(b *testing.B) {
			for range b.N {
				sa(w, v)
			}
		})
		var es eigenSolver
		b.Run(fmt.Sprintf("%dx%d/Dense", m, n), func(b *testing.B) {
			for range b.N {
				es.dense(w, S, nil)
			}
		})
	}
}
