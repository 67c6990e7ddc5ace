package par

import "syscall"

// Yield gives up the processor to another runnable thread, if any
// (sched_yield(2)); see team.spinUntil. It is a raw system call, as the Go
// runtime's own spin loops make it: sched_yield never blocks for long, and
// the scheduler's bookkeeping around an ordinary syscall.Syscall (which
// may let sysmon take the member's P, so that the member must find one
// again when the call returns) made a member past its tight spin take a
// task later: BenchmarkTeam/HandoffAfter, mean lag from run to the member's
// start, median of 5 interleaved runs at real-time priority, 1.19 -> 0.77
// us after a 10 us wait, 3.96 -> 3.71 after 30 us, 7.43 -> 5.14 after 100
// us.
func Yield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
