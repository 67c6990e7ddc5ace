package kernel

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestFixedKernelsNoOverread puts x at the very end of a readable mapping,
// with an inaccessible page after it, so that a kernel reading one byte
// past x[rows*cols-1] faults: the tails of the last rows must be read
// inside x.
func TestFixedKernelsNoOverread(t *testing.T) {
	if !AVX2() {
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

// BenchmarkFixedStream times the exact uint8 kernels as the gait uint8
// fit calls them, over the 731 samples of 32 x 22 x 10 (5.1 MB: more than
// L2, less than L3): axpyRows one sample of 32 x 220 a call (the Lead
// pass's mode-0 step, contractor.mode0), dotRows one leaf of 16 samples
// a call (512 rows of 220 against the Kronecker vector, contractor.rows0),
// the samples in turn, one pass an op; against the same calls on the
// first sample (axpyRows) or leaf (dotRows) over and over (in cache, as
// BenchmarkKernels), with the samples on the Go heap (4 KB pages) or in a
// mapping on transparent huge pages (madvise, as NumPy and bench/gofit
// hold them). It reports ns a sample.
func BenchmarkFixedStream(b *testing.B) {
	if !AVX2() {
		b.Skip("no AVX2 assembly kernels in this build or on this CPU")
	}
	const m, rows, cols, leaf = 731, 32, 220, 16
	n := rows * cols
	rng := rand.New(rand.NewPCG(21, 6))
	heap := make([]uint8, m*n)
	huge, err := syscall.Mmap(-1, 0, m*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		b.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(huge)
	_ = syscall.Madvise(huge, 14) // MADV_HUGEPAGE; a refusal leaves small pages
	for i := range heap {
		heap[i] = uint8(rng.IntN(256))
	}
	copy(huge, heap)
	var fRow, fCol FixedVec
	fRow.Set(fixedTestVec(rng, cols))
	fCol.Set(fixedTestVec(rng, rows))
	sums := make([]int64, FixedLimbs*cols)
	dst := make([]float64, leaf*max(rows, cols))
	// memory: before each pass, 64 MB read (twice L3) evict the samples
	// from every cache, so that the pass reads them from DRAM.
	var flush []uint64
	evict := func(where string) {
		if where != "memory" {
			return
		}
		b.StopTimer()
		if flush == nil {
			flush = make([]uint64, 8<<20)
			for i := range flush {
				flush[i] = uint64(i)
			}
		}
		var sum uint64
		for _, w := range flush {
			sum += w
		}
		flush[0] = sum
		b.StartTimer()
	}
	for _, mem := range []struct {
		name string
		x    []uint8
	}{{"heap", heap}, {"huge", huge}} {
		x := mem.x
		for _, where := range []string{"cache", "stream", "memory"} {
			cached := where == "cache"
			b.Run(fmt.Sprintf("axpyRows/%dx%dx%d/%s/%s", m, rows, cols, mem.name, where), func(b *testing.B) {
				defer func() { b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/sample") }()
				for range b.N {
					evict(where)
					for i := range m {
						s := i
						if cached {
							s = 0
						}
						d := dst[i%leaf*cols:][:cols] // a leaf's rows, as contractor.mode0's
						AxpyRowsFixed(d, x[s*n:(s+1)*n], rows, cols, &fCol, sums)
					}
				}
			})
			b.Run(fmt.Sprintf("dotRows/%dx%dx%d/%s/%s", m, rows, cols, mem.name, where), func(b *testing.B) {
				defer func() { b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/sample") }()
				for range b.N {
					evict(where)
					for i := 0; i < m; i += leaf {
						s, k := i, min(leaf, m-i)
						if cached {
							s = 0
						}
						DotRowsFixed(dst[:k*rows], x[s*n:(s+k)*n], k*rows, cols, &fRow)
					}
				}
			})
		}
	}
}
