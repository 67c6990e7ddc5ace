//go:build amd64 && !purego

package solver

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestAxpyRowsU8DAZ checks the uint8 axpyRows bit for bit against
// axpyRowsFMA (the FMA chain of each column in row order) on a thread
// with MXCSR's denormals-are-zero bit set as well as without: the fast
// kernel widens bytes through denormal float64 numbers, which that mode
// reads as zero, so axpyRowsU8AVX2 must go to the 2^52 kernel there
// (axpyRowsU8MagicAVX2). Both kernels are also run directly in the
// normal mode. Shapes as TestAxpyRowsAVX2ExactOrder's (every path).
func TestAxpyRowsU8DAZ(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2+FMA on this CPU")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	saved := getMXCSR()
	defer setMXCSR(saved)
	rng := rand.New(rand.NewPCG(18, 26))
	shapes := [][2]int{{80, 60}, {32, 220}, {5, 100}}
	for rows := 1; rows <= 9; rows++ {
		for cols := 1; cols <= 21; cols++ {
			shapes = append(shapes, [2]int{rows, cols})
		}
	}
	for _, sh := range shapes {
		rows, cols := sh[0], sh[1]
		kc := newKernelCase(rng, rows, cols, 0, false)
		x := Block{U8: kc.u8}
		want := make([]float64, cols)
		axpyRowsFMA(want, x, rows, cols, kc.vCol)
		check := func(name string, run func(got []float64)) {
			got := make([]float64, cols)
			run(got)
			for c := range cols {
				if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
					t.Fatalf("%s %dx%d: dst[%d] = %v, fma chain in row order %v", name, rows, cols, c, got[c], want[c])
				}
			}
		}
		check("axpyRowsU8AVX2", func(got []float64) { axpyRowsU8AVX2(&got[0], &kc.u8[0], &kc.vCol[0], rows, cols) })
		check("axpyRowsU8MagicAVX2", func(got []float64) { axpyRowsU8MagicAVX2(&got[0], &kc.u8[0], &kc.vCol[0], rows, cols) })
		setMXCSR(saved | mxcsrDAZ)
		if getMXCSR()&mxcsrDAZ == 0 {
			t.Fatal("could not set MXCSR's denormals-are-zero bit")
		}
		check("axpyRowsAsm under DAZ", func(got []float64) { withAVX2(true, func() { axpyRowsAsm(got, kc.u8, rows, cols, kc.vCol) }) })
		setMXCSR(saved)
	}
}
