package solver

import (
	"math"
)

// Extreme scales. A fit forms sums of squares and products of the samples
// (scatter matrices, Gram matrices, norms), which overflow for values much
// above 1e150 and lose every digit to underflow much below 1e-150. When
// the largest |value| of the samples lies outside [2^-scaleLimit,
// 2^scaleLimit], the fit reads them multiplied by a power of two 2^k that
// brings it into [0.5, 1) (exact: only the exponents change) and scales
// the results back: projections do not change, the mean scales by 2^-k,
// variances and objective histories by 2^-2k. Samples within the window
// are read as they are, so ordinary fits are unchanged bit for bit. A
// model whose variances cannot be represented in float64 (the data's
// scale squared is outside its range) is an ErrData naming the scale.
const scaleLimit = 100

// rescale decides, after the first two passes (mean and total scatter),
// whether the samples are at an extreme scale, and if so makes the fit
// read them times 2^k from now on (reporting true, so that stats runs
// again). The passes' results say when the scale is ordinary; only
// otherwise are the samples read once more for their largest |value|.
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
	if f.scaled == nil { // FitWith: the samples are read elsewhere
		if finite && perElem <= 0x1p200 {
			return false, nil // small values: the zero-variance check and the results' range check decide
		}
		return false, errorf(ErrData, "solver: the samples' scale is too large for float64 arithmetic (total scatter %g); "+
			"multiply them by a power of two that brings their values near 1 and fit again", f.total)
	}
	peak, err := f.scaled.peak(f.run.block, f.run.isCanceled)
	if err != nil {
		return false, err
	}
	_, exp := math.Frexp(peak) // peak = frac * 2^exp, frac in [0.5, 1)
	if peak == 0 || (exp >= -scaleLimit && exp <= scaleLimit) {
		return false, nil
	}
	f.scaleExp, f.peak = -exp, peak
	f.scaled.exp = f.scaleExp
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
		return errorf(ErrData, "solver: the samples' scale is out of float64's range for a fit: the largest |value| is %g, "+
			"so the total variance would be about 2^%d, beyond float64's 2^-1022..2^1023; multiply the samples by "+
			"about 2^%d (%g) and fit again", f.peak, e-2*k, k, math.Ldexp(1, k))
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

// peak reads every sample, runs of block samples at a time, and returns
// the largest |value|; canceled is polled between reads.
func (s *scaledSource) peak(block int, canceled func() bool) (float64, error) {
	peak, m := 0.0, s.Len()
	for start := 0; start < m; start += block {
		if canceled() {
			return 0, ErrCanceled
		}
		b, err := s.Source.Read(start, min(block, m-start))
		if err != nil {
			return 0, err
		}
		switch {
		case b.F64 != nil:
			peak = max(peak, maxAbs(b.F64))
		case b.F32 != nil:
			for _, v := range b.F32 {
				peak = max(peak, math.Abs(float64(v)))
			}
		default:
			for _, v := range b.U8 {
				peak = max(peak, float64(v))
			}
		}
	}
	return peak, nil
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
