package hdf5io

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// odd is the checked-in fixture of datasets hdf5io never writes, made by
// testdata/make_fixtures.py.
const odd = "testdata/odd.h5"

// TestOpenErrors checks that every kind of bad input gives an error of
// the right class whose text names the file and the dataset and says
// what is wrong.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.h5")
	if err := WriteArray(good, "/X", []int{40, 30, 20}, make([]float64, 40*30*20), false); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.h5")
	os.WriteFile(truncated, whole[:len(whole)/2], 0o644)
	headerOnly := filepath.Join(dir, "header.h5")
	os.WriteFile(headerOnly, whole[:12], 0o644)
	// Bytes 8 and on are the superblock: version numbers and addresses.
	corrupt := filepath.Join(dir, "corrupt.h5")
	bad := append([]byte(nil), whole...)
	for i := 8; i < 48; i++ {
		bad[i] = 0xff
	}
	os.WriteFile(corrupt, bad, 0o644)
	text := filepath.Join(dir, "text.h5")
	os.WriteFile(text, []byte("x,y\n1,2\n"), 0o644)

	for _, c := range []struct {
		name, path, dataset string
		kind                error
		says                string
	}{
		{"missing file", filepath.Join(dir, "missing.h5"), "/X", ErrNotExist, "no such file"},
		{"directory", dir, "/X", ErrNotHDF5, "directory"},
		{"not hdf5", text, "/X", ErrNotHDF5, "not an HDF5 file"},
		{"header only", headerOnly, "/X", ErrCorrupt, "superblock"},
		{"truncated", truncated, "/X", ErrCorrupt, "truncated"},
		{"corrupt superblock", corrupt, "/X", ErrCorrupt, "cannot open"},
		{"missing dataset", good, "/Y", ErrNotExist, `no object "/Y"`},
		{"missing group", good, "/a/b/X", ErrNotExist, `no object "/a"`},
		{"dataset as group", good, "/X/b", ErrNotExist, `"/X" is not a group`},
		{"root", good, "/", ErrType, "group"},
		{"group", odd, "/group", ErrType, "is a group, not a dataset"},
		{"named datatype", odd, "/named_type", ErrType, "named datatype"},
		{"dangling link", odd, "/dangling", ErrLink, "soft link to"},
		{"fixed strings", odd, "/strings", ErrType, "string, not real numbers"},
		{"vlen strings", odd, "/vlen_strings", ErrType, "string, not real numbers"},
		{"compound", odd, "/compound", ErrType, "compound, not real numbers"},
		{"complex", odd, "/complex", ErrType, "complex (h5py's compound {r, i}); sompca needs real numbers"},
		{"enum", odd, "/enum", ErrType, "enum"},
		{"opaque", odd, "/opaque", ErrType, "opaque"},
		{"scalar", odd, "/scalar", ErrShape, "rank 0"},
		{"rank 1", odd, "/vector", ErrShape, "rank 1 dataset of shape (5)"},
		{"zero samples", odd, "/no_samples", ErrShape, "zero samples"},
		{"empty mode", odd, "/empty_mode", ErrShape, "empty mode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, opts := range []Options{{}, {SamplesLast: true, InMemory: true}} {
				src, err := Open(c.path, c.dataset, opts)
				if err == nil {
					src.Close()
					t.Fatalf("Open(%q, %q) succeeded", c.path, c.dataset)
				}
				if !errors.Is(err, c.kind) {
					t.Errorf("err = %v, want class %q", err, c.kind)
				}
				msg := err.Error()
				if c.kind == ErrShape && opts.SamplesLast && c.dataset != "/vector" && c.dataset != "/scalar" {
					// (0, 3, 2) samples last has an empty mode, (4, 0) zero samples.
					continue
				}
				for _, part := range []string{`"` + c.path + `"`, `dataset "` + c.dataset + `"`, c.says} {
					if !strings.Contains(msg, part) {
						t.Errorf("err = %q does not contain %q", msg, part)
					}
				}
			}
		})
	}
}

// TestHDF5MessageCarried checks that HDF5's own message reaches the error
// (its automatic printing to stderr being off).
func TestHDF5MessageCarried(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.h5")
	if err := WriteArray(path, "/X", []int{50, 50}, make([]float64, 2500), false); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(path)
	os.WriteFile(path, whole[:len(whole)-100], 0o644)
	_, err := Open(path, "/X", Options{})
	// "H5Fopen" is the API function on top of HDF5's error stack; the
	// rest of the text is HDF5's.
	if err == nil || !strings.Contains(err.Error(), "H5Fopen") {
		t.Fatalf("err = %v, want HDF5's message (mentioning H5Fopen)", err)
	}
}

// TestBigEndian reads big-endian data, which HDF5 converts on read.
func TestBigEndian(t *testing.T) {
	src, err := Open(odd, "/big_endian", Options{ChunkBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	b, err := src.Read(0, 4)
	if err != nil {
		t.Fatal(err)
	}
	// make_fixtures.py writes arange(24) - 12.
	for i, v := range b.F64 {
		if v != float64(i-12) {
			t.Fatalf("element %d = %v, want %d", i, v, i-12)
		}
	}
	src2, err := Open(odd, "/big_endian_f64", Options{SamplesLast: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src2.Close()
	b, err = src2.Read(0, 6)
	if err != nil {
		t.Fatal(err)
	}
	// arange(24)/8 as (4, 6) with samples last: sample m is column m.
	for m := range 6 {
		for i := range 4 {
			if want := float64(i*6+m) / 8; b.F64[m*4+i] != want {
				t.Fatalf("sample %d element %d = %v, want %v", m, i, b.F64[m*4+i], want)
			}
		}
	}
}
