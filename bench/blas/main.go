// Command blas measures what issue 18's point 6 asks before any BLAS
// backend is adopted: the PCA Gram matrix X X^T (X of M x D, by default
// 3000 x 6000 as in the speed table) with gonum's pure-Go Dgemm, which the
// solver uses, and with OpenBLAS through gonum's netlib cgo wrapper
// (blas64.Use), in CPU seconds (user + system, all threads) and wall
// seconds, with the largest relative difference of the two products; then
// the tridiagonal reduction of that Gram matrix (Dsytrd, the bulk of PCA's
// eigenvector step at M = 3000), gonum's against OpenBLAS's LAPACK.
//
// It is its own Go module so that the project's module does not depend on
// cgo BLAS: make bench-blas installs Debian's libopenblas-dev and
// liblapacke-dev and runs it.
//
//	go run . [M D]     (CGO_LDFLAGS=-lopenblas, OPENBLAS_NUM_THREADS as wanted)
package main

/*
#cgo LDFLAGS: -llapacke
#include <lapacke.h>
*/
import "C"

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/netlib/blas/netlib"
)

// cpuSeconds is the process's user + system time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func main() {
	m, d := 3000, 6000
	if len(os.Args) == 3 {
		var err1, err2 error
		m, err1 = strconv.Atoi(os.Args[1])
		d, err2 = strconv.Atoi(os.Args[2])
		if err1 != nil || err2 != nil || m < 1 || d < 1 {
			fmt.Fprintln(os.Stderr, "usage: blas [M D]")
			os.Exit(2)
		}
	}
	// Integer-valued data as bench/run.py's (0..255, centred by 127.5).
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, m*d)
	for i := range x {
		x[i] = float64(rng.IntN(256)) - 127.5
	}
	X := blas64.General{Rows: m, Cols: d, Stride: d, Data: x}
	var out [2][]float64
	for k, impl := range []blas.Float64{gonum.Implementation{}, netlib.Implementation{}} {
		blas64.Use(impl)
		c := make([]float64, m*m)
		C := blas64.General{Rows: m, Cols: m, Stride: m, Data: c}
		t0, c0 := time.Now(), cpuSeconds()
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, X, X, 0, C)
		wall, cpu := time.Since(t0).Seconds(), cpuSeconds()-c0
		fma := float64(m) * float64(m) * float64(d)
		fmt.Printf("%-22T X X^T, X %d x %d: cpu %6.2f s (%5.1f GFMA per CPU second), wall %6.2f s\n",
			impl, m, d, cpu, fma/cpu/1e9, wall)
		out[k] = c
	}
	worst := 0.0
	for i := range out[0] {
		worst = math.Max(worst, math.Abs(out[0][i]-out[1][i])/math.Max(1, math.Abs(out[0][i])))
	}
	fmt.Printf("largest relative difference, gonum vs OpenBLAS: %.3g\n", worst)

	// The tridiagonal reduction PCA's eigenvectors start from (Dsytrd of
	// the M x M Gram matrix), gonum's against OpenBLAS's LAPACK (LAPACKE).
	var diag [2][]float64
	for k, impl := range []lapackImpl{lapackgonum.Implementation{}, lapacke{}} {
		a := append([]float64(nil), out[0]...)
		dd, e, tau := make([]float64, m), make([]float64, m-1), make([]float64, m-1)
		work := []float64{0}
		impl.Dsytrd(blas.Upper, m, a, m, dd, e, tau, work, -1)
		work = make([]float64, int(work[0]))
		t0, c0 := time.Now(), cpuSeconds()
		impl.Dsytrd(blas.Upper, m, a, m, dd, e, tau, work, len(work))
		wall, cpu := time.Since(t0).Seconds(), cpuSeconds()-c0
		fmt.Printf("%-28T Dsytrd, n = %d: cpu %6.2f s, wall %6.2f s\n", impl, m, cpu, wall)
		diag[k] = dd
	}
	worst = 0
	for i := range diag[0] {
		worst = math.Max(worst, math.Abs(diag[0][i]-diag[1][i])/math.Max(1, math.Abs(diag[0][i])))
	}
	fmt.Printf("largest relative difference of the tridiagonal's diagonal: %.3g\n", worst)
}

// lapacke is OpenBLAS's Dsytrd through LAPACKE (gonum's netlib LAPACK
// wrapper, last released in 2019, does not build against gonum v0.17).
type lapacke struct{}

func (lapacke) Dsytrd(uplo blas.Uplo, n int, a []float64, lda int, d, e, tau, work []float64, lwork int) {
	if lwork == -1 {
		work[0] = 1
		return
	}
	ul := C.char('U')
	if uplo == blas.Lower {
		ul = 'L'
	}
	C.LAPACKE_dsytrd(C.LAPACK_ROW_MAJOR, ul, C.lapack_int(n), (*C.double)(&a[0]), C.lapack_int(lda),
		(*C.double)(&d[0]), (*C.double)(&e[0]), (*C.double)(&tau[0]))
}

// lapackImpl is the one LAPACK routine compared.
type lapackImpl interface {
	Dsytrd(uplo blas.Uplo, n int, a []float64, lda int, d, e, tau, work []float64, lwork int)
}
