package hdf5io

// #include "shim.h"
import "C"

import (
	"fmt"
	"log"
	"strings"
)

// Layout says where a dataset's samples and modes are.
type Layout int

const (
	// SamplesFirst: shape (M, I_0, ..., I_{N-1}) in HDF5's (row-major)
	// order, as numpy, h5py, C and sompca write it. The default.
	SamplesFirst Layout = iota
	// SamplesLast: shape (I_0, ..., I_{N-1}, M) in HDF5's order, from a
	// row-major writer that put the samples last.
	SamplesLast
	// ColumnMajor: an I_0 x ... x I_{N-1} x M array written by a
	// column-major program (MATLAB -v7.3, R's rhdf5, Julia's HDF5.jl,
	// Fortran), which HDF5 shows as (M, I_{N-1}, ..., I_0). The samples
	// are read with their modes restored to the author's order, so mode n
	// is the author's dimension n+1 and a fit equals the fit of the array
	// as MATLAB holds it.
	ColumnMajor
)

var layoutNames = [...]string{"samples-first", "samples-last", "column-major"}

// String returns the layout's name: "samples-first", "samples-last" or
// "column-major", as the other surfaces of sompca spell it.
func (l Layout) String() string {
	if l >= 0 && int(l) < len(layoutNames) {
		return layoutNames[l]
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// ParseLayout parses a layout name (case and '_' for '-' do not matter).
func ParseLayout(name string) (Layout, error) {
	s := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
	for i, n := range layoutNames {
		if s == n {
			return Layout(i), nil
		}
	}
	return 0, fmt.Errorf("unknown layout %q (want samples-first, samples-last or column-major)", name)
}

// layout returns the layout the options ask for.
func (o Options) layout() Layout {
	if o.SamplesLast && o.Layout == SamplesFirst {
		return SamplesLast
	}
	return o.Layout
}

// reversedModes returns, for samples stored column-major with the
// author's shape, the index in the stored (HDF5) sample of each element of
// the author's sample in C order: the author's element (i_0, ..., i_{N-1})
// is stored at (i_{N-1}, ..., i_0). nil when there is nothing to permute.
func reversedModes(shape []int) []int {
	if len(shape) < 2 {
		return nil
	}
	size := 1
	for _, d := range shape {
		size *= d
	}
	perm := make([]int, size)
	idx := make([]int, len(shape)) // the author's index, C order
	for d := range perm {
		src, stride := 0, 1
		for n, i := range idx { // the stored offset is Fortran order over the author's shape
			src += i * stride
			stride *= shape[n]
		}
		perm[d] = src
		for n := len(idx) - 1; n >= 0; n-- {
			if idx[n]++; idx[n] < shape[n] {
				break
			}
			idx[n] = 0
		}
	}
	return perm
}

// warnColumnMajor warns, through Options.Warn, when the dataset looks
// written by MATLAB (a MATLAB_class attribute, or a 512-byte user block
// as MATLAB -v7.3 files have) but is not read as ColumnMajor. Callers
// hold h5mu.
func (s *Source) warnColumnMajor() {
	var why string
	if _, err := attrInfo(hid(s.dset), "MATLAB_class"); err == nil {
		why = "carries MATLAB's MATLAB_class attribute"
	} else {
		var ub C.hsize_t
		if C.sompca_h5_userblock(hid(s.file), &ub) >= 0 && ub == 512 {
			why = "is in a file with a 512-byte user block, as MATLAB -v7.3 writes"
		}
	}
	if why == "" {
		return
	}
	msg := fmt.Sprintf("%s:%s %s: MATLAB writes column-major, so read as %s its modes are reversed and its samples "+
		"may be on the wrong axis; read it with layout \"column-major\" (Python layout=\"column-major\", "+
		"command line --layout column-major, C SOMPCA_LAYOUT_COLUMN_MAJOR, Go hdf5io.ColumnMajor)",
		s.path, s.dataset, why, s.layout)
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	} else {
		log.Print("hdf5io: warning: " + msg)
	}
}
