package kernel

import "math"

// This file holds the exact contractions of uint8 samples: a vector v is
// put in fixed point once per pass (FixedVec), v[i] ~ q[i] scale with
// integers |q[i]| < 2^60 and scale a power of two, and a uint8 row x is
// contracted with it in integer arithmetic, exactly: sum_i x[i] q[i] is an
// integer, so no order of summation, blocking or number of accumulators
// can change it. The result is that integer rounded once to float64 and
// times scale (FixedVec.combine), a function of x and q alone: the
// assembly kernels and the Go loops here give the same bits whatever
// their order, and a uint8 kernel's result equals the correctly rounded
// x . q scale, against a float64 FMA chain's rounding at every element.
//
// q has 61 significant bits, held as four int16 limbs,
// q = a 2^45 + b 2^30 + c 2^15 + d with a = q >> 45 in [-2^15, 2^15) and
// b, c, d in [0, 2^15), so that each limb's products with uint8 values
// are what VPMADDWD multiplies and adds (16 a instruction, against 4
// float64 FMAs and the widening of 4 bytes): x[i] a[i] + x[i+1] a[i+1]
// fits in 24 bits, and an int32 lane may add 127 such pairs before it
// must be widened. The error of q scale against v is at most scale/2 <=
// 2^-60 max|v| an entry; docs/DESIGN.md ("Exactness and narrowing")
// derives the contraction's bound from it and why three limbs are not
// enough.

// FixedLimbs is the number of int16 limbs of an entry: a signed top limb
// and FixedLimbs-1 of 15 bits, 16 + 15 (FixedLimbs-1) = 61 bits.
const FixedLimbs = 4

// FixedPad is the multiple of entries to which a limb row is padded with
// zeros, so that kernels may read whole vectors of limbs past n.
const FixedPad = 16

// FixedVec is a vector in fixed point: entry i is
// (limb(0,i) 2^45 + limb(1,i) 2^30 + limb(2,i) 2^15 + limb(3,i)) scale.
type FixedVec struct {
	// limbs holds the FixedLimbs limb rows of ld entries each, limb l of
	// entry i at limbs[l*ld+i]; entries n..ld-1 are zero.
	limbs []int16
	n, ld int
	// scale is a power of two, 2^(e-60) for max|v| in [2^(e-1), 2^e).
	scale float64
	// ok is false when v cannot be held: a value not finite, or max|v| so
	// small that scale would be subnormal. Callers then use the float64
	// kernels, for every element type alike.
	ok bool
	// tab holds, for n <= FixedQuadMax, the limbs in the order the short
	// rows' dotRows kernel multiplies them (see setTab); else it is empty.
	tab []int16
	// bytes holds, for n <= FixedQuadMax, each q[i] as eight signed bytes
	// in the order the short rows' VNNI kernel takes them (see setBytes).
	bytes []int8
}

// NewFixedVec returns an empty FixedVec whose storage holds vectors of up
// to n entries, so that Set allocates nothing for them.
func NewFixedVec(n int) FixedVec {
	ld := (n + FixedPad - 1) / FixedPad * FixedPad
	f := FixedVec{limbs: make([]int16, 0, FixedLimbs*ld)}
	if n <= FixedQuadMax {
		f.tab = make([]int16, 0, FixedTabLen(n))
		f.bytes = make([]int8, 0, 8*ld)
	}
	return f
}

// OK reports whether f holds its vector (Set); when it does not (a value
// not finite, or max|v| so small that the scale would be subnormal),
// callers use the float64 kernels.
func (f *FixedVec) OK() bool { return f.ok }

// Q returns entry i of the vector in fixed point, an integer q with
// v[i] ~ q Scale() (|q| < 2^60).
func (f *FixedVec) Q(i int) int64 { return f.q(i) }

// Scale returns the power of two that the entries' integers are
// multiplied by.
func (f *FixedVec) Scale() float64 { return f.scale }

// FixedQuadMax is the longest row that DotRowsFixed contracts four rows
// at a time, by the limb pairs of FixedVec.tab (dotShort in the assembly).
const FixedQuadMax = 240

// FixedTabLen is the length of FixedVec.tab for vectors of n <= FixedQuadMax
// entries: 4 x 4 x 16 limbs for each 16 entries.
func FixedTabLen(n int) int {
	return (n + FixedPad - 1) / FixedPad * 256
}

// Set makes f hold v, reusing f's storage when it is large enough.
func (f *FixedVec) Set(v []float64) {
	n := len(v)
	ld := (n + FixedPad - 1) / FixedPad * FixedPad
	if cap(f.limbs) < FixedLimbs*ld {
		f.limbs = make([]int16, FixedLimbs*ld)
	}
	f.limbs = f.limbs[:FixedLimbs*ld]
	clear(f.limbs)
	f.n, f.ld, f.scale, f.ok = n, ld, 1, false
	var top float64
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		top = max(top, math.Abs(x))
	}
	f.ok = true
	if top == 0 {
		f.setTab() // every q[i] is 0
		f.setBytes()
		return
	}
	_, e := math.Frexp(top) // top in [2^(e-1), 2^e)
	if e-60 < -1021 {
		f.ok = false
		return
	}
	f.scale = math.Ldexp(1, e-60)
	for i, x := range v {
		// x / scale is exact (a power of two) and below 2^60 in
		// magnitude; entries of 2^-8 max|v| or more are integers already.
		q := int64(math.RoundToEven(math.Ldexp(x, 60-e)))
		f.limbs[i] = int16(q >> 45)
		f.limbs[ld+i] = int16((q >> 30) & 0x7fff)
		f.limbs[2*ld+i] = int16((q >> 15) & 0x7fff)
		f.limbs[3*ld+i] = int16(q & 0x7fff)
	}
	f.setTab()
	f.setBytes()
}

// setTab sets f.tab from the limbs when f.n <= FixedQuadMax, in the order
// the short rows' kernel (fixed_amd64.s) takes a row's columns: by units
// of w = 32 columns while more than 16 are left, then one of 16; unit at
// c holds, for each i < w/4 and limb l, 16 words: (l_c+2i, l_c+2i+1)
// four times, then (l_c+2i+w/2, l_c+2i+w/2+1) four times, where l_k is
// entry k of limb row l (zero past n). That is the column pair i of four
// rows in the low half of a vector and pair i + w/4 in the high half, as
// the kernel holds them.
func (f *FixedVec) setTab() {
	f.tab = f.tab[:0]
	if f.n > FixedQuadMax {
		return
	}
	need := FixedTabLen(f.n)
	if cap(f.tab) < need {
		f.tab = make([]int16, need)
	}
	f.tab = f.tab[:need]
	ld, k := f.ld, 0
	for c := 0; c < f.n; {
		w := 16
		if f.n-c > 16 {
			w = 32
		}
		for i := range w / 4 {
			for l := range FixedLimbs {
				row := f.limbs[l*ld : (l+1)*ld]
				lo, hi := row[c+2*i:][:2], row[c+2*i+w/2:][:2]
				t := f.tab[k : k+16]
				for j := 0; j < 8; j += 2 {
					t[j], t[j+1] = lo[0], lo[1]
					t[8+j], t[9+j] = hi[0], hi[1]
				}
				k += 16
			}
		}
		c += w
	}
}

// setBytes sets f.bytes from the limbs when f.n <= FixedQuadMax: q[i] =
// sum_k d_k 256^k with digits d_k in [-128, 128) (|q| < 2^60 needs
// eight), as VPDPBUSD multiplies them with unsigned bytes. For each
// block of 16 entries, 128 bytes: digit k of entries 16b..16b+15 at
// 16k (zero past n), the order of a vector that holds 16 bytes of a row
// four times over.
func (f *FixedVec) setBytes() {
	f.bytes = f.bytes[:0]
	if f.n > FixedQuadMax {
		return
	}
	need := 8 * f.ld
	if cap(f.bytes) < need {
		f.bytes = make([]int8, need)
	}
	f.bytes = f.bytes[:need]
	clear(f.bytes)
	for i := range f.n {
		q, at := f.q(i), (i/16)*128+i%16
		for k := range 8 {
			d := int8(q) // q's low byte, as a digit in [-128, 128)
			f.bytes[at+16*k] = d
			q = (q - int64(d)) >> 8
		}
	}
}

// q returns entry i of f as an integer (the tests' reference).
func (f *FixedVec) q(i int) int64 {
	ld := f.ld
	return int64(f.limbs[i])<<45 | int64(f.limbs[ld+i])<<30 | int64(f.limbs[2*ld+i])<<15 | int64(f.limbs[3*ld+i])
}

// combine returns the float64 value of the integer
// s0 2^45 + s1 2^30 + s2 2^15 + s3 scaled by f.scale, where s_l is a
// row's sum of products with limb l: t1 = s0 2^15 + s1 and t2 = s2 2^15 +
// s3 are exact int64, and the value is
// (float64(t1) 2^30 + float64(t2)) scale, one rounding of each
// conversion and of the sum (none of the conversions rounds while the
// sums stay below 2^53, rows of up to 2^15 uint8 values, so the result
// is then x . q rounded once). Every kernel ends with this, so that the
// assembly and the Go loops agree bit for bit.
func (f *FixedVec) combine(s0, s1, s2, s3 int64) float64 {
	t1 := s0<<15 + s1
	t2 := s2<<15 + s3
	return (float64(float64(t1)*(1<<30)) + float64(t2)) * f.scale
}

// DotRowsFixedGo sets dst[r] = x[r*cols:(r+1)*cols] . q scale for r < rows,
// by f.combine: the contraction of a uint8 tensor's last mode with the
// vector f holds (f.n == cols).
func DotRowsFixedGo(dst []float64, x []uint8, rows, cols int, f *FixedVec) {
	ld := f.ld
	l0, l1, l2, l3 := f.limbs[:cols], f.limbs[ld:ld+cols], f.limbs[2*ld:2*ld+cols], f.limbs[3*ld:3*ld+cols]
	for r := range rows {
		row := x[r*cols : (r+1)*cols]
		var s0, s1, s2, s3 int64
		for c, b := range row {
			v := int64(b)
			s0 += v * int64(l0[c])
			s1 += v * int64(l1[c])
			s2 += v * int64(l2[c])
			s3 += v * int64(l3[c])
		}
		dst[r] = f.combine(s0, s1, s2, s3)
	}
}

// AxpyRowsFixedGo sets dst[c] = sum_r x[r*cols+c] q[r] scale for c < cols,
// by f.combine: the contraction of a uint8 tensor's first mode with the
// vector f holds (f.n == rows). sums is scratch of FixedLimbs*cols int64.
func AxpyRowsFixedGo(dst []float64, x []uint8, rows, cols int, f *FixedVec, sums []int64) {
	sums = sums[:FixedLimbs*cols]
	clear(sums)
	s0, s1, s2, s3 := sums[:cols], sums[cols:2*cols], sums[2*cols:3*cols], sums[3*cols:]
	ld := f.ld
	for r := range rows {
		a, b, c, d := int64(f.limbs[r]), int64(f.limbs[ld+r]), int64(f.limbs[2*ld+r]), int64(f.limbs[3*ld+r])
		row := x[r*cols : (r+1)*cols]
		for j, e := range row {
			v := int64(e)
			s0[j] += v * a
			s1[j] += v * b
			s2[j] += v * c
			s3[j] += v * d
		}
	}
	for j := range cols {
		dst[j] = f.combine(s0[j], s1[j], s2[j], s3[j])
	}
}

// DotRowsFixed sets dst[r] = x[r*cols:(r+1)*cols] . q scale for r < rows
// (f.n == cols, f.ok): DotRowsFixedGo's bits, in assembly when there is
// some.
func DotRowsFixed(dst []float64, x []uint8, rows, cols int, f *FixedVec) {
	if avx2 && rows >= 1 && cols >= 1 {
		dotRowsFixedAsm(dst, x, rows, cols, f, vnni)
		return
	}
	DotRowsFixedGo(dst, x, rows, cols, f)
}

// AxpyRowsFixed sets dst[c] = sum_r x[r*cols+c] q[r] scale for c < cols
// (f.n == rows, f.ok), with sums as scratch of FixedLimbs*cols int64:
// AxpyRowsFixedGo's bits, in assembly when there is some.
func AxpyRowsFixed(dst []float64, x []uint8, rows, cols int, f *FixedVec, sums []int64) {
	if avx2 && cols >= FixedPad && rows >= 1 && rows <= 1<<15 {
		axpyRowsFixedAsm(dst, x, rows, cols, f, sums, vnni)
		return
	}
	AxpyRowsFixedGo(dst, x, rows, cols, f, sums)
}
