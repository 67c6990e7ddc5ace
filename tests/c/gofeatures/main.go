// Command gofeatures writes the features that the Go API computes on a
// fixed data set, so that the C test (tests/c/test_capi.c) can check that
// libsompca gives the same numbers through the C interface.
//
// It writes, into the directory given by -out:
//
//	data.u8      the samples: M x 5 x 4 x 3 bytes, sample-major, C order
//	cases.txt    one line per case: "index method relaxed n_components
//	             mode dtype order n_features" (C's numbering: method as
//	             SOMPCA_METHOD_*, mode 0-based or -1, dtype as SOMPCA_FLOAT64
//	             = 0, FLOAT32 = 1, UINT8 = 2, order 0 = by variance)
//	features_<index>.bin   the M x P features, float64 little-endian
//
// The samples are whole numbers 0..255, so they are exact in every dtype
// and the C side can fit on the same values as float64, float32 or uint8.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/sompca/sompca/solver"
)

// Data set: M samples of shape 5 x 4 x 3 from a fixed linear
// congruential generator plus a low-rank pattern, so the methods have
// structure to find and ties are unlikely.
const samples = 24

var shape = []int{5, 4, 3}

func makeData() []uint8 {
	size := 5 * 4 * 3
	data := make([]uint8, samples*size)
	state := uint32(12345)
	for m := 0; m < samples; m++ {
		for i := 0; i < 5; i++ {
			for j := 0; j < 4; j++ {
				for k := 0; k < 3; k++ {
					state = state*1664525 + 1013904223
					noise := int(state>>24) % 40
					pattern := (m%5)*(i+1)*(k+2) + (m%3)*(j+1)*7
					data[m*size+(i*4+j)*3+k] = uint8((noise + pattern) % 256)
				}
			}
		}
	}
	return data
}

type fitCase struct {
	method       solver.Method
	relaxedStart bool
	components   int
	mode         int // C's 0-based mode, -1 = automatic
	dtype        solver.Elem
	order        solver.FeatureOrder
}

var cases = []fitCase{
	{solver.SOMPCA, true, 0, -1, solver.Float64, solver.ByVariance},
	{solver.SOMPCA, true, 0, -1, solver.Float32, solver.ByVariance},
	{solver.SOMPCA, true, 0, -1, solver.Uint8, solver.ByVariance},
	{solver.SOMPCA, false, 3, 1, solver.Float64, solver.ByExtraction},
	{solver.FOMPCA, false, 0, -1, solver.Float64, solver.ByVariance},
	{solver.TROD, true, 4, -1, solver.Float64, solver.ByVariance},
	{solver.UMPCA, false, 0, -1, solver.Float64, solver.ByVariance},
	{solver.PCA, false, 6, -1, solver.Float64, solver.ByVariance},
	{solver.MPCA, false, 0, -1, solver.Float64, solver.ByVariance},
	{solver.CSA, false, 0, -1, solver.Uint8, solver.ByVariance},
}

func source(data []uint8, dtype solver.Elem) (solver.Source, error) {
	switch dtype {
	case solver.Float64:
		x := make([]float64, len(data))
		for i, v := range data {
			x[i] = float64(v)
		}
		return solver.NewSliceSource(x, samples, shape)
	case solver.Float32:
		x := make([]float32, len(data))
		for i, v := range data {
			x[i] = float32(v)
		}
		return solver.NewSliceSource(x, samples, shape)
	}
	return solver.NewSliceSource(data, samples, shape)
}

func main() {
	out := flag.String("out", "", "directory to write data.u8, cases.txt and features_*.bin into")
	flag.Parse()
	if *out == "" {
		log.Fatal("gofeatures: -out is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	data := makeData()
	if err := os.WriteFile(filepath.Join(*out, "data.u8"), data, 0o644); err != nil {
		log.Fatal(err)
	}
	var list []byte
	for i, c := range cases {
		src, err := source(data, c.dtype)
		if err != nil {
			log.Fatal(err)
		}
		var m solver.Model
		opts := solver.Options{Method: c.method, RelaxedStart: c.relaxedStart, Components: c.components, Order: c.order}
		if c.mode >= 0 {
			opts.Mode = solver.OrthogonalMode(c.mode)
		}
		if err := m.Fit(src, opts); err != nil {
			log.Fatalf("gofeatures: case %d (%s): %v", i, c.method, err)
		}
		features, err := m.TransformTo(nil, src)
		if err != nil {
			log.Fatalf("gofeatures: case %d (%s): %v", i, c.method, err)
		}
		buf, err := binary.Append(nil, binary.LittleEndian, features)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("features_%d.bin", i)), buf, 0o644); err != nil {
			log.Fatal(err)
		}
		relaxed := 0
		if c.relaxedStart {
			relaxed = 1
		}
		list = fmt.Appendf(list, "%d %d %d %d %d %d %d %d\n", i, int(c.method), relaxed, c.components, c.mode,
			int(c.dtype), int(c.order), m.Components())
	}
	if err := os.WriteFile(filepath.Join(*out, "cases.txt"), list, 0o644); err != nil {
		log.Fatal(err)
	}
}
