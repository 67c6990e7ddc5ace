//go:build !linux

package par

import "runtime"

// Yield lets other goroutines run (sched_yield(2) on Linux); see
// team.spinUntil.
func Yield() { runtime.Gosched() }
