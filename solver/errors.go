package solver

import (
	"errors"
	"fmt"

	"github.com/sompca/sompca/solver/internal/eigen"
)

// Errors returned by the package wrap one of these kinds, so that callers
// (the C interface among them) can tell them apart with errors.Is; the
// message itself says exactly what is wrong.
var (
	// ErrInvalid: an option value the method cannot take (including more
	// features than the method can give on this data).
	ErrInvalid = errors.New("solver: invalid option")
	// ErrShape: a sample shape, a length or a size that does not agree.
	ErrShape = errors.New("solver: shape mismatch")
	// ErrData: data that cannot be fitted: fewer than 2 samples, NaN or
	// Inf values, zero variance.
	ErrData = errors.New("solver: bad data")
	// ErrNotFitted: a model used before Fit.
	ErrNotFitted = errors.New("solver: model is not fitted")
	// ErrSource: Source.Read failed. The error also wraps the source's
	// own error (errors.Is and errors.As see both), and its message is
	// the source's, after the samples that were being read.
	ErrSource = errors.New("solver: reading the samples failed")
	// ErrNumerical: the numerics failed on data that passed every check
	// (an eigendecomposition or Lanczos iteration that did not converge).
	ErrNumerical = eigen.ErrNumerical
)

// SampleError is the error for one bad sample (a NaN or Inf value): it
// is ErrData for errors.Is and carries the sample's index, 0-based in the
// Source that was read, for errors.As.
type SampleError struct {
	Index  int    // the sample
	Reason string // what is wrong with it, e.g. "holds a NaN or Inf value"
}

func (e *SampleError) Error() string { return fmt.Sprintf("solver: sample %d %s", e.Index, e.Reason) }
func (e *SampleError) Unwrap() error { return ErrData }

// nonFinite returns the SampleError of sample i holding a NaN or Inf.
func nonFinite(i int) error { return &SampleError{Index: i, Reason: "holds a NaN or Inf value"} }

// sourceError is a failed Source.Read: ErrSource and the source's error.
type sourceError struct {
	start, n int
	err      error
}

func (e *sourceError) Error() string {
	return fmt.Sprintf("solver: reading samples [%d, %d): %v", e.start, e.start+e.n, e.err)
}
func (e *sourceError) Unwrap() []error { return []error{ErrSource, e.err} }

// kindError is an error of one of the kinds above with its own message.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// errorf returns an error of the given kind, formatted as fmt.Sprintf.
func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}
