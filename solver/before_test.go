package solver

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// The solver was split into packages by concern (issue 33: kernels, eigen
// solvers and the goroutine team under internal/). The split moves code and
// must not change a single bit of any fit. testdata/before.json.gz holds the
// fits of the cases below made by the code before the split with each
// kernel variant (the AVX2 kernels, and the portable Go ones that the
// purego tag or a CPU without AVX2 and FMA selects; their sums round
// differently), written with
//
//	go test ./solver -run TestBeforeSplit -update-before
//	go test -tags purego ./solver -run TestBeforeSplit -update-before
//
// on the last commit before any of it. It was made by that code, not by the
// code under test, and must not be regenerated unless a change is meant to
// change the bits (then say so in the commit).

var updateBefore = flag.Bool("update-before", false, "rewrite testdata/before.json.gz from the current code (only before a restructuring)")

type beforeCase struct {
	Name    string
	M       int
	Shape   []int
	Elem    Elem
	Ints    bool // samples are integers 0..255 (else they carry fractions, so no narrowing to uint8)
	Method  Method
	RS      bool
	P       int
	Threads int
	Mode    *int
	Updates ModeUpdates
	Q       float64
}

// beforeCases: every method with and without relaxed start, orders 1 to 4,
// the three element types, 1 and 2 threads, AllModes fusion, both mode
// updates, and sizes that reach each eigen route of a fit: the dense
// solve (n <= 16), Krylov iterations on modes up to 32 (the gait-like
// 32 x 22 x 10 uint8 samples), the complement basis (n >= 64
// with many constraints), Krylov iterations with the projection, PCA's
// block Lanczos (P <= 6% of n) and partial and full dense eigensolvers.
var beforeCases = []beforeCase{
	{Name: "sompca/f64/1d", M: 50, Shape: []int{20}, Elem: Float64, Method: SOMPCA, P: 6, Threads: 1},
	{Name: "pca/u8/1d", M: 50, Shape: []int{20}, Elem: Uint8, Ints: true, Method: PCA, P: 5, Threads: 2},
	{Name: "sompca-rs/f32/2d", M: 120, Shape: []int{20, 16}, Elem: Float32, Method: SOMPCA, RS: true, P: 10, Threads: 1},
	{Name: "sompca-rs/f32/2d/t2", M: 120, Shape: []int{20, 16}, Elem: Float32, Method: SOMPCA, RS: true, P: 10, Threads: 2},
	{Name: "sompca/f64/3d/scatter", M: 150, Shape: []int{12, 10, 6}, Elem: Float64, Method: SOMPCA, P: 8, Threads: 2, Updates: ModeUpdatesScatter},
	{Name: "sompca/f64/3d/rows", M: 150, Shape: []int{12, 10, 6}, Elem: Float64, Method: SOMPCA, P: 8, Threads: 2, Updates: ModeUpdatesRows},
	{Name: "sompca-rs/u8/4d/mode2", M: 131, Shape: []int{5, 4, 6, 3}, Elem: Uint8, Ints: true, Method: SOMPCA, RS: true, P: 5, Threads: 2, Mode: OrthogonalMode(2)},
	{Name: "sompca-rs/u8/3d/allmodes", M: 100, Shape: []int{12, 10, 6}, Elem: Uint8, Ints: true, Method: SOMPCA, RS: true, P: 7, Threads: 2, Mode: OrthogonalMode(AllModes)},
	{Name: "sompca/f32/2d/allmodes", M: 80, Shape: []int{9, 7}, Elem: Float32, Method: SOMPCA, P: 0, Threads: 1, Mode: OrthogonalMode(AllModes)},
	{Name: "fompca/f64/2d", M: 90, Shape: []int{9, 7}, Elem: Float64, Method: FOMPCA, P: 7, Threads: 1},
	{Name: "fompca-rs/u8/3d", M: 100, Shape: []int{12, 10, 6}, Elem: Uint8, Ints: true, Method: FOMPCA, RS: true, P: 6, Threads: 2},
	{Name: "trod/f32/3d", M: 100, Shape: []int{12, 10, 6}, Elem: Float32, Method: TROD, P: 8, Threads: 2},
	{Name: "trod-rs/u8/2d", M: 90, Shape: []int{9, 7}, Elem: Uint8, Ints: true, Method: TROD, RS: true, P: 9, Threads: 1},
	{Name: "umpca/f64/3d", M: 100, Shape: []int{12, 10, 6}, Elem: Float64, Method: UMPCA, P: 5, Threads: 2},
	{Name: "umpca-rs/f32/2d", M: 90, Shape: []int{20, 16}, Elem: Float32, Method: UMPCA, RS: true, P: 5, Threads: 1},
	{Name: "pca/f64/3d", M: 100, Shape: []int{12, 10, 6}, Elem: Float64, Method: PCA, P: 8, Threads: 2},
	{Name: "mpca/u8/3d", M: 100, Shape: []int{12, 10, 6}, Elem: Uint8, Ints: true, Method: MPCA, Threads: 2, Q: 0.8},
	{Name: "mpca/f32/4d", M: 60, Shape: []int{5, 4, 6, 3}, Elem: Float32, Method: MPCA, Threads: 1, Q: 0.7},
	{Name: "csa/f64/2d", M: 90, Shape: []int{20, 16}, Elem: Float64, Method: CSA, Threads: 2, Q: 0.99},
	// gait-like: 64 samples of 32 x 22 x 10 uint8 (modes of 32 and 22,
	// many constrained updates).
	{Name: "gait/sompca-rs/u8/t1", M: 64, Shape: []int{32, 22, 10}, Elem: Uint8, Ints: true, Method: SOMPCA, RS: true, P: 32, Threads: 1},
	{Name: "gait/sompca-rs/u8/t2", M: 64, Shape: []int{32, 22, 10}, Elem: Uint8, Ints: true, Method: SOMPCA, RS: true, P: 32, Threads: 2},
	{Name: "gait/fompca/u8", M: 64, Shape: []int{32, 22, 10}, Elem: Uint8, Ints: true, Method: FOMPCA, P: 10, Threads: 2},
	{Name: "gait/umpca-rs/f64", M: 64, Shape: []int{32, 22, 10}, Elem: Float64, Method: UMPCA, RS: true, P: 6, Threads: 2},
	{Name: "gait/csa/u8", M: 64, Shape: []int{32, 22, 10}, Elem: Uint8, Ints: true, Method: CSA, Threads: 2, Q: 0.95},
	// PCA's eigen routes: block Lanczos on a 220 x 220 integer Gram matrix
	// (M < 400 dimensions) and a 216 x 216 scatter (M > 216 dimensions),
	// the partial (tridiagonal) and full dense solves on an 80 x 80 scatter
	// and a 70 x 70 Gram matrix.
	{Name: "pca-lanczos/u8", M: 220, Shape: []int{20, 20}, Elem: Uint8, Ints: true, Method: PCA, P: 3, Threads: 2},
	{Name: "pca-lanczos/f64", M: 240, Shape: []int{12, 18}, Elem: Float64, Method: PCA, P: 4, Threads: 1},
	{Name: "pca-partial/f32", M: 200, Shape: []int{8, 10}, Elem: Float32, Method: PCA, P: 10, Threads: 1},
	{Name: "pca-dense/u8", M: 200, Shape: []int{8, 10}, Elem: Uint8, Ints: true, Method: PCA, P: 30, Threads: 2},
	{Name: "pca-gram-dense/f64", M: 70, Shape: []int{12, 10}, Elem: Float64, Method: PCA, P: 30, Threads: 2},
	{Name: "pca-gram-partial/u8", M: 70, Shape: []int{12, 10}, Elem: Uint8, Ints: true, Method: PCA, P: 12, Threads: 1},
	// faces-like: modes of 72 reach the complement basis (c >= 0.45 n,
	// n >= 64) and Krylov iterations with the projection below it.
	{Name: "faces/sompca-rs/u8", M: 90, Shape: []int{72, 10}, Elem: Uint8, Ints: true, Method: SOMPCA, RS: true, P: 40, Threads: 2},
	{Name: "faces/sompca/f32/scatter", M: 90, Shape: []int{72, 10}, Elem: Float32, Method: SOMPCA, P: 40, Threads: 1, Updates: ModeUpdatesScatter},
	{Name: "faces/trod/f64", M: 90, Shape: []int{72, 10}, Elem: Float64, Method: TROD, P: 12, Threads: 2},
}

// beforeData returns the case's first k samples: a few rank-one patterns
// with random weights plus noise, in 0..255 (rounded when c.Ints).
func beforeData(c beforeCase, k int) Source {
	size := 1
	for _, d := range c.Shape {
		size *= d
	}
	s := uint64(len(c.Name))*0x9e3779b97f4a7c15 + uint64(c.M)
	next := func() float64 { // splitmix64, uniform in [0, 1)
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return float64((z^z>>31)>>11) / (1 << 53)
	}
	const rank = 4
	pat := make([]float64, rank*size)
	for r := range rank {
		vs := make([][]float64, len(c.Shape))
		for n, d := range c.Shape {
			vs[n] = make([]float64, d)
			for i := range vs[n] {
				vs[n][i] = next() - 0.3
			}
		}
		for i := range size {
			v, rest := 1.0, i
			for n := len(c.Shape) - 1; n >= 0; n-- {
				v *= vs[n][rest%c.Shape[n]]
				rest /= c.Shape[n]
			}
			pat[r*size+i] = v
		}
	}
	x := make([]float64, c.M*size)
	for m := range c.M {
		var w [rank]float64
		for r := range w {
			w[r] = (next() - 0.5) * 600 / float64(r+1)
		}
		for i := range size {
			v := 128 + 20*(next()-0.5)
			for r := range w {
				v += w[r] * pat[r*size+i]
			}
			v = min(255, max(0, v))
			if c.Ints {
				v = math.Round(v)
			}
			x[m*size+i] = v
		}
	}
	x = x[:k*size]
	switch c.Elem {
	case Uint8:
		u := make([]uint8, len(x))
		for i, v := range x {
			u[i] = uint8(v)
		}
		return must(NewSliceSource(u, k, c.Shape))
	case Float32:
		f := make([]float32, len(x))
		for i, v := range x {
			f[i] = float32(v)
		}
		return must(NewSliceSource(f, k, c.Shape))
	}
	return must(NewSliceSource(x, k, c.Shape))
}

// exactBits is a float64 slice stored as the 16 hex digits of each
// value's math.Float64bits, so that the file holds the values exactly.
type exactBits []float64

func (b exactBits) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, 16*len(b))
	for _, v := range b {
		out = fmt.Appendf(out, "%016x", math.Float64bits(v))
	}
	return json.Marshal(string(out))
}

func (b *exactBits) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	if len(s)%16 != 0 {
		return fmt.Errorf("exactBits: %d hex digits, not a multiple of 16", len(s))
	}
	raw, err := hex.DecodeString(s)
	if err != nil {
		return err
	}
	*b = make(exactBits, len(raw)/8)
	for i := range *b {
		var u uint64
		for _, c := range raw[8*i : 8*i+8] {
			u = u<<8 | uint64(c)
		}
		(*b)[i] = math.Float64frombits(u)
	}
	return nil
}

type beforeFit struct {
	Mode          int
	FeatureModes  []int
	Mean          exactBits
	Projections   []exactBits // row-major, one per matrix
	Variance      exactBits
	TotalVariance exactBits
	Extraction    []int
	Iterations    []int
	History       []exactBits
	Ranks         []int
	Features      exactBits // the first beforeTransformed training samples' features (Model.TransformTo)
}

// beforeTransformed is the number of training samples whose features are
// kept.
const beforeTransformed = 8

func beforeOf(t *testing.T, m *Model, src Source) beforeFit {
	f := beforeFit{Mode: m.Mode, FeatureModes: m.FeatureModes, Mean: m.Mean, Variance: m.Variance,
		TotalVariance: exactBits{m.TotalVariance}, Extraction: m.Extraction, Iterations: m.Iterations, Ranks: m.Ranks}
	for _, U := range m.Projections {
		f.Projections = append(f.Projections, mat.DenseCopyOf(U).RawMatrix().Data)
	}
	for _, h := range m.History {
		f.History = append(f.History, h)
	}
	feats, err := m.TransformTo(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	f.Features = feats
	return f
}

// TestBeforeSplit: every case fits, bit for bit, as the code before the
// split did (math.Float64bits equality of every value of the model and of
// the training features).
func TestBeforeSplit(t *testing.T) {
	const path = "testdata/before.json.gz"
	got := map[string]beforeFit{}
	for _, c := range beforeCases {
		src := beforeData(c, c.M)
		var m Model
		opts := Options{Method: c.Method, RelaxedStart: c.RS, Components: c.P, Threads: c.Threads,
			Mode: c.Mode, ModeUpdates: c.Updates, Q: c.Q}
		if err := m.Fit(src, opts); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		got[c.Name] = beforeOf(t, &m, beforeData(c, beforeTransformed))
	}
	variant := "portable"
	if kernel.AVX2() {
		variant = "avx2"
	}
	all := map[string]map[string]beforeFit{}
	if b, err := os.ReadFile(path); err == nil {
		if err := readBefore(b, &all); err != nil {
			t.Fatal(err)
		}
	} else if !*updateBefore {
		t.Fatal(err)
	}
	if *updateBefore {
		all[variant] = got
		var buf bytes.Buffer
		z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err := json.NewEncoder(z).Encode(all); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s's %s fits (%d bytes)", path, variant, buf.Len())
		return
	}
	want, ok := all[variant]
	if !ok {
		t.Fatalf("%s holds no fits made with the %s kernels", path, variant)
	}
	for _, c := range beforeCases {
		g, w := got[c.Name], want[c.Name]
		if w.Mean == nil {
			t.Errorf("%s: no fit in %s", c.Name, path)
			continue
		}
		tol := beforeLoose[variant][c.Name]
		dev := 0.0 // the largest deviation relative to its array's scale
		same := func(what string, a, b []float64) {
			if len(a) != len(b) {
				t.Errorf("%s: %s has %d values, before %d", c.Name, what, len(a), len(b))
				return
			}
			if tol > 0 {
				scale := 0.0
				for _, x := range b {
					scale = max(scale, math.Abs(x))
				}
				for i := range a {
					d := math.Abs(a[i] - b[i])
					if !(d <= tol*scale) {
						t.Errorf("%s: %s[%d] = %v, before %v (scale %g)", c.Name, what, i, a[i], b[i], scale)
						return
					}
					if scale > 0 {
						dev = max(dev, d/scale)
					}
				}
				return
			}
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Errorf("%s: %s[%d] = %v (%016x), before %v (%016x)", c.Name, what, i,
						a[i], math.Float64bits(a[i]), b[i], math.Float64bits(b[i]))
					return
				}
			}
		}
		near := func(what string, a, b []float64, P int) {
			if len(a) != len(b) || P == 0 || len(a)%P != 0 {
				t.Errorf("%s: %s has %d values, before %d (%d a sample)", c.Name, what, len(a), len(b), P)
				return
			}
			for p := range P {
				scale := 0.0
				for i := p; i < len(b); i += P {
					scale = max(scale, math.Abs(b[i]))
				}
				for i := p; i < len(a); i += P {
					d := math.Abs(a[i] - b[i])
					if !(d <= max(1e-12, tol)*scale) {
						t.Errorf("%s: %s[%d] = %v, before %v (scale %g)", c.Name, what, i, a[i], b[i], scale)
						return
					}
					if tol > 0 && scale > 0 {
						dev = max(dev, d/scale)
					}
				}
			}
		}
		same("mean", g.Mean, w.Mean)
		same("variance", g.Variance, w.Variance)
		same("total variance", g.TotalVariance, w.TotalVariance)
		if g.Ranks == nil {
			// The transform of tensor-to-vector features contracts all
			// of them at once (multi.go), in another order than before:
			// within 1e-12 of each feature's scale (its largest |value|
			// over the samples), a bound far above the rounding of
			// either order (about 1e-15 of it).
			near("features", g.Features, w.Features, len(g.Variance))
		} else {
			same("features", g.Features, w.Features)
		}
		if len(g.Projections) != len(w.Projections) || len(g.History) != len(w.History) {
			t.Errorf("%s: %d projections, %d histories; before %d, %d", c.Name,
				len(g.Projections), len(g.History), len(w.Projections), len(w.History))
			continue
		}
		for n := range g.Projections {
			same(fmt.Sprintf("projection %d", n), g.Projections[n], w.Projections[n])
		}
		for j := range g.History {
			same(fmt.Sprintf("history %d", j), g.History[j], w.History[j])
		}
		if a, b := fmt.Sprint(g.Mode, g.FeatureModes, g.Extraction, g.Iterations, g.Ranks),
			fmt.Sprint(w.Mode, w.FeatureModes, w.Extraction, w.Iterations, w.Ranks); a != b {
			t.Errorf("%s: mode/feature modes/extraction/iterations/ranks %s, before %s", c.Name, a, b)
		}
		if tol > 0 {
			t.Logf("%s (%s): largest relative deviation %.2g", c.Name, variant, dev)
		}
	}
}

// beforeLoose: the cases, per kernel variant, whose fits moved when the
// eigen step's small dense and small complement routes, the AVX2
// symmetric product S v from the upper triangle and smallTop's AVX2
// rank-2 update were removed (issue 33's complexity budget): the general
// paths round differently, and the alternating updates of the later,
// weakly determined EMPs carry a one-ulp change of the eigen step to
// about 1e-11. Their mean, variances, projections, histories and
// features are compared within this relative tolerance (the fixtures'
// 1e-10) of each array's scale (its largest |value|; per feature for
// the features), instead of bit for bit. SO-MPCA-RS on the gait-like and
// faces-like samples moves further: their later EMPs are weakly
// determined, as the kernel variants show (the stored AVX2 and portable
// fits' features differ by up to 2.2e-5 of a feature's scale in the gait
// case, EMP 20 of 32 from 64 samples, and 2.7e-10 in the faces case),
// and the removal moves them by as much (1.0e-5 and 4.0e-10 at most), so
// those cases get 1e-4 and 1e-9. The largest deviations
// measured (go test -v -run TestBeforeSplit, with and without -tags
// purego) are logged by the test and recorded in bench/MEASUREMENTS.md;
// every other case stays bit-exact.
var beforeLoose = map[string]map[string]float64{
	"avx2":     looseCases(1e-10, "faces/sompca-rs/u8", "faces/sompca/f32/scatter", "faces/trod/f64", "fompca-rs/u8/3d", "fompca/f64/2d", "gait/fompca/u8", "gait/sompca-rs/u8/t1", "gait/sompca-rs/u8/t2", "gait/umpca-rs/f64", "sompca-rs/f32/2d", "sompca-rs/f32/2d/t2", "sompca-rs/u8/3d/allmodes", "sompca-rs/u8/4d/mode2", "sompca/f32/2d/allmodes", "sompca/f64/1d", "sompca/f64/3d/rows", "sompca/f64/3d/scatter", "trod-rs/u8/2d", "trod/f32/3d", "umpca-rs/f32/2d", "umpca/f64/3d"),
	"portable": looseCases(1e-10, "gait/fompca/u8", "gait/sompca-rs/u8/t1", "gait/sompca-rs/u8/t2", "sompca-rs/f32/2d", "sompca-rs/f32/2d/t2"),
}

func init() {
	for _, v := range beforeLoose {
		v["gait/sompca-rs/u8/t1"], v["gait/sompca-rs/u8/t2"] = 1e-4, 1e-4
		if _, ok := v["faces/sompca-rs/u8"]; ok {
			v["faces/sompca-rs/u8"] = 1e-9
		}
	}
}

func looseCases(tol float64, names ...string) map[string]float64 {
	m := map[string]float64{}
	for _, n := range names {
		m[n] = tol
	}
	return m
}

func readBefore(b []byte, all *map[string]map[string]beforeFit) error {
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return json.NewDecoder(z).Decode(all)
}
