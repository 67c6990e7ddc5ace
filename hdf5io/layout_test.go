package hdf5io

import (
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sompca/sompca/solver"
)

// layoutValue is value() of testdata/h5py_layouts.py.
func layoutValue(i int) uint8 { return uint8((i*7919 + (i/120)*13) % 251) }

// TestLayoutsBudgetsThreads: a fit from every storage layout h5py writes
// (contiguous, chunks of 64 and of 1 sample, chunks=True, gzip + shuffle,
// samples last), loaded whole or streamed within a small memory limit,
// on 1 or 3 threads, is the fit on the same values in memory, bit for
// bit: the solver's sums do not depend on how the data reach it. (The
// methods share the engine's passes; SO-MPCA and UMPCA cover the source
// paths: order-3 samples with and without the contraction cache.)
func TestLayoutsBudgetsThreads(t *testing.T) {
	py := h5pyPython(t)
	dir := t.TempDir()
	path, corrupt := filepath.Join(dir, "layouts.h5"), filepath.Join(dir, "corrupt.h5")
	if out, err := exec.Command(py, "testdata/h5py_layouts.py", path, corrupt).CombinedOutput(); err != nil {
		t.Fatalf("h5py_layouts.py: %v\n%s", err, out)
	}
	const m = 1100
	shape := []int{6, 5, 10}
	x := make([]uint8, m*300)
	for i := range x {
		x[i] = layoutValue(i)
	}
	mem, err := solver.NewSliceSource(x, m, shape)
	if err != nil {
		t.Fatal(err)
	}
	methods := []solver.Options{
		{Method: solver.SOMPCA, Components: 3, MaxIter: 3},
		{Method: solver.UMPCA, Components: 2, MaxIter: 2},
	}
	for _, base := range methods {
		var want solver.Model
		if err := want.Fit(mem, base); err != nil {
			t.Fatal(err)
		}
		for _, ds := range []string{"/contiguous", "/chunks64", "/chunks1", "/auto", "/gzip", "/last64"} {
			for _, stream := range []bool{false, true} {
				for _, threads := range []int{1, 3} {
					opts := base
					opts.Threads = threads
					in := Options{SamplesLast: ds == "/last64"}
					var limit int64 // the default: the data are loaded
					if stream {
						limit = smallestLimit(t, path, ds, in, opts)
					}
					opts.MemoryLimit = limit
					src, err := Open(path, ds, in)
					if err != nil {
						t.Fatal(err)
					}
					var got solver.Model
					err = got.Fit(src, opts)
					streamed := src.mem == nil
					src.Close()
					if err != nil {
						t.Fatalf("%v %s limit %d: %v", base.Method, ds, limit, err)
					}
					if streamed != (limit != 0) {
						t.Errorf("%v %s limit %d: streamed = %v", base.Method, ds, limit, streamed)
					}
					if !reflect.DeepEqual(&got, &want) {
						t.Errorf("%v %s limit %d threads %d: the model differs from the in-memory fit", base.Method, ds, limit, threads)
					}
				}
			}
		}
	}

	// A chunk that cannot be decompressed, met in the middle of a streamed
	// fit, is the file's error, naming file and dataset; never bad data.
	src, err := Open(corrupt, "/X", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var model solver.Model
	opts := solver.Options{Components: 2}
	opts.MemoryLimit = smallestLimit(t, path, "/gzip", Options{}, opts)
	err = model.Fit(src, opts)
	var herr *Error
	if !errors.As(err, &herr) || !errors.Is(err, ErrCorrupt) || herr.Path != corrupt || herr.Object != "/X" ||
		!strings.Contains(err.Error(), "samples [") {
		t.Fatalf("fit over a corrupt chunk: %v, want an *Error wrapping ErrCorrupt naming %s, /X and the samples", err, corrupt)
	}
	if model.Fitted() {
		t.Error("the failed fit left a fitted model")
	}
	if src.BytesRead() == 0 {
		t.Error("the fit failed before reading anything: the corrupt chunk is not in the middle")
	}
}

// smallestLimit returns the smallest memory limit (to 1 KiB) with which
// the fit does not fail with solver.ErrMemory: it streams, since loading
// the data needs more than streaming them.
func smallestLimit(t *testing.T, path, ds string, in Options, opts solver.Options) int64 {
	t.Helper()
	fails := func(limit int64) bool {
		src, err := Open(path, ds, in)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		opts.MemoryLimit = limit
		// Only the planning matters: cancel the fit as soon as it runs.
		opts.Cancel = func() bool { return true }
		var m solver.Model
		err = m.Fit(src, opts)
		if !errors.Is(err, solver.ErrMemory) && !errors.Is(err, solver.ErrCanceled) {
			t.Fatal(err)
		}
		return errors.Is(err, solver.ErrMemory)
	}
	lo, hi := int64(1<<10), int64(64<<20)
	for hi-lo > 1<<10 {
		if mid := (lo + hi) / 2; fails(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
