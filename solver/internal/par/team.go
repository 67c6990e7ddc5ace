package par

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Team is a fit's pool of goroutines for fine-grained parallel work:
// run(fn) runs fn(0) on the caller and fn(1), ..., fn(size-1) on the
// members, and returns when all have returned. Members spin for a while
// (teamSpin) between tasks, then park; close stops them. A team is driven
// by one goroutine at a time.
type Team struct {
	size  int
	spin  time.Duration // 0: park at once (more members than GOMAXPROCS)
	fn    func(w int)   // the task of the current epoch
	epoch atomic.Uint64 // bumped for each task; a member runs each epoch once
	quit  atomic.Bool   // the last epoch: members return
	left  atomic.Int32  // members still on the current task
	// waiting is set while run's caller is parked on done, which the last
	// member to finish then signals.
	waiting atomic.Bool
	done    chan struct{}
	members []teamMember

	mu     sync.Mutex
	panicV any // the first panic of a member in the current task
	exited sync.WaitGroup

	st teamStat // the teamstats build's timings (teamstat_on.go)
}

// teamMember is a member's parking state, padded to 128 bytes, two cache
// lines of its own: the L2's adjacent-line prefetchers (Intel's completes
// 128-byte pairs, Zen's up/down one fetches the next or previous line)
// would otherwise bring a neighbour's line along with a member's.
type teamMember struct {
	sleeping atomic.Bool
	wake     chan struct{} // cap 1; a token may be stale, members re-check
	_        [112]byte
}

// NewTeam starts size-1 goroutines (none for size <= 1); the caller of
// run is member 0.
func NewTeam(size int) *Team {
	t := &Team{size: max(size, 1), done: make(chan struct{}, 1)}
	if t.size <= runtime.GOMAXPROCS(0) {
		t.spin = teamSpin
	}
	t.members = make([]teamMember, t.size)
	t.st.init(t.size)
	t.exited.Add(t.size - 1)
	for w := 1; w < t.size; w++ {
		t.members[w].wake = make(chan struct{}, 1)
		go t.member(w)
	}
	return t
}

// Run runs fn(w) for every member w of the team, fn(0) on the caller, and
// returns when every call has returned. A panic in a member is raised
// again by run in the caller. fn should be made once (a closure per call
// would allocate).
func (t *Team) Run(fn func(w int)) {
	t.st.begin(fn)
	if t.size == 1 {
		fn(0)
		t.st.callerDone()
		t.st.end()
		return
	}
	t.fn = fn
	t.left.Store(int32(t.size - 1))
	t.publish()
	t.call(fn, 0)
	t.st.callerDone()
	t.await()
	t.st.end()
	t.fn = nil
	if t.panicV != nil {
		v := t.panicV
		t.panicV = nil
		panic(v)
	}
}

// publish starts a new epoch and wakes the members that parked.
func (t *Team) publish() {
	t.epoch.Add(1)
	for w := 1; w < t.size; w++ {
		m := &t.members[w]
		if m.sleeping.Load() {
			select {
			case m.wake <- struct{}{}:
			default:
			}
		}
	}
}

// await returns when no member is left on the current task: it spins for
// up to t.spin, then parks until the last member signals done.
func (t *Team) await() {
	if t.SpinUntil(func() bool { return t.left.Load() == 0 }) {
		return
	}
	t.waiting.Store(true)
	for t.left.Load() != 0 {
		<-t.done
	}
	t.waiting.Store(false)
}

// SpinUntil polls cond for up to t.spin and reports whether it held:
// first in a tight loop, for spinTight polls (a few microseconds: most
// waits of a fit on an idle machine end there), then yielding the
// processor between polls (osYield), so that on a loaded machine the
// threads the fit waits for, or other processes, get it. It reads the
// clock only every spinCheck polls (a clock read costs tens of
// nanoseconds on a virtual machine). The Go runtime still preempts it, so
// the collector is never held up.
func (t *Team) SpinUntil(cond func() bool) bool {
	if cond() {
		return true
	}
	if t.spin == 0 {
		return false
	}
	const spinTight, spinCheck = 1 << 12, 1 << 8
	for range spinTight {
		if cond() {
			return true
		}
	}
	start := time.Now()
	for i := 1; ; i++ {
		if cond() {
			return true
		}
		Yield()
		if i%spinCheck == 0 && time.Since(start) > t.spin {
			return cond()
		}
	}
}

// member is the loop of member w: wait for an epoch, run its task, report.
func (t *Team) member(w int) {
	defer t.exited.Done()
	m := &t.members[w]
	seen := uint64(0)
	for {
		if !t.SpinUntil(func() bool { return t.epoch.Load() != seen }) {
			m.sleeping.Store(true)
			for t.epoch.Load() == seen {
				<-m.wake
			}
			m.sleeping.Store(false)
		}
		seen = t.epoch.Load()
		if t.quit.Load() {
			return
		}
		t.st.seen(w)
		t.call(t.fn, w)
		t.st.done(w)
		if t.left.Add(-1) == 0 && t.waiting.Load() {
			select {
			case t.done <- struct{}{}:
			default:
			}
		}
	}
}

// Gather is a barrier inside a task: it counts the calling member in n
// (zeroed before the task) and returns once every member of the team
// has been counted: spinning for up to t.spin (spinUntil), then handing
// its P to other goroutines between polls (runtime.Gosched), so that a
// member that has no P (the members outnumber GOMAXPROCS, or other
// goroutines hold the Ps) gets one instead of waiting for the
// scheduler's preemption.
func (t *Team) Gather(n *atomic.Int32) {
	size := int32(t.size)
	if n.Add(1) == size || t.SpinUntil(func() bool { return n.Load() == size }) {
		return
	}
	for n.Load() != size {
		runtime.Gosched()
	}
}

// call runs fn(w), keeping the first panic for run to raise.
func (t *Team) call(fn func(w int), w int) {
	defer func() {
		if v := recover(); v != nil {
			t.mu.Lock()
			if t.panicV == nil {
				t.panicV = fmt.Sprintf("solver: panic in a worker: %v", v)
			}
			t.mu.Unlock()
		}
	}()
	fn(w)
}

// Close stops the members and waits for them to return. The team is then
// unusable.
func (t *Team) Close() {
	if t != nil {
		t.st.report()
	}
	if t == nil || t.size == 1 || t.quit.Load() {
		return
	}
	t.quit.Store(true)
	t.publish()
	t.exited.Wait()
}

// Deal hands out the items of a task to the members of a team: member w
// owns a contiguous run of positions and takes them from its front, in
// order; a member whose run is empty takes from the back of the run of
// the member with the most left. The same member thus gets the same
// items in every task of the same layout (the samples it read and the
// rows it wrote last time stay in its core's cache), a member that
// starts late (parked, or preempted by the OS) is covered by the others,
// and the owner's order is not disturbed until its run's last items.
// Every item is taken exactly once.
type Deal struct {
	runs []dealRun // per member: its run's remaining positions
}

// dealRun is a member's remaining positions [lo, hi), packed as lo<<32 |
// hi so that its owner (from the front) and the others (from the back)
// take them by one compare-and-swap; padded to a 128-byte pair of cache
// lines of its own (see teamMember), as members take from their own run.
type dealRun struct {
	atomic.Uint64
	_ [120]byte
}

func packRun(lo, hi int) uint64       { return uint64(lo)<<32 | uint64(uint32(hi)) }
func unpackRun(v uint64) (int, int)   { return int(v >> 32), int(uint32(v)) }
func (d *Deal) left(w int) (int, int) { return unpackRun(d.runs[w].Load()) }

// Reset splits positions [0, n) into size runs of (about) equal length.
func (d *Deal) Reset(n, size int) {
	if len(d.runs) != size {
		d.runs = make([]dealRun, size)
	}
	for w := range size {
		lo, hi := Share(n, w, size)
		d.Set(w, lo, hi)
	}
}

// Set makes [lo, hi) member w's run (for layouts reset does not make).
func (d *Deal) Set(w, lo, hi int) { d.runs[w].Store(packRun(lo, hi)) }

// Take returns the next position for member w, and false when every
// position has been taken.
func (d *Deal) Take(w int) (int, bool) {
	lo, _, ok := d.TakeRange(w, 1, 1)
	return lo, ok
}

// TakeRange returns the next piece [lo, hi) of positions for member w, and
// false when every position has been taken: from the front of its own
// run, most positions while more than twice as many are left, then half
// of what is left (at least least), so that its last pieces are small;
// when its own run is empty, the back half (at least least, at most
// most) of the run of the member with the most positions left. The
// pieces of a task end close together: the member that finishes first
// splits the other's last positions with it.
func (d *Deal) TakeRange(w, most, least int) (int, int, bool) {
	r := &d.runs[w]
	for {
		v := r.Load()
		lo, hi := unpackRun(v)
		if lo >= hi {
			break
		}
		c := piece(hi-lo, most, least)
		if r.CompareAndSwap(v, packRun(lo+c, hi)) {
			return lo, lo + c, true
		}
	}
	for {
		victim, most0 := -1, 0
		for k := range d.runs {
			if lo, hi := d.left(k); hi-lo > most0 {
				victim, most0 = k, hi-lo
			}
		}
		if victim < 0 {
			return 0, 0, false
		}
		r := &d.runs[victim]
		v := r.Load()
		lo, hi := unpackRun(v)
		if lo >= hi {
			continue
		}
		c := piece(hi-lo, most, least)
		if r.CompareAndSwap(v, packRun(lo, hi-c)) {
			return hi - c, hi, true
		}
	}
}

// piece returns how many of n positions left to take: most while n >=
// 2*most, else half of them (rounded up), at least least (and at most n).
func piece(n, most, least int) int {
	if n >= 2*most {
		return most
	}
	return min(n, max((n+1)/2, least))
}

// Share returns member w's run [lo, hi) of n items split into size runs.
func Share(n, w, size int) (int, int) { return w * n / size, (w + 1) * n / size }

// Size returns the number of goroutines that run a task, the caller
// included (at least 1).
func (t *Team) Size() int { return t.size }

// Len returns the number of runs, one per member, that Reset made.
func (d *Deal) Len() int { return len(d.runs) }
