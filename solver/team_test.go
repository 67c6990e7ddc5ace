package solver

import (
	"errors"
	"fmt"
	"github.com/sompca/sompca/solver/internal/kernel"
	"math"
	"math/bits"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// waitGoroutines fails t if the number of goroutines does not come back to
// n within a second (goroutines that returned may take a moment to go).
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left running, want %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFitStopsItsGoroutines: a fit leaves no goroutine behind, whether it
// succeeds, fails on a read or is canceled, whatever the method.
func TestFitStopsItsGoroutines(t *testing.T) {
	const M = 300
	shape := []int{6, 5, 4}
	src := must(NewSliceSource(randomTensors(5, M, shape), M, shape))
	before := runtime.NumGoroutine()
	for _, c := range []methodCase{{SOMPCA, true}, {UMPCA, false}, {PCA, false}, {MPCA, false}} {
		var m Model
		if err := m.Fit(src, Options{Method: c.method, RelaxedStart: c.rs, Threads: 2, Components: 2}); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		var flag atomic.Bool
		err := m.Fit(&cancelOnRead{Source: src, n: 3, flag: &flag}, Options{Method: c.method, RelaxedStart: c.rs, Threads: 2, Cancel: flag.Load})
		if !errors.Is(err, ErrCanceled) {
			t.Errorf("%v: canceled fit: %v", c, err)
		}
		if err := m.Fit(&failOnRead{Source: src, n: 3}, Options{Method: c.method, RelaxedStart: c.rs, Threads: 2}); err == nil {
			t.Errorf("%v: a fit whose third read fails succeeded", c)
		}
	}
	waitGoroutines(t, before)
}

// failOnRead fails its n-th Read.
type failOnRead struct {
	Source
	n int
}

func (f *failOnRead) Read(start, n int) (Block, error) {
	if f.n--; f.n == 0 {
		return Block{}, errors.New("read failed")
	}
	return f.Source.Read(start, n)
}

// BenchmarkPassThreads: the rows pass of each mode's TVP update on the
// gait and faces shapes, uint8 and float64, on 1 and 2 goroutines: what
// the passes alone gain from a second thread. For gait, rows1 includes
// filling the cache and rows2 reads it, as in a fit.
func BenchmarkPassThreads(b *testing.B) {
	for _, c := range []struct {
		name  string
		m     int
		shape []int
	}{{"gait", 731, []int{32, 22, 10}}, {"faces", 721, []int{80, 60}}} {
		vs := make([][]float64, len(c.shape))
		size := 1
		for n, d := range c.shape {
			size *= d
			vs[n] = make([]float64, d)
			for i := range vs[n] {
				vs[n][i] = 1 / float64(d)
			}
		}
		for _, elem := range []Elem{Uint8, Float64} {
			src := benchSource(c.m, c.shape, elem)
			for mode := range c.shape {
				for _, threads := range []int{1, 2} {
					b.Run(fmt.Sprintf("%s/%v/rows%d/threads=%d", c.name, elem, mode, threads), func(b *testing.B) {
						r := newRunner(src, size, threads)
						defer r.close()
						p := Pass{Op: OpModeRows, Shape: c.shape, Samples: c.m, Mode: mode, Vectors: vs}
						out := make([]float64, c.m*c.shape[mode])
						if p.usesCache() {
							// as in a fit: mode 1 fills the cache of
							// X x_1 u^(1), modes 2.. read it
							r.z = make([]float64, c.m*cacheRow(c.shape))
						}
						for range b.N {
							if mode > 1 && r.z != nil {
								p1 := p
								p1.Mode = 1
								if err := r.runCached(&p1, make([]float64, c.m*c.shape[1])); err != nil {
									b.Fatal(err)
								}
							}
							if err := r.runCached(&p, out); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}

// BenchmarkPassForm: a faces-size and a gait-size TVP mode update's team
// work as a fit runs it, the rows pass writing Y (M x I_n, uint8 samples
// 721 x 80 x 60 and 731 x 32 x 22 x 10) and S = Y^T Y formed from it
// (formS), every mode in turn, on 1 and 2 goroutines, back to back or with a pause of the caller's between
// updates (busy on data of its own, as the serial eigen step is). With
// the teamstats tag the tasks' times show what the second core costs in
// CPU: the members' shares sum to the one goroutine's time when the host
// is quiet (see doc.go, "Passes").
func BenchmarkPassForm(b *testing.B) {
	for _, c := range []struct {
		name  string
		m     int
		shape []int
	}{{"faces", 721, []int{80, 60}}, {"gait", 731, []int{32, 22, 10}}} {
		m, shape := c.m, c.shape
		vs := make([][]float64, len(shape))
		for n, in := range shape {
			vs[n] = make([]float64, in)
			for i := range vs[n] {
				vs[n][i] = 1 / float64(in)
			}
		}
		src := benchSource(m, shape, Uint8)
		size := 1
		for _, in := range shape {
			size *= in
		}
		own := make([]float64, 4096) // the caller's data in the pause
		for _, pause := range []time.Duration{0, 50 * time.Microsecond} {
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/uint8/pause=%v/threads=%d", c.name, pause, threads), func(b *testing.B) {
					r := newRunner(src, size, threads)
					defer r.close()
					// The cache of X x_1 u^(1) for samples of order 3, as a
					// fit has it (runCached).
					r.z = make([]float64, m*size/shape[0])
					e := eigenSolver{threads: threads, team: r.team(), block: r.block}
					e.s = make([]float64, shape[0]*shape[0])
					Y := make([]float64, m*shape[0])
					for i := range b.N {
						// u^(1) changes every sweep: the mode-2 pass fills the
						// cache, the mode-3 pass reads it.
						vs[0][0] = 1/float64(shape[0]) + float64(i%2)*0x1p-40
						for mode, in := range shape {
							p := Pass{Op: OpModeRows, Shape: shape, Samples: m, Mode: mode, Vectors: vs}
							if err := r.runCached(&p, Y[:m*in]); err != nil {
								b.Fatal(err)
							}
							if err := e.formS(Y[:m*in], m, in); err != nil {
								b.Fatal(err)
							}
							for t0 := time.Now(); time.Since(t0) < pause; {
								for i := range own {
									own[i]++
								}
							}
						}
					}
				})
			}
		}
	}
}

// BenchmarkFormS: S = Y^T Y formed by rows (formRows: the chunks'
// scatters, then their fold into S) for faces' partial projections, on 1
// and 2 goroutines.
func BenchmarkFormS(b *testing.B) {
	for _, n := range []int{80, 60} {
		const m = 721
		Y := randomTensors(5, m, []int{n})
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dx%d/threads=%d", m, n, threads), func(b *testing.B) {
				e := eigenSolver{threads: threads}
				defer e.close()
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
// ErrCanceled.
func TestFormS(t *testing.T) {
	for _, c := range []struct{ n, m int }{{8, 1}, {9, 7}, {13, 100}, {31, 100}, {80, 721}, {16, 3000}, {200, 140}, {200, 800}} {
		n, m := c.n, c.m
		Y := randomTensors(uint64(n*m), m, []int{n})
		want := make([]float64, n*n)
		kernel.GramCols(want, Y, m, n)
		byRows := (m+gramChunk-1)/gramChunk > 1 && (m+gramChunk-1)/gramChunk*n*n <= formRowsMax
		var first []float64
		for _, threads := range []int{1, 2, 3} {
			e := eigenSolver{threads: threads}
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
			if err := e.formS(Y, m, n); (byRows || kernel.AVX2() && n >= 8) && !errors.Is(err, ErrCanceled) {
				t.Errorf("n %d, m %d, %d threads: canceled formS returned %v", n, m, threads, err)
			}
			e.close()
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
			for _, block := range []int{0, readUnit, 2 * readUnit} {
				e := eigenSolver{threads: threads, block: block}
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
				e.close()
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
		e := eigenSolver{threads: threads}
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
		e.close()
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
			e := eigenSolver{threads: threads}
			defer e.close()
			apply := e.gramApply(Y, n)
			for range b.N {
				apply(dst, v)
			}
		})
	}
}
