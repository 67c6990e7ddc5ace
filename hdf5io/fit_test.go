package hdf5io

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sompca/sompca/solver"
)

// The data of the fit tests: m samples of shape (6, 5, 4), a low-rank
// signal plus noise, so that the fits have distinct variances.
const fitM = 601 // neither a multiple of the solver's grain (256) nor of the chunks below

var fitShape = []int{6, 5, 4}

func fitData() []int16 {
	rng := rand.New(rand.NewPCG(3, 4))
	size := 6 * 5 * 4
	x := make([]int16, fitM*size)
	for m := range fitM {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		for e := range size {
			v := 300*a*math.Sin(float64(e)) + 100*b*math.Cos(float64(3*e)) + 20*rng.NormFloat64()
			x[m*size+e] = int16(math.Round(v))
		}
	}
	return x
}

// samplesLast returns x, m samples of size elements, with the samples
// along the last axis.
func samplesLast[T any](x []T, m, size int) []T {
	out := make([]T, len(x))
	for i := range m {
		for e := range size {
			out[e*m+i] = x[i*size+e]
		}
	}
	return out
}

// TestFitFromFile checks that a fit streamed from a file, with reads that
// divide neither M nor the solver's grain, gives the model of the fit from
// memory bit for bit (the solver folds its sums in a fixed order whatever
// the reads), for both sample axes; and that the model survives a save and
// load, and TransformFile gives the in-memory features.
func TestFitFromFile(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.h5")
	x := fitData()
	size := 6 * 5 * 4
	if err := WriteArray(data, "/first", []int{fitM, 6, 5, 4}, x, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteArray(data, "/last", []int{6, 5, 4, fitM}, samplesLast(x, fitM, size), false); err != nil {
		t.Fatal(err)
	}
	// int16 is handed out as float32: the in-memory reference gets the
	// same float32 values.
	x32 := make([]float32, len(x))
	for i, v := range x {
		x32[i] = float32(v)
	}
	mem, err := solver.NewSliceSource(x32, fitM, fitShape)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []solver.Options{
		{Method: solver.SOMPCA, RelaxedStart: true, Components: 4, MaxIter: 4, Threads: 2},
		{Method: solver.UMPCA, Components: 3, MaxIter: 3, Threads: 2},
		{Method: solver.PCA, Components: 5, Threads: 2},
		{Method: solver.MPCA, MaxIter: 2, Threads: 2},
	} {
		var want solver.Model
		if err := want.Fit(mem, opts); err != nil {
			t.Fatal(err)
		}
		wantFeatures, err := want.TransformTo(nil, mem)
		if err != nil {
			t.Fatal(err)
		}
		name := opts.Method.String()
		for _, c := range []struct {
			dataset string
			in      Options
		}{
			{"/first", Options{ChunkBytes: 37 * int64(size) * 2}},      // 37 samples per read
			{"/last", Options{SamplesLast: true, ChunkBytes: 100_000}}, // 416 samples
			{"/last", Options{SamplesLast: true, InMemory: true}},
		} {
			t.Run(name+c.dataset, func(t *testing.T) {
				src, err := Open(data, c.dataset, c.in)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				var got solver.Model
				if err := got.Fit(src, opts); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(&got, &want) {
					t.Fatalf("model fitted from %s differs from the model fitted from memory", c.dataset)
				}

				path := filepath.Join(dir, name+".model.h5")
				if err := SaveModel(path, &got); err != nil {
					t.Fatal(err)
				}
				loaded, err := LoadModel(path)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(loaded, &want) {
					t.Fatalf("fitted model changed in a save and load")
				}

				out := filepath.Join(dir, name+".features.h5")
				if err := TransformFile(loaded, data, c.dataset, c.in, out, "/features", true); err != nil {
					t.Fatal(err)
				}
				fsrc, err := Open(out, "/features", Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer fsrc.Close()
				if fsrc.Len() != fitM || len(fsrc.Shape()) != 1 || fsrc.Shape()[0] != want.Components() {
					t.Fatalf("features of shape (%d, %v), want (%d, %d)", fsrc.Len(), fsrc.Shape(), fitM, want.Components())
				}
				b, err := fsrc.Read(0, fitM)
				if err != nil {
					t.Fatal(err)
				}
				// Each sample's features are computed alone, in the same
				// order of operations however the samples are chunked.
				if !reflect.DeepEqual(b.F64, wantFeatures) {
					t.Fatalf("TransformFile features differ from the in-memory transform")
				}
			})
		}
	}
}

func TestTransformFileErrors(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.h5")
	if err := WriteArray(data, "/X", []int{10, 3, 3}, make([]float64, 90), false); err != nil {
		t.Fatal(err)
	}
	if err := WriteArray(data, "/Y", []int{10, 3, 4}, make([]float64, 120), false); err != nil {
		t.Fatal(err)
	}
	// A fitted model (a hand-made one of random bits would overflow to
	// Inf, which the solver's transform reports as bad data).
	train := make([]float64, 10*9)
	for i := range train {
		train[i] = math.Sin(float64(i * i))
	}
	var model solver.Model
	if err := model.Fit(mustSlice(t, train, 10, []int{3, 3}), solver.Options{Components: 2}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.h5")
	if err := WriteArray(out, "/keep", []int{2}, []float64{1, 2}, false); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(out)
	dataBefore, _ := os.ReadFile(data)

	err := TransformFile(&model, data, "/Y", Options{}, out, "/f", false)
	if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), data) || !strings.Contains(err.Error(), `"/Y"`) || !strings.Contains(err.Error(), "[3 4]") {
		t.Errorf("shape mismatch: err = %v, want ErrShape naming %s, /Y and the shape", err, data)
	}
	err = TransformFile(&model, data, "/X", Options{}, data, "/f", true)
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "input file") {
		t.Errorf("output = input: err = %v, want a refusal", err)
	}
	err = TransformFile(&model, data, "/X", Options{}, out, "/keep", false)
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), `"/keep"`) {
		t.Errorf("existing dataset: err = %v, want ErrExists naming %s and /keep", err, out)
	}
	if err := TransformFile(&solver.Model{}, data, "/X", Options{}, out, "/f", false); err == nil {
		t.Error("transform with an unfitted model succeeded")
	}
	after, _ := os.ReadFile(out)
	if !bytes.Equal(before, after) {
		t.Error("failed transforms changed the output file")
	}
	if dataAfter, _ := os.ReadFile(data); !bytes.Equal(dataBefore, dataAfter) {
		t.Error("the input file changed")
	}
	if err := TransformFile(&model, data, "/X", Options{ChunkBytes: 1}, out, "/keep", true); err != nil {
		t.Fatal(err)
	}
	if dataAfter, _ := os.ReadFile(data); !bytes.Equal(dataBefore, dataAfter) {
		t.Error("the input file changed")
	}
}

// transformModel returns 40 samples of shape (2, 3) and a 2-feature
// SO-MPCA model fitted on them, for the transform tests.
func transformModel(t *testing.T) ([]float64, *solver.Model) {
	t.Helper()
	train := make([]float64, 40*6)
	for i := range train {
		train[i] = math.Sin(float64(i*i) + 1)
	}
	model := new(solver.Model)
	if err := model.Fit(mustSlice(t, train, 40, []int{2, 3}), solver.Options{Components: 2}); err != nil {
		t.Fatal(err)
	}
	return train, model
}

// TestTransformFileNaN: a NaN in a later chunk is reported with its index
// in the whole dataset, as bad data rather than an I/O failure, and no
// output file is left.
func TestTransformFileNaN(t *testing.T) {
	dir := t.TempDir()
	train, model := transformModel(t)
	bad := append([]float64(nil), train...)
	bad[33*6+4] = math.NaN()
	data := filepath.Join(dir, "bad.h5")
	if err := WriteArray(data, "/X", []int{40, 2, 3}, bad, false); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.h5")
	// ChunkBytes of 5 samples' features: sample 33 is in the seventh chunk.
	err := TransformFile(model, data, "/X", Options{ChunkBytes: 5 * 6 * 8}, out, "/f", false)
	if !errors.Is(err, solver.ErrData) || !strings.Contains(err.Error(), "sample 33 holds a NaN") {
		t.Errorf("err = %v, want bad data naming sample 33", err)
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Errorf("a failed transform left %s", out)
	}
}

// TestTransformFileCanceledAtTheEnd: a cancellation flag (which stays set
// once set, as the C and Python flags do) raised at any of a transform's
// polls before the file is published, the last one included (after the
// last chunk), cancels it and leaves no output, so a caller told
// "canceled" never finds the features written. The polls are counted in
// an uncanceled run first.
func TestTransformFileCanceledAtTheEnd(t *testing.T) {
	dir := t.TempDir()
	train, model := transformModel(t)
	data := filepath.Join(dir, "data.h5")
	if err := WriteArray(data, "/X", []int{40, 2, 3}, train, false); err != nil {
		t.Fatal(err)
	}
	// polls counts the polls made before the output file exists, that is
	// before the transform publishes it (Source.Close polls once more).
	var polls atomic.Int64
	first := filepath.Join(dir, "first.h5")
	opts := Options{ChunkBytes: 5 * 6 * 8, Cancel: func() bool {
		if _, err := os.Stat(first); err != nil {
			polls.Add(1)
		}
		return false
	}}
	if err := TransformFile(model, data, "/X", opts, first, "/f", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first); err != nil || polls.Load() < 8 { // 8 chunks of 5 samples
		t.Fatalf("uncanceled transform: stat err %v, %d polls", err, polls.Load())
	}
	for k := polls.Load(); k >= 1; k-- {
		var seen atomic.Int64
		opts.Cancel = func() bool { return seen.Add(1) >= k }
		out := filepath.Join(dir, "out.h5")
		err := TransformFile(model, data, "/X", opts, out, "/f", false)
		if !errors.Is(err, solver.ErrCanceled) {
			t.Errorf("flag raised at poll %d of %d: err = %v, want ErrCanceled", k, polls.Load(), err)
		}
		if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
			t.Errorf("flag raised at poll %d of %d: the canceled transform left %s", k, polls.Load(), out)
			os.Remove(out)
		}
	}
}

// TestFitNarrowed: a dataset loaded whole is Resident (a streamed one is
// not), so a fit reads its float samples through an exact narrower copy
// when they allow it (uint16 values 0..255, handed out as float32, are
// uint8 values): the model is the fit's without narrowing, bit for bit,
// and the streamed fit's.
func TestFitNarrowed(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.h5")
	x := fitData()
	u := make([]uint16, len(x))
	for i, v := range x {
		u[i] = uint16(min(max(int(v)/4+128, 0), 255))
	}
	if err := WriteArray(data, "/x", []int{fitM, 6, 5, 4}, u, false); err != nil {
		t.Fatal(err)
	}
	streamed, err := Open(data, "/x", Options{ChunkBytes: 37 * 120 * 2})
	if err != nil {
		t.Fatal(err)
	}
	defer streamed.Close()
	if _, ok := streamed.Resident(); ok {
		t.Fatal("a streamed source says it holds its samples in memory")
	}
	loaded, err := Open(data, "/x", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Close()
	b, ok := loaded.Resident()
	if !ok || b.F32 == nil || len(b.F32) != len(u) || b.F32[7] != float32(u[7]) {
		t.Fatalf("Resident of a loaded uint16 dataset: %v, want its values as float32", ok)
	}
	opts := solver.Options{Method: solver.SOMPCA, RelaxedStart: true, Components: 4, MaxIter: 4, Threads: 2}
	var on, off, stream solver.Model
	if err := on.Fit(loaded, opts); err != nil {
		t.Fatal(err)
	}
	if err := stream.Fit(streamed, opts); err != nil {
		t.Fatal(err)
	}
	opts.NoNarrowing = true
	if err := off.Fit(loaded, opts); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&on, &off) || !reflect.DeepEqual(&on, &stream) {
		t.Fatal("narrowed, not narrowed and streamed fits differ")
	}
}
