// Command gofit times sompca fits in pure Go on raw sample files written by
// bench/run.py, so that the Go path runs on exactly the data the Python
// path and the NumPy reference see. It prints one JSON object per fit.
//
//	gofit -data x.raw -dtype uint8 -shape 721,80,60 -method so-mpca-rs -p 60 -repeat 3 [-settle 1s] [-threads 1] [-k 20] [-cpuprofile f]
//
// Fits run with tol = 0: every one makes its K sweeps.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/sompca/sompca/solver"
)

func main() {
	data := flag.String("data", "", "raw little-endian samples, C order, samples first")
	dtype := flag.String("dtype", "float64", "float64, float32 or uint8")
	shapeArg := flag.String("shape", "", "M,I_1,...,I_N")
	method := flag.String("method", "so-mpca-rs", "method name")
	p := flag.Int("p", 0, "number of features (0: the method's default)")
	q := flag.Float64("q", 0, "MPCA/CSA variance share (0: default)")
	threads := flag.Int("threads", 0, "goroutines (0: all cores)")
	repeat := flag.Int("repeat", 1, "fits to time")
	k := flag.Int("k", 20, "sweeps K (MaxIter)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of all fits here")
	tracefile := flag.String("trace", "", "write a runtime/trace execution trace of all fits here (go tool trace)")
	updates := flag.String("mode-updates", "auto", "TVP mode updates: auto (by the data's shape, solver.ModeUpdates.Resolve), rows or scatter (solver.Options.ModeUpdates)")
	hugePages := flag.Bool("hugepages", true, "hold the samples in transparent huge pages, as NumPy holds large arrays")
	settle := flag.Duration("settle", 0, "pause before each fit (as bench/run.py --settle: lets real-time throttling and other work settle)")
	noNarrowing := flag.Bool("no-narrowing", false, "read float samples as they are, never through an exact narrower copy (solver.Options.NoNarrowing)")
	flag.Parse()
	if err := run(*data, *dtype, *shapeArg, *method, *p, *q, *threads, *repeat, *k, *cpuprofile, *tracefile, *updates, *noNarrowing, *hugePages, *settle); err != nil {
		fmt.Fprintln(os.Stderr, "gofit:", err)
		os.Exit(1)
	}
}

func run(data, dtype, shapeArg, method string, p int, q float64, threads, repeat, k int, cpuprofile, tracefile, updates string, noNarrowing, hugePages bool, settle time.Duration) error {
	var shape []int
	for _, s := range strings.Split(shapeArg, ",") {
		v, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("-shape %q: %v", shapeArg, err)
		}
		shape = append(shape, v)
	}
	if len(shape) < 2 {
		return fmt.Errorf("-shape %q: want M and at least one mode", shapeArg)
	}
	raw, err := readSamples(data, hugePages)
	if err != nil {
		return err
	}
	m, dims := shape[0], shape[1:]
	var src solver.Source
	switch dtype {
	case "uint8":
		src, err = solver.NewSliceSource(raw, m, dims)
	case "float32":
		src, err = solver.NewSliceSource(unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), len(raw)/4), m, dims)
	case "float64":
		src, err = solver.NewSliceSource(unsafe.Slice((*float64)(unsafe.Pointer(&raw[0])), len(raw)/8), m, dims)
	default:
		return fmt.Errorf("-dtype %q: want float64, float32 or uint8", dtype)
	}
	if err != nil {
		return err
	}
	meth, rs, err := solver.ParseMethod(method)
	if err != nil {
		return err
	}
	opts := solver.Options{Method: meth, RelaxedStart: rs, Components: p, Q: q, MaxIter: k, Threads: threads, NoNarrowing: noNarrowing}
	switch updates {
	case "auto":
	case "rows":
		opts.ModeUpdates = solver.ModeUpdatesRows
	case "scatter":
		opts.ModeUpdates = solver.ModeUpdatesScatter
	default:
		return fmt.Errorf("-mode-updates %q: want auto, rows or scatter", updates)
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if tracefile != "" {
		f, err := os.Create(tracefile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	var times, cpu []float64
	var model solver.Model
	for range repeat {
		time.Sleep(settle)
		t0, c0 := time.Now(), cpuSeconds()
		if err := model.Fit(src, opts); err != nil {
			return err
		}
		times = append(times, time.Since(t0).Seconds())
		cpu = append(cpu, cpuSeconds()-c0)
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"times": times, "cpu": cpu, "variance": model.Variance})
}

// cpuSeconds returns the CPU time (user + system) the process has used,
// over all its threads: on a loaded machine a steadier measure of the work
// done than the wall clock.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// readSamples reads the file into fresh memory, which the kernel backs
// with transparent huge pages where it can when hugePages is set
// (madvise(MADV_HUGEPAGE)), as NumPy does for its arrays of 4 MB or more:
// the Python path's samples sit on huge pages, so the Go path is timed on
// the same kind of memory. The gait float64+frac fit, read in place, was
// 1.16x / 1.19x faster (min / median of 5, 2 threads) from huge pages.
func readSamples(path string, hugePages bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	n := int(st.Size())
	if n == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	raw, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, err
	}
	if hugePages {
		_ = syscall.Madvise(raw, 14) // MADV_HUGEPAGE (not in package syscall); a refusal leaves small pages
	}
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, err
	}
	return raw, nil
}
