package par

import "math/bits"

// Grain is the number of samples of one leaf of a pass's reduction tree
// (solver's Pass.Grain; PCA's scatter uses 64).
const Grain = 16

// Span is the folded partial result of the leaves (grains) [First,
// First+2^Level) of a sum pass, First a multiple of 2^Level; leaves past
// the end of the data are absent.
type Span struct {
	First, Level int
	Data         []float64
}

// Spans returns the maximal aligned power-of-two runs of leaves that
// cover [a, b), in order: the subtrees of the reduction tree that a block
// of leaves [a, b) computes whole.
func Spans(dst []Span, a, b int) []Span {
	for a < b {
		l := 0
		for a%(2<<l) == 0 && a+(2<<l) <= b {
			l++
		}
		dst = append(dst, Span{First: a, Level: l})
		a += 1 << l
	}
	return dst
}

// MaxSpans bounds the number of spans of n leaves (at most two of each
// level, rising then falling), so that callers size their slices once:
// appending as the spans come would allocate more often for more leaves.
func MaxSpans(n int) int { return 2*bits.Len(uint(n)) + 1 }
