package par

import (
	"runtime"
	"sync/atomic"
)

// Threads is threads, or GOMAXPROCS for 0.
func Threads(threads int) int {
	if threads <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return threads
}

// Tasks deals n independent tasks to the members of a team, each member
// taking the next one when it is done with one, so that a member that
// starts late (parked, or preempted) is covered by the others. A task's
// result must not depend on the member that runs it. One tasks, made
// once, runs any number of loops without allocating: block Lanczos's
// products and orthogonalisations are many and short.
type Tasks struct {
	crew *Team // nil: the caller alone
	n    int
	next atomic.Int64
	job  Task
	fn   func(w int) // work, made once
}

// Task is a loop of independent tasks: RunTask(w, i) for i < n, run by
// member w (for its own scratch space).
type Task interface{ RunTask(w, i int) }

// TaskFunc is a task made of a function.
type TaskFunc func(w, i int)

func (f TaskFunc) RunTask(w, i int) { f(w, i) }

// NewTasks returns a tasks for the members of crew (nil: the caller
// alone).
func NewTasks(crew *Team) *Tasks {
	l := &Tasks{crew: crew}
	l.fn = l.work
	return l
}

// Size is the number of goroutines that run the tasks.
func (l *Tasks) Size() int {
	if l == nil || l.crew == nil {
		return 1
	}
	return l.crew.size
}

// Run calls job.RunTask(w, i) for every i < n and returns when all have
// returned; a nil l runs them on the caller (w = 0).
func (l *Tasks) Run(n int, job Task) {
	if l.Size() == 1 || n == 1 {
		for i := range n {
			job.RunTask(0, i)
		}
		return
	}
	l.n, l.job = n, job
	l.next.Store(0)
	l.crew.Run(l.fn)
	l.job = nil
}

func (l *Tasks) work(w int) {
	for i := int(l.next.Add(1)) - 1; i < l.n; i = int(l.next.Add(1)) - 1 {
		l.job.RunTask(w, i)
	}
}

// RunTasks runs task(w, i) for every i < n on the members of crew (nil: the
// caller alone), as tasks.run (it allocates: for loops run a few times a
// fit).
func RunTasks(crew *Team, n int, task func(w, i int)) {
	NewTasks(crew).Run(n, TaskFunc(task))
}

// Rows calls fn on the runs of rows [lo, hi) that split [0, m) into
// one run per member of crew (nil: the caller alone), or one run when m
// is small.
func Rows(crew *Team, m int, fn func(lo, hi int)) {
	size := 1
	if crew != nil && m >= 64*crew.size {
		size = crew.size
	}
	if size == 1 {
		fn(0, m)
		return
	}
	crew.Run(func(w int) { fn(Share(m, w, size)) })
}
