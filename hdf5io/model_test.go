package hdf5io

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/hdf5"

	"github.com/sompca/sompca/solver"
)

// handModel builds a consistent model by hand (Fit is not needed to test
// the file format). Its values are random bit patterns of finite floats,
// so a round trip that converts or rounds anything is caught.
func handModel(t testing.TB, method solver.Method, shape []int, p int) *solver.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, uint64(method)))
	bits := func() float64 {
		for {
			if v := math.Float64frombits(rng.Uint64()); !math.IsNaN(v) && !math.IsInf(v, 0) {
				return v
			}
		}
	}
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = bits()
		}
		return v
	}
	size := 1
	for _, d := range shape {
		size *= d
	}
	m := &solver.Model{
		Method: method, Shape: append([]int(nil), shape...), Samples: 1234,
		MaxIter: 20, Tol: 1e-300, Q: 0.97, Order: solver.ByExtraction,
		Mean: vec(size), Variance: vec(p), TotalVariance: bits(), Mode: -1,
	}
	if method == solver.PCA {
		m.Projections = []*mat.Dense{mat.NewDense(size, p, vec(size*p))}
	} else {
		for _, d := range shape {
			m.Projections = append(m.Projections, mat.NewDense(d, p, vec(d*p)))
		}
	}
	for j := range p {
		m.Extraction = append(m.Extraction, p-1-j)
		m.Iterations = append(m.Iterations, j*3)
	}
	switch {
	case method.IsTVP():
		m.RelaxedStart = true
		if method == solver.SOMPCA {
			m.Mode = len(shape) - 1
		}
		if method == solver.SOMPCA && p > len(shape) {
			// More features than modes: an all-modes model whose
			// features come from every mode, in no particular order.
			m.Mode = solver.AllModes
			// Feature 0 is the first EMP, which every mode's fit
			// shares (solver.AllModes).
			m.FeatureModes = append(m.FeatureModes, solver.AllModes)
			for j := 1; j < p; j++ {
				m.FeatureModes = append(m.FeatureModes, (j*7+1)%len(shape))
			}
		}
		for j := range p {
			m.History = append(m.History, vec(m.Iterations[j]+1))
		}
	case method == solver.MPCA || method == solver.CSA:
		m.Order = solver.ByVariance
		m.History = [][]float64{vec(7)}
		m.Ranks = []int{1, 2, 3}[:len(shape)]
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("hand-built model is invalid: %v", err)
	}
	return m
}

// TestModelFieldCount fails when solver.Model gains or loses an exported
// field, so that the file format is updated with it.
func TestModelFieldCount(t *testing.T) {
	typ, n := reflect.TypeOf(solver.Model{}), 0
	for i := range typ.NumField() {
		if typ.Field(i).IsExported() {
			n++
		}
	}
	if n != 18 {
		t.Fatalf("solver.Model has %d exported fields; the model file format (hdf5io/model.go) knows 18", n)
	}
}

func TestModelRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		method solver.Method
		shape  []int
		p      int
	}{
		{solver.SOMPCA, []int{5, 4, 3}, 3},
		{solver.SOMPCA, []int{5, 4, 3}, 5}, // all modes
		{solver.UMPCA, []int{6, 4}, 3},
		{solver.PCA, []int{3, 4}, 6},
		{solver.MPCA, []int{3, 4, 2}, 6},
		{solver.CSA, []int{4, 4}, 2},
	} {
		t.Run(fmt.Sprintf("%v-%d", c.method, c.p), func(t *testing.T) {
			want := handModel(t, c.method, c.shape, c.p)
			path := filepath.Join(dir, fmt.Sprintf("%v-%d.h5", c.method, c.p))
			// Saved twice to the same path: the second save replaces
			// the file as a whole.
			for range 2 {
				if err := SaveModel(path, want); err != nil {
					t.Fatal(err)
				}
			}
			got, err := LoadModel(path)
			if err != nil {
				t.Fatal(err)
			}
			// Bit-exact: DeepEqual compares floats with ==, and the
			// random values contain no NaN.
			if !reflect.DeepEqual(got, want) {
				t.Errorf("model changed in the round trip:\n got %+v\nwant %+v", got, want)
			}
			leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left: %v", leftovers)
			}
		})
	}
}

// TestSaveModelRefusesDataFile checks that SaveModel does not replace a
// file that is not a model, such as the training data given by mistake.
func TestSaveModelRefusesDataFile(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.h5")
	if err := WriteArray(data, "/X", []int{2, 2}, []float64{1, 2, 3, 4}, false); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("notes"), 0o644)
	m := handModel(t, solver.PCA, []int{2}, 1)
	for _, path := range []string{data, text} {
		before, _ := os.ReadFile(path)
		err := SaveModel(path, m)
		if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), path) {
			t.Errorf("SaveModel over %s: err = %v, want ErrExists naming the file", path, err)
		}
		if after, _ := os.ReadFile(path); string(before) != string(after) {
			t.Errorf("SaveModel changed %s", path)
		}
	}
}

func TestSaveModelInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.h5")
	if err := SaveModel(path, &solver.Model{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("saving an unfitted model: err = %v, want an error naming the file", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed save created %s", path)
	}
}

// TestSaveModelKeepsOldFile checks that a save that fails leaves the
// previous file byte for byte.
func TestSaveModelKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.h5")
	good := handModel(t, solver.SOMPCA, []int{3, 3}, 2)
	if err := SaveModel(path, good); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := handModel(t, solver.SOMPCA, []int{3, 3}, 2)
	bad.Order = solver.FeatureOrder(7) // passes Validate, fails in writeModel
	if err := SaveModel(path, bad); err == nil {
		t.Fatal("saving a model with an unknown feature order succeeded")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("a failed save changed the previous file")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// writeRaw writes a file through the package's internals, for the
// malformed model files of the error tests.
func writeRaw(t *testing.T, path string, fn func(f *hdf5.File) error) {
	t.Helper()
	if err := update(path, false, arrayBytes(0), func(f *hdf5.File) error { return withLock(func() error { return fn(f) }) }); err != nil {
		t.Fatal(err)
	}
}

func TestLoadModelErrors(t *testing.T) {
	dir := t.TempDir()
	m := handModel(t, solver.SOMPCA, []int{3, 3}, 2)
	data := filepath.Join(dir, "data.h5")
	if err := WriteArray(data, "/X", []int{2, 2}, []float64{1, 2, 3, 4}, false); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.h5")
	writeRaw(t, other, func(f *hdf5.File) error { return writeStringAttr(hid(f), "format", "someone-else") })
	newer := filepath.Join(dir, "newer.h5")
	writeRaw(t, newer, func(f *hdf5.File) error { return writeModel(f, m, ModelFormatVersion+1) })
	noMean := filepath.Join(dir, "nomean.h5")
	writeRaw(t, noMean, func(f *hdf5.File) error {
		if err := writeModel(f, m, ModelFormatVersion); err != nil {
			return err
		}
		return deleteLink(f, "/mean")
	})
	text := filepath.Join(dir, "text.h5")
	os.WriteFile(text, []byte("not hdf5 at all"), 0o644)

	for _, c := range []struct {
		name, path string
		kind       error
		says       string
	}{
		{"missing file", filepath.Join(dir, "nope.h5"), ErrNotExist, "no such file"},
		{"not hdf5", text, ErrNotHDF5, "not an HDF5 file"},
		{"data file", data, ErrFormat, `no "format" attribute`},
		{"other format", other, ErrFormat, `"someone-else"`},
		{"newer version", newer, ErrFormat, "version 3 is newer"},
		{"missing mean", noMean, ErrNotExist, "/mean"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadModel(c.path)
			if !errors.Is(err, c.kind) {
				t.Fatalf("err = %v, want %v", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("err = %q: want it to name %s and say %q", err, c.path, c.says)
			}
		})
	}
}
