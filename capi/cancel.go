package main

// #include "capi.h"
import "C"

import (
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// The flag is a C int, read as an int32.
var _ [unsafe.Sizeof(C.int(0)) - 4]struct{}

// The Go runtime inside libsompca aborts the host process when the
// operating system refuses it memory. Its soft memory limit is set to what
// the process may allocate (ulimit -v and -d, the cgroup's memory.max)
// when the library loads, so that it collects garbage harder before
// reaching that wall; fits also check their budget against it
// (solver.MemoryLimit) before allocating.
func init() {
	if room := solver.MemoryCap(); room > 0 {
		debug.SetMemoryLimit(room)
	}
}

// callerCancel returns the cancellation poll of the calling C thread's
// flag (sompca_cancel_flag), or nil when it has none. It must run on the
// export's own goroutine, which runs on the calling thread; the poll it
// returns may run anywhere (it reads C memory the caller keeps valid).
//
// The poll reads the flag with an atomic load, in Go: the solver polls
// every leaf of a pass and every Lanczos step, and a cgo call per poll
// (about 0.1 us of entering and leaving a system call) cost the C and
// Python paths about 1% of a faces fit and more on small modes, where a
// Lanczos step takes about a microsecond.
func callerCancel() func() bool {
	flag := (*int32)(unsafe.Pointer(C.sompca_capi_cancel_flag()))
	if flag == nil {
		return nil
	}
	return func() bool { return atomic.LoadInt32(flag) != 0 }
}

// withCancel adds the calling thread's flag to a poll (either may be nil).
func withCancel(poll func() bool) func() bool {
	flag := callerCancel()
	switch {
	case flag == nil:
		return poll
	case poll == nil:
		return flag
	}
	return func() bool { return flag() || poll() }
}
