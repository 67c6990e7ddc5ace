package hdf5io

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sompca/sompca/solver"
)

// savedModel saves a hand-built SO-MPCA model and returns it, its path
// and the file's bytes.
func savedModel(t *testing.T) (*solver.Model, string, []byte) {
	t.Helper()
	m := handModel(t, solver.SOMPCA, []int{3, 3}, 2)
	path := filepath.Join(t.TempDir(), "model.h5")
	if err := SaveModel(path, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m, path, b
}

// loadCorrupted writes b to a new file, loads it and checks that the
// error is ErrCorrupt and says each of says.
func loadCorrupted(t *testing.T, b []byte, says ...string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "corrupted.h5")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadModel(path)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("LoadModel of the corrupted file: err = %v, want ErrCorrupt", err)
	}
	for _, s := range append(says, path) {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err = %q, want it to say %q", err, s)
		}
	}
}

// TestSavedModelFormat checks what the checksums rest on: superblock
// version 2 or later (HDF5 1.8+ formats, with metadata checksums), and
// every dataset chunked with the Fletcher-32 filter, as h5py reports it.
func TestSavedModelFormat(t *testing.T) {
	_, path, b := savedModel(t)
	// The superblock follows the 8-byte signature; its first byte is the version.
	if !bytes.HasPrefix(b, []byte("\x89HDF\r\n\x1a\n")) || b[8] < 2 {
		t.Fatalf("superblock version %d, want >= 2 (metadata checksums)", b[8])
	}
	py := h5pyPython(t)
	script := `import sys, h5py
f = h5py.File(sys.argv[1], "r")
names = []
f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
bad = [n for n in names if not f[n].fletcher32]
print(len(names), bad)`
	out, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// mean, U1, U2, variance, extraction, iterations, history, history_lengths
	if got := strings.TrimSpace(string(out)); got != "8 []" {
		t.Errorf("h5py: %s datasets without Fletcher-32; want 8 []", got)
	}
}

// TestLoadModelChecksums corrupts a saved model where each checksum
// covers it and expects "checksum mismatch", never a different model.
func TestLoadModelChecksums(t *testing.T) {
	m, _, b := savedModel(t)
	t.Run("dataset chunk", func(t *testing.T) {
		// A bit of the mean's fourth value (Fletcher-32 of /mean's chunk).
		var v [8]byte
		binary.LittleEndian.PutUint64(v[:], math.Float64bits(m.Mean[3]))
		i := bytes.Index(b, v[:])
		if i < 0 {
			t.Fatal("the mean's value is not in the file")
		}
		c := bytes.Clone(b)
		c[i+2] ^= 0x10
		loadCorrupted(t, c, "checksum mismatch", "/mean")
	})
	t.Run("object header", func(t *testing.T) {
		// The n_samples attribute's value, 1234, in the root group's
		// object header (metadata checksum).
		var v [8]byte
		binary.LittleEndian.PutUint64(v[:], 1234)
		i := bytes.Index(b, v[:])
		if i < 0 {
			t.Fatal("n_samples is not in the file")
		}
		c := bytes.Clone(b)
		c[i] ^= 0x01
		loadCorrupted(t, c, "checksum mismatch")
	})
}

// TestLoadModelCorruptGlobalHeap corrupts the global heap collection
// that holds the model's strings. libhdf5 1.10 reads out of bounds (the
// first case, SIGSEGV) or loops for ever (the second) on such files;
// checkGlobalHeaps must refuse them first.
func TestLoadModelCorruptGlobalHeap(t *testing.T) {
	_, _, b := savedModel(t)
	off := bytes.Index(b, []byte("GCOL"))
	if off < 0 {
		t.Fatal("no global heap collection in the model file")
	}
	size := int(binary.LittleEndian.Uint64(b[off+8:]))
	// Walk the collection's objects (16-byte header, data padded to 8).
	var objects []int
	for p := 16; p+16 <= size; {
		objects = append(objects, off+p)
		idx, n := binary.LittleEndian.Uint16(b[off+p:]), int(binary.LittleEndian.Uint64(b[off+p+8:]))
		if idx == 0 {
			break
		}
		p += 16 + (n+7)&^7
	}
	free := objects[len(objects)-1]
	if binary.LittleEndian.Uint16(b[free:]) != 0 || len(objects) < 2 {
		t.Fatalf("collection of %d objects without free space at the end", len(objects))
	}
	t.Run("object size", func(t *testing.T) {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint64(c[objects[0]+8:], 1<<40)
		loadCorrupted(t, c, "global heap", "larger than the collection")
	})
	t.Run("free space size zero", func(t *testing.T) {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint64(c[free+8:], 0)
		loadCorrupted(t, c, "global heap", "does not fit")
	})
}

// TestLoadModelBadAttributes loads model files whose attributes or
// datasets h5py rewrote with types, shapes or layouts the format does not
// allow: each is ErrFormat (or ErrType, ErrCorrupt for datasets) naming
// the object, checked before its value is read.
func TestLoadModelBadAttributes(t *testing.T) {
	py := h5pyPython(t)
	_, path, _ := savedModel(t)
	dir := t.TempDir()
	if out, err := exec.Command(py, "testdata/h5py_corrupt_model.py", path, dir).CombinedOutput(); err != nil {
		t.Fatalf("h5py_corrupt_model.py: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name string
		kind error
		says string
	}{
		{"format-int", ErrFormat, `attribute "format" is integer, want a string`},
		{"method-long", ErrFormat, `attribute "method" is a 300-byte string`},
		{"method-array", ErrFormat, `attribute "method" holds 2 values`},
		{"nfeatures-float", ErrFormat, `attribute "n_features" is float, want an integer`},
		{"nfeatures-array", ErrFormat, `attribute "n_features" holds 2 values`},
		{"shape-2d", ErrFormat, `attribute "shape" has rank 2`},
		{"shape-long", ErrFormat, `attribute "shape" has rank 1 and 100 values`},
		{"nsamples-precision", ErrFormat, `attribute "n_samples" is an integer of 8 bytes in a non-standard bit layout (precision 40`},
		{"tol-fields", ErrFormat, `attribute "tol" is a float of 8 bytes in a non-standard bit layout`},
		// A valid HDF5 file whose tol is not the one the content checksum
		// was computed on, as a flip in an unchecksummed part would make it.
		{"tol-edited", ErrCorrupt, `checksum mismatch: the model read differs from the one written`},
		{"mean-unwritten", ErrCorrupt, `dataset "/mean": truncated or corrupt HDF5 file: the dataset's extent needs 72 bytes but the file stores 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".h5")
			_, err := LoadModel(p)
			if !errors.Is(err, c.kind) {
				t.Fatalf("err = %v, want %v", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %q, want it to name the file and say %q", err, c.says)
			}
		})
	}
}
