package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// TestNarrowBlock: each value narrows only to a type that holds it bit
// for bit (-0.0 is no uint8, NaN and infinities narrow to nothing), the
// copy holds the same values, and a copy larger than the room is refused.
func TestNarrowBlock(t *testing.T) {
	inf := math.Inf(1)
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		x    []float64
		want Elem // Float64: not narrowed
	}{
		{[]float64{0, 1, 254, 255, 7}, Uint8},
		{[]float64{0, 1, 256}, Float32},
		{[]float64{3, negZero}, Float32}, // -0.0 is a float32, not a uint8
		{[]float64{-1, 2}, Float32},
		{[]float64{0.5, 2}, Float32},
		{[]float64{1, 0x1p-149}, Float32},            // the smallest float32 subnormal
		{[]float64{1, 0.1}, Float64},                 // not a float32
		{[]float64{1, 1 + 0x1p-30}, Float64},         // 30 mantissa bits
		{[]float64{1, math.MaxFloat32 * 2}, Float64}, // beyond float32's range
		{[]float64{1, math.NaN()}, Float64},
		{[]float64{1, inf}, Float64},
		{[]float64{1, -inf}, Float64},
	} {
		got, ok := narrowBlock(Block{F64: c.x}, math.MaxInt64, true, nil)
		if !ok {
			if c.want != Float64 {
				t.Errorf("%v: not narrowed, want %v", c.x, c.want)
			}
			continue
		}
		if got.elem() != c.want {
			t.Errorf("%v: narrowed to %v, want %v", c.x, got.elem(), c.want)
			continue
		}
		for i, v := range c.x {
			if math.Float64bits(got.at(i)) != math.Float64bits(v) {
				t.Errorf("%v: element %d is %v in the copy", c.x, i, got.at(i))
			}
		}
	}
	// float32 samples narrow to uint8 only.
	if got, ok := narrowBlock(Block{F32: []float32{0, 9, 255}}, math.MaxInt64, true, nil); !ok || got.U8 == nil || got.U8[1] != 9 {
		t.Errorf("float32 0, 9, 255: %v %v, want uint8", got, ok)
	}
	for _, x := range [][]float32{{0, 9.5}, {float32(negZero)}, {300}, {float32(math.NaN())}} {
		if got, ok := narrowBlock(Block{F32: x}, math.MaxInt64, true, nil); ok {
			t.Errorf("float32 %v narrowed to %v", x, got.elem())
		}
	}
	// uint8 samples stay as they are.
	if _, ok := narrowBlock(Block{U8: []uint8{1, 2}}, math.MaxInt64, true, nil); ok {
		t.Error("uint8 samples narrowed")
	}
	// Without float32 (the Go kernels: narrowingExact), uint8 only.
	if b, ok := narrowBlock(Block{F64: []float64{0, 1, 255}}, math.MaxInt64, false, nil); !ok || b.U8 == nil {
		t.Error("0, 1, 255 not narrowed to uint8 without float32")
	}
	if b, ok := narrowBlock(Block{F64: []float64{0.5, 2}}, math.MaxInt64, false, nil); ok {
		t.Errorf("0.5, 2 narrowed to %v without float32", b.elem())
	}
	// Room: 1 byte per uint8 copy, 4 per float32.
	x := []float64{1, 2, 3, 4}
	if _, ok := narrowBlock(Block{F64: x}, 3, true, nil); ok {
		t.Error("a 4-byte uint8 copy made in 3 bytes of room")
	}
	if b, ok := narrowBlock(Block{F64: x}, 4, true, nil); !ok || b.U8 == nil {
		t.Error("no uint8 copy in 4 bytes of room")
	}
	if _, ok := narrowBlock(Block{F64: []float64{1, 2.5}}, 7, true, nil); ok {
		t.Error("an 8-byte float32 copy made in 7 bytes of room")
	}
	// Canceled: no copy.
	yes := func() bool { return true }
	if _, ok := narrowBlock(Block{F64: make([]float64, 1000)}, math.MaxInt64, true, yes); ok {
		t.Error("uint8 copy made although canceled")
	}
	if _, ok := narrowBlock(Block{F64: make([]float64, 1000)}, math.MaxInt64, true, func() bool { return false }); !ok {
		t.Error("no uint8 copy when not canceled")
	}
	if _, ok := narrowBlock(Block{F64: []float64{0.5, 1}}, math.MaxInt64, true, yes); ok {
		t.Error("float32 copy made although canceled")
	}
	// The first value that does not narrow may be anywhere.
	long := make([]float64, 1000)
	for i := range long {
		long[i] = float64(i % 256)
	}
	for _, at := range []int{0, 1, 255, 256, 257, 999} {
		y := append([]float64(nil), long...)
		y[at] = 0.25
		if i := notUint8(y); i != at {
			t.Errorf("notUint8 with 0.25 at %d: %d", at, i)
		}
		if i := toUint8(make([]uint8, len(y)), y); i != at {
			t.Errorf("toUint8 with 0.25 at %d: %d", at, i)
		}
		y[at] = 0.1
		if i := notFloat32(y); i != at {
			t.Errorf("notFloat32 with 0.1 at %d: %d", at, i)
		}
	}
}

// TestToUint8: the 2^52 test of toUint8 accepts exactly the values that
// convert to uint8 and back bit for bit (notUint8, the plain test), among
// special values, the integers around 0..255 and their neighbours, and
// random values, as float64 and as float32; and it copies them exactly.
func TestToUint8(t *testing.T) {
	vals := []float64{math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
		0x1p52, 0x1p52 + 1, 0x1p53, 0x1p-1074, -0x1p-1074, 0x1p-1022, 0.5, 255.5, 254.99999999999997}
	for k := -300; k <= 600; k++ {
		v := float64(k)
		vals = append(vals, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)), v+0.5)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for range 10000 {
		vals = append(vals, math.Float64frombits(rng.Uint64()), float64(rng.IntN(1<<20)-1000))
	}
	for _, v := range vals {
		var d [1]uint8
		ok := toUint8(d[:], []float64{v}) == 1
		if want := notUint8([]float64{v}) == 1; ok != want || ok && float64(d[0]) != v {
			t.Errorf("toUint8(%v) = %v (%d), want %v", v, ok, d[0], want)
		}
		f := float32(v)
		ok = toUint8(d[:], []float32{f}) == 1
		if want := notUint8([]float64{float64(f)}) == 1; ok != want || ok && float32(d[0]) != f {
			t.Errorf("toUint8(float32 %v) = %v (%d), want %v", f, ok, d[0], want)
		}
	}
}

// notUint8 returns the index of the first value of x that is not exactly
// a uint8 (an integer 0..255, and not -0.0), or len(x): a reference for
// toUint8 in the tests.
func notUint8(x []float64) int {
	for i, v := range x {
		// A value outside 0..255 converts to some uint8 (Go leaves which to
		// the implementation) that differs from it; NaN equals nothing;
		// -0.0 differs from 0 in its sign bit.
		if math.Float64bits(float64(uint8(v))) != math.Float64bits(v) {
			return i
		}
	}
	return len(x)
}

// TestKernelsSameBitsEveryElem: the assembly kernels compute the same
// FMA chains for uint8, float32 and float64 elements of equal values, bit
// for bit, at every row length and its tails (short rows in fours, pairs
// and ones; long rows by 16 and their groups of 4; axpyRows' masked last
// columns). This is what makes narrowing to float32 exact
// (narrowingExact); samples of uint8 values take the exact kernels
// whatever their type (TestSampleBytesRule).
func TestKernelsSameBitsEveryElem(t *testing.T) {
	if !kernel.AVX2() {
		t.Skip("no AVX2: narrowing to float32 is off without the assembly kernels")
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for rows := 1; rows <= 9; rows++ {
		for cols := 1; cols <= 70; cols++ {
			n := rows * cols
			u8, f32, f64 := make([]uint8, n), make([]float32, n), make([]float64, n)
			g32, g64 := make([]float32, n), make([]float64, n) // full float32 mantissas
			for i := range u8 {
				u8[i] = uint8(rng.IntN(256))
				f32[i], f64[i] = float32(u8[i]), float64(u8[i])
				g32[i] = float32(rng.NormFloat64())
				g64[i] = float64(g32[i])
			}
			vd, va := randVec(rng, cols), randVec(rng, rows)
			for _, set := range [][]Block{{{F64: f64}, {F32: f32}, {U8: u8}}, {{F64: g64}, {F32: g32}}} {
				want := kernelBits(set[0], rows, cols, vd, va)
				for _, b := range set[1:] {
					if got := kernelBits(b, rows, cols, vd, va); !reflect.DeepEqual(got, want) {
						t.Fatalf("%d x %d: %v kernels differ from float64's on the same values", rows, cols, b.elem())
					}
				}
			}
		}
	}
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// kernelBits returns the bits of dotRows and axpyRows on x.
func kernelBits(x Block, rows, cols int, vd, va []float64) []uint64 {
	d, a := make([]float64, rows), make([]float64, cols)
	dotRows(d, x, rows, cols, vd)
	axpyRows(a, x, rows, cols, va)
	var out []uint64
	for _, v := range append(d, a...) {
		out = append(out, math.Float64bits(v))
	}
	return out
}

// byteTensors returns randomTensors scaled and rounded to integers 0..255,
// as float64: samples with structure that narrow to uint8.
func byteTensors(seed uint64, m int, shape []int) []float64 {
	x := randomTensors(seed, m, shape)
	for i, v := range x {
		x[i] = math.Round(math.Max(0, math.Min(255, 128+25*(v-3))))
	}
	return x
}

// narrowedTo returns the element type a fit of src with opts reads.
func narrowedTo(t *testing.T, src Source, opts Options) Elem {
	t.Helper()
	f, err := newFitter(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.run.close()
	return f.scaled.Source.(interface{ Elem() Elem }).Elem()
}

// modelBits fails unless got and want are the same model bit for bit
// (reflect.DeepEqual takes -0.0 for 0: the float fields are compared by
// their bits too).
func sameModelBits(t *testing.T, got, want *Model, what string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: models differ", what)
		return
	}
	bits := func(m *Model) []uint64 {
		var out []uint64
		add := func(v []float64) {
			for _, x := range v {
				out = append(out, math.Float64bits(x))
			}
		}
		add(m.Mean)
		add(m.Variance)
		add([]float64{m.TotalVariance})
		for _, h := range m.History {
			add(h)
		}
		for _, U := range m.Projections {
			add(U.RawMatrix().Data)
		}
		return out
	}
	if !reflect.DeepEqual(bits(got), bits(want)) {
		t.Errorf("%s: models differ in the sign of a zero", what)
	}
}

// TestNarrowedFitIsFit: fits of float64 samples that are all uint8 values
// (or float32 values, or some samples of each), and of float32 samples
// that are uint8 values, read a narrower copy by default and give the
// model of the fit without narrowing bit for bit, for every method,
// thread count and mode update, on shapes whose contractions take every
// kernel path (order 1: no kernel; rows of 4..7 and of 18; the cache of
// partial contractions at order 3). Without the assembly kernels only
// the narrowing to uint8 is on (narrowingExact).
func TestNarrowedFitIsFit(t *testing.T) {
	const M = 150
	cases := append(tvpCases, methodCase{PCA, false}, methodCase{MPCA, false}, methodCase{CSA, false})
	for si, shape := range [][]int{{6, 5, 4}, {7, 18}, {11}} {
		u8 := byteTensors(uint64(20+si), M, shape)
		f32 := randomTensors(uint64(30+si), M, shape)
		for i, v := range f32 {
			f32[i] = float64(float32(v))
		}
		u8f32 := make([]float32, len(u8))
		for i, v := range u8 {
			u8f32[i] = float32(v)
		}
		// Every other sample of uint8 values, the rest float32 values:
		// narrowed to float32, whose samples of uint8 values take the
		// exact kernels as the float64 ones do without narrowing.
		size := prod(shape)
		mixed := append([]float64(nil), f32...)
		for i := 0; i < M; i += 2 {
			copy(mixed[i*size:(i+1)*size], u8[i*size:(i+1)*size])
		}
		var sources []struct {
			src  Source
			elem Elem
		}
		for _, s := range []struct {
			src  Source
			elem Elem
		}{
			{must(NewSliceSource(u8, M, shape)), Uint8},
			{must(NewSliceSource(f32, M, shape)), Float32},
			{must(NewSliceSource(u8f32, M, shape)), Uint8},
			{must(NewSliceSource(mixed, M, shape)), Float32},
		} {
			if narrowingExact(s.elem) { // float32: with the assembly kernels
				sources = append(sources, s)
			}
		}
		for _, c := range cases {
			if len(shape) == 1 && c.method == UMPCA {
				continue // UMPCA's bound min(I_1, M-1) leaves order 1 little to test
			}
			ups := []ModeUpdates{ModeUpdatesAuto}
			if c.method.spec().family == familyTVP {
				ups = []ModeUpdates{ModeUpdatesRows, ModeUpdatesScatter}
			}
			for _, s := range sources {
				for _, up := range ups {
					for _, threads := range []int{1, 2, 3} {
						opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3, MaxIter: 3, ModeUpdates: up, Threads: threads}
						what := fmt.Sprintf("%v %v (%v) %v threads %d", shape, c, s.elem, up, threads)
						if got := narrowedTo(t, s.src, opts); got != s.elem {
							t.Fatalf("%s: read as %v", what, got)
						}
						var on, off Model
						if err := on.Fit(s.src, opts); err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						opts.NoNarrowing = true
						if got := narrowedTo(t, s.src, opts); got == s.elem {
							t.Fatalf("%s: NoNarrowing read as %v", what, got)
						}
						if err := off.Fit(s.src, opts); err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						sameModelBits(t, &on, &off, what)
					}
				}
			}
		}
	}
}

// TestNarrowingMemory: the copy is made only when the memory limit holds
// it beside the workspaces (and the contraction cache that fits without
// it), and a fit without room for it is the same model.
func TestNarrowingMemory(t *testing.T) {
	const M = 200
	shape := []int{6, 5, 4}
	data := byteTensors(3, M, shape)
	src := must(NewSliceSource(data, M, shape))
	opts := Options{Method: SOMPCA, Components: 2, MaxIter: 3, Threads: 1}
	f := must(newFitter(src, Options{Method: SOMPCA, Components: 2, MaxIter: 3, Threads: 1, NoNarrowing: true}))
	f.run.close()
	work := f.workspaceBytes(1)
	cache := f.cacheBytes()
	copyBytes := int64(len(data))
	for _, c := range []struct {
		limit int64
		want  Elem
	}{
		{work + cache + copyBytes, Uint8},
		{work + cache + copyBytes - 1, Float64}, // the cache has priority
		{work + copyBytes, Uint8},               // no room for the cache: the copy takes what there is
		{work + copyBytes - 1, Float64},
	} {
		opts.MemoryLimit = c.limit
		if got := narrowedTo(t, src, opts); got != c.want {
			t.Errorf("limit = workspaces + %d bytes: read as %v, want %v", c.limit-work, got, c.want)
		}
	}
	opts.MemoryLimit = work + cache + copyBytes
	var on, off Model
	if err := on.Fit(src, opts); err != nil {
		t.Fatal(err)
	}
	opts.MemoryLimit = work + copyBytes - 1
	if err := off.Fit(src, opts); err != nil {
		t.Fatal(err)
	}
	sameModelBits(t, &on, &off, "memory")
}

// mixedSource hands out its float64 samples as uint8 in every other read:
// a distributed fit whose blocks are narrowed on some workers only.
type mixedSource struct {
	*SliceSource
	reads int
}

func (s *mixedSource) Read(start, n int) (Block, error) {
	b, err := s.SliceSource.Read(start, n)
	s.reads++
	if err != nil || s.reads%2 == 0 {
		return b, err
	}
	nb, ok := narrowBlock(b, math.MaxInt64, true, nil)
	if !ok || nb.U8 == nil {
		panic("mixedSource: samples that do not narrow to uint8")
	}
	return nb, nil
}

// TestSessionMixedBlocks: a session fed partials of blocks of which some
// were narrowed to uint8 and others not gives the model of a local fit
// without narrowing, bit for bit.
func TestSessionMixedBlocks(t *testing.T) {
	const M = 3*BlockMultiple + 17
	cases := append(tvpCases, methodCase{PCA, false}, methodCase{MPCA, false}, methodCase{CSA, false})
	shape := []int{4, 7, 3}
	data := byteTensors(6, M, shape)
	for _, c := range cases {
		for _, up := range []ModeUpdates{ModeUpdatesRows, ModeUpdatesScatter} {
			opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3, MaxIter: 3, ModeUpdates: up, NoNarrowing: true}
			want, src := fitOrFatal(t, data, M, shape, opts)
			got, _, err := sessionFit(t, &mixedSource{SliceSource: src}, opts, []int{BlockMultiple, 2 * BlockMultiple})
			if err != nil {
				t.Fatal(err)
			}
			sameModelBits(t, got, want, fmt.Sprintf("%v %v", c, up))
		}
	}
}

// BenchmarkNarrow: the check (and the copy) on samples of the faces size
// (721 x 80 x 60 float64, 27.7 MB): full mantissas (the check stops at the
// first value), uint8 values but for the last (the worst case: a whole
// pass for nothing), uint8 and float32 values (check and copy).
func BenchmarkNarrow(b *testing.B) {
	n := 721 * 80 * 60
	rng := rand.New(rand.NewPCG(1, 1))
	ints := make([]float64, n)
	for i := range ints {
		ints[i] = float64(rng.IntN(256))
	}
	frac, lastBad, f32 := make([]float64, n), append([]float64(nil), ints...), make([]float64, n)
	for i, v := range ints {
		frac[i] = v + 0.1*rng.Float64()
		f32[i] = v + 0.5
	}
	lastBad[n-1] = 0.1
	for _, c := range []struct {
		name string
		x    []float64
	}{{"full-mantissa", frac}, {"uint8-but-last", lastBad}, {"uint8", ints}, {"float32", f32}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for range b.N {
				narrowBlock(Block{F64: c.x}, math.MaxInt64, true, nil)
			}
		})
	}
}
