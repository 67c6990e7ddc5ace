package solver

import "syscall"

// osYield gives up the processor to another runnable thread, if any
// (sched_yield(2)); see team.spinUntil.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
