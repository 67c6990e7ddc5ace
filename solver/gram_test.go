package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGramUpper: the blocked Gram matrix equals gonum's SymOuterK (an
// independent path) to rounding, across every block edge: M not a multiple
// of the 3 x 4 kernel blocks or of the 128-row panels, D below, at and
// above a 256-column chunk and not a multiple of 4. And it is the same
// bit for bit with 1 thread and with 2.
func TestGramUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, sh := range [][2]int{{1, 5}, {7, 3}, {300, 37}, {131, 256}, {260, 519}, {5, 1030}} {
		m, d := sh[0], sh[1]
		X := mat.NewDense(m, d, nil)
		for i := range m {
			for j := range d {
				X.Set(i, j, rng.NormFloat64())
			}
		}
		got, _ := gramUpper(X, nil, 0)
		want := mat.NewSymDense(m, nil)
		want.SymOuterK(1, X)
		// Each entry is a d-term dot product: within 2 gamma_d of the
		// exact value relative to sum |x_ik x_jk| <= ||x_i|| ||x_j||
		// (Higham, section 3.1), so 1e-13 of that for d < 2^10 or so.
		for i := range m {
			for j := i; j < m; j++ {
				scale := math.Sqrt(want.At(i, i) * want.At(j, j))
				if math.Abs(got.At(i, j)-want.At(i, j)) > 1e-13*scale {
					t.Fatalf("%d x %d: K[%d][%d] = %v, SymOuterK %v", m, d, i, j, got.At(i, j), want.At(i, j))
				}
			}
		}
		prev := runtime.GOMAXPROCS(1)
		one, _ := gramUpper(X, nil, 0)
		runtime.GOMAXPROCS(2)
		two, _ := gramUpper(X, nil, 0)
		runtime.GOMAXPROCS(prev)
		if !mat.Equal(one, two) || !mat.Equal(one, got) {
			t.Errorf("%d x %d: gramUpper differs between 1 and 2 threads", m, d)
		}
	}
}

// TestGramMap: X^T V by gramMap equals gonum's Mul (an independent path)
// to rounding, across chunk and kernel-block edges (d not a multiple of
// the 96-column chunks or of 3, p not a multiple of 4, m below and above
// the 256-term chunks of the sums), and is the same bit for bit with 1
// thread and with 2.
func TestGramMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sh := range [][3]int{{5, 7, 1}, {40, 97, 6}, {300, 200, 9}, {257, 385, 4}} {
		m, d, p := sh[0], sh[1], sh[2]
		X, V := mat.NewDense(m, d, nil), mat.NewDense(m, p, nil)
		for i := range m {
			for j := range d {
				X.Set(i, j, rng.NormFloat64())
			}
			for j := range p {
				V.Set(i, j, rng.NormFloat64())
			}
		}
		got, err := gramMap(X, V, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(X.T(), V)
		// An m-term dot product: within 2 gamma_m of the exact value
		// relative to ||x_c|| ||v_j|| (Higham, section 3.1).
		for c := range d {
			for j := range p {
				scale := mat.Norm(X.ColView(c), 2) * mat.Norm(V.ColView(j), 2)
				if math.Abs(got.At(c, j)-want.At(c, j)) > 1e-13*scale {
					t.Fatalf("%d x %d, p = %d: W[%d][%d] = %v, Mul %v", m, d, p, c, j, got.At(c, j), want.At(c, j))
				}
			}
		}
		prev := runtime.GOMAXPROCS(1)
		one, _ := gramMap(X, V, nil, 0)
		runtime.GOMAXPROCS(2)
		two, _ := gramMap(X, V, nil, 0)
		runtime.GOMAXPROCS(prev)
		if !mat.Equal(one, two) || !mat.Equal(one, got) {
			t.Errorf("%d x %d: gramMap differs between 1 and 2 threads", m, d)
		}
	}
}

// TestGram3x4Order checks the kernel bit for bit against the arithmetic
// it is written to do: lane l of each of the 12 sums takes the terms
// c = l mod 4 in order with fused multiply-adds (the assembly; the Go
// kernel without FMA only to rounding), then (l0 + l1) + (l2 + l3).
func TestGram3x4Order(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{4, 8, 36, 256} {
		lda, ldb := k+3, k+5
		a, b := make([]float64, 3*lda), make([]float64, 4*ldb)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		var got [12]float64
		gram3x4(&got, a, lda, b, ldb, k)
		for i := range 3 {
			for j := range 4 {
				var l [4]float64
				for c := 0; c < k; c += 4 {
					for q := range 4 {
						l[q] = math.FMA(a[i*lda+c+q], b[j*ldb+c+q], l[q])
					}
				}
				want := (l[0] + l[1]) + (l[2] + l[3])
				name := fmt.Sprintf("k = %d, (%d, %d)", k, i, j)
				if useAVX2 && got[4*i+j] != want {
					t.Errorf("%s: %v, fma lanes %v", name, got[4*i+j], want)
				}
				if math.Abs(got[4*i+j]-want) > 1e-13*float64(k) {
					t.Errorf("%s: %v, want %v", name, got[4*i+j], want)
				}
			}
		}
	}
}

// BenchmarkGramUpper times the PCA Gram matrix at the gait shape (731 x
// 7040) and a 1000 x 6000 slice of the 3000 x 6000 row, in GFMA per CPU
// second (the upper triangle: M (M+1) D / 2 multiply-adds).
func BenchmarkGramUpper(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sh := range [][2]int{{731, 7040}, {1000, 6000}} {
		m, d := sh[0], sh[1]
		X := mat.NewDense(m, d, nil)
		for i := range m {
			for j := range d {
				X.Set(i, j, float64(rng.IntN(256)))
			}
		}
		b.Run(fmt.Sprintf("%dx%d", m, d), func(b *testing.B) {
			start := processCPU()
			for range b.N {
				gramUpper(X, nil, 0)
			}
			cpu := float64(processCPU()-start) / 1e9
			b.ReportMetric(float64(m)*float64(m+1)*float64(d)/2*float64(b.N)/cpu/1e9, "GFMA/cpu-s")
		})
	}
}
