package kernel

// This file holds the exact contraction of uint8 rows with many vectors
// at once (the transform's first contraction): Z[r][p] = x_r . q_p for
// every row x_r of a sample and every vector q_p in fixed point, a
// GEMM-shaped product that reads each row once for all the vectors,
// where DotRowsFixed reads it once a vector. The integers are FixedVec's
// (FixedLimbs limbs of limbBits bits), so the sums are exact; each
// limb's sum of a row of at most MultiMax values fits an int32 (see
// fixed_amd64.s's bounds: 128 VPMADDWD lanes), and the limbs are
// combined in float64 (MultiCombineGo): a function of x and q alone.

// limbBits is the weight between successive limbs of FixedVec.
const limbBits = 15

// MultiMax is the longest row MultiDotFixed contracts: its int32 sums
// hold 128 pairs of products of a uint8 value and a limb.
const MultiMax = 256

// multiSlack is the number of rows past the last that a limb's sums
// hold: the AVX-512 kernel takes rows four at a time.
const multiSlack = 3

// MultiFixed holds P vectors of n <= MultiMax entries in fixed point,
// each as FixedVec holds it (its own scale), laid out for MultiDotFixed.
type MultiFixed struct {
	n, p, ppad, pairs int
	// tab holds, for each limb l and pair j of entries (2j, 2j+1), ppad
	// int32 words: word k is limb l of vector k's entries 2j (low half)
	// and 2j+1 (high half), at tab[(l*pairs+j)*ppad+k]; zero past n and
	// past p.
	tab   []int32
	scale []float64 // ppad; 0 past p
	ok    bool
	fv    FixedVec
}

// Set makes m hold the vectors vs (each of the same length n, 1 <= n <=
// MultiMax), reusing m's storage when it is large enough. m.OK() is
// false when one of them has no fixed point (FixedVec.OK).
func (m *MultiFixed) Set(vs [][]float64) {
	n := len(vs[0])
	if n < 1 || n > MultiMax {
		panic("kernel: MultiFixed.Set: bad length")
	}
	P := len(vs)
	pad := multiPad()
	ppad := (P + pad - 1) / pad * pad
	pairs := (n + 1) / 2
	m.n, m.p, m.ppad, m.pairs, m.ok = n, P, ppad, pairs, true
	need := FixedLimbs * pairs * ppad
	if cap(m.tab) < need {
		m.tab = make([]int32, need)
	}
	m.tab = m.tab[:need]
	clear(m.tab)
	if cap(m.scale) < ppad {
		m.scale = make([]float64, ppad)
	}
	m.scale = m.scale[:ppad]
	clear(m.scale)
	for k, v := range vs {
		if len(v) != n {
			panic("kernel: MultiFixed.Set: vectors of different lengths")
		}
		m.fv.Set(v)
		if !m.fv.ok {
			m.ok = false
			return
		}
		m.scale[k] = m.fv.scale
		ld := m.fv.ld
		for l := range FixedLimbs {
			row := m.fv.limbs[l*ld : (l+1)*ld] // zero past n
			for j := range pairs {
				m.tab[(l*pairs+j)*ppad+k] = int32(uint16(row[2*j])) | int32(row[2*j+1])<<16
			}
		}
	}
}

// OK reports whether m holds its vectors.
func (m *MultiFixed) OK() bool { return m.ok }

// Stride returns the number of values per row MultiDotFixed writes: the
// number of vectors padded to the multiple the assembly takes (16, or 32
// with AVX-512).
func (m *MultiFixed) Stride() int { return m.ppad }

// SumsLen returns the int32 scratch MultiDotFixed needs for rows rows.
func (m *MultiFixed) SumsLen(rows int) int { return FixedLimbs * (rows + multiSlack) * m.ppad }

// MultiDotFixedGo sets sums[(l*(rows+multiSlack)+r)*ppad+k] to the exact
// sum over c of x[r*cols+c] times limb l of vector k's entry c, for every
// limb l, row r < rows and k < ppad (cols == m's n).
func MultiDotFixedGo(sums []int32, x []uint8, rows, cols int, m *MultiFixed) {
	ppad, pairs, srows := m.ppad, m.pairs, rows+multiSlack
	for l := range FixedLimbs {
		for r := range rows {
			row := x[r*cols : (r+1)*cols]
			out := sums[(l*srows+r)*ppad : (l*srows+r+1)*ppad]
			clear(out)
			for j := range pairs {
				lo, hi := int32(row[2*j]), int32(0)
				if 2*j+1 < cols {
					hi = int32(row[2*j+1])
				}
				tab := m.tab[(l*pairs+j)*ppad : (l*pairs+j+1)*ppad]
				for k, w := range tab {
					out[k] += lo*int32(int16(uint16(w))) + hi*int32(int16(w>>16))
				}
			}
		}
	}
}

// MultiCombineGo sets dst[r*ppad+k] = (sum_l s_l 2^(limbBits (L-1-l)))
// scale_k for the sums s_l of row r and vector k of MultiDotFixedGo,
// by Horner's rule in float64 from the top limb: acc = acc 2^limbBits +
// s_l (the product is exact, so each step rounds once, and the first
// two not at all while acc < 2^53), then acc scale_k.
func MultiCombineGo(dst []float64, sums []int32, rows int, m *MultiFixed) {
	ppad := m.ppad
	n, stride := rows*ppad, (rows+multiSlack)*ppad
	for i := range n {
		acc := float64(sums[i])
		for l := 1; l < FixedLimbs; l++ {
			acc = float64(acc*(1<<limbBits)) + float64(sums[l*stride+i])
		}
		dst[i] = acc * m.scale[i%ppad]
	}
}

// MultiDotFixed sets dst[r*Stride()+k] = x_r . q_k, for rows x_r of cols
// == n values and the vectors q_k m holds (m.OK()), zero for k >= P:
// MultiDotFixedGo then MultiCombineGo, in assembly when there is some
// (the same bits: the sums are exact and combined by the same
// operations). sums is scratch of SumsLen(rows).
func MultiDotFixed(dst []float64, x []uint8, rows, cols int, m *MultiFixed, sums []int32) {
	if cols != m.n || rows < 0 || len(x) < rows*cols || len(dst) < rows*m.ppad || len(sums) < m.SumsLen(rows) {
		panic("kernel: MultiDotFixed: bad shape")
	}
	if rows == 0 {
		return
	}
	if avx2 {
		multiDotFixedAsm(sums, x, rows, cols, m, multiVNNI)
		multiCombineAsm(dst, sums, rows, m)
		return
	}
	MultiDotFixedGo(sums, x, rows, cols, m)
	MultiCombineGo(dst, sums, rows, m)
}
