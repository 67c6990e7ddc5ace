package hdf5io

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sompca/sompca/solver"
)

// TestMarshalModelIsTheFile checks that MarshalModel gives the bytes of
// the file SaveModel writes (so its checksum attribute holds) for every
// kind of model, and that both read back to the model.
func TestMarshalModelIsTheFile(t *testing.T) {
	dir := t.TempDir()
	methods := []solver.Method{solver.SOMPCA, solver.PCA, solver.MPCA}
	models, marshalled := map[solver.Method]*solver.Model{}, map[solver.Method][]byte{}
	for _, method := range methods {
		m := handModel(t, method, []int{3, 4, 2}, 5)
		b, err := MarshalModel(m)
		if err != nil {
			t.Fatalf("%v: MarshalModel: %v", method, err)
		}
		models[method], marshalled[method] = m, b
	}
	// A second later: model files carry no time stamps.
	time.Sleep(1100 * time.Millisecond)
	for _, method := range methods {
		m, b := models[method], marshalled[method]
		path := filepath.Join(dir, method.String()+".h5")
		if err := SaveModel(path, m); err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, file) {
			t.Errorf("%v: MarshalModel gives %d bytes, SaveModel's file has %d, and they differ", method, len(b), len(file))
		}
		for _, src := range [][]byte{b, file} {
			got, err := UnmarshalModel(src)
			if err != nil {
				t.Fatalf("%v: UnmarshalModel: %v", method, err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Errorf("%v: the model read back differs from the one marshalled", method)
			}
		}
	}
}

// TestUnmarshalModelCorrupt feeds UnmarshalModel truncations and bit
// flips of a model's bytes: each gives an error or, for a flip that HDF5
// and the checksum cannot see (free space, padding), the model itself;
// never a crash or a different model.
func TestUnmarshalModelCorrupt(t *testing.T) {
	m := handModel(t, solver.SOMPCA, []int{5, 4}, 3)
	b, err := MarshalModel(m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		var c []byte
		if i%3 == 0 {
			c = append([]byte(nil), b[:rng.IntN(len(b))]...)
		} else {
			c = append([]byte(nil), b...)
			for range 1 + rng.IntN(3) {
				c[rng.IntN(len(c))] ^= 1 << rng.IntN(8)
			}
		}
		got, err := UnmarshalModel(c)
		switch {
		case err == nil && !reflect.DeepEqual(got, m):
			t.Fatalf("case %d: corrupt bytes gave a different model", i)
		case err != nil && !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNotHDF5) || errors.Is(err, ErrFormat) || errors.Is(err, ErrNotExist) || errors.Is(err, ErrType) || errors.Is(err, ErrShape)):
			t.Fatalf("case %d: %v: not a file-content error", i, err)
		}
	}
	if _, err := UnmarshalModel(nil); !errors.Is(err, ErrNotHDF5) {
		t.Errorf("UnmarshalModel(nil): %v, want ErrNotHDF5", err)
	}
}
