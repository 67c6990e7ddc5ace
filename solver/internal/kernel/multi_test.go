package kernel

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestMultiSums: the value MultiSums and MultiCombine give for a row and
// a vector is the exact integer x . q (q = v / scale rounded, exactQ:
// the fixed point by its definition, not by the limbs) times scale,
// within the two roundings of the limbs' Horner combination: at most
// 2^-51 of sum_c x_c |q_c| scale; zero for the padding vectors. The Go
// loops and the assembly give the same sums (the AVX2 and the AVX-512
// kernels where the CPU has them) and the same bits.
func TestMultiSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ rows, cols, P int }{
		{1, 1, 1}, {1, 2, 3}, {2, 3, 16}, {3, 7, 17}, {5, 32, 32}, {32, 220, 32},
		{7, 255, 5}, {4, 256, 33}, {9, 10, 40}, {17, 33, 64}, {704, 10, 32},
	} {
		vs := make([][]float64, c.P)
		for k := range vs {
			vs[k] = fixedTestVec(rng, c.cols)
			if k%3 == 1 {
				for i := range vs[k] { // another scale, and the top limb's low end
					vs[k][i] *= 0x1p-30
				}
				vs[k][0] = -0x1p-30
			}
		}
		if c.P > 2 {
			vs[2] = make([]float64, c.cols) // a zero vector: scale 1, q = 0
		}
		x := make([]uint8, c.rows*c.cols)
		for i := range x {
			x[i] = uint8(rng.IntN(256))
		}
		if c.rows > 1 {
			for i := range c.cols {
				x[i] = 255 // the largest sums
			}
		}
		var m MultiFixed
		m.Set(vs)
		if !m.OK() {
			t.Fatalf("%v: not ok", c)
		}
		S, srows := m.Stride(), c.rows+MultiSlack
		goSums, sums := make([]int32, m.SumsLen(c.rows)), make([]int32, m.SumsLen(c.rows))
		MultiSumsGo(goSums, x, c.rows, c.cols, &m)
		MultiSums(sums, x, c.rows, c.cols, &m)
		sameSums := func(what string) {
			for l := range FixedLimbs {
				for i := range c.rows * S {
					if a, b := sums[l*srows*S+i], goSums[l*srows*S+i]; a != b {
						t.Fatalf("%v %s: limb %d sum %d = %d, the Go loops %d", c, what, l, i, a, b)
					}
				}
			}
		}
		sameSums("MultiSums")
		if avx2 { // both assembly kernels where the CPU has them
			for _, vnni := range []bool{false, true} {
				if vnni && !multiVNNI {
					continue
				}
				clear(sums)
				multiSumsAsm(sums, x, c.rows, c.cols, &m, vnni)
				sameSums(fmt.Sprintf("vnni=%v", vnni))
			}
		}
		got, goDst := make([]float64, c.rows*S), make([]float64, c.rows*S)
		MultiCombine(got, sums, srows, 0, c.rows, &m, nil)
		MultiCombineGo(goDst, goSums, srows, 0, c.rows, &m, nil)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(goDst[i]) {
				t.Fatalf("%v: value %d = %v, the Go loops %v", c, i, got[i], goDst[i])
			}
		}
		// The contraction of rows r0.. with lead vectors: the same bits
		// as the Go loops, and within rounding of the sum of the values.
		r0, n := c.rows/3, c.rows-c.rows/3
		lead := make([]float64, n*S)
		for i := range lead {
			lead[i] = 2*rng.Float64() - 1
		}
		led, goLed := make([]float64, S), make([]float64, S)
		MultiCombine(led, sums, srows, r0, n, &m, lead)
		MultiCombineGo(goLed, goSums, srows, r0, n, &m, lead)
		for k := range S {
			want, bound := 0.0, 0.0
			for i := range n {
				want += got[(r0+i)*S+k] * lead[i*S+k]
				bound += math.Abs(got[(r0+i)*S+k] * lead[i*S+k])
			}
			if math.Float64bits(led[k]) != math.Float64bits(goLed[k]) || math.Abs(led[k]-want) > 1e-14*bound {
				t.Fatalf("%v: lead sum %d = %v, the Go loops %v, the values' %v", c, k, led[k], goLed[k], want)
			}
		}
		for k, v := range vs {
			var f FixedVec
			f.Set(v)
			q := make([]*big.Int, c.cols)
			for i, e := range v {
				q[i] = exactQ(e, f.Scale())
			}
			for r := range c.rows {
				row := x[r*c.cols : (r+1)*c.cols]
				want := exactDot(q, row, f.Scale())
				bound := new(big.Int)
				for i, b := range row {
					bound.Add(bound, new(big.Int).Mul(new(big.Int).Abs(q[i]), big.NewInt(int64(b))))
				}
				bf, _ := new(big.Float).SetInt(bound).Float64()
				if d := math.Abs(got[r*S+k] - want); d > 0x1p-51*bf*f.Scale() {
					t.Fatalf("%v: row %d vector %d = %v, exact %v (off %g, bound %g)", c, r, k, got[r*S+k], want, d, 0x1p-51*bf*f.Scale())
				}
			}
		}
		for r := range c.rows {
			for k := c.P; k < S; k++ {
				if got[r*S+k] != 0 {
					t.Fatalf("%v: padding vector %d of row %d = %v", c, k, r, got[r*S+k])
				}
			}
		}
	}
}

// TestMultiFixedNotOK: a vector with a NaN makes the set not OK.
func TestMultiFixedNotOK(t *testing.T) {
	var m MultiFixed
	m.Set([][]float64{{1, 2}, {math.NaN(), 1}})
	if m.OK() {
		t.Fatal("a NaN vector is held in fixed point")
	}
	m.Set([][]float64{{1, 2}, {3, 1}})
	if !m.OK() {
		t.Fatal("finite vectors are not held after a NaN one")
	}
}

func BenchmarkMultiSums(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ rows, cols, P int }{{32, 32, 32}, {32, 220, 32}} {
		vs := make([][]float64, c.P)
		for k := range vs {
			vs[k] = fixedTestVec(rng, c.cols)
		}
		x := make([]uint8, c.rows*c.cols)
		for i := range x {
			x[i] = uint8(rng.IntN(256))
		}
		var m MultiFixed
		m.Set(vs)
		dst, sums := make([]float64, c.rows*m.Stride()), make([]int32, m.SumsLen(c.rows))
		b.Run(fmt.Sprintf("%dx%dx%d", c.rows, c.cols, c.P), func(b *testing.B) {
			for range b.N {
				MultiSums(sums, x, c.rows, c.cols, &m)
				MultiCombine(dst, sums, c.rows+MultiSlack, 0, c.rows, &m, nil)
			}
			b.ReportMetric(float64(b.N*c.rows*c.cols*c.P)/b.Elapsed().Seconds()/1e9, "Gmac/s")
		})
	}
}
