//go:build !linux

package solver

import "runtime"

// osYield lets other goroutines run (sched_yield(2) on Linux); see
// team.spinUntil.
func osYield() { runtime.Gosched() }
