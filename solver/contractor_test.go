package solver

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sompca/sompca/solver/internal/kernel"
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

// termScale returns sum_e |x_e| prod_k |vs[k][i_k(e)]|, the sum of the
// magnitudes of the terms of x's full contraction with vs: a partial
// contraction's entries are sums of some of them, so rounding bounds of
// order len(x) eps termScale hold for every entry.
func termScale(x []float64, dims []int, vs [][]float64) float64 {
	scale := 0.0
	for e, v := range x {
		w := math.Abs(v)
		for k := range dims {
			w *= math.Abs(vs[k][e/prod(dims[k+1:])%dims[k]])
		}
		scale += w
	}
	return scale
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
						scale := termScale(x[s*size:(s+1)*size], dims, vs)
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
				c.mode0(z, b, cnt, vs[0])
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

// TestContractorLead: contractor.partialLead, the order of a TVP sweep
// that caches X x_k u^(k) (Pass.Lead), agrees with the term-by-term
// definition (naivePartial) to rounding for every lead mode k and free
// mode n != k, on integer values in every element type (the same bits in
// each: the first contraction follows sampleBytes) and on fractional
// float64 and float32 values; and the cache path (lead over a run of
// samples, kept, then finishLead over them) gives its result bit for bit.
// k = 0 is partial's own order for n >= 1.
func TestContractorLead(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 5))
	for _, dims := range [][]int{{4, 7, 3}, {3, 5, 2, 4}, {32, 22, 10}, {2, 3, 70, 33}} {
		size := prod(dims)
		const cnt = 5
		x, frac := make([]float64, cnt*size), make([]float64, cnt*size)
		for i := range x {
			x[i] = float64(rng.IntN(256))
			frac[i] = x[i] + rng.Float64()
		}
		u8, f32, frac32 := make([]uint8, len(x)), make([]float32, len(x)), make([]float32, len(x))
		for i, v := range x {
			u8[i], f32[i], frac32[i] = uint8(v), float32(v), float32(frac[i])
		}
		vs := make([][]float64, len(dims))
		for k, d := range dims {
			vs[k] = make([]float64, d)
			for i := range vs[k] {
				vs[k][i] = rng.NormFloat64()
			}
		}
		c := newContractor(dims)
		for _, b := range []struct {
			name   string
			vals   []float64
			blocks []Block
		}{
			{"integers", x, []Block{{F64: x}, {F32: f32}, {U8: u8}}},
			{"fractions", frac, []Block{{F64: frac}}},
			{"float32 fractions", nil, []Block{{F32: frac32}}},
		} {
			vals := b.vals
			if vals == nil {
				vals = make([]float64, len(frac32))
				for i, v := range frac32 {
					vals[i] = float64(v)
				}
			}
			for k := range dims {
				zs := size / dims[k]
				for n := range dims {
					if n == k {
						continue
					}
					var first []float64 // the first block's rows: the others must match
					for bi, blk := range b.blocks {
						got := make([]float64, cnt*dims[n])
						for s := range cnt {
							row := got[s*dims[n] : (s+1)*dims[n]]
							c.partialLead(row, blk.slice(s*size, (s+1)*size), n, k, vs)
							want := naivePartial(vals[s*size:(s+1)*size], dims, n, vs)
							scale := termScale(vals[s*size:(s+1)*size], dims, vs)
							for i := range want {
								// independent sums of size terms: rounding of
								// order size * eps * sum |terms|
								if d := math.Abs(row[i] - want[i]); d > float64(size)*0x1p-52*scale {
									t.Fatalf("%v %s %v lead %d mode %d sample %d: entry %d = %v, want %v", dims, b.name, elemName(blk), k, n, s, i, row[i], want[i])
								}
							}
						}
						if bi == 0 {
							first = got
						} else if !slices.Equal(got, first) {
							t.Fatalf("%v %s lead %d mode %d: %v gives other bits than %v", dims, b.name, k, n, elemName(blk), elemName(b.blocks[0]))
						}
						// The cache path, as Pass.modeRows makes it.
						z := make([]float64, cnt*zs)
						c.lead(z, blk, cnt, k, vs[k])
						wa, wb := make([]float64, cnt*zs), make([]float64, cnt*zs)
						fromCache := make([]float64, cnt*dims[n])
						c.finishLead(fromCache, z, cnt, k, n, vs, wa, wb)
						if !slices.Equal(fromCache, got) {
							t.Fatalf("%v %s %v lead %d mode %d: the cache path differs from partialLead", dims, b.name, elemName(blk), k, n)
						}
						if k == 0 {
							for s := range cnt {
								want := make([]float64, dims[n])
								c.partial(want, blk.slice(s*size, (s+1)*size), n, vs)
								if !slices.Equal(want, got[s*dims[n]:(s+1)*dims[n]]) {
									t.Fatalf("%v %s %v mode %d: lead 0 is not partial's order", dims, b.name, elemName(blk), n)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestSampleBytesRule: a sample whose values are all integers 0..255 is
// contracted as uint8 whatever its element type, so that partial and
// full give the same bits for it as float64, float32 and uint8; by the
// exact kernels, each entry of the first contraction being x . q rounded
// once (exactDot, big.Int: the order 2 contractions of mode 0's dotRows
// on rows of fixedDotMin or more and mode 1's axpyRows), but for dot
// products over shorter rows, which are the float64 kernel's for uint8;
// a float64 sample with one value that is no such
// integer (0.5, -0.0) is contracted by the float64 kernels; and vectors
// without a fixed point (a NaN) take the float64 kernels for every
// element type, the uint8 one for samples of uint8 values.
func TestSampleBytesRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 5))
	for _, dims := range [][]int{{9}, {70}, {6, 20}, {5, 70}, {4, 7, 3}, {3, 5, 2, 7}, {2, 70, 60}, {3, 5, 2, 4}} {
		size := prod(dims)
		x := make([]float64, size)
		for i := range x {
			x[i] = float64(rng.IntN(256))
		}
		x[0] = 255
		u8, f32 := make([]uint8, size), make([]float32, size)
		for i, v := range x {
			u8[i], f32[i] = uint8(v), float32(v)
		}
		vs := make([][]float64, len(dims))
		for k, d := range dims {
			vs[k] = fixedTestVec(rng, d)
		}
		c := newContractor(dims)
		bits := func(b Block, vs [][]float64) []uint64 {
			var out []uint64
			for n, d := range dims {
				got := make([]float64, d)
				c.partial(got, b, n, vs)
				for _, v := range got {
					out = append(out, math.Float64bits(v))
				}
			}
			return append(out, math.Float64bits(c.full(b, vs)))
		}
		want := bits(Block{U8: u8}, vs)
		for _, b := range []Block{{F64: x}, {F32: f32}} {
			if got := bits(b, vs); !slices.Equal(got, want) {
				t.Errorf("%v %v: contractions differ from uint8's", dims, elemName(b))
			}
		}
		if len(dims) == 2 {
			// Mode 0: row r dotted with vs[1]; mode 1: column j with vs[0].
			for n, d := range dims {
				var f kernel.FixedVec
				f.Set(vs[1-n])
				q := make([]*big.Int, dims[1-n])
				for i := range q {
					q[i] = big.NewInt(f.Q(i))
				}
				got := make([]float64, d)
				c.partial(got, Block{F64: x}, n, vs)
				line := make([]uint8, dims[1-n])
				if n == 0 && dims[1] < fixedDotMin {
					want := make([]float64, d)
					dotRows(want, Block{U8: u8}, d, dims[1], vs[1])
					if !slices.Equal(got, want) {
						t.Errorf("%v mode 0: %v, want the float64 kernel's for uint8 %v", dims, got, want)
					}
					continue
				}
				for i := range d {
					for j := range line {
						if n == 0 {
							line[j] = u8[i*dims[1]+j]
						} else {
							line[j] = u8[j*dims[1]+i]
						}
					}
					if w := exactDot(q, line, f.Scale()); got[i] != w {
						t.Errorf("%v mode %d entry %d: %v, want x . q rounded once %v", dims, n, i, got[i], w)
					}
				}
			}
		}
		// One value that is not an integer 0..255: the float64 kernels.
		for _, bad := range []float64{0.5, math.Copysign(0, -1)} {
			y := append([]float64(nil), x...)
			y[size-1] = bad
			if len(dims) == 1 {
				if got, want := c.full(Block{F64: y}, vs), dotBlock(Block{F64: y}, vs[0]); got != want {
					t.Errorf("%v with %v: full %v, want the float64 kernel's %v", dims, bad, got, want)
				}
				continue
			}
			if len(dims) > 2 && !c.byKron() {
				continue // the trailing mode first: finish's float64 steps follow
			}
			v := vs[1] // mode 0 of order 2 or by the Kronecker vector: one dotRows
			if len(dims) > 2 {
				v = slices.Clone(c.kronecker(vs))
			}
			got, want := make([]float64, dims[0]), make([]float64, dims[0])
			c.partial(got, Block{F64: y}, 0, vs)
			dotRows(want, Block{F64: y}, dims[0], size/dims[0], v)
			if !slices.Equal(got, want) {
				t.Errorf("%v with %v: mode 0 %v, want the float64 kernel's %v", dims, bad, got, want)
			}
		}
		// A NaN in the vectors: no fixed point, the float64 kernels on the
		// uint8 values whatever the type.
		nan := slices.Clone(vs)
		nan[len(dims)-1] = slices.Clone(vs[len(dims)-1])
		nan[len(dims)-1][0] = math.NaN()
		nan[0] = slices.Clone(vs[0])
		nan[0][0] = math.NaN()
		want = bits(Block{U8: u8}, nan)
		if got := bits(Block{F64: x}, nan); !slices.Equal(got, want) {
			t.Errorf("%v, NaN vectors: float64 contractions differ from uint8's", dims)
		}
	}
}

// fixedTestVec and exactDot as in internal/kernel's tests, for the
// contractions that call its exact kernels.

// fixedTestVec returns a vector of n entries in [-1, 1) whose magnitudes
// span 2^0 .. 2^-40, so that its fixed point rounds some entries.
func fixedTestVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = (2*rng.Float64() - 1) * math.Ldexp(1, -rng.IntN(41))
	}
	return v
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
