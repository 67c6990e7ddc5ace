package hdf5io

import (
	"path/filepath"
	"testing"

	"github.com/sompca/sompca/solver"
)

// TestFeatureProvenance checks the attributes TransformFile writes on a
// features dataset: each names what the test passed, and model_checksum
// is the checksum attribute that SaveModel wrote into the model file.
func TestFeatureProvenance(t *testing.T) {
	dir := t.TempDir()
	const m = 12
	x := make([]float64, m*4*3)
	for i := range x {
		x[i] = float64((i*37)%19) / 3
	}
	data := filepath.Join(dir, "data.h5")
	if err := WriteArray(data, "/X", []int{m, 4, 3}, x, false); err != nil {
		t.Fatal(err)
	}
	src, err := Open(data, "/X", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var model solver.Model
	err = model.Fit(src, solver.DefaultOptions(solver.SOMPCA))
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "model.h5")
	if err := SaveModel(modelPath, &model); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "features.h5")
	if err := TransformFile(&model, data, "/X", Options{ModelFile: modelPath}, out, "/Y", false); err != nil {
		t.Fatal(err)
	}
	read := func(path, dataset, name string) string {
		var v string
		err := withLock(func() error {
			f, err := openRead(path)
			if err != nil {
				return err
			}
			defer f.Close()
			if dataset == "/" {
				v, err = readStringAttr(hid(f), name)
				return err
			}
			d, err := openDataset(f, dataset)
			if err != nil {
				return err
			}
			defer d.Close()
			v, err = readStringAttr(hid(d), name)
			return err
		})
		if err != nil {
			t.Fatalf("%s %s attribute %s: %v", path, dataset, name, err)
		}
		return v
	}
	want := map[string]string{
		"sompca_version": Version, "method": "so-mpca-rs", "model_file": modelPath,
		"model_checksum": read(modelPath, "/", "checksum"),
		"source_file":    data, "source_dataset": "/X", "layout": "samples-first",
	}
	for name, w := range want {
		if got := read(out, "/Y", name); got != w {
			t.Errorf("attribute %s = %q, want %q", name, got, w)
		}
	}
}
