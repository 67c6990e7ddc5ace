package pingpong

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"
)

// pinThread locks the calling goroutine to its thread and the thread to
// CPU cpu, and reports whether the kernel took the affinity.
func pinThread(cpu int) bool {
	runtime.LockOSThread()
	var mask [16]uint64
	mask[cpu/64] = 1 << (cpu % 64)
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask[0])))
	return e == 0
}

// BenchmarkPingPong: the round trip of a cache line between CPUs 0 and 1,
// one thread pinned to each passing a counter back and forth; ns/op is
// one round trip. On the 2-CPU virtual machine here it reads 66-117 ns
// in some runs and 400-770 ns in others seconds apart, and what the team
// pays for the lines its members share with it (docs/DESIGN.md, section 5).
func BenchmarkPingPong(b *testing.B) {
	if runtime.NumCPU() < 2 {
		b.Skip("one CPU")
	}
	var x struct {
		_ [128]byte
		v atomic.Int64
		_ [120]byte
	}
	done := make(chan bool)
	go func() {
		defer runtime.UnlockOSThread()
		ok := pinThread(1)
		for i := int64(1); i < 2*int64(b.N); i += 2 {
			for x.v.Load() != i {
			}
			x.v.Store(i + 1)
		}
		done <- ok
	}()
	defer runtime.UnlockOSThread()
	ok := pinThread(0)
	b.ResetTimer()
	for i := int64(0); i < 2*int64(b.N); i += 2 {
		for x.v.Load() != i {
		}
		x.v.Store(i + 1)
	}
	if !<-done || !ok {
		b.Log("affinity not set: the threads may share a CPU")
	}
}
