package solver

import (
	"errors"
	"fmt"
	"github.com/sompca/sompca/solver/internal/kernel"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// TestTeam: run calls fn once per member and epoch, with every member's
// index, also after the members parked (a pause longer than teamSpin);
// a member's panic comes back from run in the caller; close stops the
// goroutines.
func TestTeam(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, size := range []int{1, 2, 3, 2 * runtime.GOMAXPROCS(0)} {
		tm := newTeam(size)
		hits := make([]atomic.Int64, size)
		fn := func(w int) { hits[w].Add(1) }
		for round := range 300 {
			if round%100 == 99 {
				time.Sleep(3 * teamSpin) // the members park
			}
			tm.run(fn)
			for w := range hits {
				if got := hits[w].Load(); got != int64(round+1) {
					t.Fatalf("team of %d, round %d: member %d ran %d times", size, round, w, got)
				}
			}
		}
		if size > 1 {
			func() {
				defer func() {
					v := recover()
					if v == nil || !strings.Contains(fmt.Sprint(v), "boom") {
						t.Errorf("team of %d: run recovered %v, want the member's panic", size, v)
					}
				}()
				tm.run(func(w int) {
					if w == size-1 {
						panic("boom")
					}
				})
			}()
			tm.run(fn) // still usable
		}
		tm.close()
		tm.close() // a second close does nothing
	}
	waitGoroutines(t, before)
}

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

// BenchmarkTeam measures what handing work to a fit's goroutines costs:
// an empty task on every member (Handoff), and the Krylov product
// v -> Y^T (Y v) of the faces case's mode 0 (Y 721 x 80) on 1 and 2
// goroutines.
func BenchmarkTeam(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("Handoff/threads=%d", threads), func(b *testing.B) {
			tm := newTeam(threads)
			defer tm.close()
			fn := func(int) {}
			for range b.N {
				tm.run(fn)
			}
		})
	}
	// A member that waited a while (the caller's serial eigen steps of a
	// mode update take 20-100 us) is past its tight spin: lag-ns is the
	// mean time from the start of run to the member's start of the task.
	for _, gap := range []time.Duration{10 * time.Microsecond, 30 * time.Microsecond, 100 * time.Microsecond} {
		b.Run(fmt.Sprintf("HandoffAfter/%v/threads=2", gap), func(b *testing.B) {
			tm := newTeam(2)
			defer tm.close()
			var t0 time.Time
			var lag time.Duration
			fn := func(w int) {
				if w == 1 {
					lag += time.Since(t0)
				}
			}
			for range b.N {
				for s := time.Now(); time.Since(s) < gap; {
				}
				t0 = time.Now()
				tm.run(fn)
			}
			b.ReportMetric(float64(lag.Nanoseconds())/float64(b.N), "lag-ns")
		})
	}
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

// TestPadding: the members' state that others read or take from sits in
// 128-byte pairs of cache lines of its own (see teamMember).
func TestPadding(t *testing.T) {
	if s := unsafe.Sizeof(teamMember{}); s != 128 {
		t.Errorf("teamMember is %d bytes, not 128", s)
	}
	if s := unsafe.Sizeof(dealRun{}); s != 128 {
		t.Errorf("dealRun is %d bytes, not 128", s)
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

// TestDealPieces: deal.takeRange hands out every position exactly once,
// in pieces of at most most positions (at least least, but for a run's
// last ones), owners from the front of their runs and thieves from the
// back, whatever the members' speeds; and piece's sizes shrink to least
// at the end of a run.
func TestDealPieces(t *testing.T) {
	for _, c := range []struct{ n, size, most, least int }{{731, 2, 16, 4}, {721, 3, 16, 4}, {5, 4, 16, 4}, {100, 2, 1, 1}, {0, 2, 16, 4}, {33, 1, 8, 2}} {
		var d deal
		d.reset(c.n, c.size)
		seen := make([]atomic.Int32, c.n)
		var wg sync.WaitGroup
		for w := range c.size {
			wg.Add(1)
			go func() {
				defer wg.Done()
				own0, own1 := share(c.n, w, c.size)
				for k := 0; ; k++ {
					lo, hi, ok := d.takeRange(w, c.most, c.least)
					if !ok {
						return
					}
					if hi <= lo || hi-lo > c.most {
						t.Errorf("%+v: member %d got piece [%d, %d)", c, w, lo, hi)
						return
					}
					if lo >= own0 && hi <= own1 && k%(w+1) == 0 {
						runtime.Gosched() // members of different speeds
					}
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
				}
			}()
		}
		wg.Wait()
		for i := range seen {
			if v := seen[i].Load(); v != 1 {
				t.Fatalf("%+v: position %d taken %d times", c, i, v)
			}
		}
	}
	// One member alone: grains, then halves down to least.
	var d deal
	d.reset(40, 1)
	var got []int
	for {
		lo, hi, ok := d.takeRange(0, 16, 4)
		if !ok {
			break
		}
		got = append(got, hi-lo)
	}
	if want := []int{16, 12, 6, 4, 2}; !slices.Equal(got, want) {
		t.Errorf("pieces of 40 positions (16, 4): %v, want %v", got, want)
	}
}

// TestTeamGather: gather, a barrier inside a task, returns to no member
// before every member has reached it (each member's write before it is
// seen by all after it), round after round, for teams of up to twice
// GOMAXPROCS members (whose members park and whose barrier yields the
// P); a team of one passes at once.
func TestTeamGather(t *testing.T) {
	for _, size := range []int{1, 2, 3, 2 * runtime.GOMAXPROCS(0)} {
		tm := newTeam(size)
		var n atomic.Int32
		marks := make([]atomic.Int64, size)
		var wrong atomic.Int64
		round := int64(0)
		fn := func(w int) {
			if w == size-1 {
				time.Sleep(20 * time.Microsecond) // the last member arrives late
			}
			marks[w].Store(round)
			tm.gather(&n)
			for k := range marks {
				if marks[k].Load() != round {
					wrong.Add(1)
				}
			}
		}
		for round = 1; round <= 200; round++ {
			n.Store(0)
			tm.run(fn)
		}
		tm.close()
		if v := wrong.Load(); v != 0 {
			t.Errorf("team of %d: %d times a member passed the barrier before another reached it", size, v)
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
