package solver

import (
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// Every long step of a fit polls Options.Cancel: a fit that would run for
// minutes returns ErrCanceled soon after Cancel turns true. The bound is
// loose (a correctness bound, not a speed measurement): without the polls
// these fits run far longer than it.
func TestCancelStopsLongSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("fits of seconds")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	data := func(m int, shape ...int) *SliceSource {
		n := m
		for _, d := range shape {
			n *= d
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		src, err := NewSliceSource(x, m, shape)
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	cases := []struct {
		name   string
		method Method
		src    *SliceSource
		opts   func(o *Options)
	}{
		// The eigendecomposition of the 1200 x 1200 mode scatter, every
		// iteration: LAPACK, under interruptible.
		{"mpca-eigen", MPCA, data(30, 1200, 2), func(o *Options) { o.MaxIter = 1000; o.Q = 0.999 }},
		// PCA by the Gram of 1500 samples of 6000: blocked products, then
		// the tridiagonal path's loops.
		{"pca-gram", PCA, data(1500, 60, 100), func(o *Options) { o.Components = 40 }},
		// One EMP of 10^6 sweeps: the Krylov updates and the passes.
		{"so-mpca-sweeps", SOMPCA, data(200, 40, 30), func(o *Options) { o.MaxIter = 1000000; o.Tol = 0; o.Components = 2 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := DefaultOptions(c.method)
			c.opts(&opts)
			var stop atomic.Bool
			opts.Cancel = stop.Load
			time.AfterFunc(300*time.Millisecond, func() { stop.Store(true) })
			start := time.Now()
			var m Model
			err := m.Fit(c.src, opts)
			if !errors.Is(err, ErrCanceled) {
				t.Fatalf("Fit: %v, want ErrCanceled", err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("canceled after 0.3 s, returned after %v", took)
			}
			if m.Fitted() {
				t.Error("a canceled fit left a model")
			}
		})
	}
}
