package eigen

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkTopEigenvectors times the top P eigenpairs of the centred Gram
// matrix of uniform random integer data (M x 2M: eigenvalues crowded at
// the top of a Marchenko-Pastur spectrum, a hard case for Krylov
// methods) by block Lanczos and by the tridiagonal path, at P from 2.5%
// to 20% of n: it sets lanczosFraction, and -bench 'Top.*/3000/P=50'
// is the eigen step of the PCA 3000 x 6000 benchmark row. The products
// counts are reported as vectors/op.
func BenchmarkTopEigenvectors(b *testing.B) {
	for _, n := range []int{731, 1500, 3000} {
		rng := rand.New(rand.NewPCG(18, uint64(n)))
		X := mat.NewDense(n, 2*n, nil)
		raw := X.RawMatrix().Data
		for i := range raw {
			raw[i] = float64(rng.IntN(256))
		}
		for j := range 2 * n {
			s := 0.0
			for i := range n {
				s += raw[i*2*n+j]
			}
			for i := range n {
				raw[i*2*n+j] -= s / float64(n)
			}
		}
		K, _ := GramUpper(X, nil, nil)
		for _, P := range []int{n / 40, 50, n / 20, n / 10, n / 5} {
			if P == 50 && n != 3000 {
				continue
			}
			for _, method := range []string{"lanczos", "tridiag"} {
				if method == "tridiag" && n == 3000 && P != 50 {
					continue
				}
				b.Run(fmt.Sprintf("%d/P=%d/%s", n, P, method), func(b *testing.B) {
					S := mat.NewSymDense(n, nil)
					products := 0
					rt := &Routes{LanczosTrace: func(_, p int) { products = p }}
					c0 := processCPU()
					for range b.N {
						S.CopySym(K)
						var err error
						var ok bool
						if method == "lanczos" {
							raw := S.RawSymmetric()
							for i := range n {
								for j := i + 1; j < n; j++ {
									raw.Data[j*n+i] = raw.Data[i*n+j]
								}
							}
							if _, _, _, enough := lanczosShape(n, P); !enough {
								b.Skip("basis too large for n")
							}
							_, _, ok, err = lanczosTop(raw.Data, n, nil, n, P, nil, nil, rt)
						} else {
							_, _, err = tridiagTop(S, P, nil)
							ok = true
						}
						if err != nil || !ok {
							b.Fatal(ok, err)
						}
					}
					b.ReportMetric(float64(processCPU()-c0)/1e9/float64(b.N), "cpu-s/op")
					b.ReportMetric(float64(products), "vectors/op")
				})
			}
		}
	}
}
