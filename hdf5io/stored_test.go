package hdf5io

import (
	"bufio"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sompca/sompca/solver"
)

// storedFiles runs testdata/h5py_stored.py into a temporary folder and
// returns it with the samples the script wrote (20 of 4 x 3).
func storedFiles(t *testing.T) (string, []float64) {
	t.Helper()
	py := h5pyPython(t)
	dir := t.TempDir()
	if out, err := exec.Command(py, "testdata/h5py_stored.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("h5py_stored.py: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "samples.bin"))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(raw)/8)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return dir, x
}

var storedShape = []int{4, 3}

const storedM = 20

// fitStored fits opts to the dataset of the file at path and to want in
// memory, and fails unless the models are the same bit for bit (a
// streamed fit folds its sums in the order of the in-memory one).
func fitStored(t *testing.T, path, dataset string, want []float64) {
	t.Helper()
	opts := solver.Options{Method: solver.SOMPCA, RelaxedStart: true, Components: 3, MaxIter: 3}
	mem := mustSlice(t, want, storedM, storedShape)
	var ref solver.Model
	if err := ref.Fit(mem, opts); err != nil {
		t.Fatal(err)
	}
	for _, in := range []Options{{ChunkBytes: 5 * 12 * 8}, {InMemory: true}} {
		src, err := Open(path, dataset, in)
		if err != nil {
			t.Fatal(err)
		}
		var got solver.Model
		err = got.Fit(src, opts)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&got, &ref) {
			t.Fatalf("%s:%s (%+v): the model differs from the fit of the samples in memory", path, dataset, in)
		}
	}
}

// TestStoredAsHDF5Writes fits datasets stored in each of the ways HDF5
// and h5py store them (virtual, partly or never written, compact,
// external) to the model of the samples they read as, and checks that
// what cannot be read fails with its cause named.
func TestStoredAsHDF5Writes(t *testing.T) {
	dir, x := storedFiles(t)
	data := filepath.Join(dir, "data.h5")
	// The unwritten samples 12..19 of /partial read h5py's fill value -1.
	partial := append([]float64(nil), x...)
	for i := 12 * 12; i < len(partial); i++ {
		partial[i] = -1
	}
	// libhdf5 1.10 finds a relative external file in the working
	// directory (unless HDF5_EXTFILE_PREFIX says otherwise).
	t.Chdir(dir)
	for _, c := range []struct {
		dataset string
		want    []float64
	}{
		{"vds", x}, {"vds_same", x}, {"contiguous", x}, {"compact", x}, {"external", x},
		{"partial", partial}, {"partial_gzip", partial},
	} {
		t.Run(c.dataset, func(t *testing.T) { fitStored(t, data, c.dataset, c.want) })
	}
	// Never written: the fill value 0 everywhere, which has no variance.
	for _, dataset := range []string{"never", "never_contig"} {
		t.Run(dataset, func(t *testing.T) {
			src, err := Open(data, dataset, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			b, err := src.Read(0, storedM)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range b.F64 {
				if v != 0 {
					t.Fatalf("a never-written dataset read %g, not its fill value 0", v)
				}
			}
			var m solver.Model
			if err := m.Fit(src, solver.Options{Method: solver.SOMPCA, Components: 1}); !errors.Is(err, solver.ErrData) {
				t.Fatalf("fit of all fill values: %v, want solver.ErrData (zero variance)", err)
			}
		})
	}
	for _, c := range []struct {
		dataset string
		kind    error
		says    []string
	}{
		{"vds_missing", ErrNotExist, []string{"gone.h5", "virtual dataset", "no such file"}},
		{"external_gone", ErrNotExist, []string{"ext_gone.bin", "external raw data file"}},
		{"lzf", ErrFilter, []string{`"lzf"`, "h5py", "HDF5_PLUGIN_PATH"}},
		{"dangling", ErrLink, []string{`"/dangling" is a soft link to "/nowhere"`}},
		{"extlink", ErrLink, []string{`external link to "/X" in file "gone.h5"`}},
	} {
		t.Run(c.dataset, func(t *testing.T) {
			src, err := Open(data, c.dataset, Options{})
			if err == nil {
				var m solver.Model
				err = m.Fit(src, solver.Options{Method: solver.PCA, Components: 1})
				src.Close()
			}
			if !errors.Is(err, c.kind) {
				t.Fatalf("got %v, want %v", err, c.kind)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "corrupt") {
				t.Errorf("%q calls a readable file corrupt", err)
			}
		})
	}
}

// TestLibverFormats reads the files h5py writes with each libver: read
// as the samples, or refused as a format this libhdf5 cannot read, naming
// the HDF5 version that wrote it (never a dangling link or corruption).
func TestLibverFormats(t *testing.T) {
	dir, x := storedFiles(t)
	files, _ := filepath.Glob(filepath.Join(dir, "libver_*.h5"))
	if len(files) < 5 {
		t.Fatalf("h5py wrote %d libver files: %v", len(files), files)
	}
	for _, path := range files {
		for _, dataset := range []string{"gzip", "contiguous", "vds"} {
			t.Run(filepath.Base(path)+dataset, func(t *testing.T) {
				src, err := Open(path, dataset, Options{})
				if err == nil {
					src.Close()
					fitStored(t, path, dataset, x)
					return
				}
				if !errors.Is(err, ErrVersion) {
					t.Fatalf("got %v, want ErrVersion", err)
				}
				for _, s := range []string{"cannot read", "or later", "h5py"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("%q does not say %q", err, s)
					}
				}
				if strings.Contains(err.Error(), "dangling") {
					t.Errorf("%q speaks of a dangling link", err)
				}
			})
		}
	}
}

// holdFile runs a child Python that opens the file at path as mode says
// (see testdata/h5py_writer.py) and keeps it open until the test ends.
func holdFile(t *testing.T, mode, path string) {
	t.Helper()
	py := h5pyPython(t)
	cmd := exec.Command(py, "testdata/h5py_writer.py", mode, path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the writer closes the file and exits at end of input
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("h5py_writer.py %s: %q, %v", mode, line, err)
	}
}

// TestLiveWriters reads files that a live h5py writer holds: in SWMR
// mode (the samples it wrote fit as in memory, though it keeps appending)
// and not (refused as locked, naming HDF5_USE_FILE_LOCKING and its risk).
func TestLiveWriters(t *testing.T) {
	dir := t.TempDir()
	x := writerSamples()
	opts := solver.Options{Method: solver.SOMPCA, RelaxedStart: true, Components: 3, MaxIter: 3}
	for _, mode := range []string{"swmr", "swmr-v110"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(dir, mode+".h5")
			holdFile(t, mode, path)
			for _, in := range []Options{{ChunkBytes: 5 * 12 * 8}, {InMemory: true}} {
				src, err := Open(path, "X", in)
				if err != nil {
					t.Fatal(err)
				}
				// The fit reads the samples there are when it starts:
				// the 20 written first, then those appended (zeros).
				m := src.Len()
				if m < storedM {
					t.Fatalf("%d samples, want at least %d", m, storedM)
				}
				want := append(x, make([]float64, (m-storedM)*12)...)
				var ref, got solver.Model
				if err := ref.Fit(mustSlice(t, want, m, storedShape), opts); err != nil {
					t.Fatal(err)
				}
				err = got.Fit(src, opts)
				src.Close()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(&got, &ref) {
					t.Fatalf("%+v: the model of the %d samples differs from their fit in memory", in, m)
				}
			}
		})
	}
	t.Run("lock", func(t *testing.T) {
		path := filepath.Join(dir, "held.h5")
		holdFile(t, "lock", path)
		_, err := Open(path, "X", Options{})
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("got %v, want ErrLocked", err)
		}
		for _, s := range []string{"another process", "HDF5_USE_FILE_LOCKING=FALSE", "may then read data the writer is changing"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%q does not say %q", err, s)
			}
		}
	})
}

// writerSamples are the samples testdata/h5py_writer.py writes first:
// element e of sample m is (m*12 + e) mod 7, minus 3 for odd m.
func writerSamples() []float64 {
	x := make([]float64, storedM*12)
	for i := range x {
		x[i] = float64(i % 7)
		if i/12%2 == 1 {
			x[i] -= 3
		}
	}
	return x
}
