package solver

import (
	"errors"
	"fmt"
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
)

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
