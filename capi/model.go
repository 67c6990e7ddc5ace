package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// accessor runs the body of a model accessor: it checks out and the
// handle. out is any pointer the export must write (nil is reported).
func accessor(name string, model *C.sompca_cmodel, out unsafe.Pointer, body func(m *solver.Model) error) C.int {
	return run(name, func() error {
		if out == nil {
			return errorf(C.SOMPCA_EINVAL, "output pointer is NULL")
		}
		m, err := modelOf(model)
		if err != nil {
			return err
		}
		return body(m)
	})
}

// copyOut copies src into the caller's buffer dst[capacity] of C type E
// (double, size_t, int64_t), converting each element.
func copyOut[E, T C.double | C.size_t | C.int64_t | float64 | int](dst *E, capacity C.size_t, src []T, what string) error {
	if err := checkDst(unsafe.Pointer(dst), capacity, len(src), "elements", "%s", what); err != nil {
		return err
	}
	out := unsafe.Slice(dst, len(src))
	for i, v := range src {
		out[i] = E(v)
	}
	return nil
}

//export sompca_go_model_method
func sompca_go_model_method(model *C.sompca_cmodel, out *C.int, outRelaxedStart *C.int) C.int {
	return accessor("sompca_model_method", model, unsafe.Pointer(out), func(m *solver.Model) error {
		*out = C.int(m.Method)
		if outRelaxedStart != nil {
			*outRelaxedStart = 0
			if m.RelaxedStart {
				*outRelaxedStart = 1
			}
		}
		return nil
	})
}

//export sompca_go_model_n_components
func sompca_go_model_n_components(model *C.sompca_cmodel, out *C.size_t) C.int {
	return accessor("sompca_model_n_components", model, unsafe.Pointer(out), func(m *solver.Model) error {
		*out = C.size_t(m.Components())
		return nil
	})
}

//export sompca_go_model_order
func sompca_go_model_order(model *C.sompca_cmodel, out *C.size_t) C.int {
	return accessor("sompca_model_order", model, unsafe.Pointer(out), func(m *solver.Model) error {
		*out = C.size_t(len(m.Shape))
		return nil
	})
}

//export sompca_go_model_shape
func sompca_go_model_shape(model *C.sompca_cmodel, dst *C.size_t, capacity C.size_t) C.int {
	return accessor("sompca_model_shape", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		return copyOut(dst, capacity, m.Shape, "the shape")
	})
}

//export sompca_go_model_mode
func sompca_go_model_mode(model *C.sompca_cmodel, out *C.int) C.int {
	return accessor("sompca_model_mode", model, unsafe.Pointer(out), func(m *solver.Model) error {
		*out = C.int(m.Mode) // 0-based, -1 = not so-mpca, in both

		return nil
	})
}

//export sompca_go_model_feature_modes
func sompca_go_model_feature_modes(model *C.sompca_cmodel, dst *C.int64_t, capacity C.size_t) C.int {
	return accessor("sompca_model_feature_modes", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		modes := m.FeatureModes
		if modes == nil {
			modes = make([]int, m.Components())
			for j := range modes {
				modes[j] = m.Mode // the single mode, or -1
			}
		}
		return copyOut(dst, capacity, modes, "the feature modes")
	})
}

//export sompca_go_model_n_samples
func sompca_go_model_n_samples(model *C.sompca_cmodel, out *C.size_t) C.int {
	return accessor("sompca_model_n_samples", model, unsafe.Pointer(out), func(m *solver.Model) error {
		*out = C.size_t(m.Samples)
		return nil
	})
}

//export sompca_go_model_mean
func sompca_go_model_mean(model *C.sompca_cmodel, dst *C.double, capacity C.size_t) C.int {
	return accessor("sompca_model_mean", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		return copyOut(dst, capacity, m.Mean, "the mean")
	})
}

//export sompca_go_model_projection
func sompca_go_model_projection(model *C.sompca_cmodel, mode C.size_t, dst *C.double, capacity C.size_t) C.int {
	return accessor("sompca_model_projection", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		if uint64(mode) >= uint64(len(m.Projections)) {
			return errorf(C.SOMPCA_EINVAL, "mode is %d: the %s model has projection matrices for modes 0..%d", uint64(mode), m.Method, len(m.Projections)-1)
		}
		u := m.Projections[mode]
		r, c := u.Dims()
		if err := checkDst(unsafe.Pointer(dst), capacity, r*c, "doubles", "the %d x %d projection of mode %d", r, c, uint64(mode)); err != nil {
			return err
		}
		out := unsafe.Slice((*float64)(unsafe.Pointer(dst)), r*c)
		raw := u.RawMatrix()
		for i := 0; i < r; i++ {
			copy(out[i*c:(i+1)*c], raw.Data[i*raw.Stride:i*raw.Stride+c])
		}
		return nil
	})
}

//export sompca_go_model_variance
func sompca_go_model_variance(model *C.sompca_cmodel, dst *C.double, capacity C.size_t) C.int {
	return accessor("sompca_model_variance", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		return copyOut(dst, capacity, m.Variance, "the captured variances")
	})
}

//export sompca_go_model_variance_ratio
func sompca_go_model_variance_ratio(model *C.sompca_cmodel, dst *C.double, capacity C.size_t) C.int {
	return accessor("sompca_model_variance_ratio", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		if !(m.TotalVariance > 0) {
			return errorf(C.SOMPCA_EDATA, "the model's total variance is %g: no ratio", m.TotalVariance)
		}
		if err := copyOut(dst, capacity, m.Variance, "the variance ratios"); err != nil {
			return err
		}
		out := unsafe.Slice((*float64)(unsafe.Pointer(dst)), len(m.Variance))
		for j := range out {
			out[j] /= m.TotalVariance
		}
		return nil
	})
}

//export sompca_go_model_extraction
func sompca_go_model_extraction(model *C.sompca_cmodel, dst *C.int64_t, capacity C.size_t) C.int {
	return accessor("sompca_model_extraction", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		return copyOut(dst, capacity, m.Extraction, "the extraction indices")
	})
}

//export sompca_go_model_iterations
func sompca_go_model_iterations(model *C.sompca_cmodel, dst *C.int64_t, capacity C.size_t) C.int {
	return accessor("sompca_model_iterations", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		return copyOut(dst, capacity, m.Iterations, "the iteration counts")
	})
}

//export sompca_go_model_history
func sompca_go_model_history(model *C.sompca_cmodel, feature C.size_t, dst *C.double, capacity C.size_t, outLen *C.size_t) C.int {
	return accessor("sompca_model_history", model, unsafe.Pointer(outLen), func(m *solver.Model) error {
		if uint64(feature) >= uint64(m.Components()) {
			return errorf(C.SOMPCA_EINVAL, "feature is %d: the model has features 0..%d", uint64(feature), m.Components()-1)
		}
		var h []float64
		if int(feature) < len(m.History) {
			h = m.History[feature]
		}
		*outLen = C.size_t(len(h))
		if dst == nil && capacity == 0 {
			return nil // a query of the length
		}
		return copyOut(dst, capacity, h, "the objective history")
	})
}

//export sompca_go_model_options
func sompca_go_model_options(model *C.sompca_cmodel, out *C.sompca_options) C.int {
	return accessor("sompca_model_options", model, unsafe.Pointer(out), func(m *solver.Model) error {
		o := cOptions(solver.Options{Method: m.Method, RelaxedStart: m.RelaxedStart, Components: m.Components(),
			MaxIter: m.MaxIter, Tol: m.Tol, Q: m.Q, Order: m.Order}, m.Mode)
		*out = o
		return nil
	})
}

//export sompca_go_model_ranks
func sompca_go_model_ranks(model *C.sompca_cmodel, dst *C.size_t, capacity C.size_t) C.int {
	return accessor("sompca_model_ranks", model, unsafe.Pointer(dst), func(m *solver.Model) error {
		if m.Ranks == nil {
			return errorf(C.SOMPCA_EINVAL, "a %v model has no mode ranks (only mpca and csa have)", m.Method)
		}
		return copyOut(dst, capacity, m.Ranks, "the mode ranks")
	})
}
