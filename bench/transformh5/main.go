// Command transformh5 times the transform of samples streamed from an HDF5
// file (hdf5io.TransformFile, features written to another file) against
// reading the same samples alone (hdf5io.Source.Read, the same chunks),
// interleaved, and prints one JSON object per run with its CPU and wall
// seconds.
//
//	transformh5 -file x.h5 [-make 100000] -shape 32,22,10 -p 32 -repeat 7 [-threads 1]
//
// With -make M it first writes M uint8 samples of the shape (a fixed
// seed) as dataset "x" of a new file. The model is SO-MPCA-RS with P
// features, K = 2 sweeps, fitted on the first 731 samples.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sompca/sompca/hdf5io"
	"github.com/sompca/sompca/solver"
)

func main() {
	file := flag.String("file", "", "HDF5 file holding dataset x")
	mk := flag.Int("make", 0, "write this many uint8 samples to a new -file first")
	shapeArg := flag.String("shape", "32,22,10", "sample shape I_1,...,I_N")
	p := flag.Int("p", 32, "number of features")
	repeat := flag.Int("repeat", 7, "read/transform pairs to time")
	threads := flag.Int("threads", 0, "goroutines of the fit and the transform, GOMAXPROCS (0: all cores)")
	flag.Parse()
	if err := run(*file, *mk, *shapeArg, *p, *repeat, *threads); err != nil {
		fmt.Fprintln(os.Stderr, "transformh5:", err)
		os.Exit(1)
	}
}

func run(file string, mk int, shapeArg string, p, repeat, threads int) error {
	var shape []int
	for _, s := range strings.Split(shapeArg, ",") {
		v, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("-shape %q: %v", shapeArg, err)
		}
		shape = append(shape, v)
	}
	if threads > 0 {
		runtime.GOMAXPROCS(threads) // the transform's team: GOMAXPROCS goroutines
	}
	size := 1
	for _, d := range shape {
		size *= d
	}
	if mk > 0 {
		rng := rand.New(rand.NewPCG(1, 2))
		x := make([]uint8, mk*size)
		for i := range x {
			x[i] = uint8(rng.IntN(256))
		}
		if err := hdf5io.WriteArray(file, "x", append([]int{mk}, shape...), x, false); err != nil {
			return err
		}
	}
	src, err := hdf5io.Open(file, "x", hdf5io.Options{})
	if err != nil {
		return err
	}
	defer src.Close()
	train := min(731, src.Len())
	first, err := src.Read(0, train)
	if err != nil {
		return err
	}
	ts, err := solver.NewSliceSource(append([]uint8(nil), first.U8...), train, shape)
	if err != nil {
		return err
	}
	var model solver.Model
	if err := model.Fit(ts, solver.Options{Method: solver.SOMPCA, RelaxedStart: true, Components: p, MaxIter: 2, Threads: threads}); err != nil {
		return err
	}
	out := filepath.Join(os.TempDir(), fmt.Sprintf("transformh5-%d.h5", os.Getpid()))
	defer os.Remove(out)
	enc := json.NewEncoder(os.Stdout)
	for i := range repeat {
		cpu, wall := cpuSeconds(), time.Now()
		bytes := 0
		for start, m := 0, src.Len(); start < m; start += src.MaxRead() {
			b, err := src.Read(start, min(src.MaxRead(), m-start))
			if err != nil {
				return err
			}
			bytes += len(b.U8) + 4*len(b.F32) + 8*len(b.F64)
		}
		enc.Encode(map[string]any{"run": i, "what": "read", "samples": src.Len(), "bytes": bytes,
			"cpu_s": cpuSeconds() - cpu, "wall_s": time.Since(wall).Seconds()})
		cpu, wall = cpuSeconds(), time.Now()
		if err := hdf5io.TransformFile(&model, file, "x", hdf5io.Options{}, out, "features", true); err != nil {
			return err
		}
		enc.Encode(map[string]any{"run": i, "what": "transform", "samples": src.Len(), "p": p,
			"cpu_s": cpuSeconds() - cpu, "wall_s": time.Since(wall).Seconds()})
	}
	return nil
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
