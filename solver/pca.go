package solver

import "errors"

func (f *fitter) fitPCA() (*Model, error) { return nil, errors.New("solver: pca not implemented yet") }
