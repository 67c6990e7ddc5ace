package solver

import (
	"fmt"
	"math"
)

// rescale decides, after the first two passes (mean and total scatter),
// whether the samples are at an extreme scale, and if so makes the fit
// read them times 2^k from now on (reporting true, so that stats runs
// again). The passes' results say when the scale is ordinary; only
// otherwise is their largest |value| found, by one more pass (OpPeak).
// The rule is the same whatever makes the passes (the local runner or a
// driver's Executor): the decision depends on the passes' results only,
// and a driver reads the samples rescaled through Pass.Scale (f.pass).
func (f *fitter) rescale() (bool, error) {
	if f.scaleExp != 0 {
		return false, nil
	}
	perElem := f.total / float64(f.m) / float64(f.size) // mean squared deviation
	meanPeak := maxAbs(f.mean)
	finite := allFinite(f.mean) && !math.IsInf(f.total, 0) && !math.IsNaN(f.total)
	if finite && meanPeak <= 0x1p100 && perElem <= 0x1p200 && perElem >= 0x1p-200 {
		return false, nil
	}
	var peak [1]float64
	if err := f.pass(&Pass{Op: OpPeak, Shape: f.shape, Samples: f.m}, peak[:]); err != nil {
		return false, err
	}
	_, exp := math.Frexp(peak[0]) // peak = frac * 2^exp, frac in [0.5, 1)
	if peak[0] == 0 || (exp >= -scaleLimit && exp <= scaleLimit) {
		return false, nil
	}
	f.scaleExp, f.peak = -exp, peak[0]
	if f.scaled != nil {
		f.scaled.exp = f.scaleExp
	}
	return true, nil
}

// unscale takes a model fitted on rescaled samples back to the samples'
// own scale, or fails if its variances do not fit in a float64.
func (f *fitter) unscale(m *Model) error {
	k := f.scaleExp
	if k == 0 {
		return nil
	}
	for j := range m.Mean {
		m.Mean[j] = math.Ldexp(m.Mean[j], -k)
	}
	squared := func(v []float64) {
		for j := range v {
			v[j] = math.Ldexp(v[j], -2*k)
		}
	}
	squared(m.Variance)
	for _, h := range m.History {
		squared(h)
	}
	scaled := m.TotalVariance
	m.TotalVariance = math.Ldexp(scaled, -2*k)
	ok := m.TotalVariance >= 0x1p-1022 && !math.IsInf(m.TotalVariance, 0)
	for _, h := range m.History { // TROD's residual energies may exceed the variance
		ok = ok && allFinite(h)
	}
	if !ok {
		_, e := math.Frexp(scaled) // total variance = 2^(e - 2k) roughly
		factor := fmt.Sprintf("(%g)", math.Ldexp(1, k))
		if k > 1023 || k < -1022 {
			// The factor itself is no float64 (denormal samples): an
			// exponent shift, as numpy's ldexp or Go's math.Ldexp do.
			factor = fmt.Sprintf("(a factor beyond float64's range: shift the exponents, e.g. numpy.ldexp(X, %d))", k)
		}
		return errorf(ErrData, "solver: the samples' scale is out of float64's range for a fit: the largest |value| is %g, "+
			"so the total variance would be about 2^%d, beyond float64's 2^-1022..2^1023; multiply the samples by "+
			"about 2^%d %s and fit again", f.peak, e-2*k, k, factor)
	}
	return nil
}

// scaledSource reads a Source's samples multiplied by 2^exp, as float64;
// with exp = 0 it hands out the source's blocks as they are.
type scaledSource struct {
	Source
	exp int
	buf []float64
}

func (s *scaledSource) Read(start, n int) (Block, error) {
	b, err := s.Source.Read(start, n)
	if err != nil || s.exp == 0 {
		return b, err
	}
	k := b.elems()
	if cap(s.buf) < k {
		s.buf = make([]float64, k)
	}
	out := s.buf[:k]
	for i := range out {
		out[i] = math.Ldexp(b.at(i), s.exp)
	}
	return Block{F64: out}, nil
}

// MaxRead passes on the wrapped source's bound on samples per Read.
func (s *scaledSource) MaxRead() int {
	if mr, ok := s.Source.(interface{ MaxRead() int }); ok {
		return mr.MaxRead()
	}
	return math.MaxInt
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	return m
}

// peakOf returns the largest |value| of x.
func peakOf(x Block) float64 {
	peak := 0.0
	switch {
	case x.F64 != nil:
		peak = maxAbs(x.F64)
	case x.F32 != nil:
		for _, v := range x.F32 {
			peak = max(peak, math.Abs(float64(v)))
		}
	default:
		for _, v := range x.U8 {
			peak = max(peak, float64(v))
		}
	}
	return peak
}

// scaleBlock returns x's values times 2^exp as float64, the values
// scaledSource.Read gives, in ws's buffer.
func (ws *Workspace) scaleBlock(x Block, exp int) Block {
	k := x.elems()
	ws.scaled = grow(ws.scaled, k)
	for i := range ws.scaled {
		ws.scaled[i] = math.Ldexp(x.at(i), exp)
	}
	return Block{F64: ws.scaled}
}
