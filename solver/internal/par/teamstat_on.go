//go:build teamstats

package par

import (
	"fmt"
	"math/bits"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"
)

// teamStat, built with the teamstats tag, times every task of a team (a
// call of run): the caller's share, each member's start (from run to the
// member seeing the task) and share, the wait at the end, and the
// caller's time between tasks. close prints the totals by task function
// to stderr (see docs/DESIGN.md, "The reduction tree"). Timestamps are read around each task
// and share only, never inside them.
type teamStat struct {
	size    int
	marks   []memberMark // per member: its share of the current task
	fn      uintptr      // the current task's function
	t0, tc  int64        // the task's start, the caller's end of its share
	c0, cc  int64        // the caller's thread CPU time at those moments
	first   int64        // the first task's start
	lastEnd int64        // the last task's end
	serial  int64        // the caller's time between tasks
	gaps    []int64      // each of those times
	agg     map[uintptr]*taskAgg
	prevFn  uintptr                  // the task before the current one
	trans   map[[2]uintptr]*[2]int64 // by (task before, task after): gaps, their sum
}

// memberMark is when a member saw the current task and finished its
// share, and its thread's CPU time then, padded to two cache lines.
type memberMark struct {
	seen, done int64
	cpu0, cpu1 int64
	_          [96]byte
}

// taskAgg sums the runs of one task function (ns).
type taskAgg struct {
	runs   int
	wall   int64 // run's start to its return
	caller int64 // the caller's shares
	member int64 // the members' shares
	late   int64 // run's start to a member seeing the task
	cwait  int64 // the caller's end of its share to run's return
	tail   int64 // the last share's end to run's return
	off    int64 // the shares' time off the core (wall less thread CPU)
	// distributions: the caller's and the members' shares, the lateness
	callerWork, memberWork, lat []int64
	// by log2 of the task's work (all shares, us): runs, wall, work
	bucket [24][3]int64
}

var statBase = time.Now()

// statCPU, set by SOMPCA_TEAMSTATS_CPU=1, has every share read its
// thread's CPU time too (threadCPU: two system calls at each end, about
// a microsecond in all on the virtual machine here, which the shares and
// the members' lateness then include), for the "off" column.
var statCPU = os.Getenv("SOMPCA_TEAMSTATS_CPU") == "1"

func statThreadCPU() int64 {
	if !statCPU {
		return 0
	}
	return threadCPU()
}

func statNow() int64 { return int64(time.Since(statBase)) }

func (s *teamStat) init(size int) {
	s.size = size
	s.marks = make([]memberMark, size)
	s.agg = map[uintptr]*taskAgg{}
	s.trans = map[[2]uintptr]*[2]int64{}
}

func (s *teamStat) begin(fn func(w int)) {
	s.fn = reflect.ValueOf(fn).Pointer()
	s.c0, s.t0 = statThreadCPU(), statNow()
	if s.first == 0 {
		s.first = s.t0
	}
	if s.lastEnd != 0 {
		s.serial += s.t0 - s.lastEnd
		s.gaps = append(s.gaps, s.t0-s.lastEnd)
		k := [2]uintptr{s.prevFn, s.fn}
		tr := s.trans[k]
		if tr == nil {
			tr = new([2]int64)
			s.trans[k] = tr
		}
		tr[0]++
		tr[1] += s.t0 - s.lastEnd
	}
}

func (s *teamStat) callerDone() { s.tc, s.cc = statNow(), statThreadCPU() }
func (s *teamStat) seen(w int)  { s.marks[w].cpu0, s.marks[w].seen = statThreadCPU(), statNow() }
func (s *teamStat) done(w int)  { s.marks[w].done, s.marks[w].cpu1 = statNow(), statThreadCPU() }

// end adds the task that run is returning from.
func (s *teamStat) end() {
	t1 := statNow()
	a := s.agg[s.fn]
	if a == nil {
		a = &taskAgg{}
		s.agg[s.fn] = a
	}
	a.runs++
	a.wall += t1 - s.t0
	a.caller += s.tc - s.t0
	a.callerWork = append(a.callerWork, s.tc-s.t0)
	a.cwait += t1 - s.tc
	a.off += offCore(s.tc-s.t0, s.c0, s.cc)
	last, work := s.tc, s.tc-s.t0
	for w := 1; w < s.size; w++ {
		m := s.marks[w]
		a.late += m.seen - s.t0
		a.lat = append(a.lat, m.seen-s.t0)
		a.member += m.done - m.seen
		a.off += offCore(m.done-m.seen, m.cpu0, m.cpu1)
		a.memberWork = append(a.memberWork, m.done-m.seen)
		last = max(last, m.done)
		work += m.done - m.seen
	}
	a.tail += t1 - last
	b := min(len(a.bucket)-1, bits.Len64(uint64(max(work, 0)/1000)))
	a.bucket[b][0]++
	a.bucket[b][1] += t1 - s.t0
	a.bucket[b][2] += work
	s.lastEnd = t1
	s.prevFn = s.fn
}

// offCore returns the part of a share of wall time wall that its thread
// spent off the core, from the thread's CPU time at its start and end
// (threadCPU); 0 when the share moved to another thread, or without
// statCPU.
func offCore(wall, cpu0, cpu1 int64) int64 {
	if !statCPU || cpu0>>44 != cpu1>>44 {
		return 0
	}
	return max(0, wall-(cpu1-cpu0))
}

// report prints the totals (ms) and medians (us) by task, once.
func (s *teamStat) report() {
	if s.agg == nil || s.first == 0 {
		return
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	sorted := func(v []int64) []int64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v
	}
	med := func(v []int64) float64 {
		if len(v) == 0 {
			return 0
		}
		return float64(sorted(v)[len(v)/2]) / 1e3
	}
	dist := func(v []int64) string {
		if len(v) == 0 {
			return ""
		}
		v = sorted(v)
		q := func(f float64) float64 { return float64(v[int(f*float64(len(v)-1))]) / 1e3 }
		over, sum := 0, int64(0)
		for _, x := range v {
			if x > 20000 {
				over++
				sum += x
			}
		}
		return fmt.Sprintf("p50 %.1f p90 %.1f p99 %.1f max %.0f us; >20us: %d (%.1f ms)", q(.5), q(.9), q(.99), q(1), over, ms(sum))
	}
	type row struct {
		name string
		a    *taskAgg
	}
	var rows []row
	var wall int64
	for pc, a := range s.agg {
		name := "?"
		if f := runtime.FuncForPC(pc); f != nil {
			name = f.Name()
		}
		rows = append(rows, row{name, a})
		wall += a.wall
	}
	slices.SortFunc(rows, func(x, y row) int { return int(y.a.wall - x.a.wall) })
	out := os.Stderr
	var idle int64
	for _, r := range rows {
		idle += int64(s.size)*r.a.wall - r.a.caller - r.a.member
	}
	fmt.Fprintf(out, "teamstats size %d: span %.1f ms, in tasks %.1f ms, caller between tasks %.1f ms, idle in tasks %.1f ms\n",
		s.size, ms(s.lastEnd-s.first), ms(wall), ms(s.serial), ms(idle))
	fmt.Fprintf(out, "%-40s %6s %8s %8s %8s %8s %8s %8s %8s | med us: %6s %6s %6s\n",
		"task", "runs", "wall", "caller", "members", "late", "cwait", "tail", "off", "call", "memb", "late")
	fmt.Fprintf(out, "gaps %s\n", dist(s.gaps))
	short := func(pc uintptr) string {
		if f := runtime.FuncForPC(pc); f != nil {
			n := f.Name()
			return strings.TrimSuffix(n[strings.LastIndex(n, ".")+1:], "-fm")
		}
		return "?"
	}
	type tr struct {
		k [2]uintptr
		v [2]int64
	}
	var trs []tr
	for k, v := range s.trans {
		trs = append(trs, tr{k, *v})
	}
	slices.SortFunc(trs, func(x, y tr) int { return int(y.v[1] - x.v[1]) })
	for _, t := range trs {
		fmt.Fprintf(out, "gap %s -> %s: %d, %.2f ms\n", short(t.k[0]), short(t.k[1]), t.v[0], ms(t.v[1]))
	}
	for _, r := range rows {
		a := r.a
		if s.size > 1 {
			fmt.Fprintf(out, "late %s: %s\n", r.name[strings.LastIndex(r.name, ".")+1:], dist(a.lat))
		}
		fmt.Fprintf(out, "%-40s %6d %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f | %6.1f %6.1f %6.1f | idle %.2f\n",
			r.name, a.runs, ms(a.wall), ms(a.caller), ms(a.member), ms(a.late), ms(a.cwait), ms(a.tail), ms(a.off),
			med(a.callerWork), med(a.memberWork), med(a.lat), ms(int64(s.size)*a.wall-a.caller-a.member))
		for b, v := range a.bucket {
			if v[0] > 0 {
				fmt.Fprintf(out, "    work < %5d us: %6d runs, wall %8.2f ms, work %8.2f ms, work/wall %.2f\n",
					1<<b, v[0], ms(v[1]), ms(v[2]), float64(v[2])/float64(v[1]))
			}
		}
	}
	s.agg = nil
}
