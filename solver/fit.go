package solver

import "errors"

// Fit fits m to the samples of src with the given options, replacing
// whatever m held. On error m is left unchanged.
func (m *Model) Fit(src Source, opts Options) error {
	return errors.New("solver: not implemented yet")
}
