package par

import (
	"fmt"
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
		tm := NewTeam(size)
		hits := make([]atomic.Int64, size)
		fn := func(w int) { hits[w].Add(1) }
		for round := range 300 {
			if round%100 == 99 {
				time.Sleep(3 * teamSpin) // the members park
			}
			tm.Run(fn)
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
				tm.Run(func(w int) {
					if w == size-1 {
						panic("boom")
					}
				})
			}()
			tm.Run(fn) // still usable
		}
		tm.Close()
		tm.Close() // a second close does nothing
	}
	waitGoroutines(t, before)
}

// BenchmarkTeam measures what handing work to a fit's goroutines costs:
// an empty task on every member (Handoff), and the Krylov product
// v -> Y^T (Y v) of the faces case's mode 0 (Y 721 x 80) on 1 and 2
// goroutines.
func BenchmarkTeam(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("Handoff/threads=%d", threads), func(b *testing.B) {
			tm := NewTeam(threads)
			defer tm.Close()
			fn := func(int) {}
			for range b.N {
				tm.Run(fn)
			}
		})
	}
	// A member that waited a while (the caller's serial eigen steps of a
	// mode update take 20-100 us) is past its tight spin: lag-ns is the
	// mean time from the start of run to the member's start of the task.
	for _, gap := range []time.Duration{10 * time.Microsecond, 30 * time.Microsecond, 100 * time.Microsecond} {
		b.Run(fmt.Sprintf("HandoffAfter/%v/threads=2", gap), func(b *testing.B) {
			tm := NewTeam(2)
			defer tm.Close()
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
				tm.Run(fn)
			}
			b.ReportMetric(float64(lag.Nanoseconds())/float64(b.N), "lag-ns")
		})
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

// TestDealPieces: deal.takeRange hands out every position exactly once,
// in pieces of at most most positions (at least least, but for a run's
// last ones), owners from the front of their runs and thieves from the
// back, whatever the members' speeds; and piece's sizes shrink to least
// at the end of a run.
func TestDealPieces(t *testing.T) {
	for _, c := range []struct{ n, size, most, least int }{{731, 2, 16, 4}, {721, 3, 16, 4}, {5, 4, 16, 4}, {100, 2, 1, 1}, {0, 2, 16, 4}, {33, 1, 8, 2}} {
		var d Deal
		d.Reset(c.n, c.size)
		seen := make([]atomic.Int32, c.n)
		var wg sync.WaitGroup
		for w := range c.size {
			wg.Add(1)
			go func() {
				defer wg.Done()
				own0, own1 := Share(c.n, w, c.size)
				for k := 0; ; k++ {
					lo, hi, ok := d.TakeRange(w, c.most, c.least)
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
	var d Deal
	d.Reset(40, 1)
	var got []int
	for {
		lo, hi, ok := d.TakeRange(0, 16, 4)
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
		tm := NewTeam(size)
		var n atomic.Int32
		marks := make([]atomic.Int64, size)
		var wrong atomic.Int64
		round := int64(0)
		fn := func(w int) {
			if w == size-1 {
				time.Sleep(20 * time.Microsecond) // the last member arrives late
			}
			marks[w].Store(round)
			tm.Gather(&n)
			for k := range marks {
				if marks[k].Load() != round {
					wrong.Add(1)
				}
			}
		}
		for round = 1; round <= 200; round++ {
			n.Store(0)
			tm.Run(fn)
		}
		tm.Close()
		if v := wrong.Load(); v != 0 {
			t.Errorf("team of %d: %d times a member passed the barrier before another reached it", size, v)
		}
	}
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
