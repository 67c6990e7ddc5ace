package kernel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fixedTestVec returns a vector of n entries in [-1, 1) whose magnitudes
// span 2^0 .. 2^-40, so that its fixed point rounds some entries.
func fixedTestVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = (2*rng.Float64() - 1) * math.Ldexp(1, -rng.IntN(41))
	}
	return v
}

// exactQ is the fixed point of x by its definition: x / scale rounded to
// the nearest integer, ties to even, computed in big.Float.
func exactQ(x, scale float64) *big.Int {
	r := new(big.Float).SetPrec(200).Quo(big.NewFloat(x), big.NewFloat(scale))
	fl, _ := r.Int(nil) // truncated toward zero
	frac := new(big.Float).SetPrec(200).Sub(r, new(big.Float).SetInt(fl))
	half := big.NewFloat(0.5)
	switch c := frac.Abs(frac).Cmp(half); {
	case c > 0 || (c == 0 && fl.Bit(0) == 1):
		if r.Sign() < 0 {
			fl.Sub(fl, big.NewInt(1))
		} else {
			fl.Add(fl, big.NewInt(1))
		}
	}
	return fl
}

// exactDot returns sum_i x[i] q[i] scale rounded once to float64 (big.Int
// sum, then big.Float's round to nearest even): the value every fixed
// kernel must give.
func exactDot(q []*big.Int, x []uint8, scale float64) float64 {
	s := new(big.Int)
	for i, b := range x {
		s.Add(s, new(big.Int).Mul(q[i], big.NewInt(int64(b))))
	}
	f, _ := new(big.Float).SetInt(s).Float64()
	return f * scale
}

func TestFixedVecSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 16, 60, 220, 240, 241} {
		v := fixedTestVec(rng, n)
		v[n/2] = -1 // the largest magnitude, negative: the top limb's low end
		var f FixedVec
		f.Set(v)
		if !f.ok {
			t.Fatalf("n=%d: not ok", n)
		}
		// max|v| = 1 is in [2^0, 2^1): e = 1, scale = 2^-59.
		if f.scale != math.Ldexp(1, -59) {
			t.Fatalf("n=%d: scale %g, want 2^-59", n, f.scale)
		}
		for i, x := range v {
			want := exactQ(x, f.scale)
			if got := big.NewInt(f.q(i)); got.Cmp(want) != 0 {
				t.Fatalf("n=%d: q[%d] = %v, want %v", n, i, got, want)
			}
			if f.limbs[i] < -1<<15 || f.limbs[f.ld+i] < 0 || f.limbs[2*f.ld+i] < 0 || f.limbs[3*f.ld+i] < 0 {
				t.Fatalf("n=%d: limbs of %d out of range", n, i)
			}
			// Rounding to the nearest integer: |q scale - v| <= scale / 2.
			if d := math.Abs(float64(f.q(i))*f.scale - x); d > f.scale/2 {
				t.Fatalf("n=%d: entry %d off by %g > scale/2", n, i, d)
			}
		}
		for l := range FixedLimbs {
			for i := n; i < f.ld; i++ {
				if f.limbs[l*f.ld+i] != 0 {
					t.Fatalf("n=%d: padding limb %d entry %d is %d", n, l, i, f.limbs[l*f.ld+i])
				}
			}
		}
		checkFixedTab(t, &f)
		checkFixedBytes(t, &f)
	}
	var f FixedVec
	for _, v := range [][]float64{{1, math.NaN()}, {math.Inf(-1)}, {math.Ldexp(1, -1000)}} {
		f.Set(v)
		if f.ok {
			t.Errorf("set(%v): ok, want not ok", v)
		}
	}
	f.Set(fixedTestVec(rand.New(rand.NewPCG(1, 3)), 3))
	f.Set([]float64{0, 0, 0}) // over a vector's limbs and tab
	if !f.ok || f.q(0) != 0 || f.q(2) != 0 {
		t.Errorf("set(zeros): ok %v, q %d %d; want ok and zeros", f.ok, f.q(0), f.q(2))
	}
	checkFixedTab(t, &f)
	checkFixedBytes(t, &f)
}

// checkFixedBytes checks f.bytes against its definition (setBytes):
// for each 16 entries, digit k of entry 16b+j at 128b+16k+j, digits in
// [-128, 128) with sum_k d_k 256^k = q (an identity checked in big
// integers), zero past n; empty past FixedQuadMax entries.
func checkFixedBytes(t *testing.T, f *FixedVec) {
	t.Helper()
	if f.n > FixedQuadMax {
		if len(f.bytes) != 0 {
			t.Fatalf("n=%d: %d digit bytes past FixedQuadMax", f.n, len(f.bytes))
		}
		return
	}
	if len(f.bytes) != 8*f.ld {
		t.Fatalf("n=%d: %d digit bytes, want %d", f.n, len(f.bytes), 8*f.ld)
	}
	for i := range f.ld {
		sum, weight := new(big.Int), big.NewInt(1)
		for k := range 8 {
			d := f.bytes[(i/16)*128+16*k+i%16]
			sum.Add(sum, new(big.Int).Mul(big.NewInt(int64(d)), weight))
			weight.Lsh(weight, 8)
		}
		want := int64(0)
		if i < f.n {
			want = f.q(i)
		}
		if !sum.IsInt64() || sum.Int64() != want {
			t.Fatalf("n=%d: digits of entry %d make %v, want %d", f.n, i, sum, want)
		}
	}
}

// checkFixedTab checks f.tab against its definition (setTab): column
// units of 32 while more than 16 columns are left, then 16; in the unit
// at c of w columns, words 16(4i+l) .. +7 are limb l of entries c+2i and
// c+2i+1 (four times), the next 8 those of entries c+2i+w/2 and
// c+2i+w/2+1; empty past FixedQuadMax entries.
func checkFixedTab(t *testing.T, f *FixedVec) {
	t.Helper()
	if f.n > FixedQuadMax {
		if len(f.tab) != 0 {
			t.Fatalf("n=%d: tab of %d words past FixedQuadMax", f.n, len(f.tab))
		}
		return
	}
	if len(f.tab) != f.ld*16 {
		t.Fatalf("n=%d: tab of %d words, want %d", f.n, len(f.tab), f.ld*16)
	}
	var want []int16
	for c := 0; c < f.n; {
		w := 16
		if f.n-c > 16 {
			w = 32
		}
		for i := range w / 4 {
			for l := range FixedLimbs {
				for _, e := range []int{c + 2*i, c + 2*i + w/2} {
					for range 4 {
						want = append(want, f.limbs[l*f.ld+e], f.limbs[l*f.ld+e+1])
					}
				}
			}
		}
		c += w
	}
	for i, got := range f.tab {
		if got != want[i] {
			t.Fatalf("n=%d: tab[%d] = %d, want %d", f.n, i, got, want[i])
		}
	}
}

func TestFixedKernelsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][2]int{{1, 1}, {3, 5}, {32, 220}, {80, 60}, {10, 33}, {4, 4096}} {
		rows, cols := sh[0], sh[1]
		x := make([]uint8, rows*cols)
		for i := range x {
			x[i] = uint8(rng.IntN(256))
		}
		if rows > 2 {
			for i := range x[:cols] {
				x[i] = 255 // a row of the largest values
			}
		}
		// dotRows: one dot product a row, with a vector of cols entries.
		v := fixedTestVec(rng, cols)
		var f FixedVec
		f.Set(v)
		q := make([]*big.Int, cols)
		for i := range q {
			q[i] = big.NewInt(f.q(i))
		}
		dst := make([]float64, rows)
		DotRowsFixedGo(dst, x, rows, cols, &f)
		for r := range rows {
			if want := exactDot(q, x[r*cols:(r+1)*cols], f.scale); dst[r] != want {
				t.Fatalf("%dx%d DotRowsFixedGo row %d: %v, want %v", rows, cols, r, dst[r], want)
			}
		}
		// axpyRows: column c is the dot product of column c of x with a
		// vector of rows entries.
		w := fixedTestVec(rng, rows)
		f.Set(w)
		qw := make([]*big.Int, rows)
		for i := range qw {
			qw[i] = big.NewInt(f.q(i))
		}
		out := make([]float64, cols)
		AxpyRowsFixedGo(out, x, rows, cols, &f, make([]int64, FixedLimbs*cols))
		col := make([]uint8, rows)
		for c := range cols {
			for r := range rows {
				col[r] = x[r*cols+c]
			}
			if want := exactDot(qw, col, f.scale); out[c] != want {
				t.Fatalf("%dx%d AxpyRowsFixedGo column %d: %v, want %v", rows, cols, c, out[c], want)
			}
		}
	}
}

// fixedCases returns the vectors the assembly tests contract with: n
// entries of the test vector, its negation at the top limb's low end
// (every q near -2^60: a = -2^15, the largest VPMADDWD magnitude), near
// +2^60 (every limb at its top), and tiny entries (scale near 2^-960).
func fixedCases(rng *rand.Rand, n int) [][]float64 {
	low := make([]float64, n)
	high := make([]float64, n)
	for i := range low {
		low[i] = -math.Nextafter(2, 0)
		high[i] = math.Nextafter(2, 0)
	}
	tiny := fixedTestVec(rng, n)
	for i := range tiny {
		tiny[i] = math.Ldexp(tiny[i], -900)
	}
	return [][]float64{fixedTestVec(rng, n), low, high, tiny}
}

// fixedVariants returns the variants of the assembly kernels that this
// CPU runs: without VNNI, and with it when the CPU has it (vnni).
func fixedVariants() []bool {
	if vnni {
		return []bool{false, true}
	}
	return []bool{false}
}

// fixedCheckAsm checks the assembly kernels (dotRowsFixedAsm, and
// axpyRowsFixedAsm from 16 columns; AxpyRowsFixed below) in each of
// fixedVariants against the Go loops, bit for bit, on x (rows x cols),
// for each of the vectors of fixedCases; and against exactDot when exact
// is set.
func fixedCheckAsm(t *testing.T, rng *rand.Rand, x []uint8, rows, cols int, exact bool) {
	t.Helper()
	for _, useVNNI := range fixedVariants() {
		fixedCheckVariant(t, rng, x, rows, cols, exact, useVNNI)
	}
}

func fixedCheckVariant(t *testing.T, rng *rand.Rand, x []uint8, rows, cols int, exact, useVNNI bool) {
	t.Helper()
	var f FixedVec
	for k, v := range fixedCases(rng, cols) {
		f.Set(v)
		if !f.ok {
			t.Fatalf("%dx%d case %d: not ok", rows, cols, k)
		}
		want := make([]float64, rows)
		DotRowsFixedGo(want, x, rows, cols, &f)
		got := make([]float64, rows)
		dotRowsFixedAsm(got, x, rows, cols, &f, useVNNI)
		for r := range rows {
			if math.Float64bits(got[r]) != math.Float64bits(want[r]) {
				t.Fatalf("%dx%d case %d vnni %v: DotRowsFixed row %d = %v, Go loop %v", rows, cols, k, useVNNI, r, got[r], want[r])
			}
		}
		if exact {
			q := make([]*big.Int, cols)
			for i := range q {
				q[i] = big.NewInt(f.q(i))
			}
			for r := range rows {
				if w := exactDot(q, x[r*cols:(r+1)*cols], f.scale); got[r] != w {
					t.Fatalf("%dx%d case %d vnni %v: DotRowsFixed row %d = %v, exact %v", rows, cols, k, useVNNI, r, got[r], w)
				}
			}
		}
	}
	for k, v := range fixedCases(rng, rows) {
		f.Set(v)
		want := make([]float64, cols)
		AxpyRowsFixedGo(want, x, rows, cols, &f, make([]int64, FixedLimbs*cols))
		got := make([]float64, cols)
		// The kernel's scratch is sums[:FixedLimbs*cols]; the words after
		// it must be left as they are.
		sums := make([]int64, FixedLimbs*cols+8)
		for i := range sums {
			sums[i] = -1
		}
		if cols >= FixedPad {
			axpyRowsFixedAsm(got, x, rows, cols, &f, sums[:FixedLimbs*cols], useVNNI)
		} else {
			AxpyRowsFixed(got, x, rows, cols, &f, sums[:FixedLimbs*cols])
		}
		for i, s := range sums[FixedLimbs*cols:] {
			if s != -1 {
				t.Fatalf("%dx%d case %d vnni %v: AxpyRowsFixed wrote sums[%d] past its scratch", rows, cols, k, useVNNI, FixedLimbs*cols+i)
			}
		}
		for c := range cols {
			if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
				t.Fatalf("%dx%d case %d vnni %v: AxpyRowsFixed column %d = %v, Go loop %v", rows, cols, k, useVNNI, c, got[c], want[c])
			}
		}
		if exact {
			q := make([]*big.Int, rows)
			for i := range q {
				q[i] = big.NewInt(f.q(i))
			}
			col := make([]uint8, rows)
			for c := range cols {
				for r := range rows {
					col[r] = x[r*cols+c]
				}
				if w := exactDot(q, col, f.scale); got[c] != w {
					t.Fatalf("%dx%d case %d vnni %v: AxpyRowsFixed column %d = %v, exact %v", rows, cols, k, useVNNI, c, got[c], w)
				}
			}
		}
	}
}

// TestFixedKernelsAVX2 checks the assembly kernels, with and without VNNI
// where the CPU has it, against the Go loops bit for bit (their results are exact, so any difference is a bug) at
// shapes that take every path: odd and even rows, pairs of rows two at a
// time (dotRows' short rows), rows past a chunk of 127 row pairs
// (axpyRows: 254-257, 300), columns below and above 16 and 32 (axpyRows'
// VNNI blocks of 32, then of 16), tails of every length, rows about the int32 short path's limit (240) and the chunks of
// 496 columns (496, 497, 1008, 2032, 2033, 4096, 5000), with random bytes
// and with all bytes 255; each x is a slice of exactly rows*cols bytes
// (the guard page test checks that nothing past it is read). Small shapes
// are also checked against exactDot.
func TestFixedKernelsAVX2(t *testing.T) {
	if !AVX2() {
		t.Skip("no AVX2 assembly kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	allRows := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 32, 80, 254, 255, 256, 257, 300}
	allCols := []int{48, 60, 63, 64, 95, 128, 220, 239, 240, 241, 256, 496, 497, 512, 1008, 2032, 2033, 4096, 5000}
	for c := 1; c <= 40; c++ {
		allCols = append(allCols, c)
	}
	for _, rows := range allRows {
		for _, cols := range allCols {
			if rows*cols > 300*2033 {
				continue // the largest shapes once per kernel path suffice
			}
			x := make([]uint8, rows*cols)
			for i := range x {
				x[i] = uint8(rng.IntN(256))
			}
			exact := rows*cols <= 4096
			fixedCheckAsm(t, rng, x, rows, cols, exact)
			for i := range x {
				x[i] = 255
			}
			fixedCheckAsm(t, rng, x, rows, cols, exact)
		}
	}
	// Rows long enough (40000 bytes of 255) that t1 = s0 2^15 + s1 passes
	// 2^53 and its conversion to float64 rounds.
	x := make([]uint8, 2*40000)
	for i := range x {
		x[i] = 255
	}
	fixedCheckAsm(t, rng, x, 2, 40000, false)
}
