package main

// #include "capi.h"
import "C"

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
