package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// Tests of the assembly contraction kernels against the generic Go loops
// (kernel.DotRowsGo, kernel.AxpyRowsGo), which are the reference. Where the build or the
// CPU has no assembly kernels there is nothing to compare and the tests
// say so by skipping.

// elemName and elemBytes describe the element type of a block, for test and benchmark names.
func elemName(x Block) string {
	switch {
	case x.U8 != nil:
		return "uint8"
	case x.F32 != nil:
		return "float32"
	}
	return "float64"
}

func elemBytes(x Block) int {
	switch {
	case x.U8 != nil:
		return 1
	case x.F32 != nil:
		return 4
	}
	return 8
}

// dotRowsTBlock, axpyRowsTBlock (the Go loops) and dotRowsAsmBlock,
// axpyRowsAsmBlock (the assembly kernels, switched on; stream: the
// float64 stream kernels) call the kernel for x's element type.
func dotRowsTBlock(dst []float64, x Block, rows, cols int, v []float64) {
	switch {
	case x.U8 != nil:
		kernel.DotRowsGo(dst, x.U8, rows, cols, v)
	case x.F32 != nil:
		kernel.DotRowsGo(dst, x.F32, rows, cols, v)
	default:
		kernel.DotRowsGo(dst, x.F64, rows, cols, v)
	}
}

func axpyRowsTBlock(dst []float64, x Block, rows, cols int, v []float64) {
	switch {
	case x.U8 != nil:
		kernel.AxpyRowsGo(dst, x.U8, rows, cols, v)
	case x.F32 != nil:
		kernel.AxpyRowsGo(dst, x.F32, rows, cols, v)
	default:
		kernel.AxpyRowsGo(dst, x.F64, rows, cols, v)
	}
}

func dotRowsAsmBlock(dst []float64, x Block, rows, cols int, v []float64, stream bool) {
	{
		switch {
		case x.U8 != nil:
			kernel.DotRows(dst, x.U8, rows, cols, v, stream)
		case x.F32 != nil:
			kernel.DotRows(dst, x.F32, rows, cols, v, stream)
		default:
			kernel.DotRows(dst, x.F64, rows, cols, v, stream)
		}
	}
}

func axpyRowsAsmBlock(dst []float64, x Block, rows, cols int, v []float64, stream bool) {
	{
		switch {
		case x.U8 != nil:
			kernel.AxpyRows(dst, x.U8, rows, cols, v, stream)
		case x.F32 != nil:
			kernel.AxpyRows(dst, x.F32, rows, cols, v, stream)
		default:
			kernel.AxpyRows(dst, x.F64, rows, cols, v, stream)
		}
	}
}

// kernelCase is one input of a kernel test: a rows x cols block in each
// element type and a vector for either contraction.
type kernelCase struct {
	rows, cols int
	u8         []uint8
	f32        []float32
	f64        []float64
	vRow       []float64 // len cols, for dotRows
	vCol       []float64 // len rows, for axpyRows
	exact      bool      // integer data whose sums are exact in any order
}

// kernelPad is how many elements past the end of each x the backing array
// holds; they are set to values that would change any result they entered
// (255, NaN), to catch reads past x[:rows*cols].
const kernelPad = 19

func newKernelCase(rng *rand.Rand, rows, cols, offset int, exact bool) kernelCase {
	n := rows * cols
	u8 := make([]uint8, offset+n+kernelPad)
	f32 := make([]float32, offset+n+kernelPad)
	f64 := make([]float64, offset+n+kernelPad)
	for i := range u8 {
		u8[i], f32[i], f64[i] = 255, float32(math.NaN()), math.NaN()
	}
	u8, f32, f64 = u8[offset:offset+n], f32[offset:offset+n], f64[offset:offset+n]
	for i := range n {
		switch k := rng.IntN(8); {
		case k == 0:
			u8[i] = 0
		case k == 1:
			u8[i] = 255
		default:
			u8[i] = uint8(rng.IntN(256))
		}
		if exact {
			f32[i] = float32(rng.IntN(2001) - 1000)
			f64[i] = float64(rng.IntN(2001) - 1000)
		} else {
			f32[i] = float32(rng.NormFloat64() * 100)
			f64[i] = rng.NormFloat64() * 100
		}
	}
	if !exact && n > 2 {
		f32[rng.IntN(n)] = 0
		f32[rng.IntN(n)] = math.SmallestNonzeroFloat32 // subnormal
		f32[rng.IntN(n)] = math.MaxFloat32
		f64[rng.IntN(n)] = 0
		f64[rng.IntN(n)] = 1e-310 // subnormal
		f64[rng.IntN(n)] = 1e300
	}
	vec := func(m int) []float64 {
		v := make([]float64, m)
		for i := range v {
			if exact {
				v[i] = float64(rng.IntN(17) - 8)
			} else {
				v[i] = rng.NormFloat64()
			}
		}
		return v
	}
	return kernelCase{rows: rows, cols: cols, u8: u8, f32: f32, f64: f64, vRow: vec(cols), vCol: vec(rows), exact: exact}
}

// closeSums reports whether got and want, two float64 evaluations of the
// same sum of products whose absolute values add up to scale, agree as
// closely as rounding allows. Whatever the order of the additions, with or
// without fused multiply-adds, an n-term dot product is within
// gamma_n*scale of the exact value, gamma_n = n*u/(1-n*u), u = 2^-53
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// section 3.1). Here n <= 41 (40 columns, or 9 rows plus dst's start), so
// the two are within 2*gamma_41*scale < 1e-14*scale of each other; 1e-13
// leaves room. Exact data (integers with small sums, every partial sum
// representable) must agree exactly.
func closeSums(got, want, scale float64, exact bool) bool {
	if exact {
		return got == want
	}
	return math.Abs(got-want) <= 1e-13*scale
}

func TestDotRowsAVX2MatchesGo(t *testing.T) {
	if !kernel.AVX2() {
		t.Skip("no AVX2+FMA assembly kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for rows := 1; rows <= 9; rows++ {
		for cols := 0; cols <= 40; cols++ {
			for _, exact := range []bool{false, true} {
				kc := newKernelCase(rng, rows, cols, rng.IntN(4), exact)
				for _, x := range []Block{{U8: kc.u8}, {F32: kc.f32}, {F64: kc.f64}} {
					name := fmt.Sprintf("%dx%d/%v/exact=%v", rows, cols, elemName(x), exact)
					want := make([]float64, rows)
					scale := make([]float64, rows) // sum_c |x[r,c] v[c]|
					for r := range rows {
						for c := range cols {
							scale[r] += math.Abs(x.at(r*cols+c) * kc.vRow[c])
						}
					}
					dotRowsTBlock(want, x, rows, cols, kc.vRow)
					got := make([]float64, rows+3)
					for i := range got {
						got[i] = -1 // must stay past dst[:rows]
					}
					dotRows(got, x, rows, cols, kc.vRow)
					for r := range rows {
						if !closeSums(got[r], want[r], scale[r], exact) {
							t.Errorf("%s: dst[%d] = %v, Go loop %v (diff %.3g, scale %.3g)",
								name, r, got[r], want[r], got[r]-want[r], scale[r])
						}
					}
					for i, g := range got[rows:] {
						if g != -1 {
							t.Errorf("%s: wrote dst[%d] = %v past rows", name, rows+i, g)
						}
					}
				}
			}
		}
	}
}

func TestAxpyRowsAVX2MatchesGo(t *testing.T) {
	if !kernel.AVX2() {
		t.Skip("no AVX2+FMA assembly kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for rows := 1; rows <= 9; rows++ {
		for cols := 0; cols <= 40; cols++ {
			for _, exact := range []bool{false, true} {
				kc := newKernelCase(rng, rows, cols, rng.IntN(4), exact)
				// The kernels add to dst: start from values that are not
				// zero (integers when exact, to keep the sums exact).
				start := make([]float64, cols)
				for c := range start {
					start[c] = float64(rng.IntN(9) - 4)
					if !exact {
						start[c] = rng.NormFloat64()
					}
				}
				for _, x := range []Block{{U8: kc.u8}, {F32: kc.f32}, {F64: kc.f64}} {
					name := fmt.Sprintf("%dx%d/%v/exact=%v", rows, cols, elemName(x), exact)
					want := append([]float64(nil), start...)
					scale := make([]float64, cols) // |start[c]| + sum_r |v[r] x[r,c]|
					for c := range cols {
						scale[c] = math.Abs(start[c])
						for r := range rows {
							scale[c] += math.Abs(kc.vCol[r] * x.at(r*cols+c))
						}
					}
					got := append(append([]float64(nil), start...), -1, -1, -1)
					axpyRowsTBlock(want, x, rows, cols, kc.vCol)
					axpyRowsAsmBlock(got[:cols], x, rows, cols, kc.vCol, false)
					for c := range cols {
						if !closeSums(got[c], want[c], scale[c], exact) {
							t.Errorf("%s: dst[%d] = %v, Go loop %v (diff %.3g, scale %.3g)",
								name, c, got[c], want[c], got[c]-want[c], scale[c])
						}
					}
					for i, g := range got[cols:] {
						if g != -1 {
							t.Errorf("%s: wrote dst[%d] = %v past cols", name, cols+i, g)
						}
					}
					// Through the dispatch, which zeroes dst first.
					clear(want)
					axpyRowsTBlock(want, x, rows, cols, kc.vCol)
					axpyRows(got, x, rows, cols, kc.vCol)
					for c := range cols {
						if !closeSums(got[c], want[c], scale[c], exact) {
							t.Errorf("%s: axpyRows dst[%d] = %v, Go loop %v", name, c, got[c], want[c])
						}
					}
				}
			}
		}
	}
}

// TestKernelsAVX2Reproducible checks that the assembly kernels give the same
// bits for the same numbers wherever they sit in memory: the summation
// order must depend on the shape only (TestDeterminism relies on it).
func TestKernelsAVX2Reproducible(t *testing.T) {
	if !kernel.AVX2() {
		t.Skip("no AVX2+FMA assembly kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shape := range [][2]int{{1, 37}, {7, 33}, {32, 32}, {9, 220}} {
		rows, cols := shape[0], shape[1]
		base := newKernelCase(rng, rows, cols, 0, false)
		var first [3][2][]float64 // [u8, f32, f64][dot, axpy]
		for offset := range 5 {
			u8 := append(make([]uint8, offset), base.u8...)[offset:]
			f32 := append(make([]float32, offset), base.f32...)[offset:]
			f64 := append(make([]float64, offset), base.f64...)[offset:]
			for e, x := range []Block{{U8: u8}, {F32: f32}, {F64: f64}} {
				dot := make([]float64, rows)
				axpy := make([]float64, cols)
				{
					dotRows(dot, x, rows, cols, base.vRow)
					axpyRows(axpy, x, rows, cols, base.vCol)
				}
				if offset == 0 {
					first[e] = [2][]float64{dot, axpy}
					continue
				}
				for k, got := range [][]float64{dot, axpy} {
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(first[e][k][i]) {
							t.Errorf("%dx%d %v kernel %d at offset %d: [%d] = %v, at offset 0 %v",
								rows, cols, elemName(x), k, offset, i, got[i], first[e][k][i])
						}
					}
				}
			}
		}
	}
}

// TestKernelsAllocateNothing checks that the kernels, which run once per
// sample and mode, allocate nothing, whichever path they take.
func TestKernelsAllocateNothing(t *testing.T) {
	kc := newKernelCase(rand.New(rand.NewPCG(11, 12)), 7, 33, 0, false)
	dst := make([]float64, 33)
	on := kernel.AVX2()
	{
		for _, x := range []Block{{U8: kc.u8}, {F32: kc.f32}, {F64: kc.f64}} {
			var allocs float64
			{
				allocs = testing.AllocsPerRun(10, func() {
					dotRows(dst, x, 7, 33, kc.vRow)
					axpyRows(dst, x, 7, 33, kc.vCol)
					_ = dotBlock(x, kc.vRow[:1])
				})
			}
			if allocs != 0 {
				t.Errorf("%v, kernel.AVX2() %v: %v allocations per call, want 0", elemName(x), on, allocs)
			}
		}
	}
}

// BenchmarkKernels times the contractions at the shapes the fit benchmarks
// use them: 32 x 32 images, the gait data's 32 x 22 x 10 sequences as
// 704 rows of 10 (dotRows) and 32 rows of 220 (axpyRows), the 22 x 10
// left of one by the cache of X x_1 u^(1) (axpyRows, the mode-3 partial
// projection's last contraction, in float64), and the faces
// (80 x 60) and image (128 x 128, 512 x 512) shapes of bench/run.py, on one
// sample held in cache, and the exact uint8 kernels (fixed.go) on the same
// bytes as uint8fixed; it reports elements/s and the fraction of the FMA
// peak (reportPeak).
func BenchmarkKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, shape := range [][2]int{{32, 32}, {704, 10}, {32, 220}, {22, 10}, {80, 60}, {128, 128}, {512, 512}} {
		rows, cols := shape[0], shape[1]
		kc := newKernelCase(rng, rows, cols, 0, false)
		dst := make([]float64, max(rows, cols))
		// The exact uint8 kernels (fixed.go) run on the uint8 data as
		// uint8fixed, their vectors put in fixed point once outside the
		// timing, as a pass does.
		var fRow, fCol kernel.FixedVec
		fRow.Set(kc.vRow)
		fCol.Set(kc.vCol)
		sums := make([]int64, kernel.FixedLimbs*cols)
		for _, elem := range []struct {
			x     Block
			fixed bool
		}{{Block{U8: kc.u8}, false}, {Block{F32: kc.f32}, false}, {Block{F64: kc.f64}, false}, {Block{U8: kc.u8}, true}} {
			x := elem.x
			for _, impl := range []struct {
				name string
				on   bool
			}{{"go", false}, {"avx2", true}} {
				if impl.on && !kernel.AVX2() {
					continue
				}
				dot := func() { dotRows(dst, x, rows, cols, kc.vRow) }
				axpy := func() { axpyRows(dst, x, rows, cols, kc.vCol) }
				if !impl.on {
					dot = func() { dotRowsTBlock(dst, x, rows, cols, kc.vRow) }
					axpy = func() { axpyRowsTBlock(dst, x, rows, cols, kc.vCol) }
				}
				name := elemName(x)
				if elem.fixed {
					dot = func() { kernel.DotRowsFixed(dst, kc.u8, rows, cols, &fRow) }
					axpy = func() { kernel.AxpyRowsFixed(dst, kc.u8, rows, cols, &fCol, sums) }
					if !impl.on {
						dot = func() { kernel.DotRowsFixedGo(dst, kc.u8, rows, cols, &fRow) }
						axpy = func() { kernel.AxpyRowsFixedGo(dst, kc.u8, rows, cols, &fCol, sums) }
					}
					name = "uint8fixed"
				}
				shapeName := fmt.Sprintf("%dx%d/%v/%s", rows, cols, name, impl.name)
				for _, k := range []struct {
					name string
					run  func()
				}{{"dotRows/", dot}, {"axpyRows/", axpy}} {
					b.Run(k.name+shapeName, func(b *testing.B) {
						{
							b.SetBytes(int64(rows * cols * elemBytes(x)))
							defer reportPeak(b, rows*cols)()
							for range b.N {
								k.run()
							}
						}
					})
				}
			}
		}
	}
}

// axpyRowsFMA is the arithmetic the assembly axpyRows kernels are written to
// do, lane by lane: for each column c, dst[c] = fma(v[r], x[r,c], dst[c])
// for r = 0, 1, ..., rows-1 in that order. Both the column-block kernel of
// before and the row-major kernel do exactly this, so the row-major
// rewrite changed no result bit (the fits' stored results stay as they were).
func axpyRowsFMA(dst []float64, x Block, rows, cols int, v []float64) {
	for r := range rows {
		for c := range cols {
			dst[c] = math.FMA(v[r], x.at(r*cols+c), dst[c])
		}
	}
}

// TestAxpyRowsAVX2ExactOrder checks the assembly axpyRows bit for bit
// against axpyRowsFMA, at shapes that exercise every path of the kernel:
// rows in groups of 4 and the rows left over, columns by 16, by 4, the
// masked last 4 and single columns (cols < 4), and rows of 4 to 16
// columns held in registers through many rows (22 x 10, 300 x 16, 257 x 5).
func TestAxpyRowsAVX2ExactOrder(t *testing.T) {
	if !kernel.AVX2() {
		t.Skip("no AVX2+FMA assembly kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(18, 1))
	shapes := [][2]int{{80, 60}, {128, 128}, {33, 35}, {5, 100}, {22, 10}, {300, 16}, {257, 5}}
	for rows := 1; rows <= 9; rows++ {
		for cols := 1; cols <= 37; cols++ {
			shapes = append(shapes, [2]int{rows, cols})
		}
	}
	for _, sh := range shapes {
		rows, cols := sh[0], sh[1]
		kc := newKernelCase(rng, rows, cols, rng.IntN(4), false)
		start := make([]float64, cols)
		for c := range start {
			start[c] = rng.NormFloat64()
		}
		for _, x := range []Block{{U8: kc.u8}, {F32: kc.f32}, {F64: kc.f64}} {
			want := append([]float64(nil), start...)
			axpyRowsFMA(want, x, rows, cols, kc.vCol)
			for _, stream := range []bool{false, true} {
				got := append([]float64(nil), start...)
				axpyRowsAsmBlock(got, x, rows, cols, kc.vCol, stream)
				for c := range cols {
					if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
						t.Fatalf("%dx%d/%s/stream=%v: dst[%d] = %v, fma chain in row order %v", rows, cols, elemName(x), stream, c, got[c], want[c])
					}
				}
			}
		}
	}
}

// TestAxpySlabsExact checks kernel.AxpySlabs, slab by slab and bit for bit,
// against axpyRowsFMA from a cleared dst (what axpyRowsStream computes),
// for every width it takes (4..16 columns; overlapping blocks from 5 to
// 15), over one to many slabs, and that it declines other widths. The gait samples' middle mode is 32 slabs of 22 x 10.
func TestAxpySlabsExact(t *testing.T) {
	if !kernel.AVX2() {
		t.Skip("no AVX2+FMA assembly kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(19, 4))
	for cols := 1; cols <= 18; cols++ {
		for _, rows := range []int{1, 2, 5, 22} {
			for _, slabs := range []int{1, 2, 3, 32} {
				x := make([]float64, slabs*rows*cols)
				for i := range x {
					x[i] = rng.NormFloat64()
				}
				v := make([]float64, rows)
				for i := range v {
					v[i] = rng.NormFloat64()
				}
				got := make([]float64, slabs*cols+1)
				got[slabs*cols] = 7 // past the end: not written
				if !kernel.AxpySlabs(got[:slabs*cols], x, rows, cols, slabs, v) {
					if cols >= 4 && cols <= 16 {
						t.Fatalf("%d slabs of %dx%d: declined", slabs, rows, cols)
					}
					continue
				}
				if cols < 4 || cols > 16 {
					t.Fatalf("%d slabs of %dx%d: taken, outside 4..16 columns", slabs, rows, cols)
				}
				for s := range slabs {
					want := make([]float64, cols)
					axpyRowsFMA(want, Block{F64: x[s*rows*cols : (s+1)*rows*cols]}, rows, cols, v)
					for c := range cols {
						if g := got[s*cols+c]; math.Float64bits(g) != math.Float64bits(want[c]) {
							t.Fatalf("%d slabs of %dx%d: slab %d column %d = %v, fma chain in row order %v", slabs, rows, cols, s, c, g, want[c])
						}
					}
				}
				if got[slabs*cols] != 7 {
					t.Fatalf("%d slabs of %dx%d: wrote past the end", slabs, rows, cols)
				}
			}
		}
	}
}

// TestSumU8 checks sumU8 against the float64 loop it replaces in sumLeaf
// (s[j] += float64(x) sample by sample from +0), bit for bit, on sizes
// around and across its chunks, from 1 to 300 samples of values up to
// 255 (the largest sums).
func TestSumU8(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 7))
	for _, size := range []int{1, 7, sumChunk - 1, sumChunk, sumChunk + 3, 3*sumChunk + 17} {
		for _, cnt := range []int{1, 2, 16, 300} {
			x := make([]uint8, cnt*size)
			for i := range x {
				x[i] = uint8(rng.IntN(256))
				if i%5 == 0 {
					x[i] = 255
				}
			}
			want := make([]float64, size)
			for i := range cnt {
				for j, v := range x[i*size : (i+1)*size] {
					want[j] += float64(v)
				}
			}
			got := make([]float64, size+1)
			got[size] = 7
			sumU8(got[:size], x, cnt, size)
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("%d samples of %d: s[%d] = %v, float64 loop %v", cnt, size, j, got[j], want[j])
				}
			}
			if got[size] != 7 {
				t.Fatalf("%d samples of %d: wrote past the end", cnt, size)
			}
		}
	}
}

// BenchmarkAxpySlabs times kernel.AxpySlabs as the gait float64 fit's
// middle-mode contraction uses it, one call a sample of 32 slabs of 22 x
// 10, over 4 samples in turn (225 KB: in cache, where the loop is bound by
// its FMA chains) or 731 (41 MB, read from memory).
func BenchmarkAxpySlabs(b *testing.B) {
	if !kernel.AVX2() {
		b.Skip("no AVX2+FMA assembly kernels in this build or on this CPU")
	}
	const slabs, rows, cols = 32, 22, 10
	n := slabs * rows * cols
	rng := rand.New(rand.NewPCG(20, 5))
	v := make([]float64, rows)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	dst := make([]float64, slabs*cols)
	for _, m := range []int{4, 731} {
		x := make([]float64, m*n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		b.Run(fmt.Sprintf("%dx%dx%dx%d", m, slabs, rows, cols), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			defer reportPeak(b, n)()
			for i := range b.N {
				s := i % m
				kernel.AxpySlabs(dst, x[s*n:(s+1)*n], rows, cols, slabs, v)
			}
		})
	}
}

// reportCPU, deferred as defer reportCPU(b, elems)(), reports the process's
// CPU time per element (cpu-ns/elem): on a machine shared with other work
// it measures the kernel more steadily than the wall clock.
func reportCPU(b *testing.B, elems int) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N)/float64(elems), "cpu-ns/elem")
	}
}

// BenchmarkKernelsStream times the contractions as a data pass uses them:
// one call per sample over M samples that together exceed the caches
// (721 faces of 80 x 60 as in bench/run.py; 300 images of 128 x 128), so
// that the kernels' memory access order counts, not just their arithmetic.
func BenchmarkKernelsStream(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, shape := range [][3]int{{721, 80, 60}, {300, 64, 64}, {300, 128, 128}, {300, 256, 256}} {
		m, rows, cols := shape[0], shape[1], shape[2]
		n := rows * cols
		data := newKernelCase(rng, m*rows, cols, 0, false)
		vRow, vCol := data.vRow, data.vCol[:rows]
		dst := make([]float64, max(rows, cols))
		for _, all := range []Block{{U8: data.u8}, {F32: data.f32}, {F64: data.f64}} {
			name := fmt.Sprintf("%dx%dx%d/%v", m, rows, cols, elemName(all))
			sample := func(i int) Block { return all.slice(i*n, (i+1)*n) }
			b.Run("dotRows/"+name, func(b *testing.B) {
				b.SetBytes(int64(m * n * elemBytes(all)))
				defer reportCPU(b, m*n)()
				defer reportPeak(b, m*n)()
				for range b.N {
					for i := range m {
						dotRowsStream(dst, sample(i), rows, cols, vRow)
					}
				}
			})
			b.Run("axpyRows/"+name, func(b *testing.B) {
				b.SetBytes(int64(m * n * elemBytes(all)))
				defer reportCPU(b, m*n)()
				defer reportPeak(b, m*n)()
				for range b.N {
					for i := range m {
						axpyRowsStream(dst, sample(i), rows, cols, vCol)
					}
				}
			})
		}
	}
}

// BenchmarkPassRate times whole passes over the samples on one thread, as
// a fit makes them: OpProject (every mode contracted: the trailing mode's
// dotRows first) and OpModeRows for mode 0 (the leading mode left: axpyRows
// first), over the gait data (731 x 32 x 22 x 10) and the faces (721 x 80 x
// 60), each element read from memory once per pass. It reports elements
// of the data per second and their fraction of the FMA peak (reportPeak).
func BenchmarkPassRate(b *testing.B) {
	for _, c := range []struct {
		name  string
		m     int
		shape []int
	}{{"gait", 731, []int{32, 22, 10}}, {"faces", 721, []int{80, 60}}} {
		size := 1
		vs := make([][]float64, len(c.shape))
		for n, d := range c.shape {
			size *= d
			vs[n] = make([]float64, d)
			for i := range vs[n] {
				vs[n][i] = 1 / math.Sqrt(float64(d))
			}
		}
		for _, elem := range []Elem{Uint8, Float32, Float64} {
			src := benchSource(c.m, c.shape, elem)
			for _, op := range []struct {
				name string
				p    Pass
				out  int
			}{
				{"project", Pass{Op: OpProject, Shape: c.shape, Samples: c.m, Vectors: vs, Offset: []float64{0}}, c.m},
				{"rows0", Pass{Op: OpModeRows, Shape: c.shape, Samples: c.m, Mode: 0, Vectors: vs}, c.m * c.shape[0]},
			} {
				b.Run(fmt.Sprintf("%s/%v/%s", c.name, elem, op.name), func(b *testing.B) {
					r := newRunner(src, size, 1)
					defer r.close()
					out := make([]float64, op.out)
					p := op.p
					b.SetBytes(int64(c.m * size * elemSize(elem)))
					b.ResetTimer()
					defer reportPeak(b, c.m*size)()
					for range b.N {
						if err := r.Run(&p, out); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// benchSource returns m samples of the given shape and element type,
// uniform integers 0..255 as the benchmarks' data.
func benchSource(m int, shape []int, elem Elem) Source {
	rng := rand.New(rand.NewPCG(1, 2))
	size := m
	for _, d := range shape {
		size *= d
	}
	switch elem {
	case Uint8:
		x := make([]uint8, size)
		for i := range x {
			x[i] = uint8(rng.IntN(256))
		}
		return must(NewSliceSource(x, m, shape))
	case Float32:
		x := make([]float32, size)
		for i := range x {
			x[i] = float32(rng.IntN(256))
		}
		return must(NewSliceSource(x, m, shape))
	default:
		x := make([]float64, size)
		for i := range x {
			x[i] = float64(rng.IntN(256))
		}
		return must(NewSliceSource(x, m, shape))
	}
}

func elemSize(e Elem) int {
	switch e {
	case Uint8:
		return 1
	case Float32:
		return 4
	}
	return 8
}

// reportPeak, deferred as defer reportPeak(b, elems)() where the timing
// starts, reports a contraction's elements (one FMA each) per CPU second
// of the process (Gelem/cpu-s; per wall second where the CPU time is not
// known), steadier than the wall clock on a shared machine, and their
// fraction of one core's FMA peak: 8 float64 FMAs a cycle (two 256-bit
// FMA units, as AVX2 cores of the last decade have) at the clock
// /proc/cpuinfo gives (its first "cpu MHz"; no fraction where there is
// none). The benchmarks run on one goroutine, so CPU seconds are one
// core's.
func reportPeak(b *testing.B, elems int) func() {
	start := processCPU()
	return func() {
		secs := float64(processCPU()-start) / 1e9
		if secs <= 0 {
			secs = b.Elapsed().Seconds()
		}
		rate := float64(elems) * float64(b.N) / secs
		b.ReportMetric(rate/1e9, "Gelem/cpu-s")
		if hz := cpuHz(); hz > 0 {
			b.ReportMetric(rate/(8*hz), "peak-frac")
		}
	}
}

func cpuHz() float64 {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "cpu MHz" {
			if mhz, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				return mhz * 1e6
			}
		}
	}
	return 0
}

// lastVectorFMA adds row r's last 4 columns to lane as the dotRows
// kernels' masked last vector does: column cols-4+q into lane q, times v
// masked to the last cols mod 4 columns (times 0 where the column was
// already taken). cols >= 4.
func lastVectorFMA(lane *[4]float64, x Block, r, cols int, v []float64) {
	body := cols &^ 3
	for q := range 4 {
		c := cols - 4 + q
		w := 0.0
		if c >= body {
			w = v[c]
		}
		lane[q] = math.FMA(x.at(r*cols+c), w, lane[q])
	}
}

// dotRowsShortFMA is the arithmetic the assembly dotRows kernels do on rows
// shorter than 16 columns, row by row: lane k (0..3) is the FMA chain
// over the columns c = k, k+4, ... below cols rounded down to 4; then, if
// cols >= 4, the last 4 columns once more with v masked to the columns
// not yet taken (lane q gets column cols-4+q, times 0 if it was taken),
// else the tail, the FMA chain over the columns; the row's value is
// ((lane0+lane1) + (lane2+lane3)) + tail.
func dotRowsShortFMA(dst []float64, x Block, rows, cols int, v []float64) {
	body := cols &^ 3
	for r := range rows {
		var lane [4]float64
		for c := 0; c < body; c++ {
			lane[c%4] = math.FMA(x.at(r*cols+c), v[c], lane[c%4])
		}
		tail := 0.0
		if body > 0 && body < cols {
			lastVectorFMA(&lane, x, r, cols, v)
		} else {
			for c := body; c < cols; c++ {
				tail = math.FMA(x.at(r*cols+c), v[c], tail)
			}
		}
		dst[r] = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + tail
	}
}

// checkDotRowsAsm checks both assembly dotRows kernels for x's type (for
// float64, the stream kernel as well) bit for bit against want, the
// model of their order.
func checkDotRowsAsm(t *testing.T, want []float64, x Block, rows, cols int, v []float64) {
	t.Helper()
	for _, stream := range []bool{false, true} {
		got := make([]float64, rows)
		dotRowsAsmBlock(got, x, rows, cols, v, stream)
		for r := range rows {
			if math.Float64bits(got[r]) != math.Float64bits(want[r]) {
				t.Fatalf("%dx%d/%s/stream=%v: dst[%d] = %v, fma chains in the kernel's order %v", rows, cols, elemName(x), stream, r, got[r], want[r])
			}
		}
	}
}

// TestDotRowsAVX2ShortExactOrder checks the assembly dotRows bit for bit
// against dotRowsShortFMA on rows of 1 to 15 columns and 1 to 13 rows
// (every grouping of rows the kernel makes, and every tail).
func TestDotRowsAVX2ShortExactOrder(t *testing.T) {
	if !kernel.AVX2() {
		t.Skip("no AVX2+FMA assembly kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(9, 1))
	for rows := 1; rows <= 13; rows++ {
		for cols := 1; cols < 16; cols++ {
			kc := newKernelCase(rng, rows, cols, rng.IntN(4), false)
			for _, x := range []Block{{U8: kc.u8}, {F32: kc.f32}, {F64: kc.f64}} {
				want := make([]float64, rows)
				dotRowsShortFMA(want, x, rows, cols, kc.vRow)
				checkDotRowsAsm(t, want, x, rows, cols, kc.vRow)
			}
		}
	}
}

// TestGramCols checks kernel.GramCols against the definition: with AVX2, bit for
// bit against kernel.GramColsGo (the same FMA chains); in any build, every entry
// against a plain sum of products to rounding (|error| <= m eps sum |y y|),
// and S exactly symmetric. Shapes cover n < 8 (Go only), n a multiple of
// 4 and 8 and not, and one row.
func TestGramCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 7))
	for _, sh := range [][2]int{{721, 80}, {721, 60}, {731, 22}, {300, 10}, {5, 7}, {1, 9}, {3, 8}, {17, 13}, {64, 33}} {
		m, n := sh[0], sh[1]
		Y := make([]float64, m*n)
		for i := range Y {
			Y[i] = rng.NormFloat64()
		}
		S := make([]float64, n*n)
		kernel.GramCols(S, Y, m, n)
		for i := range n {
			for j := range n {
				sum, abs := 0.0, 0.0
				for r := range m {
					p := Y[r*n+i] * Y[r*n+j]
					sum += p
					abs += math.Abs(p)
				}
				if d := math.Abs(S[i*n+j] - sum); d > float64(m+1)*0x1p-52*abs {
					t.Fatalf("%dx%d: S[%d][%d] = %v, sum of products %v", m, n, i, j, S[i*n+j], sum)
				}
				if math.Float64bits(S[i*n+j]) != math.Float64bits(S[j*n+i]) {
					t.Fatalf("%dx%d: S[%d][%d] = %v != S[%d][%d] = %v", m, n, i, j, S[i*n+j], j, i, S[j*n+i])
				}
			}
		}
		if !kernel.AVX2() {
			continue
		}
		want := make([]float64, n*n)
		kernel.GramColsGo(want, Y, m, n)
		kernel.GramCols(S, Y, m, n)
		for i := range S {
			if math.Float64bits(S[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%dx%d: S[%d][%d] = %v with AVX2, %v in Go", m, n, i/n, i%n, S[i], want[i])
			}
		}
	}
}

// BenchmarkGramCols times forming Y^T Y at the faces' and gait's mode
// sizes (GFMA/cpu-s: m n (n + 1) / 2 useful FMAs per CPU second).
func BenchmarkGramCols(b *testing.B) {
	for _, sh := range [][2]int{{721, 80}, {721, 60}, {731, 32}, {731, 22}, {300, 96}, {300, 256}} {
		m, n := sh[0], sh[1]
		Y := make([]float64, m*n)
		for i := range Y {
			Y[i] = float64(i%251) / 251
		}
		S := make([]float64, n*n)
		b.Run(fmt.Sprintf("%dx%d", m, n), func(b *testing.B) {
			defer reportCPU(b, m*n*(n+1)/2)()
			for b.Loop() {
				kernel.GramCols(S, Y, m, n)
			}
		})
	}
}

// dotRowsLongFMA is the arithmetic of the assembly dotRows on rows of 16
// columns or more: column c < cols &^ 3 goes to lane c mod 4 of
// accumulator (c / 4) mod 4, the last cols mod 4 to a scalar chain; then the accumulators are added as
// (a0 + a1) + (a2 + a3) lane by lane, and the lanes as (l0 + l2) + (l1 + l3),
// plus the scalar chain. Rows taken one at a time and two at a time (the
// pair sharing v's loads and the final sums) follow it alike.
func dotRowsLongFMA(dst []float64, x Block, rows, cols int, v []float64) {
	by4 := cols &^ 3
	for r := range rows {
		var acc [4][4]float64
		for c := range by4 {
			a := (c / 4) % 4
			acc[a][c%4] = math.FMA(x.at(r*cols+c), v[c], acc[a][c%4])
		}
		tail := 0.0
		for c := by4; c < cols; c++ {
			tail = math.FMA(x.at(r*cols+c), v[c], tail)
		}
		var l [4]float64
		for q := range 4 {
			l[q] = (acc[0][q] + acc[1][q]) + (acc[2][q] + acc[3][q])
		}
		dst[r] = ((l[0] + l[2]) + (l[1] + l[3])) + tail
	}
}

// dotRowsMidFMA is the assembly dotRows' order on rows of 16 columns or
// more and at most midRowCols columns: two accumulators of 4 lanes per row,
// group g of 4 columns into accumulator g mod 2, the last cols mod 4
// columns as one more vector into accumulator 1 (v masked to them), then
// (l0 + l1) + (l2 + l3) of the two accumulators' sum.
func dotRowsMidFMA(dst []float64, x Block, rows, cols int, v []float64) {
	by4 := cols &^ 3
	for r := range rows {
		var acc [2][4]float64
		for c := range by4 {
			a := (c / 4) % 2
			acc[a][c%4] = math.FMA(x.at(r*cols+c), v[c], acc[a][c%4])
		}
		if by4 < cols {
			lastVectorFMA(&acc[1], x, r, cols, v)
		}
		var l [4]float64
		for q := range 4 {
			l[q] = acc[0][q] + acc[1][q]
		}
		dst[r] = (l[0] + l[1]) + (l[2] + l[3])
	}
}

// midRowCols is the assembly's bound on the rows that dotRowsMidFMA models.
const midRowCols = 256

// TestDotRowsAVX2LongExactOrder checks the assembly dotRows on rows of 16
// columns or more bit for bit against dotRowsLongFMA: odd and even row
// counts (pairs and the row left over), columns by 16, by 4 and single.
func TestDotRowsAVX2LongExactOrder(t *testing.T) {
	if !kernel.AVX2() {
		t.Skip("no AVX2+FMA assembly kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(9, 2))
	shapes := [][2]int{{80, 60}, {3, 512}, {96, 96}, {7, 250}, {9, 64}, {5, 65}, {6, 63}, {7, 61}, {5, 32}, {5, 33}, {9, 256}, {6, 257}, {5, 255}, {4, 220}}
	for rows := 1; rows <= 9; rows++ {
		for cols := 16; cols <= 70; cols++ {
			shapes = append(shapes, [2]int{rows, cols})
		}
	}
	for _, sh := range shapes {
		rows, cols := sh[0], sh[1]
		kc := newKernelCase(rng, rows, cols, rng.IntN(4), false)
		for _, x := range []Block{{U8: kc.u8}, {F32: kc.f32}, {F64: kc.f64}} {
			want := make([]float64, rows)
			if cols <= midRowCols {
				dotRowsMidFMA(want, x, rows, cols, kc.vRow)
			} else {
				dotRowsLongFMA(want, x, rows, cols, kc.vRow)
			}
			checkDotRowsAsm(t, want, x, rows, cols, kc.vRow)
		}
	}
}
