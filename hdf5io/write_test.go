package hdf5io

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/hdf5"

	"github.com/sompca/sompca/solver"
)

// readFloat64 reads a whole float64 dataset of rank 2 through Source.
func readFloat64(t *testing.T, path, dataset string) []float64 {
	t.Helper()
	src, err := Open(path, dataset, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	b, err := src.Read(0, src.Len())
	if err != nil {
		t.Fatal(err)
	}
	return append([]float64(nil), b.F64...)
}

func TestWriteFeatures(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "features.h5")
	f1 := []float64{1, 2, 3, 4, 5, 6}
	f2 := []float64{-1, -2, -3}

	if err := WriteFeatures(path, "/run1/features", f1, 3, 2, false); err != nil {
		t.Fatal(err)
	}
	// A second dataset in the same file keeps the first.
	if err := WriteFeatures(path, "run2", f2, 3, 1, false); err != nil {
		t.Fatal(err)
	}
	if got := readFloat64(t, path, "/run1/features"); !reflect.DeepEqual(got, f1) {
		t.Errorf("run1 = %v, want %v", got, f1)
	}
	if got := readFloat64(t, path, "/run2"); !reflect.DeepEqual(got, f2) {
		t.Errorf("run2 = %v, want %v", got, f2)
	}

	before, _ := os.ReadFile(path)
	for _, c := range []struct {
		name, dataset string
		overwrite     bool
		kind          error
		says          string
	}{
		{"exists", "/run2", false, ErrExists, "overwrite"},
		{"group in the way", "/run1", true, ErrExists, "not a dataset"},
		{"dataset in the way", "/run2/x", true, ErrExists, "not a group"},
	} {
		err := WriteFeatures(path, c.dataset, f2, 3, 1, c.overwrite)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err = %v, want %v naming the file and saying %q", c.name, err, c.kind, c.says)
		}
	}
	if err := WriteFeatures(path, "/x", f2, 2, 2, false); !errors.Is(err, ErrShape) {
		t.Errorf("3 values as 2 x 2: err = %v, want ErrShape", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("failed writes changed the file")
	}

	// Overwrite replaces the dataset, even with another shape, and keeps
	// the rest.
	if err := WriteFeatures(path, "/run2", f1, 2, 3, true); err != nil {
		t.Fatal(err)
	}
	if got := readFloat64(t, path, "/run2"); !reflect.DeepEqual(got, f1) {
		t.Errorf("run2 after overwrite = %v, want %v", got, f1)
	}
	if got := readFloat64(t, path, "/run1/features"); !reflect.DeepEqual(got, f1) {
		t.Errorf("run1 after overwrite = %v, want %v", got, f1)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestWriteNeverClobbers checks that a file that is not HDF5 is never
// replaced by a write that would keep its contents.
func TestWriteNeverClobbers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.txt")
	os.WriteFile(path, []byte("precious"), 0o640)
	err := WriteFeatures(path, "/f", []float64{1}, 1, 1, true)
	if !errors.Is(err, ErrNotHDF5) || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want ErrNotHDF5 naming %s", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Error("the file was changed")
	}
	// A new file gets 0666 less the umask; a replaced one keeps its mode.
	h5 := filepath.Join(dir, "f.h5")
	if err := WriteFeatures(h5, "/f", []float64{1}, 1, 1, false); err != nil {
		t.Fatal(err)
	}
	os.Chmod(h5, 0o640)
	if err := WriteFeatures(h5, "/g", []float64{1}, 1, 1, false); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(h5); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after rewrite %v, want 0640", fi.Mode().Perm())
	}
}

// TestUpdateFailureKeepsFile fails an update after it has written into
// its copy: the file must be byte for byte as before, with no temporary
// file left.
func TestUpdateFailureKeepsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.h5")
	if err := WriteFeatures(path, "/a", []float64{1, 2}, 1, 2, false); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	boom := errors.New("boom")
	err := update(path, true, arrayBytes(24), func(f *hdf5.File) error {
		if err := withLock(func() error { return writeArray(f, "/b", []int{3}, []float64{1, 2, 3}, false) }); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a failed update changed the file")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestReserveBounds: the bytes reserved before a file is written (and
// checked against ulimit -f) bound the size of the file written, from a
// tiny model to a large one and for feature arrays; otherwise a write
// could still fail halfway, which libhdf5 cannot recover from.
func TestReserveBounds(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		method solver.Method
		shape  []int
		p      int
	}{
		{solver.SOMPCA, []int{2, 2}, 1},
		{solver.SOMPCA, []int{60, 50}, 40},
		{solver.UMPCA, []int{6, 4, 3}, 3},
		{solver.PCA, []int{30, 40}, 25},
		{solver.MPCA, []int{8, 7, 6}, 30},
	} {
		m := handModel(t, c.method, c.shape, c.p)
		path := filepath.Join(dir, "model.h5")
		if err := SaveModel(path, m); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() > modelBytes(m) {
			t.Errorf("%v %v P=%d: file of %d bytes, reserved %d (%v)", c.method, c.shape, c.p, fi.Size(), modelBytes(m), err)
		}
	}
	for _, mp := range [][2]int{{1, 1}, {1000, 3}, {20000, 40}} {
		path := filepath.Join(dir, "features.h5")
		os.Remove(path)
		if err := WriteFeatures(path, "/f", make([]float64, mp[0]*mp[1]), mp[0], mp[1], false); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() > arrayBytes(8*mp[0]*mp[1]) {
			t.Errorf("%d x %d features: file of %d bytes, reserved %d (%v)", mp[0], mp[1], fi.Size(), arrayBytes(8*mp[0]*mp[1]), err)
		}
	}
}
