package main

// #include "capi.h"
import "C"

import (
	"runtime/debug"

	"github.com/sompca/sompca/solver"
)

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
func callerCancel() func() bool {
	flag := C.sompca_capi_cancel_flag()
	if flag == nil {
		return nil
	}
	return func() bool { return C.sompca_capi_canceled(flag) != 0 }
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
