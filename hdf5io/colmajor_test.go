package hdf5io

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/hdf5"

	"github.com/sompca/sompca/solver"
)

// TestReversedModes checks the column-major index map: the author's
// element (i_0, ..., i_{N-1}) of shape I is stored at (i_{N-1}, ..., i_0)
// of the reversed shape.
func TestReversedModes(t *testing.T) {
	// Shape (2, 3), by hand: (i0, i1) -> stored offset i1*2 + i0.
	if got, want := reversedModes([]int{2, 3}), []int{0, 2, 4, 1, 3, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("reversedModes(2, 3) = %v, want %v", got, want)
	}
	// Shape (2, 3, 4): the stored shape is (4, 3, 2), C order.
	perm := reversedModes([]int{2, 3, 4})
	for i0 := range 2 {
		for i1 := range 3 {
			for i2 := range 4 {
				if got, want := perm[(i0*3+i1)*4+i2], (i2*3+i1)*2+i0; got != want {
					t.Fatalf("element (%d, %d, %d) stored at %d, want %d", i0, i1, i2, got, want)
				}
			}
		}
	}
	if reversedModes([]int{5}) != nil {
		t.Error("one mode needs no permutation")
	}
}

// TestColumnMajorFit checks that a fit of column-major data equals the fit
// of the same samples in the author's order, bit for bit, and that the
// layout names parse.
func TestColumnMajorFit(t *testing.T) {
	const m = 23
	shape := []int{4, 3, 2} // the author's sample shape
	size := 24
	x := make([]float64, m*size) // sample-major, the author's C order
	for i := range x {
		x[i] = float64((i*7919)%101) / 7
	}
	stored := make([]float64, m*size) // what a column-major writer leaves: (m, 2, 3, 4) in HDF5
	perm := reversedModes(shape)
	for s := range m {
		for i, j := range perm {
			stored[s*size+j] = x[s*size+i]
		}
	}
	path := filepath.Join(t.TempDir(), "colmajor.h5")
	if err := WriteArray(path, "/X", []int{m, 2, 3, 4}, stored, false); err != nil {
		t.Fatal(err)
	}
	layout, err := ParseLayout("Column_Major")
	if err != nil || layout != ColumnMajor || layout.String() != "column-major" {
		t.Fatalf("ParseLayout = %v, %v", layout, err)
	}
	if _, err := ParseLayout("fortran"); err == nil || !strings.Contains(err.Error(), "samples-first, samples-last or column-major") {
		t.Errorf("ParseLayout(fortran): err = %v", err)
	}
	src, err := Open(path, "/X", Options{Layout: ColumnMajor, ChunkBytes: 5 * 24 * 8})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if !reflect.DeepEqual(src.Shape(), shape) || src.Layout() != ColumnMajor {
		t.Fatalf("%v: want shape %v", src, shape)
	}
	var got, want solver.Model
	if err := got.Fit(src, solver.DefaultOptions(solver.SOMPCA)); err != nil {
		t.Fatal(err)
	}
	mem, _ := solver.NewSliceSource(x, m, shape)
	if err := want.Fit(mem, solver.DefaultOptions(solver.SOMPCA)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("column-major fit differs from the fit in the author's order")
	}
}

// TestColumnMajorWarning checks that a dataset with MATLAB's MATLAB_class
// attribute warns when not read as ColumnMajor, and only then.
func TestColumnMajorWarning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "matlab.h5")
	if err := WriteArray(path, "/X", []int{5, 3, 2}, make([]float64, 30), false); err != nil {
		t.Fatal(err)
	}
	if err := WriteArray(path, "/plain", []int{5, 3, 2}, make([]float64, 30), false); err != nil {
		t.Fatal(err)
	}
	err := update(path, true, arrayBytes(1<<20), func(f *hdf5.File) error {
		return withLock(func() error {
			d, err := openDataset(f, "/X")
			if err != nil {
				return err
			}
			defer d.Close()
			return writeStringAttr(hid(d), "MATLAB_class", "double")
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dataset string
		layout  Layout
		warns   bool
	}{{"/X", SamplesFirst, true}, {"/X", SamplesLast, true}, {"/X", ColumnMajor, false}, {"/plain", SamplesFirst, false}} {
		var warnings []string
		src, err := Open(path, c.dataset, Options{Layout: c.layout, Warn: func(m string) { warnings = append(warnings, m) }})
		if err != nil {
			t.Fatal(err)
		}
		src.Close()
		if len(warnings) != map[bool]int{true: 1, false: 0}[c.warns] {
			t.Errorf("%s read as %v: warnings %q", c.dataset, c.layout, warnings)
			continue
		}
		if c.warns && !(strings.Contains(warnings[0], `layout "column-major"`) && strings.Contains(warnings[0], "MATLAB_class") && strings.Contains(warnings[0], path)) {
			t.Errorf("warning %q does not name the file, MATLAB_class and layout \"column-major\"", warnings[0])
		}
	}
}
