// Command bench-hdf5 times one operation of sompca on an HDF5 dataset and
// prints the seconds it took as JSON; bench.py runs it once per
// measurement, in its own process, so that the peak RSS it reports is that
// operation's alone.
//
//	bench-hdf5 pass FILE DATASET   one pass of the library over the samples
//	bench-hdf5 fit FILE DATASET    a fit streamed from the file
//	bench-hdf5 memfit FILE DATASET a fit on the samples already in memory
//	                                (the read is not timed)
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sompca/sompca/hdf5io"
	"github.com/sompca/sompca/solver"
)

func main() {
	samplesLast := flag.Bool("samples-last", false, "samples along the last axis")
	method := flag.String("method", "so-mpca", "method (a -rs suffix for relaxed start)")
	p := flag.Int("p", 3, "features P")
	k := flag.Int("k", 2, "sweeps K")
	threads := flag.Int("threads", 0, "threads (0: all cores)")
	limit := flag.String("memory-limit", "", "memory limit, such as 128MB (default: the library's)")
	profile := flag.String("cpuprofile", "", "write a CPU profile (pprof) of the operation to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-hdf5:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if flag.NArg() != 3 {
		fmt.Fprintln(os.Stderr, "usage: bench-hdf5 [flags] pass|fit|memfit FILE DATASET")
		os.Exit(2)
	}
	bytes, err := parseBytes(*limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-hdf5:", err)
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), flag.Arg(2), *samplesLast, *method, *p, *k, *threads, bytes); err != nil {
		fmt.Fprintln(os.Stderr, "bench-hdf5:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// parseBytes parses "", "1000", "128MB" or "1GB" (powers of 1024).
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	for i, unit := range []string{"KB", "MB", "GB"} {
		if t, ok := strings.CutSuffix(s, unit); ok {
			s, mult = t, int64(1)<<(10*(i+1))
			break
		}
	}
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}

func run(op, file, dataset string, samplesLast bool, method string, p, k, threads int, limit int64) error {
	m, rs, err := solver.ParseMethod(method)
	if err != nil {
		return err
	}
	opts := solver.Options{Method: m, RelaxedStart: rs, Components: p, MaxIter: k, Threads: threads, MemoryLimit: limit}
	in := hdf5io.Options{InMemory: op == "memfit"}
	if samplesLast {
		in.Layout = hdf5io.SamplesLast
	}
	start, cpu0 := time.Now(), cpuTime()
	src, err := hdf5io.Open(file, dataset, in)
	if err != nil {
		return err
	}
	defer src.Close()
	if op == "memfit" {
		start, cpu0 = time.Now(), cpuTime()
	}
	switch op {
	case "pass":
		// As a fit would: plan the reads within the limit, then read
		// [0, M) in runs of MaxRead samples.
		if limit == 0 {
			limit = solver.DefaultMemoryLimit()
		}
		if _, err := src.PlanMemory(limit, 256); err != nil {
			return err
		}
		step := src.MaxRead()
		for s := 0; s < src.Len(); s += step {
			if _, err := src.Read(s, min(step, src.Len()-s)); err != nil {
				return err
			}
		}
	case "fit", "memfit":
		var model solver.Model
		if err := model.Fit(src, opts); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown operation %q", op)
	}
	fmt.Printf("{\"seconds\": %.6f, \"cpu\": %.6f, \"peak_rss\": %d}\n", time.Since(start).Seconds(), cpuTime()-cpu0, peakRSS())
	return nil
}

// cpuTime returns the CPU seconds (user + system, all threads) the
// process has used so far.
func cpuTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// peakRSS returns the process's peak resident set size in bytes (VmHWM,
// which unlike getrusage's ru_maxrss does not count the parent's memory
// from before exec), or 0 where /proc does not say.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
