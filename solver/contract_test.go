package solver

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// allCases is every method, with relaxed start where it applies.
var allCases = append(append([]methodCase{}, tvpCases...), methodCase{PCA, false}, methodCase{MPCA, false}, methodCase{CSA, false})

// TestSignRule pins the documented sign convention (eigen.FixSign) for
// every method: in every projection vector the entry of largest magnitude
// (the first such on ties) is positive. Checked by mutation: with eigen.FixSign
// flipping to "largest entry negative" this test fails for every method.
func TestSignRule(t *testing.T) {
	for _, shape := range [][]int{{7, 5}, {4, 6, 3}} {
		data := randomTensors(11, 30, shape)
		for _, c := range allCases {
			opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3}
			model, _ := fitOrFatal(t, data, 30, shape, opts)
			for n, u := range model.Projections {
				r, cols := u.Dims()
				for j := range cols {
					col := mat.Col(nil, j, u)
					bi := 0
					for i := 1; i < r; i++ {
						if math.Abs(col[i]) > math.Abs(col[bi]) {
							bi = i
						}
					}
					if !(col[bi] > 0) {
						t.Errorf("%v on %v: projection %d, feature %d: largest entry %d is %v, want > 0", c, shape, n, j, bi, col[bi])
					}
				}
			}
		}
	}
}

// TestUMPCARankDeficient fits UMPCA to samples spanning a 2-dimensional
// space, so that from the third feature on the earlier features G span
// all of the data and G'Y'YG is singular (the case orthonormalRange
// handles by narrowing the constraint). The fit must either be refused as
// bad data or give finite unit vectors whose later features capture no
// variance; never a panic, NaN or another kind of error.
func TestUMPCARankDeficient(t *testing.T) {
	shape := []int{4, 5}
	const m, size = 20, 20
	basis := randomTensors(3, 2, shape) // two fixed tensors
	x := make([]float64, m*size)
	for s := range m {
		a, b := math.Sin(float64(s)+0.3), math.Cos(2*float64(s))
		floats.AddScaled(x[s*size:(s+1)*size], a, basis[:size])
		floats.AddScaled(x[s*size:(s+1)*size], b, basis[size:])
	}
	for _, rs := range []bool{false, true} {
		src := must(NewSliceSource(x, m, shape))
		var model Model
		err := model.Fit(src, Options{Method: UMPCA, RelaxedStart: rs, Components: 4})
		if err != nil {
			if !errors.Is(err, ErrData) {
				t.Errorf("rs=%v: err = %v, want a fit or ErrData", rs, err)
			}
			continue
		}
		for n, u := range model.Projections {
			_, cols := u.Dims()
			for j := range cols {
				col := mat.Col(nil, j, u)
				if norm := floats.Norm(col, 2); !(math.Abs(norm-1) < 1e-12) {
					t.Errorf("rs=%v: mode %d vector of feature %d has norm %v, want 1", rs, n, j, norm)
				}
			}
		}
		// Two features can carry the data's two dimensions; in
		// extraction order the third and fourth are uncorrelated with
		// them and so capture nothing (up to rounding of the total).
		for j, v := range model.Variance {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("rs=%v: feature %d has variance %v", rs, j, v)
			}
			if model.Extraction[j] >= 2 && v > 1e-12*model.TotalVariance {
				t.Errorf("rs=%v: feature extracted %d-th captures %v of total %v, want ~0", rs, model.Extraction[j], v, model.TotalVariance)
			}
		}
	}
}

// failingSource fails every Read that reaches sample failAt.
type failingSource struct {
	*SliceSource
	failAt int
}

var errDisk = errors.New("disk on fire")

func (s *failingSource) Read(start, n int) (Block, error) {
	if start+n > s.failAt {
		return Block{}, errDisk
	}
	return s.SliceSource.Read(start, n)
}

func (s *failingSource) MaxRead() int { return 4 }

// TestSourceError: a read failing in the middle of a fit or a transform
// is ErrSource wrapping the source's own error, for every method, and
// names the samples being read.
func TestSourceError(t *testing.T) {
	shape := []int{4, 5}
	data := randomTensors(5, 24, shape)
	for _, c := range allCases {
		src := &failingSource{must(NewSliceSource(data, 24, shape)), 13}
		var model Model
		err := model.Fit(src, Options{Method: c.method, RelaxedStart: c.rs, Components: 2})
		if !errors.Is(err, ErrSource) || !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("%v: fit err = %v, want ErrSource wrapping the source's error", c, err)
		}
		if errors.Is(err, ErrData) || errors.Is(err, ErrNumerical) || model.Fitted() {
			t.Errorf("%v: fit err = %v (fitted %v): a read failure is neither bad data nor numerics, and leaves the model unfitted", c, err, model.Fitted())
		}
	}
	model, _ := fitOrFatal(t, data, 24, shape, Options{Method: SOMPCA})
	_, err := model.TransformTo(nil, &failingSource{must(NewSliceSource(data, 24, shape)), 9})
	if !errors.Is(err, ErrSource) || !errors.Is(err, errDisk) {
		t.Errorf("transform err = %v, want ErrSource wrapping the source's error", err)
	}
}

// TestSampleError: a NaN or Inf is a *SampleError carrying the sample's
// index, in a fit (the first bad sample) and in a transform.
func TestSampleError(t *testing.T) {
	shape := []int{4, 5}
	data := randomTensors(6, 24, shape)
	bad := append([]float64(nil), data...)
	bad[17*20+3] = math.Inf(-1)
	bad[21*20] = math.NaN()
	var se *SampleError
	for _, c := range allCases {
		var model Model
		err := model.Fit(must(NewSliceSource(bad, 24, shape)), Options{Method: c.method, RelaxedStart: c.rs, Components: 2})
		if !errors.As(err, &se) || se.Index != 17 || !errors.Is(err, ErrData) {
			t.Errorf("%v: fit err = %v, want a SampleError for sample 17", c, err)
		}
	}
	model, _ := fitOrFatal(t, data, 24, shape, Options{Method: UMPCA})
	_, err := model.TransformTo(nil, must(NewSliceSource(bad, 24, shape)))
	if !errors.As(err, &se) || se.Index != 17 || !strings.Contains(err.Error(), "sample 17 holds a NaN or Inf") {
		t.Errorf("transform err = %v, want a SampleError for sample 17", err)
	}
}

// TestOptionsTable checks solver.Options against the table of option
// values that every surface shares (tests/contracts/options.json; the C
// and Python surfaces are checked against it by
// bindings/python/tests/test_contracts.py): valid values fit, invalid
// ones are ErrInvalid.
func TestOptionsTable(t *testing.T) {
	raw, err := os.ReadFile("../tests/contracts/options.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []struct {
			Option string
			Value  any
			Valid  bool
		}
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Cases) < 10 {
		t.Fatalf("%d cases in the table", len(table.Cases))
	}
	shape := []int{4, 3}
	data := randomTensors(8, 12, shape)
	for _, c := range table.Cases {
		v := math.NaN()
		switch x := c.Value.(type) {
		case float64:
			v = x
		case string:
			v = map[string]float64{"inf": math.Inf(1), "-inf": math.Inf(-1), "nan": math.NaN()}[x]
		}
		opts := Options{Method: SOMPCA}
		switch c.Option {
		case "tol":
			opts.Tol = v
		case "q":
			opts.Method, opts.Q = MPCA, v
		case "max_iter":
			opts.MaxIter = int(v)
		case "n_components":
			opts.Components = int(v)
		case "threads":
			opts.Threads = int(v)
		default:
			t.Fatalf("unknown option %q in the table", c.Option)
		}
		var model Model
		err := model.Fit(must(NewSliceSource(data, 12, shape)), opts)
		if c.Valid && err != nil || !c.Valid && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s = %v: err = %v, want valid = %v", c.Option, c.Value, err, c.Valid)
		}
	}
}
