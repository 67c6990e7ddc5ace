package solver

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPassOffset: a mode pass that computes its own offset on the local
// engine (passOffset: the first member to start a piece contracts the
// mean while the others contract samples) gives the rows, and the
// scatter, of the pass handed the offset computed beforehand by the
// caller's contractor, bit for bit: over several reads, with 1 to 3
// threads, on samples of order 2 and 3 (mode 0 from the samples, mode 1
// filling the cache of X x_1 u^(1), mode 2 reading it), float64 and
// uint8.
func TestPassOffset(t *testing.T) {
	const M = 2*readUnit + 37
	rng := rand.New(rand.NewPCG(5, 9))
	for _, shape := range [][]int{{9, 7}, {5, 4, 3}} {
		size := prod(shape)
		data := randomTensors(17, M, shape)
		bytes := make([]uint8, len(data))
		for i := range bytes {
			bytes[i] = uint8(rng.IntN(256))
		}
		mean := make([]float64, size)
		for i := range mean {
			mean[i] = 3 + rng.Float64()
		}
		vs := make([][]float64, len(shape))
		for n, d := range shape {
			vs[n] = make([]float64, d)
			for i := range vs[n] {
				vs[n][i] = rng.NormFloat64()
			}
		}
		f64, err := NewSliceSource(data, M, shape)
		if err != nil {
			t.Fatal(err)
		}
		u8, err := NewSliceSource(bytes, M, shape)
		if err != nil {
			t.Fatal(err)
		}
		for name, src := range map[string]Source{"float64": f64, "uint8": u8} {
			for _, threads := range []int{1, 2, 3} {
				r := newRunner(src, size, threads)
				if len(shape) >= 3 {
					r.z = make([]float64, M*cacheRow(shape))
				}
				var lazy passOffset
				for n, In := range shape {
					for _, op := range []Op{OpModeRows, OpModeScatter} {
						p := Pass{Op: op, Shape: shape, Samples: M, Mode: n, Vectors: vs, Offset: make([]float64, In)}
						newContractor(shape).partial(p.Offset, Block{F64: mean}, n, vs)
						want := make([]float64, M*In)
						if op == OpModeScatter {
							want = make([]float64, p.PartialLen())
						}
						if err := r.runCached(&p, want); err != nil {
							t.Fatal(err)
						}
						q := Pass{Op: op, Shape: shape, Samples: M, Mode: n, Vectors: vs, Offset: make([]float64, In)}
						lazy.reset(mean)
						q.offset = &lazy
						got := make([]float64, len(want))
						if err := r.runCached(&q, got); err != nil {
							t.Fatal(err)
						}
						if op == OpModeScatter {
							// the result is the upper triangle
							got, want = upper(got, In), upper(want, In)
						}
						if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(q.Offset, p.Offset) {
							t.Errorf("%v %s, %d threads, mode %d, %v: the pass's own offset changes the result", shape, name, threads, n, op)
						}
					}
				}
				r.close()
			}
		}
	}
}

// upper returns the upper triangle of the n x n a, row by row.
func upper(a []float64, n int) []float64 {
	var u []float64
	for i := range n {
		u = append(u, a[i*n+i:(i+1)*n]...)
	}
	return u
}
