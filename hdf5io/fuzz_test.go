package hdf5io

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sompca/sompca/solver"
)

// kinds are the error kinds every hdf5io error wraps.
var kinds = []error{ErrNotExist, ErrNotHDF5, ErrCorrupt, ErrType, ErrShape, ErrFormat, ErrExists, ErrIO}

// checkKind fails unless err is an *Error wrapping one of kinds.
func checkKind(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want an *Error", err, err)
	}
	for _, k := range kinds {
		if errors.Is(err, k) {
			return
		}
	}
	t.Fatalf("err = %v wraps none of hdf5io's kinds", err)
}

// seeds returns the bytes of f (a file written by write) and corrupted
// variants of it: bit flips spread over the file, and truncations.
func seeds(f *testing.F, write func(path string) error) [][]byte {
	path := filepath.Join(f.TempDir(), "seed.h5")
	if err := write(path); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	out := [][]byte{b, b[:len(b)/2], b[:8], {}}
	for i := 1; i < 16; i++ {
		c := append([]byte(nil), b...)
		c[i*len(c)/16] ^= byte(1 << (i % 8))
		out = append(out, c)
	}
	return out
}

// FuzzLoadModel loads arbitrary bytes as a model file: never a crash,
// hang or panic; an error is an *Error of one of the kinds; a model that
// loads is valid. The seeds (a saved model and corrupted copies) run in
// `make test`; `make fuzz` explores from them.
func FuzzLoadModel(f *testing.F) {
	m := handModel(f, solver.SOMPCA, []int{3, 4}, 2)
	for _, b := range seeds(f, func(path string) error { return SaveModel(path, m) }) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "model.h5")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadModel(path)
		if err != nil {
			checkKind(t, err)
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("loaded an invalid model: %v", err)
		}
	})
}

// FuzzOpen opens arbitrary bytes as a data file and reads its samples
// through the Source: never a crash, hang or panic; errors carry a kind.
func FuzzOpen(f *testing.F) {
	x := make([]float64, 6*4*3)
	for i := range x {
		x[i] = float64(i%7) - 2.5
	}
	for _, b := range seeds(f, func(path string) error { return WriteArray(path, "/X", []int{6, 4, 3}, x, false) }) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "data.h5")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(path, "/X", Options{ChunkBytes: 96})
		if err != nil {
			checkKind(t, err)
			return
		}
		defer src.Close()
		for start := 0; start < src.Len(); start += src.MaxRead() {
			if _, err := src.Read(start, min(src.MaxRead(), src.Len()-start)); err != nil {
				return // a read error is the reader's to report; it must only not crash
			}
		}
	})
}
