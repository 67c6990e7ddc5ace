package solver_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver"
)

// Fit SO-MPCA-RS to twelve 3 x 4 "images" and extract their features.
func ExampleModel_Fit() {
	const M = 12
	data := make([]float64, M*3*4)
	for m := range M {
		for i := range 3 {
			for j := range 4 {
				// A smooth pattern whose amplitude varies over the samples.
				data[(m*3+i)*4+j] = float64(m%5) * float64(i+1) * math.Sin(float64(j+m))
			}
		}
	}
	src, err := solver.NewSliceSource(data, M, []int{3, 4})
	if err != nil {
		panic(err)
	}
	var model solver.Model
	if err := model.Fit(src, solver.Options{Method: solver.SOMPCA, RelaxedStart: true}); err != nil {
		panic(err)
	}
	feats, err := model.TransformTo(nil, src) // M x P, sample-major
	if err != nil {
		panic(err)
	}
	P := model.Components()
	// nu = argmax_n I_n: mode 1 (0-based; its size is 4), so P = 4
	// features whose mode-1 vectors are orthonormal.
	var G mat.Dense
	G.Mul(model.Projections[1].T(), model.Projections[1])
	fmt.Println("orthogonal mode:", model.Mode, "features:", P, "per sample:", len(feats)/M)
	fmt.Println("orthonormal mode-nu vectors:", mat.EqualApprox(&G, identity(P), 1e-12))
	// Output:
	// orthogonal mode: 1 features: 4 per sample: 4
	// orthonormal mode-nu vectors: true
}

func identity(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := range n {
		d.Set(i, i, 1)
	}
	return d
}
