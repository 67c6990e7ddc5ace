package hdf5io

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sompca/sompca/solver"
)

// The fixture of the type tests: m samples of shape (3, 2), element e of
// sample i holding gen(i*6+e).
const fixtureM = 7

var fixtureShape = []int{3, 2}

// writeFixture writes the fixture with samples first at /data/first and
// with samples last (the same array transposed so that samples run along
// the last axis, as MATLAB writes it) at /data/last, and returns the
// expected sample-major values.
func writeFixture[T Number](t *testing.T, path string, gen func(int) T) []float64 {
	t.Helper()
	size := fixtureShape[0] * fixtureShape[1]
	first := make([]T, fixtureM*size)
	last := make([]T, fixtureM*size)
	want := make([]float64, fixtureM*size)
	for m := range fixtureM {
		for e := range size {
			v := gen(m*size + e)
			first[m*size+e] = v
			last[e*fixtureM+m] = v // (3, 2, M) in C order: element e then sample m
			want[m*size+e] = float64(v)
		}
	}
	if err := WriteArray(path, "/data/first", []int{fixtureM, 3, 2}, first, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteArray(path, "data/last", []int{3, 2, fixtureM}, last, false); err != nil {
		t.Fatal(err)
	}
	return want
}

// blockValues returns the elements of b as float64, checking that the
// block holds elem.
func blockValues(t *testing.T, b solver.Block, elem solver.Elem) []float64 {
	t.Helper()
	var out []float64
	switch elem {
	case solver.Float64:
		if b.F64 == nil || b.F32 != nil || b.U8 != nil {
			t.Fatalf("block is not float64")
		}
		out = append(out, b.F64...)
	case solver.Float32:
		if b.F32 == nil || b.F64 != nil || b.U8 != nil {
			t.Fatalf("block is not float32")
		}
		for _, v := range b.F32 {
			out = append(out, float64(v))
		}
	case solver.Uint8:
		if b.U8 == nil || b.F64 != nil || b.F32 != nil {
			t.Fatalf("block is not uint8")
		}
		for _, v := range b.U8 {
			out = append(out, float64(v))
		}
	}
	return out
}

// checkSource reads src in several patterns and compares every value
// exactly with want: the conversions to the handed-out type are exact for
// the fixture values.
func checkSource(t *testing.T, src *Source, want []float64, elem solver.Elem) {
	t.Helper()
	size := len(want) / fixtureM
	if src.Len() != fixtureM || fmt.Sprint(src.Shape()) != fmt.Sprint(fixtureShape) {
		t.Fatalf("Len %d Shape %v, want %d %v", src.Len(), src.Shape(), fixtureM, fixtureShape)
	}
	if src.Elem() != elem {
		t.Fatalf("Elem() = %v, want %v", src.Elem(), elem)
	}
	// Whole, across chunk borders, then consecutive runs as the engine
	// reads them (each checked before the next Read reuses the buffer),
	// twice to catch state kept between passes.
	runs := [][2]int{{0, fixtureM}, {2, 4}, {6, 1}, {0, 0}}
	for range 2 {
		for start := 0; start < fixtureM; start += 3 {
			runs = append(runs, [2]int{start, min(3, fixtureM-start)})
		}
	}
	for _, r := range runs {
		b, err := src.Read(r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		got := blockValues(t, b, elem)
		exp := want[r[0]*size : (r[0]+r[1])*size]
		if len(got) != len(exp) {
			t.Fatalf("Read(%d, %d): %d values, want %d", r[0], r[1], len(got), len(exp))
		}
		for i := range got {
			if got[i] != exp[i] && !(math.IsNaN(got[i]) && math.IsNaN(exp[i])) {
				t.Fatalf("Read(%d, %d)[%d] = %v, want %v", r[0], r[1], i, got[i], exp[i])
			}
		}
	}
	if _, err := src.Read(5, 3); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("Read past the end: err = %v, want an out-of-range error", err)
	}
}

// testKind checks one element type: both sample axes, in memory or
// streamed with chunks of 1, 3 (7 = 3+3+1) and the default bound.
func testKind[T Number](t *testing.T, gen func(int) T, elem solver.Elem) {
	path := filepath.Join(t.TempDir(), "fixture.h5")
	want := writeFixture(t, path, gen)
	var z T
	bytesPerSample := int64(6 * kindFor[T]().bytes())
	for _, dataset := range []string{"/data/first", "/data/last"} {
		for _, opts := range []Options{
			{},
			{ChunkBytes: 1},
			{ChunkBytes: 3 * bytesPerSample},
			{ChunkBytes: 3*bytesPerSample + 1},
			{InMemory: true},
			{InMemory: true, ChunkBytes: 2 * bytesPerSample},
		} {
			opts.SamplesLast = dataset == "/data/last"
			t.Run(fmt.Sprintf("%T/%s/%+v", z, dataset[6:], opts), func(t *testing.T) {
				src, err := Open(path, dataset, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				if src.FileType() != fmt.Sprintf("%T", z) {
					t.Errorf("FileType() = %q, want %T", src.FileType(), z)
				}
				checkSource(t, src, want, elem)
			})
		}
	}
}

// TestElementTypes reads every supported element type. The generators
// reach each type's extremes (the wide integers up to 2^53, beyond which
// float64 rounds), so a read in the wrong type or a wrong conversion
// changes some value.
func TestElementTypes(t *testing.T) {
	testKind(t, func(i int) int8 { return int8(-128 + i*6) }, solver.Float32)
	testKind(t, func(i int) uint8 { return uint8(255 - i*6) }, solver.Uint8)
	testKind(t, func(i int) int16 { return int16(-32768 + i*1500) }, solver.Float32)
	testKind(t, func(i int) uint16 { return uint16(65535 - i*1500) }, solver.Float32)
	testKind(t, func(i int) int32 { return int32(math.MinInt32 + i*100_000_007) }, solver.Float64)
	testKind(t, func(i int) uint32 { return uint32(math.MaxUint32 - i*100_000_007) }, solver.Float64)
	testKind(t, func(i int) int64 { return int64(-1<<53 + i*(1<<47) + i) }, solver.Float64)
	testKind(t, func(i int) uint64 { return uint64(1<<53 - i*(1<<47) - i) }, solver.Float64)
	testKind(t, func(i int) float32 { return float32(i)*0.375 - 1e30*float32(i%2) }, solver.Float32)
	testKind(t, func(i int) float64 { return float64(i)*math.Pi - 1e300*float64(i%2) }, solver.Float64)
}

func TestSourceString(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.h5")
	writeFixture(t, path, func(i int) int16 { return int16(i) })
	src, err := Open(path, "data/first", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s := src.String()
	for _, part := range []string{path, `"/data/first"`, "int16", "[3 2]", "7 samples"} {
		if !strings.Contains(s, part) {
			t.Errorf("String() = %q does not mention %s", s, part)
		}
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := src.Read(0, 1); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Read after Close: err = %v, want an error naming the file", err)
	}
	var e *Error
	if _, err := src.Read(0, 1); !errors.As(err, &e) {
		t.Errorf("Read after Close: err is %T, want *Error", err)
	}
}

// TestBoundedMemory checks that streaming keeps its buffers at the size of
// one read whatever M, and allocates only a constant handful of small
// objects per Read (hyperslab arguments), not per sample.
func TestBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []int{100, 5000} {
		for _, last := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprintf("m%d%v.h5", m, last))
			dims := []int{m, 4, 5}
			if last {
				dims = []int{4, 5, m}
			}
			if err := WriteArray(path, "/X", dims, make([]int16, m*20), false); err != nil {
				t.Fatal(err)
			}
			// 7 samples of 20 int16 per HDF5 read.
			src, err := Open(path, "/X", Options{SamplesLast: last, ChunkBytes: 7 * 20 * 2})
			if err != nil {
				t.Fatal(err)
			}
			if src.MaxRead() != 7 {
				t.Errorf("MaxRead() = %d, want 7", src.MaxRead())
			}
			pass := func() {
				for start := 0; start < m; start += 7 {
					if _, err := src.Read(start, min(7, m-start)); err != nil {
						t.Fatal(err)
					}
				}
			}
			pass()
			src.wait() // the read ahead
			// Two blocks (double buffering) and one raw buffer.
			if cap(src.bufs[0].F32) != 7*20 || cap(src.bufs[1].F32) != 7*20 || cap(src.raw)*8 > 7*20*2+8 {
				t.Errorf("M=%d: buffers of %d, %d and %d bytes, want one read's worth each", m, 4*cap(src.bufs[0].F32), 4*cap(src.bufs[1].F32), 8*cap(src.raw))
			}
			allocs := testing.AllocsPerRun(3, pass) / float64((m+6)/7)
			if allocs > 10 {
				t.Errorf("M=%d: %.1f allocations per Read", m, allocs)
			}
			src.Close()
		}
	}
}

// TestSourceFileChangesSize: a file truncated while a Source streams it
// is an error at the next read (libhdf5 alone would hand out zeros for the
// missing part), and so is a file that grows.
func TestSourceFileChangesSize(t *testing.T) {
	const m, size = 4096, 16
	for _, change := range []string{"truncated", "appended to"} {
		path := filepath.Join(t.TempDir(), "x.h5")
		data := make([]float64, m*size)
		for i := range data {
			data[i] = float64(i%97) + 1
		}
		if err := WriteArray(path, "/x", []int{m, size}, data, false); err != nil {
			t.Fatal(err)
		}
		src, err := Open(path, "/x", Options{ChunkBytes: 8 * size * 256}) // 16 reads of 256 samples
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.Read(0, 256); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(path)
		if change == "truncated" {
			err = os.Truncate(path, fi.Size()/2)
		} else {
			err = os.Truncate(path, fi.Size()+4096)
		}
		if err != nil {
			t.Fatal(err)
		}
		for start := 256; start < m && err == nil; start += 256 {
			_, err = src.Read(start, 256)
		}
		if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "changed size") {
			t.Errorf("file %s while read: got %v, want ErrIO saying it changed size", change, err)
		}
		src.Close()
	}
}
