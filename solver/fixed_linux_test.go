package solver

import (
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestFixedKernelsNoOverread puts x at the very end of a readable mapping,
// with an inaccessible page after it, so that a kernel reading one byte
// past x[rows*cols-1] faults: the tails of the last rows must be read
// inside x.
func TestFixedKernelsNoOverread(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 assembly kernels in this build or on this CPU")
	}
	page := syscall.Getpagesize()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][2]int{{1, 16}, {1, 17}, {2, 8}, {3, 5}, {16, 1}, {5, 31}, {7, 33}, {80, 60}, {32, 220}, {9, 2033}, {300, 17}} {
		rows, cols := sh[0], sh[1]
		n := rows * cols
		size := (n + page - 1) / page * page
		mem, err := syscall.Mmap(-1, 0, size+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			t.Skipf("mmap: %v", err)
		}
		if err := syscall.Mprotect(mem[size:], syscall.PROT_NONE); err != nil {
			t.Fatalf("mprotect: %v", err)
		}
		x := mem[size-n : size : size]
		for i := range x {
			x[i] = uint8(rng.IntN(256))
		}
		fixedCheckAsm(t, rng, x, rows, cols, false)
		if err := syscall.Munmap(mem); err != nil {
			t.Fatalf("munmap: %v", err)
		}
	}
}
