package kernel

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fixedBound returns the error bounds of a fixed-point contraction of a
// row x of n <= 2^15 bytes with v (docs/DESIGN.md, "Exactness and
// narrowing"): each q_i scale is v_i rounded to the nearest multiple of
// scale, off by at most scale/2 <= 2^-(15 FixedLimbs) max|v| (scale =
// 2^(e-60) for max|v| in [2^(e-1), 2^e)), so x . q scale is within
// quant = ||x||_1 2^-(15 FixedLimbs) max|v| of x . v; the kernel rounds
// x . q scale once, by at most u |x . q scale| <= u (|x . v| + quant),
// which makes total.
func fixedBound(x []uint8, v []float64, exact float64) (quant, total float64) {
	var norm1, top float64
	for i, b := range x {
		norm1 += float64(b)
		top = max(top, math.Abs(v[i]))
	}
	quant = norm1 * math.Ldexp(top, -15*FixedLimbs)
	const u = 0x1p-53
	return quant, quant + u*(math.Abs(exact)+quant)
}

// exactDotRat returns x . v exactly (big.Float wide enough for the sum of
// the products of float64s within [2^-400, 2^2) and bytes), and it as the
// nearest float64.
func exactDotRat(x []uint8, v []float64) (*big.Float, float64) {
	s := new(big.Float).SetPrec(1200)
	p := new(big.Float).SetPrec(1200)
	for i, b := range x {
		p.SetFloat64(v[i])
		p.Mul(p, new(big.Float).SetInt64(int64(b)))
		s.Add(s, p)
	}
	if s.Acc() != big.Exact {
		panic("exactDotRat: not exact")
	}
	f, _ := s.Float64()
	return s, f
}

// fixedBoundVecs returns the adversarial vectors of n entries: unit
// norm with magnitudes spread over 2^0 .. 2^-60; entries a hair under an
// odd multiple of scale/2, all positive, so that every entry rounds by
// nearly the most it can and the same way (the bound's worst case, with
// bytes of 255); entries at and beside powers of two with the largest
// just under one (max|v| at the top of its binade); and all entries equal
// (the uniform start, 1/sqrt(n)).
func fixedBoundVecs(rng *rand.Rand, n int) map[string][]float64 {
	spread := make([]float64, n)
	var ss float64
	for i := range spread {
		spread[i] = (2*rng.Float64() - 1) * math.Ldexp(1, -rng.IntN(61))
		ss += spread[i] * spread[i]
	}
	for i := range spread {
		spread[i] /= math.Sqrt(ss)
	}
	// max|v| = 1/2, the bottom of [2^-1, 2^0): scale = 2^-60, and
	// scale/2 = 2^-60 max|v| is the bound's. Entry i > 0 is
	// (j + 1/2 - 2^-8) 2^-60 for j < 2^40 (below 2^-20, so it keeps the
	// fraction's bits): q rounds it down by scale (1/2 - 2^-8).
	halfUlp := make([]float64, n)
	halfUlp[0] = 0.5
	for i := 1; i < n; i++ {
		j := float64(rng.Int64N(1 << 40))
		halfUlp[i] = math.Ldexp(j+0.5-0x1p-8, -60)
	}
	pow2 := make([]float64, n)
	pow2[0] = math.Nextafter(1, 0)
	for i := 1; i < n; i++ {
		p := math.Ldexp(1, -rng.IntN(70))
		switch i % 4 {
		case 0:
			p = -p
		case 1:
			p = math.Nextafter(p, 0)
		case 2:
			p = -math.Nextafter(p, 2)
		}
		pow2[i] = p
	}
	uniform := make([]float64, n)
	for i := range uniform {
		uniform[i] = 1 / math.Sqrt(float64(n))
	}
	return map[string][]float64{"spread": spread, "halfulp": halfUlp, "pow2": pow2, "uniform": uniform}
}

// TestFixedErrorBound checks the error bound of the fixed-point
// contraction (fixedBound) against x . v computed exactly in big.Float,
// for DotRowsFixed, AxpyRowsFixed (the assembly when there is some) and
// the Go loops, on the adversarial vectors of fixedBoundVecs and rows of
// 255s, random bytes and alternating 0 and 255, n up to 2^15 (the longest
// row whose sums convert to float64 exactly, and the most rows
// AxpyRowsFixed takes in assembly). The fixed point's own error (x . q
// scale against x . v, exactly) must nearly reach its bound (within a
// factor 1.1) for the half-ulp vector and 255s, so that the bound is
// tight: a kernel that dropped a limb, or a coarser q, would exceed it by
// a factor up to 2^15.
func TestFixedErrorBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var f FixedVec
	for _, n := range []int{1, 16, 17, 220, 240, 241, 4096, 1 << 15} {
		rows := map[string][]uint8{"255s": make([]uint8, n), "random": make([]uint8, n), "alternating": make([]uint8, n)}
		for i := range n {
			rows["255s"][i] = 255
			rows["random"][i] = uint8(rng.IntN(256))
			rows["alternating"][i] = uint8(255 * (i % 2))
		}
		for vName, v := range fixedBoundVecs(rng, n) {
			f.Set(v)
			if !f.ok {
				t.Fatalf("n=%d %s: no fixed point", n, vName)
			}
			for xName, x := range rows {
				name := fmt.Sprintf("n=%d %s x %s", n, vName, xName)
				exact, exactF := exactDotRat(x, v)
				quant, bound := fixedBound(x, v, exactF)
				// x . q scale, exactly: the fixed point's own error.
				xq := new(big.Float).SetPrec(1200)
				for i, b := range x {
					p := new(big.Float).SetInt64(f.Q(i))
					xq.Add(xq, p.Mul(p, new(big.Float).SetInt64(int64(b))))
				}
				xq.Mul(xq, new(big.Float).SetFloat64(f.Scale()))
				dq, _ := new(big.Float).SetPrec(1200).Sub(xq, exact).Float64()
				if math.Abs(dq) > quant {
					t.Errorf("%s: x . q scale off by %.3g, bound %.3g", name, math.Abs(dq), quant)
				}
				if vName == "halfulp" && xName == "255s" && n > 1 && math.Abs(dq) < quant/1.1 {
					t.Errorf("%s: x . q scale off by %.3g, below the bound %.3g / 1.1: the worst case was not met", name, math.Abs(dq), quant)
				}
				check := func(kernel string, got float64) {
					d, _ := new(big.Float).SetPrec(1200).Sub(new(big.Float).SetFloat64(got), exact).Float64()
					if math.Abs(d) > bound {
						t.Errorf("%s: %s off by %.3g, bound %.3g", name, kernel, math.Abs(d), bound)
					}
				}
				dot := make([]float64, 1)
				DotRowsFixed(dot, x, 1, n, &f)
				check("DotRowsFixed", dot[0])
				DotRowsFixedGo(dot, x, 1, n, &f)
				check("DotRowsFixedGo", dot[0])
				// x as a column of n rows and 16 identical columns (the
				// assembly's narrowest), contracted down its rows.
				col := make([]uint8, 16*n)
				for i, b := range x {
					for c := range 16 {
						col[16*i+c] = b
					}
				}
				sums := make([]int64, FixedLimbs*16)
				axpy := make([]float64, 16)
				AxpyRowsFixed(axpy, col, n, 16, &f, sums)
				check("AxpyRowsFixed", axpy[15])
				AxpyRowsFixedGo(axpy, col, n, 16, &f, sums)
				check("AxpyRowsFixedGo", axpy[0])
			}
		}
	}
}
