package solver

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sompca/sompca/solver/internal/eigen"
)

// waitGoroutines fails t if the number of goroutines does not come back to
// n within a second (goroutines that returned may take a moment to go).
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left running, want %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFitStopsItsGoroutines: a fit leaves no goroutine behind, whether it
// succeeds, fails on a read or is canceled, whatever the method.
func TestFitStopsItsGoroutines(t *testing.T) {
	const M = 300
	shape := []int{6, 5, 4}
	src := must(NewSliceSource(randomTensors(5, M, shape), M, shape))
	before := runtime.NumGoroutine()
	for _, c := range []methodCase{{SOMPCA, true}, {UMPCA, false}, {PCA, false}, {MPCA, false}} {
		var m Model
		if err := m.Fit(src, Options{Method: c.method, RelaxedStart: c.rs, Threads: 2, Components: 2}); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		var flag atomic.Bool
		err := m.Fit(&cancelOnRead{Source: src, n: 3, flag: &flag}, Options{Method: c.method, RelaxedStart: c.rs, Threads: 2, Cancel: flag.Load})
		if !errors.Is(err, ErrCanceled) {
			t.Errorf("%v: canceled fit: %v", c, err)
		}
		if err := m.Fit(&failOnRead{Source: src, n: 3}, Options{Method: c.method, RelaxedStart: c.rs, Threads: 2}); err == nil {
			t.Errorf("%v: a fit whose third read fails succeeded", c)
		}
	}
	waitGoroutines(t, before)
}

// failOnRead fails its n-th Read.
type failOnRead struct {
	Source
	n int
}

func (f *failOnRead) Read(start, n int) (Block, error) {
	if f.n--; f.n == 0 {
		return Block{}, errors.New("read failed")
	}
	return f.Source.Read(start, n)
}

// BenchmarkPassThreads: the rows pass of each mode's TVP update on the
// gait and faces shapes, uint8 and float64, on 1 and 2 goroutines: what
// the passes alone gain from a second thread. For gait, rows1 includes
// filling the cache and rows2 reads it, as in a fit.
func BenchmarkPassThreads(b *testing.B) {
	for _, c := range []struct {
		name  string
		m     int
		shape []int
	}{{"gait", 731, []int{32, 22, 10}}, {"faces", 721, []int{80, 60}}} {
		vs := make([][]float64, len(c.shape))
		size := 1
		for n, d := range c.shape {
			size *= d
			vs[n] = make([]float64, d)
			for i := range vs[n] {
				vs[n][i] = 1 / float64(d)
			}
		}
		for _, elem := range []Elem{Uint8, Float64} {
			src := benchSource(c.m, c.shape, elem)
			for mode := range c.shape {
				for _, threads := range []int{1, 2} {
					b.Run(fmt.Sprintf("%s/%v/rows%d/threads=%d", c.name, elem, mode, threads), func(b *testing.B) {
						r := newRunner(src, size, threads)
						defer r.close()
						p := Pass{Op: OpModeRows, Shape: c.shape, Samples: c.m, Mode: mode, Vectors: vs}
						out := make([]float64, c.m*c.shape[mode])
						if p.usesCache() {
							// as in a fit: mode 1 fills the cache of
							// X x_1 u^(1), modes 2.. read it
							r.z = make([]float64, c.m*cacheRow(c.shape))
						}
						for range b.N {
							if mode > 1 && r.z != nil {
								p1 := p
								p1.Mode = 1
								if err := r.runCached(&p1, make([]float64, c.m*c.shape[1])); err != nil {
									b.Fatal(err)
								}
							}
							if err := r.runCached(&p, out); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}

// BenchmarkPassForm: a faces-size and a gait-size TVP mode update's team
// work as a fit runs it, the rows pass writing Y (M x I_n, uint8 samples
// 721 x 80 x 60 and 731 x 32 x 22 x 10) and S = Y^T Y formed from it
// (formS), every mode in turn, on 1 and 2 goroutines, back to back or with a pause of the caller's between
// updates (busy on data of its own, as the serial eigen step is). With
// the teamstats tag the tasks' times show what the second core costs in
// CPU: the members' shares sum to the one goroutine's time when the host
// is quiet (see docs/DESIGN.md, "The reduction tree").
func BenchmarkPassForm(b *testing.B) {
	for _, c := range []struct {
		name  string
		m     int
		shape []int
	}{{"faces", 721, []int{80, 60}}, {"gait", 731, []int{32, 22, 10}}} {
		m, shape := c.m, c.shape
		vs := make([][]float64, len(shape))
		for n, in := range shape {
			vs[n] = make([]float64, in)
			for i := range vs[n] {
				vs[n][i] = 1 / float64(in)
			}
		}
		src := benchSource(m, shape, Uint8)
		size := 1
		for _, in := range shape {
			size *= in
		}
		own := make([]float64, 4096) // the caller's data in the pause
		for _, pause := range []time.Duration{0, 50 * time.Microsecond} {
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/uint8/pause=%v/threads=%d", c.name, pause, threads), func(b *testing.B) {
					r := newRunner(src, size, threads)
					defer r.close()
					// The cache of X x_1 u^(1) for samples of order 3, as a
					// fit has it (runCached).
					r.z = make([]float64, m*size/shape[0])
					var e eigen.Solver
					e.Init(eigen.Config{Threads: threads, Team: r.team(), Block: r.block})
					Y := make([]float64, m*shape[0])
					for i := range b.N {
						// u^(1) changes every sweep: the mode-2 pass fills the
						// cache, the mode-3 pass reads it.
						vs[0][0] = 1/float64(shape[0]) + float64(i%2)*0x1p-40
						for mode, in := range shape {
							p := Pass{Op: OpModeRows, Shape: shape, Samples: m, Mode: mode, Vectors: vs}
							if err := r.runCached(&p, Y[:m*in]); err != nil {
								b.Fatal(err)
							}
							if err := e.FormS(Y[:m*in], m, in); err != nil {
								b.Fatal(err)
							}
							for t0 := time.Now(); time.Since(t0) < pause; {
								for i := range own {
									own[i]++
								}
							}
						}
					}
				})
			}
		}
	}
}

// BenchmarkPassSamples: the rows pass of each mode of a gait-shape TVP
// update (uint8, 32 x 22 x 10, 1 goroutine) as a fit runs it (mode 1
// fills the cache of X x_1 u^(1) anew each time, mode 2 reads it), for
// 731 samples (the gait gallery) and 16 times as many. The CPU per sample
// (cpu-ns/sample) says how a pass's cost grows with M: at 16 x the cache
// (20 MB), the rows and the samples no longer fit in L2.
func BenchmarkPassSamples(b *testing.B) {
	shape := []int{32, 22, 10}
	size := prod(shape)
	for _, m := range []int{731, 16 * 731} {
		src := benchSource(m, shape, Uint8)
		for mode, in := range shape {
			b.Run(fmt.Sprintf("m=%d/mode=%d", m, mode), func(b *testing.B) {
				vs := make([][]float64, len(shape))
				for n, d := range shape {
					vs[n] = make([]float64, d)
					for i := range vs[n] {
						vs[n][i] = 1 / float64(d)
					}
				}
				r := newRunner(src, size, 1)
				defer r.close()
				r.z = make([]float64, m*size/shape[0])
				Y := make([]float64, m*shape[0])
				fill := Pass{Op: OpModeRows, Shape: shape, Samples: m, Mode: 1, Vectors: vs}
				if err := r.runCached(&fill, Y[:m*shape[1]]); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := processCPU()
				defer func() {
					b.ReportMetric(float64(processCPU()-start)/float64(b.N)/float64(m), "cpu-ns/sample")
				}()
				for i := range b.N {
					if mode == 1 {
						// u^(1) changes every sweep: the pass fills the cache
						vs[0][0] = 1/float64(shape[0]) + float64(i%2)*0x1p-40
					}
					p := Pass{Op: OpModeRows, Shape: shape, Samples: m, Mode: mode, Vectors: vs}
					if err := r.runCached(&p, Y[:m*in]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
