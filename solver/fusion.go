package solver

import "gonum.org/v1/gonum/mat"

// AllModes, given as Options.Mode (OrthogonalMode(AllModes)), fits
// SO-MPCA (with or without relaxed start) once per mode n = 0..N-1 and
// fuses the N fits' features (feature-level fusion, the paper's Sec. 5
// question); it is also the Model.Mode of such a model, whose
// Model.FeatureModes says which mode each feature came from (AllModes
// for the first EMP, which every mode's fit shares). See "Feature
// fusion" in the package documentation.
const AllModes = -2

// fitAllModes runs the N single-mode SO-MPCA fits of an AllModes fit over
// the statistics f.stats computed once, and concatenates their features
// in extraction order (mode 0's EMPs, then mode 1's, ...); Model.fit then
// sorts them. Every mode's first EMP is the same (no orthogonality
// constraint applies to it: the uniform projection with relaxed start,
// the same unconstrained sweeps without; bit for bit, fusion_test.go):
// it is kept once, from mode 0's fit, labelled AllModes, and dropped from
// the fits of modes n > 0. With Options.Components = P > 0 each mode's
// fit extracts its first min(P, I_n) EMPs and the P features of largest
// captured variance are kept; P = 0 keeps all
// I_1 + ... + I_N - (N - 1).
func (f *fitter) fitAllModes() (*Model, error) {
	P, progress, spare := f.opts.Components, f.opts.Progress, f.spare
	defer func() {
		f.mode, f.opts.Components, f.opts.Progress, f.spare = AllModes, P, progress, spare
	}()
	// shared: features at the start of modes n > 0's fits that mode 0's
	// fit holds already: the first EMP, which no orthogonality
	// constraint touches (fixedConstraints(0) is empty), so it does not
	// depend on the mode: the uniform projection with relaxed start, the
	// same sweeps from the same start without.
	const shared = 1
	counts := make([]int, f.n)
	total := 0
	for n, d := range f.shape {
		counts[n] = d
		if P > 0 {
			counts[n] = min(P, d)
		}
		total += counts[n]
	}
	total -= (f.n - 1) * shared
	var fused *Model
	done := 0
	for n := range f.n {
		// Each mode's fit starts as a single-mode fit would: the whole
		// spare memory, no cache of partial contractions.
		f.mode, f.opts.Components, f.spare = n, counts[n], spare
		if f.run != nil {
			f.run.dropCaches()
		}
		skip := 0 // leading features of this fit already in fused
		if n > 0 {
			skip = shared
		}
		if progress != nil {
			off := done - skip
			f.opts.Progress = func(d, _ int, v float64) bool {
				if d <= skip {
					return true // a shared EMP: mode 0 reported it
				}
				return progress(off+d, total, v)
			}
		}
		res, err := f.fitTVP()
		if err != nil {
			return nil, err
		}
		res.FeatureModes = make([]int, counts[n])
		for j := range res.FeatureModes {
			res.FeatureModes[j] = n
			if res.Extraction[j] < shared {
				res.FeatureModes[j] = AllModes
			}
			res.Extraction[j] += done - skip
		}
		if fused == nil {
			fused = res
		} else {
			fused.appendFeatures(res, skip)
		}
		done += counts[n] - skip
	}
	if f.run != nil {
		f.run.dropCaches()
	}
	if P > 0 && total > P {
		fused.sortFeatures(ByVariance, false)
		fused.truncate(P)
	}
	return fused, nil
}

// appendFeatures appends the features of o, a fit of the same method on
// the same data, to m's, leaving out o's first skip EMPs (by extraction
// index; o is in extraction order).
func (m *Model) appendFeatures(o *Model, skip int) {
	for k, U := range m.Projections {
		r, a := U.Dims()
		_, c := o.Projections[k].Dims()
		b := c - skip
		V := mat.NewDense(r, a+b, nil)
		V.Slice(0, r, 0, a).(*mat.Dense).Copy(U)
		V.Slice(0, r, a, a+b).(*mat.Dense).Copy(o.Projections[k].Slice(0, r, skip, c))
		m.Projections[k] = V
	}
	m.Variance = append(m.Variance, o.Variance[skip:]...)
	m.Extraction = append(m.Extraction, o.Extraction[skip:]...)
	m.Iterations = append(m.Iterations, o.Iterations[skip:]...)
	m.History = append(m.History, o.History[skip:]...)
	m.FeatureModes = append(m.FeatureModes, o.FeatureModes[skip:]...)
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
