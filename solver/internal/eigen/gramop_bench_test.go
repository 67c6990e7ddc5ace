package eigen

import (
	"fmt"
	"testing"

	"github.com/sompca/sompca/solver/internal/par"
)

// BenchmarkIntGramApply: block products K z with the int32 operator, of
// blocks of 4 to 16 vectors on 1 and 2 threads, against the float64 rows
// of the same matrix (lanczosWork.par, b = 8), for a matrix in the cache
// (n = 300) and one far beyond it (n = 3000).
func BenchmarkIntGramApply(b *testing.B) {
	for _, n := range []int{300, 3000} {
		l := make([]int32, n*n)
		a := make([]float64, n*n)
		for i := range l {
			l[i] = int32(i*7919%100000) - 50000
			a[i] = float64(l[i])
		}
		g := &IntGram{l: l, e: make([]float64, n), n: n}
		g.setBlock(16)
		z := make([]float64, 16*n)
		for i := range z {
			z[i] = float64(i%13) - 6
		}
		dst := make([]float64, 16*n)
		for _, threads := range []int{1, 2} {
			crew := par.NewTeam(threads)
			for _, bs := range []int{4, 8, 16} {
				b.Run(fmt.Sprintf("int32/n=%d/b=%d/threads=%d", n, bs, threads), func(b *testing.B) {
					l := par.NewTasks(crew)
					for range b.N {
						g.apply(dst, z, bs, l)
					}
					b.ReportMetric(float64(bs*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFMA/s")
				})
			}
			crew.Close()
		}
		w := &lanczosWork{a: a, lda: n, n: n}
		b.Run(fmt.Sprintf("float64/n=%d", n), func(b *testing.B) {
			for range b.N {
				w.applyRows(dst, z, 8)
			}
			b.ReportMetric(float64(8*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFMA/s")
		})
	}
}
