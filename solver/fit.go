package solver

import (
	"math"
	"runtime"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Fit fits m to the samples of src with the given options, replacing
// whatever m held. On error m is left unchanged.
func (m *Model) Fit(src Source, opts Options) error {
	if rc, ok := src.(ReadCounter); ok && opts.ReadProgress != nil {
		// Before newFitter, whose planMemory may load the dataset whole.
		rc.SetReadHook(func() bool { return opts.ReadProgress(rc.BytesRead(), rc.DataBytes()) })
		defer rc.SetReadHook(nil)
	}
	f, err := newFitter(src, opts)
	if err != nil {
		return err
	}
	defer f.run.close()
	return m.fit(f)
}

// newFitter prepares a fit over src: options checked, memory planned, and
// the local runner as executor.
func newFitter(src Source, opts Options) (*fitter, error) {
	if src == nil {
		return nil, errorf(ErrInvalid, "solver: nil source")
	}
	f, err := newFitterFor(src.Shape(), src.Len(), opts)
	if err != nil {
		return nil, err
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if err := f.planMemory(src, threads); err != nil {
		return nil, err
	}
	// The runner reads through scaledSource, which passes the samples on
	// as they are unless stats finds them at an extreme scale; float
	// samples in memory through an exact narrower copy when they allow it.
	f.scaled = &scaledSource{Source: f.narrow(src)}
	f.run = newRunner(f.scaled, f.size, threads)
	f.run.routes = opts.routes
	f.run.canceled = opts.Cancel
	f.exec = f.run
	return f, nil
}

// FitWith fits m, like Fit, to the samples that ex makes its passes over:
// M samples of the given shape. This is the entry of a driver that
// computes the passes' partial results elsewhere (see Executor and
// docs/DESIGN.md, "The reduction tree"); Options.Threads is then ex's business, and
// MemoryLimit covers only the fit's own workspaces.
func (m *Model) FitWith(ex Executor, shape []int, samples int, opts Options) error {
	if ex == nil {
		return errorf(ErrInvalid, "solver: nil executor")
	}
	f, err := newFitterFor(shape, samples, opts)
	if err != nil {
		return err
	}
	if err := f.planMemory(nil, 1); err != nil {
		return err
	}
	f.exec = ex
	return m.fit(f)
}

func (m *Model) fit(f *fitter) error {
	if err := f.stats(); err != nil {
		return err
	}
	var res *Model
	var err error
	switch f.spec.family {
	case familyTVP:
		if f.mode == AllModes {
			res, err = f.fitAllModes()
		} else {
			res, err = f.fitTVP()
		}
	case familyPCA:
		res, err = f.fitPCA()
	case familyTucker:
		res, err = f.fitTucker()
	}
	if err != nil {
		return err
	}
	res.Method = f.opts.Method
	res.RelaxedStart = f.opts.RelaxedStart
	res.Mode = f.mode
	res.Shape = append([]int(nil), f.shape...)
	res.Samples = f.m
	res.MaxIter = f.opts.MaxIter
	res.Tol = f.opts.Tol
	res.Q = f.opts.Q
	res.Order = f.opts.Order
	res.TotalVariance = f.total / float64(f.m-1)
	if res.Mean == nil {
		res.Mean = make([]float64, f.size)
	}
	if err := f.unscale(res); err != nil {
		return err
	}
	res.sortFeatures(f.opts.Order, f.spec.rankByEnergy)
	*m = *res
	return nil
}

// fitter holds what every method needs during one fit.
type fitter struct {
	opts  Options
	spec  *methodSpec // opts.Method's entry in the method table
	mode  int         // SO-MPCA's orthogonal mode, 0-based; -1 for other methods
	shape []int
	n     int // order N
	size  int // elements per sample
	m     int // samples M
	exec  Executor
	run   *runner // exec when the fit runs locally, else nil
	c     *contractor
	// mean is the training mean; meanUsed is the mean the method
	// subtracts (the mean, or nil for TROD and CSA).
	mean, meanUsed []float64
	total          float64 // total scatter sum_m ||X_m - mean||^2
	// spare is what Options.MemoryLimit leaves for the cache of partial
	// contractions once workspaces and the source are served (planMemory).
	spare int64
	// scaled is the local fit's source, read times 2^scaleExp when the
	// samples' scale is extreme (scale.go); nil for FitWith, whose passes
	// carry the scale (Pass.Scale). peak is then their largest |value|.
	scaled   *scaledSource
	scaleExp int
	peak     float64
	// scatterUpdates: the TVP mode updates fold the I_n x I_n scatter
	// (OpModeScatter) rather than keep the rows (Options.ModeUpdates).
	scatterUpdates bool
	// float32Values: every value of every sample is a float32 value (the
	// sum pass finds it, whatever the samples' type; uint8 values are):
	// such samples are read as uint8 or float32 (narrowed when resident),
	// and their TVP sweeps contract mode 1 first (see tvpFit.lead).
	float32Values bool
}

// Validate checks the options for a fit of m samples of the given shape
// as Fit does before any work, and returns the error Fit would (ErrInvalid
// for an option, ErrShape, ErrData for too few samples). A bound that
// depends on the data (more features than the method gives) is checked by
// Fit only.
func (o Options) Validate(shape []int, m int) error {
	_, err := newFitterFor(shape, m, o)
	return err
}

// newFitterFor checks the options for a fit of m samples of the given
// shape.
func newFitterFor(shape []int, m int, opts Options) (*fitter, error) {
	size, err := sampleSize(shape)
	if err != nil {
		return nil, err
	}
	if m < 2 {
		return nil, errorf(ErrData, "solver: %d samples: a fit needs at least 2", m)
	}
	spec := opts.Method.spec()
	if spec == nil {
		return nil, errorf(ErrInvalid, "solver: unknown method %d", int(opts.Method))
	}
	if opts.RelaxedStart && spec.family != familyTVP {
		return nil, errorf(ErrInvalid, "solver: relaxed start applies only to the TVP methods (%s), not %v", strings.Join(tvpNames(), ", "), opts.Method)
	}
	if opts.MaxIter < 0 {
		return nil, errorf(ErrInvalid, "solver: MaxIter = %d: want >= 0 (0 means %d)", opts.MaxIter, MethodDefaults(opts.Method).MaxIter)
	}
	if opts.MaxIter == 0 {
		opts.MaxIter = MethodDefaults(opts.Method).MaxIter
	}
	if !(opts.Tol >= 0) || math.IsInf(opts.Tol, 1) {
		return nil, errorf(ErrInvalid, "solver: Tol = %v: want a finite value >= 0", opts.Tol)
	}
	if opts.Threads < 0 {
		return nil, errorf(ErrInvalid, "solver: Threads = %d: want 0 (GOMAXPROCS) or a positive count", opts.Threads)
	}
	if opts.Q == 0 {
		opts.Q = MethodDefaults(opts.Method).Q
	}
	if !(opts.Q > 0 && opts.Q <= 1) {
		return nil, errorf(ErrInvalid, "solver: Q = %v: want 0 < Q <= 1", opts.Q)
	}
	if opts.Components < 0 {
		return nil, errorf(ErrInvalid, "solver: Components = %d: want >= 0 (0 selects the default)", opts.Components)
	}
	if opts.Order != ByVariance && opts.Order != ByExtraction {
		return nil, errorf(ErrInvalid, "solver: unknown feature order %d", int(opts.Order))
	}
	if opts.ModeUpdates < ModeUpdatesAuto || opts.ModeUpdates > ModeUpdatesScatter {
		return nil, errorf(ErrInvalid, "solver: ModeUpdates = %d: want ModeUpdatesAuto (0), ModeUpdatesRows (1) or ModeUpdatesScatter (2)", int(opts.ModeUpdates))
	}
	mode := -1
	if spec.constraint == orthogonalNu {
		mode = 0
		if opts.Mode != nil {
			mode = *opts.Mode
			if (mode < 0 || mode >= len(shape)) && mode != AllModes {
				return nil, errorf(ErrInvalid, "solver: orthogonal mode %d outside 0..%d (0-based) for sample shape %v (nil selects argmax_n I_n, AllModes = %d fits every mode)", mode, len(shape)-1, shape, AllModes)
			}
		} else {
			for n, d := range shape {
				if d > shape[mode] {
					mode = n
				}
			}
		}
	}
	f := &fitter{
		opts:  opts,
		spec:  spec,
		mode:  mode,
		shape: append([]int(nil), shape...),
		n:     len(shape),
		size:  size,
		m:     m,
		// One rule for Fit, FitWith and sessions (ModeUpdates.Resolve).
		scatterUpdates: opts.ModeUpdates.Resolve(shape, m) == ModeUpdatesScatter,
	}
	f.c = newContractor(f.shape)
	f.c.routes = opts.routes
	return f, nil
}

// stats makes two passes: the mean (checking every value is finite),
// then the total scatter about it.
func (f *fitter) stats() error {
	sum := make([]float64, f.size+2)
	if err := f.pass(&Pass{Op: OpSum, Shape: f.shape, Samples: f.m}, sum); err != nil {
		return err
	}
	if bad := int(sum[f.size]); bad >= 0 {
		return nonFinite(bad)
	}
	f.float32Values = sum[f.size+1] < 0
	f.mean = sum[:f.size:f.size]
	floats.Scale(1/float64(f.m), f.mean)
	if f.spec.centred {
		f.meanUsed = f.mean
	}
	var total [1]float64
	if err := f.pass(&Pass{Op: OpSquares, Shape: f.shape, Samples: f.m, Mean: f.mean}, total[:]); err != nil {
		return err
	}
	f.total = total[0]
	if rescaled, err := f.rescale(); err != nil || rescaled {
		if err != nil {
			return err
		}
		return f.stats() // again, on the rescaled samples
	}
	// Identical samples have zero variance, but their computed mean can
	// differ from them by rounding (up to about M eps |mean| per element),
	// which leaves a total scatter of rounding noise to fit features to.
	noise := 2 * float64(f.m) * 0x1p-52 * floats.Norm(f.mean, 2)
	if !(f.total > float64(f.m)*noise*noise) {
		return errorf(ErrData, "solver: the %d samples have zero variance (all samples are identical, up to rounding)", f.m)
	}
	return nil
}

// pass runs p on the fit's executor; the local runner serves the mode
// scatters of a TVP fit from its cache when it can. The local runner
// reads rescaled samples through f.scaled; a driver's executor is told
// the scale in the pass.
func (f *fitter) pass(p *Pass, out []float64) error {
	if f.run == nil {
		p.Scale = f.scaleExp
		return f.exec.Run(p, out)
	}
	if p.Op == OpModeScatter || p.Op == OpModeRows {
		return f.run.runCached(p, out)
	}
	return f.exec.Run(p, out)
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// sortFeatures reorders every per-feature field of m by the given order:
// by captured variance (or, for CSA, energy), descending and stable, or by
// extraction. energy is only read for CSA.
func (m *Model) sortFeatures(order FeatureOrder, byEnergy bool) {
	p := len(m.Variance)
	idx := make([]int, p)
	for i := range idx {
		idx[i] = i
	}
	if order == ByVariance {
		key := m.Variance
		if byEnergy {
			key = m.energy
		}
		sort.SliceStable(idx, func(a, b int) bool { return key[idx[a]] > key[idx[b]] })
	} else {
		sort.SliceStable(idx, func(a, b int) bool { return m.Extraction[idx[a]] < m.Extraction[idx[b]] })
	}
	m.energy = nil
	permF := func(v []float64) []float64 {
		out := make([]float64, p)
		for j, i := range idx {
			out[j] = v[i]
		}
		return out
	}
	m.Variance = permF(m.Variance)
	ext := make([]int, p)
	it := make([]int, p)
	var hist [][]float64
	if m.History != nil && len(m.History) == p {
		hist = make([][]float64, p)
	}
	for j, i := range idx {
		ext[j] = m.Extraction[i]
		it[j] = m.Iterations[i]
		if hist != nil {
			hist[j] = m.History[i]
		}
	}
	m.Extraction, m.Iterations = ext, it
	if hist != nil {
		m.History = hist
	}
	if m.FeatureModes != nil {
		fm := make([]int, p)
		for j, i := range idx {
			fm[j] = m.FeatureModes[i]
		}
		m.FeatureModes = fm
	}
	for k, U := range m.Projections {
		r, _ := U.Dims()
		V := mat.NewDense(r, p, nil)
		for j, i := range idx {
			for a := range r {
				V.Set(a, j, U.At(a, i))
			}
		}
		m.Projections[k] = V
	}
}
