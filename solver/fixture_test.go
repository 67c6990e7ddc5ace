package solver

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The expected values in this file come from solver/testdata/fixtures.json: reference
// fits of every method by an independent NumPy implementation of the
// paper (K = 20 sweeps, tol = 0, P = min(6, bound), nu = argmax_n I_n,
// uniform starts), converted to JSON by testdata/convert_fixtures.py.
// Their README asks for agreement to about 1e-10 relative; vectors and
// features are compared up to sign.

type fixArray struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

type fixFit map[string]json.RawMessage

func (f fixFit) array(t *testing.T, name string) *fixArray {
	t.Helper()
	raw, ok := f[name]
	if !ok {
		return nil
	}
	var a fixArray
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return &a
}

func (f fixFit) attrs(t *testing.T) map[string]any {
	var a map[string]any
	if err := json.Unmarshal(f["attrs"], &a); err != nil {
		t.Fatal(err)
	}
	return a
}

var (
	fixturesOnce sync.Once
	fixtures     map[string]map[string]fixFit
	fixturesErr  error
)

func loadFixtures(t *testing.T) map[string]map[string]fixFit {
	t.Helper()
	fixturesOnce.Do(func() {
		var b []byte
		b, fixturesErr = os.ReadFile("testdata/fixtures.json")
		if fixturesErr == nil {
			fixturesErr = json.Unmarshal(b, &fixtures)
		}
	})
	if fixturesErr != nil {
		t.Fatalf("reading fixtures: %v", fixturesErr)
	}
	return fixtures
}

// fixtureInput returns a case's input as a source.
func fixtureInput(t *testing.T, c map[string]fixFit) *SliceSource {
	var in fixArray
	if err := json.Unmarshal(c["input"]["shape"], &in.Shape); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(c["input"]["data"], &in.Data); err != nil {
		t.Fatal(err)
	}
	src, err := NewSliceSource(in.Data, in.Shape[0], in.Shape[1:])
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// closeTo reports whether got and want agree to tol relative to the
// largest magnitude in want.
func closeTo(got, want []float64, tol float64) (bool, float64) {
	if len(got) != len(want) {
		return false, math.Inf(1)
	}
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w))
	}
	if scale == 0 {
		scale = 1
	}
	worst := 0.0
	for i := range got {
		worst = math.Max(worst, math.Abs(got[i]-want[i])/scale)
	}
	return worst <= tol, worst
}

// columnsUpToSign compares the columns of got with those of the row-major
// want (rows x cols), each up to sign.
func columnsUpToSign(got *mat.Dense, want *fixArray, tol float64) error {
	r, c := got.Dims()
	if len(want.Shape) != 2 || want.Shape[0] != r || want.Shape[1] != c {
		return fmt.Errorf("shape %dx%d, want %v", r, c, want.Shape)
	}
	for j := range c {
		g := mat.Col(nil, j, got)
		w := make([]float64, r)
		for i := range r {
			w[i] = want.Data[i*c+j]
		}
		ok, d := closeTo(g, w, tol)
		if !ok {
			for i := range g {
				g[i] = -g[i]
			}
			ok2, d2 := closeTo(g, w, tol)
			if !ok2 {
				return fmt.Errorf("column %d differs by %.3g (up to sign: %.3g)", j, d, d2)
			}
		}
	}
	return nil
}

const fixtureTol = 1e-10

func TestFixtures(t *testing.T) {
	fx := loadFixtures(t)
	var cases []string
	for c := range fx {
		cases = append(cases, c)
	}
	sort.Strings(cases)
	for _, cname := range cases {
		c := fx[cname]
		var names []string
		for name := range c {
			if name != "input" {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			// Both passes of the TVP mode updates (Options.ModeUpdates):
			// rows (Model.Fit's default) and the folded scatter (FitWith's).
			for _, up := range []ModeUpdates{ModeUpdatesRows, ModeUpdatesScatter} {
				t.Run(cname+"/"+name+"/"+up.String(), func(t *testing.T) {
					checkFixture(t, c, c[name], name, up)
				})
			}
		}
	}
}

func checkFixture(t *testing.T, c map[string]fixFit, ref fixFit, name string, up ModeUpdates) {
	src := fixtureInput(t, c)
	attrs := ref.attrs(t)
	method, rs, err := ParseMethod(name)
	if err != nil {
		t.Fatal(err)
	}
	P := int(attrs["P"].(float64))
	opts := Options{Method: method, RelaxedStart: rs, Order: ByExtraction, ModeUpdates: up}
	if method != MPCA && method != CSA {
		opts.Components = P
	}
	var m Model
	if err := m.Fit(src, opts); err != nil {
		t.Fatal(err)
	}
	M := src.Len()
	// The fixtures count modes from 1, as the paper; sompca from 0.
	if nu := int(attrs["nu"].(float64)); method == SOMPCA && m.Mode != nu-1 {
		t.Errorf("mode = %d, want %d (the fixture's nu = %d, 1-based)", m.Mode, nu-1, nu)
	}
	if ok, d := closeTo(m.Mean, ref.array(t, "mean").Data, fixtureTol); !ok {
		t.Errorf("mean differs by %.3g", d)
	}
	if method == PCA {
		if err := columnsUpToSign(m.Projections[0], ref.array(t, "W"), fixtureTol); err != nil {
			t.Errorf("W: %v", err)
		}
	} else {
		for n, U := range m.Projections {
			want := ref.array(t, fmt.Sprintf("U%d", n+1))
			if method == MPCA || method == CSA {
				// The model expands the factor matrices to one column per
				// feature; compare the distinct factor columns.
				U = factorColumns(&m, n)
			}
			if err := columnsUpToSign(U, want, fixtureTol); err != nil {
				t.Errorf("U%d: %v", n+1, err)
			}
		}
	}
	scatter := make([]float64, len(m.Variance))
	for j, v := range m.Variance {
		scatter[j] = v * float64(M-1)
	}
	if ok, d := closeTo(scatter, ref.array(t, "variance").Data, fixtureTol); !ok {
		t.Errorf("variance differs by %.3g:\n got %v\nwant %v", d, scatter, ref.array(t, "variance").Data)
	}
	if h := ref.array(t, "objective_history"); h != nil {
		K := h.Shape[1]
		for p := range m.History {
			want := h.Data[p*K : (p+1)*K]
			got := m.History[p]
			if rs && p == 0 {
				want = want[:1] // the fixed EMP has no sweeps
			}
			if ok, d := closeTo(got, want, fixtureTol); !ok {
				t.Errorf("objective history of EMP %d differs by %.3g:\n got %v\nwant %v", p+1, d, got, want)
			}
		}
	}
	feats, err := m.TransformTo(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := columnsUpToSign(mat.NewDense(M, m.Components(), feats), featureColumns(t, ref, m.Extraction), fixtureTol); err != nil {
		t.Errorf("features: %v", err)
	}
	// The feature order: a second fit sorted by variance must list the
	// extraction indices in the fixture's order.
	opts.Order = ByVariance
	var sorted Model
	if err := sorted.Fit(src, opts); err != nil {
		t.Fatal(err)
	}
	wantOrder := ref.array(t, "order").Data
	for j, e := range sorted.Extraction {
		if float64(e) != wantOrder[j] {
			t.Errorf("feature order %v, want %v", sorted.Extraction, wantOrder)
			break
		}
	}
}

// featureColumns returns the fixture's training features for the given
// extraction indices (MPCA and CSA keep only the top features).
func featureColumns(t *testing.T, ref fixFit, ext []int) *fixArray {
	f := ref.array(t, "features")
	M, all := f.Shape[0], f.Shape[1]
	out := &fixArray{Shape: []int{M, len(ext)}}
	for i := range M {
		for _, e := range ext {
			out.Data = append(out.Data, f.Data[i*all+e])
		}
	}
	return out
}

// factorColumns returns MPCA/CSA's distinct mode-n factor columns, in
// order, from a model fitted with ByExtraction.
func factorColumns(m *Model, n int) *mat.Dense {
	stride := 1
	for _, r := range m.Ranks[n+1:] {
		stride *= r
	}
	out := mat.NewDense(m.Shape[n], m.Ranks[n], nil)
	for j := range m.Ranks[n] {
		out.SetCol(j, mat.Col(nil, j*stride, m.Projections[n]))
	}
	return out
}
