//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// The many-vector contraction of multi.go in assembly (multi_amd64.s):
// rows widened to words once, each pair of a row's words broadcast and
// multiplied by the limb pairs of 8 (AVX2: VPMADDWD, VPADDD) or 16
// (AVX-512: VPDPWSSD, which adds as it multiplies) vectors, a tile of
// two rows by 16 vectors (AVX2) or eight rows by 32 (AVX-512) at a time,
// so that each load of the limb table serves several rows. The AVX2
// kernel is bound by its two vector instructions per 16 products on
// three ports; the AVX-512 one does 32 in one, with 16 accumulators
// to cover VPDPWSSD's latency.

// multiVNNI reports whether the AVX-512 kernel runs: read once.
var multiVNNI = avx2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VNNI

// multiPad is the multiple of vectors the kernel takes.
func multiPad() int {
	if multiVNNI {
		return 32
	}
	return 16
}

//go:noescape
func multiSumsAVX2(sums *int32, x *uint8, tab *int32, rows, cols, ppad, pairs, limbs, srows int)

//go:noescape
func multiSumsVNNI(sums *int32, x *uint8, tab *int32, rows, cols, ppad, pairs, limbs, srows int)

//go:noescape
func multiCombineAVX2(dst *float64, sums *int32, scale *float64, lead *float64, rows, ppad, limbs, srows int)

// multiSumsAsm is MultiSumsGo in assembly (avx2, rows >= 1, cols <=
// MultiMax): by the AVX-512 kernel when vnni (m.ppad then a multiple of
// 32), else by the AVX2 one.
func multiSumsAsm(sums []int32, x []uint8, rows, cols int, m *MultiFixed, vnni bool) {
	_, _ = sums[m.SumsLen(rows)-1], x[rows*cols-1]
	if vnni {
		if m.ppad%32 != 0 {
			panic("kernel: multiSumsAsm: vectors not padded to 32")
		}
		multiSumsVNNI(&sums[0], &x[0], &m.tab[0], rows, cols, m.ppad, m.pairs, FixedLimbs, rows+MultiSlack)
		return
	}
	multiSumsAVX2(&sums[0], &x[0], &m.tab[0], rows, cols, m.ppad, m.pairs, FixedLimbs, rows+MultiSlack)
}

// multiCombineAsm is MultiCombineGo in assembly (avx2; arguments
// checked by MultiCombine).
func multiCombineAsm(dst []float64, sums []int32, srows, r0, n int, m *MultiFixed, lead []float64) {
	var lp *float64
	if lead != nil {
		lp = &lead[0]
	}
	multiCombineAVX2(&dst[0], &sums[r0*m.ppad], &m.scale[0], lp, n, m.ppad, FixedLimbs, srows)
}
