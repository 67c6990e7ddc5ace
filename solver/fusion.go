package solver

import "gonum.org/v1/gonum/mat"

// AllModes, given as Options.Mode (OrthogonalMode(AllModes)), fits
// SO-MPCA (with or without relaxed start) once per mode n = 0..N-1 and
// fuses the N fits' features (feature-level fusion, the paper's Sec. 5
// question); it is also the Model.Mode of such a model, whose
// Model.FeatureModes says which mode each feature came from. See
// "Feature fusion" in the package documentation.
const AllModes = -2

// fitAllModes runs the N single-mode SO-MPCA fits of an AllModes fit over
// the statistics f.stats computed once, and concatenates their features
// in extraction order (mode 0's EMPs, then mode 1's, ...); Model.fit then
// sorts them. With Options.Components = P > 0 each mode's fit extracts
// its first min(P, I_n) EMPs and the P features of largest captured
// variance are kept; P = 0 keeps all I_1 + ... + I_N.
func (f *fitter) fitAllModes() (*Model, error) {
	P, progress, spare := f.opts.Components, f.opts.Progress, f.spare
	defer func() {
		f.mode, f.opts.Components, f.opts.Progress, f.spare = AllModes, P, progress, spare
	}()
	counts := make([]int, f.n)
	total := 0
	for n, d := range f.shape {
		counts[n] = d
		if P > 0 {
			counts[n] = min(P, d)
		}
		total += counts[n]
	}
	var fused *Model
	done := 0
	for n := range f.n {
		// Each mode's fit starts as a single-mode fit would: the whole
		// spare memory, no cache of partial contractions.
		f.mode, f.opts.Components, f.spare = n, counts[n], spare
		if f.run != nil {
			f.run.z, f.run.zValid = nil, false
		}
		if progress != nil {
			off := done
			f.opts.Progress = func(d, _ int, v float64) bool { return progress(off+d, total, v) }
		}
		res, err := f.fitTVP()
		if err != nil {
			return nil, err
		}
		res.FeatureModes = make([]int, counts[n])
		for j := range res.FeatureModes {
			res.FeatureModes[j] = n
			res.Extraction[j] += done
		}
		if fused == nil {
			fused = res
		} else {
			fused.appendFeatures(res)
		}
		done += counts[n]
	}
	if f.run != nil {
		f.run.z, f.run.zValid = nil, false
	}
	if P > 0 && total > P {
		fused.sortFeatures(ByVariance, false)
		fused.truncate(P)
	}
	return fused, nil
}

// appendFeatures appends the features of o, a fit of the same method on
// the same data, to m's.
func (m *Model) appendFeatures(o *Model) {
	for k, U := range m.Projections {
		r, a := U.Dims()
		_, b := o.Projections[k].Dims()
		V := mat.NewDense(r, a+b, nil)
		V.Slice(0, r, 0, a).(*mat.Dense).Copy(U)
		V.Slice(0, r, a, a+b).(*mat.Dense).Copy(o.Projections[k])
		m.Projections[k] = V
	}
	m.Variance = append(m.Variance, o.Variance...)
	m.Extraction = append(m.Extraction, o.Extraction...)
	m.Iterations = append(m.Iterations, o.Iterations...)
	m.History = append(m.History, o.History...)
	m.FeatureModes = append(m.FeatureModes, o.FeatureModes...)
}

// truncate keeps m's first p features (every per-feature field).
func (m *Model) truncate(p int) {
	for k, U := range m.Projections {
		r, _ := U.Dims()
		m.Projections[k] = mat.DenseCopyOf(U.Slice(0, r, 0, p))
	}
	m.Variance = m.Variance[:p:p]
	m.Extraction = m.Extraction[:p:p]
	m.Iterations = m.Iterations[:p:p]
	if m.History != nil {
		m.History = m.History[:p:p]
	}
	if m.FeatureModes != nil {
		m.FeatureModes = m.FeatureModes[:p:p]
	}
}
