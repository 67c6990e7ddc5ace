package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
	"github.com/sompca/sompca/solver/internal/par"
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
		got, _ := GramUpper(X, nil, nil)
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
		var one, two *mat.SymDense
		onTeam(1, func(crew *par.Team) { one, _ = GramUpper(X, nil, crew) })
		onTeam(2, func(crew *par.Team) { two, _ = GramUpper(X, nil, crew) })
		if !mat.Equal(one, two) || !mat.Equal(one, got) {
			t.Errorf("%d x %d: GramUpper differs between 1 and 2 threads", m, d)
		}
	}
}

// TestGramMap: X^T V by GramMap equals gonum's Mul (an independent path)
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
		got, err := GramMap(X, V, nil, nil)
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
		var one, two *mat.Dense
		onTeam(1, func(crew *par.Team) { one, _ = GramMap(X, V, nil, crew) })
		onTeam(2, func(crew *par.Team) { two, _ = GramMap(X, V, nil, crew) })
		if !mat.Equal(one, two) || !mat.Equal(one, got) {
			t.Errorf("%d x %d: GramMap differs between 1 and 2 threads", m, d)
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
		kernel.Gram3x4(&got, a, lda, b, ldb, k)
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
				if kernel.AVX2() && got[4*i+j] != want {
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
			onTeam(runtime.GOMAXPROCS(0), func(crew *par.Team) {
				for range b.N {
					GramUpper(X, nil, crew)
				}
			})
			cpu := float64(processCPU()-start) / 1e9
			b.ReportMetric(float64(m)*float64(m+1)*float64(d)/2*float64(b.N)/cpu/1e9, "GFMA/cpu-s")
		})
	}
}

// BenchmarkGramCentredInt: the exact Gram matrix of PCA's 3000 x 6000
// row (uint8-range integers) with its int32 operator, 1 and 2 threads;
// multiply-adds M(M+1)D/2 per wall and per CPU second.
func BenchmarkGramCentredInt(b *testing.B) {
	m, d := 3000, 6000
	rng := rand.New(rand.NewPCG(1, 2))
	u8 := make([]uint8, m*d)
	for i := range u8 {
		u8[i] = uint8(rng.IntN(256))
	}
	for _, threads := range []int{1, 2} {
		onTeam(threads, func(crew *par.Team) {
			x16, ld := GramIntegersU8(u8, m, d, crew, nil)
			b.Run(fmt.Sprintf("%dx%d/threads=%d", m, d, threads), func(b *testing.B) {
				c0 := processCPU()
				for range b.N {
					GramCentredInt(x16, ld, m, d, nil, crew, true)
				}
				cpu := float64(processCPU()-c0) / 1e9
				macs := float64(m) * float64(m+1) / 2 * float64(d) * float64(b.N)
				b.ReportMetric(macs/b.Elapsed().Seconds()/1e9, "GFMA/s")
				b.ReportMetric(macs/cpu/1e9, "GFMA/cpu-s")
			})
		})
	}
}

// TestGramI16: the integer kernel (AVX2 where there is AVX2) gives the
// exact integer dot products, equal to int64 sums in Go, on values at the
// ends of the range, and at the longest call (gramIntChunk columns of
// +-gramIntMax, every product at its largest: the lanes' sums at their
// bound).
func TestGramI16(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 16))
	const lda, ldb = 2064, 2080
	a, b := make([]int16, 3*lda), make([]int16, 4*ldb)
	for i := range a {
		a[i] = int16(rng.IntN(2*gramIntMax+1) - gramIntMax)
	}
	for i := range b {
		b[i] = int16(rng.IntN(2*gramIntMax+1) - gramIntMax)
	}
	b[0], a[0], b[ldb], a[lda] = gramIntMax, gramIntMax, -gramIntMax, gramIntMax
	check := func(a []int16, lda int, b []int16, ldb, k int) {
		var out [12]int32
		kernel.GramI16(&out, a, lda, b, ldb, k)
		for i := range 3 {
			for j := range 4 {
				var want int64
				for c := range k {
					want += int64(a[i*lda+c]) * int64(b[j*ldb+c])
				}
				if int64(out[4*i+j]) != want {
					t.Errorf("k = %d: entry (%d, %d) = %d, want %d", k, i, j, out[4*i+j], want)
				}
			}
		}
	}
	for _, k := range []int{16, 48, 2048} {
		check(a, lda, b, ldb, k)
	}
	const k = gramIntChunk
	a, b = make([]int16, 3*k), make([]int16, 4*k)
	for i := range a {
		a[i] = gramIntMax
	}
	for i := range b {
		b[i] = gramIntMax
		if i >= 2*k { // rows 2 and 3 of b: the negative extreme
			b[i] = -gramIntMax
		}
	}
	check(a, k, b, k, k)
}

// TestGramCentredInt: on integer samples (uint8-like and signed, with
// shapes that leave partial blocks), the exact path equals the centred
// Gram matrix computed directly in scaled integers, sum_c (M x_ic - S_c)
// (M x_jc - S_c) / M^2 (the same exact value, rounded the same way), bit
// for bit, at 1 and 3 threads; values that are not small integers are
// refused.
func TestGramCentredInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 17))
	for _, sh := range [][3]int{{131, 37, 0}, {260, 4100, 0}, {50, 20, -gramIntMax}} {
		m, d, lo := sh[0], sh[1], sh[2]
		X := mat.NewDense(m, d, nil)
		raw := X.RawMatrix().Data
		for i := range raw {
			raw[i] = float64(lo + rng.IntN(gramIntMax-lo+1))
		}
		var x16 []int16
		var ld int
		onTeam(2, func(crew *par.Team) { x16, ld = GramIntegers(X, crew, nil) })
		if x16 == nil {
			t.Fatalf("%v: integer samples refused", sh)
		}
		sums := make([]int64, d)
		for i := range m {
			for c := range d {
				sums[c] += int64(raw[i*d+c])
			}
		}
		M := int64(m)
		for _, threads := range []int{1, 3} {
			var K, K64 *mat.SymDense
			var err error
			onTeam(threads, func(crew *par.Team) {
				K, _, err = GramCentredInt(x16, ld, m, d, nil, crew, false)
				if err == nil { // K0 summed in float64, as for d beyond int32's range
					K64, _, err = gramCentredFrom([]float64(nil), 0, x16, ld, m, d, nil, crew, false)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(K, K64) {
				t.Fatalf("%v, %d threads: K0 in int32 and in float64 give different matrices", sh, threads)
			}
			for i := range m {
				for j := i; j < m; j++ {
					var num int64
					for c := range d {
						num += (M*int64(raw[i*d+c]) - sums[c]) * (M*int64(raw[j*d+c]) - sums[c])
					}
					if want := float64(num) / float64(M*M); K.At(i, j) != want {
						t.Fatalf("%v, %d threads: K[%d, %d] = %v, want %v", sh, threads, i, j, K.At(i, j), want)
					}
				}
			}
		}
	}
	for _, v := range []float64{0.5, gramIntMax + 1, -gramIntMax - 1, math.NaN(), math.Inf(1)} {
		X := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
		X.Set(1, 2, v)
		if x16, _ := GramIntegers(X, nil, nil); x16 != nil {
			t.Errorf("value %v: accepted as a small integer", v)
		}
	}
}

// onTeam calls fn with a team of size goroutines, then stops it.
func onTeam(size int, fn func(crew *par.Team)) {
	crew := par.NewTeam(size)
	defer crew.Close()
	fn(crew)
}
