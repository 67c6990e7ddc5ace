//go:build unix

package eigen

import "syscall"

// processCPU returns the user+system CPU time of this process in
// nanoseconds, for benchmarks on a shared machine (see reportCPU).
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
