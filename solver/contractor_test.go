package solver

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naivePartial is the contraction of x (row-major, shape dims) with vs[k]
// in every mode k != n, summed term by term in the definition's order
// (eq. 10), an independent reference for the contractor.
func naivePartial(x []float64, dims []int, n int, vs [][]float64) []float64 {
	out := make([]float64, dims[n])
	idx := make([]int, len(dims))
	for _, v := range x {
		w := v
		for k, i := range idx {
			if k != n {
				w *= vs[k][i]
			}
		}
		out[idx[n]] += w
		for k := len(dims) - 1; k >= 0; k-- { // next index, row-major
			idx[k]++
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// TestContractor: contractor.partial and full agree with the term-by-term
// definition to rounding for every mode, element type and order, on the
// Kronecker path (order >= 3, mode 0), past kronMax and for order 2; the
// Kronecker vector is rebuilt when the vectors change; and the cache path
// (the mode-0 axpy kept, then finishCache on a grain of samples) gives
// partial's result bit for bit.
func TestContractor(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	for _, dims := range [][]int{{5}, {6, 4}, {4, 7, 3}, {3, 5, 2, 4}, {2, 70, 60}} {
		size := prod(dims)
		const cnt = 3
		x := make([]float64, cnt*size)
		for i := range x {
			x[i] = float64(rng.IntN(256)) // exact in every element type
		}
		u8, f32 := make([]uint8, len(x)), make([]float32, len(x))
		for i, v := range x {
			u8[i], f32[i] = uint8(v), float32(v)
		}
		vectors := func() [][]float64 {
			vs := make([][]float64, len(dims))
			for k, d := range dims {
				vs[k] = make([]float64, d)
				for i := range vs[k] {
					vs[k][i] = rng.NormFloat64()
				}
			}
			return vs
		}
		c := newContractor(dims)
		for round := range 2 { // new vectors: the Kronecker vector must follow
			vs := vectors()
			for _, b := range []Block{{F64: x}, {F32: f32}, {U8: u8}} {
				for s := range cnt {
					xs := b.slice(s*size, (s+1)*size)
					for n := range dims {
						want := naivePartial(x[s*size:(s+1)*size], dims, n, vs)
						got := make([]float64, dims[n])
						c.partial(got, xs, n, vs)
						scale := 0.0
						for e := range size {
							w := math.Abs(x[s*size+e])
							for k := range dims {
								w *= math.Abs(vs[k][e/prod(dims[k+1:])%dims[k]])
							}
							scale += w
						}
						for i := range want {
							// independent sums of size terms: rounding of order
							// size * eps * sum |terms|
							if d := math.Abs(got[i] - want[i]); d > float64(size)*0x1p-52*scale {
								t.Fatalf("%v round %d %v sample %d mode %d: entry %d = %v, want %v", dims, round, elemName(b), s, n, i, got[i], want[i])
							}
						}
					}
					var full float64
					for i, v := range naivePartial(x[s*size:(s+1)*size], dims, len(dims)-1, vs) {
						full += v * vs[len(dims)-1][i]
					}
					if got := c.full(xs, vs); math.Abs(got-full) > 1e-9*math.Abs(full)+1e-9 {
						t.Fatalf("%v %v sample %d: full = %v, want %v", dims, elemName(b), s, got, full)
					}
				}
				if len(dims) < 3 {
					continue
				}
				// The cache path: Z = X x_1 u^(1) of all samples, then the
				// modes n >= 1 from Z, as Pass.modeRows does.
				zs := cacheRow(dims)
				z := make([]float64, cnt*zs)
				for s := range cnt {
					axpyRows(z[s*zs:(s+1)*zs], b.slice(s*size, (s+1)*size), dims[0], zs, vs[0])
				}
				wa, wb := make([]float64, cnt*zs), make([]float64, cnt*zs)
				for n := 1; n < len(dims); n++ {
					got := make([]float64, cnt*dims[n])
					c.finishCache(got, z, cnt, n, vs, wa, wb)
					for s := range cnt {
						want := make([]float64, dims[n])
						c.partial(want, b.slice(s*size, (s+1)*size), n, vs)
						for i, w := range want {
							if g := got[s*dims[n]+i]; g != w {
								t.Fatalf("%v %v sample %d mode %d: from the cache %v, partial %v", dims, elemName(b), s, n, g, w)
							}
						}
					}
				}
			}
		}
	}
}
