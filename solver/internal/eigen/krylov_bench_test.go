package eigen

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// BenchmarkModeEigen times the pieces of a mode update on partial
// projections Y (m x n) of random data: forming S = Y^T Y (kernel.GramCols), one
// product Y^T (Y v), one product S v (fullApply), and the dense
// eigendecomposition of S. The ratios set gramBudget (Form / YApply) and
// denseLimit (Dense against about 30 SApply).
func BenchmarkModeEigen(b *testing.B) {
	for _, c := range [][2]int{{721, 80}, {721, 60}, {300, 128}, {300, 16}, {300, 32}, {300, 256}} {
		m, n := c[0], c[1]
		rng := rand.New(rand.NewPCG(1, 2))
		Y := make([]float64, m*n)
		for i := range Y {
			Y[i] = rng.NormFloat64()
		}
		es1 := Solver{s: make([]float64, n*n)}
		form := func() { kernel.GramCols(es1.s, Y, m, n) }
		form()
		S := mat.NewSymDense(n, es1.s)
		v, w := make([]float64, n), make([]float64, n)
		for i := range v {
			v[i] = 1
		}
		b.Run(fmt.Sprintf("%dx%d/Form", m, n), func(b *testing.B) {
			for range b.N {
				form()
			}
		})
		es0 := Solver{threads: 1}
		ya := es0.gramApply(Y, n)
		b.Run(fmt.Sprintf("%dx%d/YApply", m, n), func(b *testing.B) {
			for range b.N {
				ya(w, v)
			}
		})
		sa := es1.fullApply(n)
		b.Run(fmt.Sprintf("%dx%d/SApply", m, n), func(b *testing.B) {
			for range b.N {
				sa(w, v)
			}
		})
		var es Solver
		b.Run(fmt.Sprintf("%dx%d/Dense", m, n), func(b *testing.B) {
			for range b.N {
				es.dense(w, S, nil)
			}
		})
	}
}
