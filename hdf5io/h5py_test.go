package hdf5io

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver"
)

// h5pyPython returns the Python named by SOMPCA_PYTHON (the Makefile sets
// it to the project's venv) after checking that it imports h5py, or skips.
func h5pyPython(t *testing.T) string {
	t.Helper()
	py := os.Getenv("SOMPCA_PYTHON")
	if py == "" {
		t.Skip("SOMPCA_PYTHON is not set: run `make test-hdf5io`, or set it to a python with numpy and h5py, to run the h5py interoperability tests")
	}
	if out, err := exec.Command(py, "-c", "import h5py, numpy").CombinedOutput(); err != nil {
		t.Skipf("SOMPCA_PYTHON=%s cannot import h5py (run `make deps-python`): %v\n%s", py, err, out)
	}
	return py
}

// h5pyValue is value() of testdata/h5py_write.py.
func h5pyValue(typ string, i int) float64 {
	switch typ {
	case "float16", "float32", "float64", "longdouble":
		return float64(i)*0.25 - 3
	case "bool":
		if i%3 == 0 {
			return 1
		}
		return 0
	}
	v := (i * 7919) % 251
	if typ[0] != 'u' {
		v -= 125
	}
	return float64(v)
}

// TestReadH5py reads a file written by h5py: every real type h5py writes
// (float16 and bool included, exactly), every layout, big-endian, chunked
// and compressed.
func TestReadH5py(t *testing.T) {
	py := h5pyPython(t)
	path := filepath.Join(t.TempDir(), "h5py.h5")
	if out, err := exec.Command(py, "testdata/h5py_write.py", path).CombinedOutput(); err != nil {
		t.Fatalf("h5py_write.py: %v\n%s", err, out)
	}
	const m, size = 13, 12
	types := []string{"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64",
		"float16", "longdouble", "bool"}
	type read struct {
		dataset string
		opts    Options
		typ     string
	}
	var reads []read
	for _, typ := range types {
		reads = append(reads, read{"/first/" + typ, Options{ChunkBytes: 5 * size}, typ},
			read{"/last/" + typ, Options{Layout: SamplesLast, ChunkBytes: 1}, typ},
			read{"/colmajor/" + typ, Options{Layout: ColumnMajor, ChunkBytes: 5 * size}, typ},
			read{"/colmajor/" + typ, Options{Layout: ColumnMajor, InMemory: true}, typ})
		if typ != "int8" && typ != "uint8" && typ != "bool" && typ != "longdouble" {
			reads = append(reads, read{"/big/" + typ, Options{}, typ})
		}
	}
	reads = append(reads, read{"/chunked", Options{ChunkBytes: 4 * size * 4}, "float32"})
	for _, r := range reads {
		t.Run(r.dataset, func(t *testing.T) {
			src, err := Open(path, r.dataset, r.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if src.Len() != m || !reflect.DeepEqual(src.Shape(), []int{4, 3}) || src.FileType() != r.typ {
				t.Fatalf("%v", src)
			}
			b, err := src.Read(0, m)
			if err != nil {
				t.Fatal(err)
			}
			got := blockValues(t, b, src.Elem())
			for i, v := range got {
				if want := h5pyValue(r.typ, i); v != want {
					t.Fatalf("element %d = %v, want %v", i, v, want)
				}
			}
		})
	}
}

// modelJSON is what testdata/h5py_read_model.py prints.
type modelJSON struct {
	Format         string        `json:"format"`
	FormatVersion  int           `json:"format_version"`
	LibraryVersion string        `json:"library_version"`
	Method         string        `json:"method"`
	FeatureOrder   string        `json:"feature_order"`
	RelaxedStart   int           `json:"relaxed_start"`
	Mode           int           `json:"mode"`
	MaxIter        int           `json:"max_iter"`
	Samples        int           `json:"n_samples"`
	Features       int           `json:"n_features"`
	Tol            float64       `json:"tol"`
	Q              float64       `json:"q"`
	TotalVariance  float64       `json:"total_variance"`
	Shape          []int         `json:"shape"`
	Mean           []float64     `json:"mean"`
	Projections    [][][]float64 `json:"projections"`
	Variance       []float64     `json:"variance"`
	Extraction     []int         `json:"extraction"`
	Iterations     []int         `json:"iterations"`
	History        [][]float64   `json:"history"`
	Ranks          []int         `json:"ranks"`
	FeatureModes   []int         `json:"feature_modes"`
	Output         [][]float64   `json:"features"`
}

// TestH5pyReadsModel checks that h5py alone reads a model file written by
// SaveModel with the documented layout, and the features TransformFile
// writes; the values must be those of the model, exactly (JSON carries
// Python's repr of each float, which round-trips).
func TestH5pyReadsModel(t *testing.T) {
	py := h5pyPython(t)
	dir := t.TempDir()
	for _, c := range []struct {
		method solver.Method
		p      int
	}{{solver.SOMPCA, 3}, {solver.SOMPCA, 4}, {solver.PCA, 3}, {solver.MPCA, 3}} {
		method := c.method
		name := fmt.Sprintf("%v-%d", method, c.p) // so-mpca-4: all modes
		t.Run(name, func(t *testing.T) {
			m := handModel(t, method, []int{3, 4, 2}, c.p)
			tame(m)
			path := filepath.Join(dir, name+".h5")
			if err := SaveModel(path, m); err != nil {
				t.Fatal(err)
			}
			data := filepath.Join(dir, "data.h5")
			if err := WriteArray(data, "/X", []int{5, 3, 4, 2}, make([]float64, 5*24), true); err != nil {
				t.Fatal(err)
			}
			features := filepath.Join(dir, name+".features.h5")
			if err := TransformFile(m, data, "/X", Options{}, features, "/out/features", false); err != nil {
				t.Fatal(err)
			}
			want, err := m.TransformTo(nil, mustSlice(t, make([]float64, 5*24), 5, m.Shape))
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(py, "testdata/h5py_read_model.py", path, features, "/out/features").Output()
			if err != nil {
				t.Fatalf("h5py_read_model.py: %v\n%s", err, stderrOf(err))
			}
			var got modelJSON
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			order := map[solver.FeatureOrder]string{solver.ByVariance: "variance", solver.ByExtraction: "extraction"}[m.Order]
			check := func(name string, got, want any) {
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: h5py read %v, want %v", name, got, want)
				}
			}
			check("format", got.Format, "sompca-model")
			check("library_version", got.LibraryVersion, Version)
			check("method", got.Method, method.String())
			check("feature_order", got.FeatureOrder, order)
			check("relaxed_start", got.RelaxedStart == 1, m.RelaxedStart)
			check("mode, max_iter, n_samples, n_features", []int{got.Mode, got.MaxIter, got.Samples, got.Features}, []int{m.Mode, m.MaxIter, m.Samples, m.Components()})
			check("tol, q, total_variance", []float64{got.Tol, got.Q, got.TotalVariance}, []float64{m.Tol, m.Q, m.TotalVariance})
			check("shape", got.Shape, m.Shape)
			check("mean", got.Mean, m.Mean)
			for n, u := range m.Projections {
				check(fmt.Sprintf("projection %d", n), got.Projections[n], denseRows(u))
			}
			check("variance", got.Variance, m.Variance)
			check("extraction", got.Extraction, m.Extraction)
			check("iterations", got.Iterations, m.Iterations)
			check("history", got.History, m.History)
			check("ranks", got.Ranks, m.Ranks)
			check("feature_modes", got.FeatureModes, m.FeatureModes)
			var flat []float64
			for _, row := range got.Output {
				flat = append(flat, row...)
			}
			check("features", flat, want)
		})
	}
}

// tame replaces the random bit patterns of a hand-built model with values
// of ordinary size, so that its features are finite (JSON has no NaN).
func tame(m *solver.Model) {
	rng := rand.New(rand.NewPCG(5, 6))
	fill := func(v []float64) {
		for i := range v {
			v[i] = rng.NormFloat64()
		}
	}
	fill(m.Mean)
	fill(m.Variance)
	for _, u := range m.Projections {
		fill(u.RawMatrix().Data)
	}
	for _, h := range m.History {
		fill(h)
	}
	m.TotalVariance = rng.Float64()
}

func mustSlice(t *testing.T, x []float64, m int, shape []int) *solver.SliceSource {
	t.Helper()
	s, err := solver.NewSliceSource(x, m, shape)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func denseRows(u *mat.Dense) [][]float64 {
	r, _ := u.Dims()
	rows := make([][]float64, r)
	for i := range rows {
		rows[i] = mat.Row(nil, i, u)
	}
	return rows
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestLoadH5pyModel loads model files that h5py wrote from the documented
// layout alone, with other string and integer types than SaveModel uses,
// in both format versions: version 1 numbered modes from 1 (nu, U1 ..),
// version 2 from 0 (mode, U0 ..); both load to the same model.
func TestLoadH5pyModel(t *testing.T) {
	py := h5pyPython(t)
	for _, c := range []struct {
		version, method string
		mode            int // 0-based, as written by the script
	}{{"1", "mpca", -1}, {"2", "mpca", -1}, {"1", "so-mpca", 1}, {"2", "so-mpca", 1}} {
		t.Run("v"+c.version+"/"+c.method, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "external.h5")
			if out, err := exec.Command(py, "testdata/h5py_write_model.py", path, c.version, c.method).CombinedOutput(); err != nil {
				t.Fatalf("h5py_write_model.py: %v\n%s", err, out)
			}
			got, err := LoadModel(path)
			if err != nil {
				t.Fatal(err)
			}
			// The values written by h5py_write_model.py.
			want := &solver.Model{
				Method: solver.MPCA, Mode: c.mode, Shape: []int{3, 2}, Samples: 10, MaxIter: 7, Tol: 0.125, Q: 0.5,
				Order: solver.ByExtraction,
				Mean:  []float64{0, 0.25, 0.5, 0.75, 1, 1.25},
				Projections: []*mat.Dense{
					mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0, 0}),
					mat.NewDense(2, 2, []float64{0.5, -0.5, 0.5, 0.5}),
				},
				Variance: []float64{2, 1}, TotalVariance: 3.5,
				Extraction: []int{1, 0}, Iterations: []int{0, 0},
				History: [][]float64{{3, 2.5}}, Ranks: []int{2, 1},
			}
			if c.method == "so-mpca" {
				want.Method, want.Ranks = solver.SOMPCA, nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("loaded\n %+v\nwant\n %+v", got, want)
			}
		})
	}
}
