package hdf5io

import (
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sompca/sompca/solver"
)

// TestReadProgress: a fit from a file reports the bytes it reads through
// Options.ReadProgress, loading the dataset whole (one report per HDF5
// read, the last one at the dataset's size) or streaming it (a report per
// run, past the dataset's size after the first passes); the reports never
// decrease, the total is the dataset's size, returning false cancels, and
// the model is the one without reports.
func TestReadProgress(t *testing.T) {
	// fitData four times over: enough samples that streaming needs less
	// memory than loading.
	const m = 4 * fitM
	x := fitData()
	x = append(append(append(x, x...), x...), x...)
	path := filepath.Join(t.TempDir(), "data.h5")
	if err := WriteArray(path, "/X", []int{m, 6, 5, 4}, x, false); err != nil {
		t.Fatal(err)
	}
	const sampleBytes = 6 * 5 * 4 * 2 // int16
	const size = m * sampleBytes      // the dataset's bytes: what one pass reads
	const perRead = 50                // samples per HDF5 read
	in := Options{ChunkBytes: perRead * sampleBytes}
	base := solver.Options{Method: solver.SOMPCA, Components: 2, MaxIter: 2, Threads: 2}
	var want solver.Model
	if src, err := Open(path, "/X", in); err != nil {
		t.Fatal(err)
	} else if err = want.Fit(src, base); err != nil {
		t.Fatal(err)
	} else {
		src.Close()
	}
	streamLimit := smallestLimit(t, path, "/X", in, base)

	for _, stream := range []bool{false, true} {
		src, err := Open(path, "/X", in)
		if err != nil {
			t.Fatal(err)
		}
		opts := base
		if stream {
			opts.MemoryLimit = streamLimit
		}
		var reads []int64
		opts.ReadProgress = func(read, total int64) bool {
			if total != size {
				t.Errorf("stream %v: total = %d, want %d samples x %d bytes = %d", stream, total, m, sampleBytes, size)
			}
			reads = append(reads, read)
			return true
		}
		var got solver.Model
		err = got.Fit(src, opts)
		streamed := src.mem == nil
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		if streamed != stream {
			t.Fatalf("stream %v: the source streamed = %v", stream, streamed)
		}
		if !reflect.DeepEqual(&got, &want) {
			t.Errorf("stream %v: the model differs from the fit without ReadProgress", stream)
		}
		for i := 1; i < len(reads); i++ {
			if reads[i] < reads[i-1] {
				t.Fatalf("stream %v: bytes read went down from %d to %d", stream, reads[i-1], reads[i])
			}
		}
		if len(reads) == 0 {
			t.Fatalf("stream %v: no report", stream)
		}
		last := reads[len(reads)-1]
		if !stream {
			// Loaded: ceil(2404/50) = 49 HDF5 reads, each reported, the
			// last at the dataset's size; nothing read after.
			if len(reads) != (m+perRead-1)/perRead || last != size {
				t.Errorf("loaded: %d reports ending at %d bytes, want %d ending at %d", len(reads), last, (m+perRead-1)/perRead, size)
			}
		} else if last < 2*size || last%sampleBytes != 0 {
			// At least the mean's and the total scatter's passes, whole samples.
			t.Errorf("streamed: reports end at %d bytes, want at least two passes of %d", last, size)
		}
	}

	// Returning false cancels, loading or streaming; the source's
	// hook is removed after the fit either way.
	for _, limit := range []int64{0, streamLimit} {
		src, err := Open(path, "/X", in)
		if err != nil {
			t.Fatal(err)
		}
		opts := base
		opts.MemoryLimit = limit
		calls := 0
		opts.ReadProgress = func(read, total int64) bool { calls++; return calls < 3 }
		var model solver.Model
		err = model.Fit(src, opts)
		hooked := src.hook != nil
		src.Close()
		if !errors.Is(err, solver.ErrCanceled) || model.Fitted() || calls != 3 {
			t.Errorf("limit %d: ReadProgress returning false at call 3: err %v, fitted %v, %d calls", limit, err, model.Fitted(), calls)
		}
		if hooked {
			t.Errorf("limit %d: the fit left its read hook on the source", limit)
		}
	}
}

// chunkScript writes, with h5py, uint16 datasets of 300 samples of 7 x 5
// in chunks that cut every axis unevenly (edge chunks partial), samples
// first and last, fill value 9, of which only samples [0, 200) are
// written: the chunks of samples [256, 300) are never stored. Element e of
// sample i is (i * 35 + e) % 65521.
const chunkScript = `
import sys, h5py, numpy as np
x = ((np.arange(300 * 35).reshape(300, 7, 5)) % 65521).astype(np.uint16)
with h5py.File(sys.argv[1], "w") as f:
    a = f.create_dataset("first", shape=(300, 7, 5), dtype=np.uint16, chunks=(64, 3, 2), fillvalue=9)
    a[:200] = x[:200]
    b = f.create_dataset("last", shape=(7, 5, 300), dtype=np.uint16, chunks=(3, 2, 64), fillvalue=9)
    b[..., :200] = np.moveaxis(x[:200], 0, -1)
`

// TestChunksReadAsStored: unfiltered chunks are read as stored and copied
// in place (sompca_h5_read_chunks), partial edge chunks included, and
// chunks never written read as the fill value (the ordinary read takes
// over), samples first and last, in runs that cut chunks.
func TestChunksReadAsStored(t *testing.T) {
	py := h5pyPython(t)
	path := filepath.Join(t.TempDir(), "chunks.h5")
	if out, err := exec.Command(py, "-c", chunkScript, path).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	const m, size = 300, 35
	for _, ds := range []string{"/first", "/last"} {
		src, err := Open(path, ds, Options{SamplesLast: ds == "/last", ChunkBytes: 70 * size * 2})
		if err != nil {
			t.Fatal(err)
		}
		if !src.rawChunks {
			t.Fatalf("%s: chunks not read as stored", ds)
		}
		for _, run := range []int{37, 128, m} {
			for start := 0; start < m; start += run {
				n := min(run, m-start)
				b, err := src.Read(start, n)
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					for e := range size {
						want := float32(9) // never written
						if start+i < 200 {
							want = float32(((start+i)*size + e) % 65521)
						}
						if got := b.F32[i*size+e]; got != want {
							t.Fatalf("%s run %d: sample %d element %d = %v, want %v", ds, run, start+i, e, got, want)
						}
					}
				}
			}
		}
		src.Close()
	}
}

// TestTransposeUint8: uint8 samples stored last are made sample-major
// (in C, 16 x 16 tiles by SSE2) exactly as the generic Go loop does, for
// shapes with whole tiles, edges on both axes, and a single sample.
func TestTransposeUint8(t *testing.T) {
	for _, c := range []struct{ size, k int }{{16, 16}, {37, 50}, {300, 128}, {7040, 3}, {5, 1}} {
		n := c.size * c.k
		raw := words(nil, n, kUint8)
		in := view[uint8](raw, n)
		for i := range in {
			in[i] = uint8(i*131 + i/7)
		}
		got := solver.Block{U8: make([]uint8, n+3)}
		convertKind(got, 3, raw, kUint8, c.size, c.k, true, nil)
		want := make([]uint8, n) // element e of sample m is in[e*k+m]
		for m := range c.k {
			for e := range c.size {
				want[m*c.size+e] = in[e*c.k+m]
			}
		}
		if !reflect.DeepEqual(got.U8[3:], want) || got.U8[0] != 0 || got.U8[1] != 0 || got.U8[2] != 0 {
			t.Errorf("%d elements x %d samples: transposed wrongly", c.size, c.k)
		}
	}
}
