package hdf5io

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentUse opens, reads and writes from several goroutines at
// once; run with -race. Each goroutine has its own Source and files, as
// the solver.Source contract requires; the package serializes the HDF5
// calls underneath.
func TestConcurrentUse(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := filepath.Join(dir, fmt.Sprintf("g%d.h5", g))
			x := make([]float32, 50*6)
			for i := range x {
				x[i] = float32(g*1000 + i)
			}
			if err := WriteArray(path, "/X", []int{50, 2, 3}, x, false); err != nil {
				errs <- err
				return
			}
			src, err := Open(path, "/X", Options{ChunkBytes: 7 * 6 * 4})
			if err != nil {
				errs <- err
				return
			}
			defer src.Close()
			for pass := range 3 {
				for start := 0; start < 50; start += 9 {
					n := min(9, 50-start)
					b, err := src.Read(start, n)
					if err != nil {
						errs <- err
						return
					}
					for i, v := range b.F32 {
						if v != x[start*6+i] {
							errs <- fmt.Errorf("goroutine %d pass %d: element %d = %v, want %v", g, pass, start*6+i, v, x[start*6+i])
							return
						}
					}
				}
			}
			if _, err := Open(filepath.Join(dir, "missing.h5"), "/X", Options{}); err == nil {
				errs <- fmt.Errorf("opening a missing file succeeded")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestNoErrorPrinting runs failing opens in a child process and checks
// that HDF5 printed nothing to stderr: its automatic error printing is
// off on every thread (Debian's libhdf5 is built thread-safe, which makes
// that setting per thread).
func TestNoErrorPrinting(t *testing.T) {
	if os.Getenv("HDF5IO_CHILD") == "1" {
		dir := t.TempDir()
		path := filepath.Join(dir, "t.h5")
		if err := WriteArray(path, "/X", []int{4, 4}, make([]float64, 16), false); err != nil {
			t.Fatal(err)
		}
		whole, _ := os.ReadFile(path)
		os.WriteFile(path, whole[:len(whole)/2], 0o644)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					Open(path, "/X", Options{})
					Open(odd, "/dangling", Options{})
					LoadModel(odd)
				}
			}()
		}
		wg.Wait()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoErrorPrinting$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HDF5IO_CHILD=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("HDF5 printed to stderr:\n%s", stderr.String())
	}
}
