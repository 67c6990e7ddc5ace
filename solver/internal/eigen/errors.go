package eigen

import (
	"errors"
	"fmt"
	"math"
)

// ErrNumerical is the error of an eigensolver that failed on finite
// input (no convergence); the solver package exports it as
// solver.ErrNumerical.
var ErrNumerical = errors.New("solver: numerical failure")

// numericalError is ErrNumerical with its own message.
type numericalError struct{ msg string }

func (e *numericalError) Error() string { return e.msg }
func (e *numericalError) Unwrap() error { return ErrNumerical }

// numericalf returns an ErrNumerical with a message formatted as
// fmt.Sprintf.
func numericalf(format string, args ...any) error {
	return &numericalError{msg: fmt.Sprintf(format, args...)}
}

// grow returns b resized to n, reallocated only when its capacity is
// short.
func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// maxAbs returns the largest |x[i]| (0 for none).
func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	return m
}
