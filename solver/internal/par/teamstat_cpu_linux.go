//go:build teamstats && linux

package par

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the CPU time of the calling thread (ns), by
// clock_gettime(CLOCK_THREAD_CPUTIME_ID): a share's wall time less its
// thread's CPU time is the time the thread was off the core (preempted
// by other threads or processes, or its virtual CPU by the host).
// The thread's id goes in the top 20 bits (the CPU time, in the others,
// lasts 2^44 ns, 4.9 hours), so that offCore can tell a share that moved
// to another thread, whose two readings do not compare.
func threadCPU() int64 {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	tid, _, _ := syscall.RawSyscall(syscall.SYS_GETTID, 0, 0, 0)
	return int64(tid&(1<<20-1))<<44 | ts.Nano()&(1<<44-1)
}
