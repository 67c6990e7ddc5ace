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

// MultiSlack is the number of rows past the last that MultiSums' sums
// hold for each limb: the AVX-512 kernel takes rows eight at a time.
const MultiSlack = 7

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
func (m *MultiFixed) SumsLen(rows int) int { return FixedLimbs * (rows + MultiSlack) * m.ppad }

// MultiSumsGo sets sums[(l*(rows+MultiSlack)+r)*ppad+k] to the exact
// sum over c of x[r*cols+c] times limb l of vector k's entry c, for every
// limb l, row r < rows and k < ppad (cols == m's n).
func MultiSumsGo(sums []int32, x []uint8, rows, cols int, m *MultiFixed) {
	ppad, pairs, srows := m.ppad, m.pairs, rows+MultiSlack
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

// MultiCombineGo combines the sums of rows r0..r0+n-1 of MultiSumsGo's
// (made for srows-MultiSlack rows): row r's value for vector k is
// h = (sum_l s_l 2^(limbBits (L-1-l))) scale_k, by Horner's rule in
// float64 from the top limb, acc = acc 2^limbBits + s_l (the product is
// exact, so each step rounds once, and the first two not at all while
// acc < 2^53), then acc scale_k. With lead nil, dst[i*ppad+k] is row
// r0+i's h; else dst[k] (ppad values) is sum_i h_i lead[i*ppad+k], added
// in order of i from zero: the contraction of the rows' mode with one
// vector a column.
func MultiCombineGo(dst []float64, sums []int32, srows, r0, n int, m *MultiFixed, lead []float64) {
	ppad := m.ppad
	stride := srows * ppad
	if lead != nil {
		clear(dst[:ppad])
	}
	for i := range n {
		s := sums[(r0+i)*ppad:]
		for k := range ppad {
			acc := float64(s[k])
			for l := 1; l < FixedLimbs; l++ {
				acc = float64(acc*(1<<limbBits)) + float64(s[l*stride+k])
			}
			h := acc * m.scale[k]
			if lead == nil {
				dst[i*ppad+k] = h
			} else {
				dst[k] += float64(h * lead[i*ppad+k])
			}
		}
	}
}

// MultiSums is MultiSumsGo, in assembly when there is some (the same
// sums: they are exact). sums holds SumsLen(rows) values.
func MultiSums(sums []int32, x []uint8, rows, cols int, m *MultiFixed) {
	if cols != m.n || rows < 0 || len(x) < rows*cols || len(sums) < m.SumsLen(rows) {
		panic("kernel: MultiSums: bad shape")
	}
	if rows == 0 {
		return
	}
	if avx2 {
		multiSumsAsm(sums, x, rows, cols, m, multiVNNI)
		return
	}
	MultiSumsGo(sums, x, rows, cols, m)
}

// MultiCombine is MultiCombineGo, in assembly when there is some (the
// same operations in the same order: the same bits).
func MultiCombine(dst []float64, sums []int32, srows, r0, n int, m *MultiFixed, lead []float64) {
	out := n * m.ppad
	if lead != nil {
		out = m.ppad
		_ = lead[n*m.ppad-1]
	}
	if r0 < 0 || n < 1 || r0+n > srows || len(dst) < out || len(sums) < FixedLimbs*srows*m.ppad {
		panic("kernel: MultiCombine: bad shape")
	}
	if avx2 {
		multiCombineAsm(dst, sums, srows, r0, n, m, lead)
		return
	}
	MultiCombineGo(dst, sums, srows, r0, n, m, lead)
}
