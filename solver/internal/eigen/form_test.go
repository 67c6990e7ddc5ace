package eigen

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/sompca/sompca/solver/internal/kernel"
	"github.com/sompca/sompca/solver/internal/par"
)

// BenchmarkFormS: S = Y^T Y formed by rows (formRows: the chunks'
// scatters, then their fold into S) for faces' partial projections, on 1
// and 2 goroutines.
func BenchmarkFormS(b *testing.B) {
	for _, n := range []int{80, 60} {
		const m = 721
		Y := randomTensors(5, m, []int{n})
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dx%d/threads=%d", m, n, threads), func(b *testing.B) {
				e := Solver{threads: threads}
				defer e.Close()
				e.s = make([]float64, n*n)
				for range b.N {
					if err := e.formS(Y, m, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestFormS: S = Y^T Y formed on a team is the same bit for bit whatever
// the team's size, agrees with kernel.GramCols (one chain of FMAs per entry over
// all rows, an independent order of the sums) to rounding, exactly when
// formed by columns (beyond formRowsMax), and a cancel stops it with
// par.ErrCanceled.
func TestFormS(t *testing.T) {
	for _, c := range []struct{ n, m int }{{8, 1}, {9, 7}, {13, 100}, {31, 100}, {80, 721}, {16, 3000}, {200, 140}, {200, 800}} {
		n, m := c.n, c.m
		Y := randomTensors(uint64(n*m), m, []int{n})
		want := make([]float64, n*n)
		kernel.GramCols(want, Y, m, n)
		byRows := (m+gramChunk-1)/gramChunk > 1 && (m+gramChunk-1)/gramChunk*n*n <= formRowsMax
		var first []float64
		for _, threads := range []int{1, 2, 3} {
			e := Solver{threads: threads}
			e.s = make([]float64, n*n)
			if err := e.formS(Y, m, n); err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = append([]float64(nil), e.s...)
			}
			for i := range want {
				if e.s[i] != first[i] {
					t.Fatalf("n %d, m %d: S[%d][%d] = %v with %d threads, %v with 1", n, m, i/n, i%n, e.s[i], threads, first[i])
				}
				if e.s[i] != e.s[(i%n)*n+i/n] {
					t.Fatalf("n %d, m %d: S not symmetric at [%d][%d]", n, m, i/n, i%n)
				}
				// by rows: sums in another order, |S_ij| <= sqrt(S_ii S_jj)
				tol := 0.0
				if byRows {
					tol = 1e-13 * math.Sqrt(want[(i/n)*(n+1)]*want[(i%n)*(n+1)])
				}
				if math.Abs(e.s[i]-want[i]) > tol {
					t.Fatalf("n %d, m %d, %d threads: S[%d][%d] = %v, kernel.GramCols %v", n, m, threads, i/n, i%n, e.s[i], want[i])
				}
			}
			var calls atomic.Int64
			e.kr.cancel = func() bool { return calls.Add(1) > 1 }
			if err := e.formS(Y, m, n); (byRows || kernel.AVX2() && n >= 8) && !errors.Is(err, par.ErrCanceled) {
				t.Errorf("n %d, m %d, %d threads: canceled formS returned %v", n, m, threads, err)
			}
			e.Close()
		}
	}
}

// TestFormRowsTree: S formed by rows is, bit for bit, the fixed tree's
// sum of the chunks' scatters (kernel.GramCols on each chunk of gramChunk rows;
// the value of chunks [lo, lo+2^k) is that of its left half plus that of
// its right half, or the left's alone when the right holds no chunk:
// Fold's tree, summed here recursively), for 1 to 4 members and reads of
// any size, so the fold's order cannot change unnoticed.
func TestFormRowsTree(t *testing.T) {
	for _, c := range []struct{ n, m int }{{8, 65}, {13, 100}, {31, 300}, {60, 721}, {80, 721}, {17, 64 * 9}, {50, 1500}, {40, 64 * 8}, {10, 731}, {32, 731}} {
		n, m := c.n, c.m
		chunks := (m + gramChunk - 1) / gramChunk
		if chunks < 2 || chunks*n*n > formRowsMax {
			t.Fatalf("n %d, m %d: not formed by rows", n, m)
		}
		Y := randomTensors(uint64(3*n+m), m, []int{n})
		var tree func(lo, k int) []float64
		tree = func(lo, k int) []float64 {
			if k == 0 {
				S := make([]float64, n*n)
				kernel.GramCols(S, Y[lo*gramChunk*n:min(m, (lo+1)*gramChunk)*n], min(m, (lo+1)*gramChunk)-lo*gramChunk, n)
				return S
			}
			left := tree(lo, k-1)
			if mid := lo + 1<<(k-1); mid < chunks {
				right := tree(mid, k-1)
				for i := range left {
					left[i] += right[i]
				}
			}
			return left
		}
		want := tree(0, bits.Len(uint(chunks-1)))
		for _, threads := range []int{1, 2, 3, 4} {
			for _, block := range []int{0, 256, 2 * 256} { // 256: solver's readUnit
				e := Solver{threads: threads, block: block}
				e.s = make([]float64, n*n)
				if err := e.formS(Y, m, n); err != nil {
					t.Fatal(err)
				}
				for i := range n {
					for j := i; j < n; j++ {
						if e.s[i*n+j] != want[i*n+j] || e.s[j*n+i] != want[i*n+j] {
							t.Fatalf("n %d, m %d, %d threads, reads of %d: S[%d][%d] = %v, S[%d][%d] = %v, the tree's sum %v",
								n, m, threads, block, i, j, e.s[i*n+j], j, i, e.s[j*n+i], want[i*n+j])
						}
					}
				}
				e.Close()
			}
		}
	}
}

// TestFormRowsPanic: a member that panics while forming S by rows (here
// on rows of Y that are missing: the last chunk's slice is out of range)
// lets the others past formRowsTask's barrier, and the panic comes back
// from formS in the caller rather than the fit hanging.
func TestFormRowsPanic(t *testing.T) {
	const n, m = 16, 300
	Y := randomTensors(7, m, []int{n})
	for _, threads := range []int{1, 2, 3} {
		done := make(chan any, 1)
		e := Solver{threads: threads}
		e.s = make([]float64, n*n)
		go func() {
			defer func() { done <- recover() }()
			_ = e.formS(Y[:(m-10)*n:(m-10)*n], m, n) // cap too: no row past it
		}()
		select {
		case v := <-done:
			if v == nil {
				t.Errorf("%d threads: formS on a short Y did not panic", threads)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%d threads: formS hangs after a member's panic", threads)
		}
		e.Close()
	}
}

// BenchmarkGramProduct times a Krylov product Y^T (Y v) on the team.
func BenchmarkGramProduct(b *testing.B) {
	const m, n = 721, 80
	Y := randomTensors(7, m, []int{n})
	v, dst := make([]float64, n), make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("GramProduct/%dx%d/threads=%d", m, n, threads), func(b *testing.B) {
			e := Solver{threads: threads}
			defer e.Close()
			apply := e.gramApply(Y, n)
			for range b.N {
				apply(dst, v)
			}
		})
	}
}

// randomTensors returns m samples of the given shape: Gaussian noise plus
// a few random rank-one components, so that eigenvalues are distinct.
func randomTensors(seed uint64, m int, shape []int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	size := 1
	for _, d := range shape {
		size *= d
	}
	x := make([]float64, m*size)
	for i := range x {
		x[i] = rng.NormFloat64() + 3
	}
	for range 3 {
		comp := make([]float64, size)
		for i := range comp {
			comp[i] = 1
		}
		stride := size
		for _, d := range shape {
			stride /= d
			v := make([]float64, d)
			for j := range v {
				v[j] = rng.NormFloat64()
			}
			for i := range comp {
				comp[i] *= v[(i/stride)%d]
			}
		}
		for s := range m {
			a := 3 * rng.NormFloat64()
			floats.AddScaled(x[s*size:(s+1)*size], a, comp)
		}
	}
	return x
}
