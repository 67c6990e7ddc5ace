package hdf5io_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/sompca/sompca/hdf5io"
	"github.com/sompca/sompca/solver"
)

// Fit a model to a dataset streamed from an HDF5 file, save it, and write
// the features of the same data to another file.
func Example() {
	dir, err := os.MkdirTemp("", "hdf5io-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// 40 samples of 3 x 4, as uint8 (read without expansion).
	x := make([]uint8, 40*3*4)
	for i := range x {
		x[i] = uint8((i * 37) % 251)
	}
	data := filepath.Join(dir, "faces.h5")
	if err := hdf5io.WriteArray(data, "/train/X", []int{40, 3, 4}, x, false); err != nil {
		log.Fatal(err)
	}

	src, err := hdf5io.Open(data, "/train/X", hdf5io.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	fmt.Println(src.Len(), src.Shape(), src.Elem())

	var model solver.Model
	if err := model.Fit(src, solver.Options{Method: solver.SOMPCA, RelaxedStart: true, Components: 2}); err != nil {
		log.Fatal(err)
	}
	modelPath := filepath.Join(dir, "model.h5")
	if err := hdf5io.SaveModel(modelPath, &model); err != nil {
		log.Fatal(err)
	}
	loaded, err := hdf5io.LoadModel(modelPath)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(loaded.Method, loaded.RelaxedStart, loaded.Components())

	features := filepath.Join(dir, "features.h5")
	if err := hdf5io.TransformFile(loaded, data, "/train/X", hdf5io.Options{}, features, "/features", false); err != nil {
		log.Fatal(err)
	}
	out, err := hdf5io.Open(features, "/features", hdf5io.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	fmt.Println(out.Len(), out.Shape())

	_, err = hdf5io.Open(data, "/train/Y", hdf5io.Options{})
	fmt.Println(err != nil)
	// Output:
	// 40 [3 4] uint8
	// so-mpca true 2
	// 40 [2]
	// true
}
