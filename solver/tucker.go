package solver

import "errors"

func (f *fitter) fitTucker() (*Model, error) {
	return nil, errors.New("solver: mpca not implemented yet")
}
