package solver

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/eigen"
	"github.com/sompca/sompca/solver/internal/par"
)

// fitPCA fits ordinary PCA of the vectorised samples (the paper's first
// baseline): the top eigenvectors of the scatter matrix, at most
// min(M-1, prod_n I_n) of them. With fewer samples than dimensions it
// works on the M x M Gram matrix of the centred samples instead, as is
// usual for faces (Turk and Pentland's trick), which holds the data in
// memory.
func (f *fitter) fitPCA() (*Model, error) {
	bound, def, _ := f.spec.bound(f)
	P := f.opts.Components
	if P == 0 {
		P = def
	}
	if P > bound {
		return nil, errorf(ErrInvalid, "solver: %d features requested, but pca on %d samples of %d values gives at most min(M-1, prod_n I_n) = %d", P, f.m, f.size, bound)
	}
	var W *mat.Dense
	var vals []float64
	var err error
	if f.m < f.size {
		W, vals, err = f.pcaGram(P)
	} else {
		W, vals, err = f.pcaScatter(P)
	}
	if err != nil {
		return nil, err
	}
	m := &Model{Mean: append([]float64(nil), f.mean...), Projections: []*mat.Dense{W}}
	m.Variance = make([]float64, P)
	m.Extraction = make([]int, P)
	m.Iterations = make([]int, P)
	for j := range P {
		m.Variance[j] = math.Max(vals[j], 0) / float64(f.m-1)
		m.Extraction[j] = j
	}
	if f.opts.Progress != nil && !f.opts.Progress(1, 1, m.Variance[0]) {
		return nil, ErrCanceled
	}
	return m, nil
}

// pcaRankTol: PCA features whose scatter eigenvalue is at most this
// fraction of the largest lie beyond the samples' rank (rounding noise).
const pcaRankTol = 1e-12

// completeOrthonormal replaces the columns of W from the first, whose
// columns before it are orthonormal, by unit vectors orthogonal to every
// column before them: unit vectors e_i in turn, each made orthogonal by
// two rounds of Gram-Schmidt, the first whose norm left is at least 1/2
// kept, else the one with the most left (at least 1/sqrt(d): the squares
// left sum to d minus the columns before).
func completeOrthonormal(W *mat.Dense, first int) {
	d, P := W.Dims()
	w := W.RawMatrix()
	col, best := make([]float64, d), make([]float64, d)
	basis := 0
	for j := first; j < P; j++ {
		bestNorm := -1.0
		for range d {
			clear(col)
			col[basis%d] = 1
			basis++
			for range 2 {
				for q := range j {
					dot := 0.0
					for i := range d {
						dot += w.Data[i*w.Stride+q] * col[i]
					}
					for i := range d {
						col[i] -= dot * w.Data[i*w.Stride+q]
					}
				}
			}
			if n := floats.Norm(col, 2); n > bestNorm {
				bestNorm = n
				copy(best, col)
				if n >= 0.5 {
					break
				}
			}
		}
		floats.Scale(1/bestNorm, best)
		eigen.FixSign(best)
		W.SetCol(j, best)
	}
}

// pcaScatter diagonalises the prod(I) x prod(I) scatter matrix.
func (f *fitter) pcaScatter(P int) (*mat.Dense, []float64, error) {
	D := f.size
	S := make([]float64, D*D)
	if err := f.pass(&Pass{Op: OpScatter, Shape: f.shape, Samples: f.m, Mean: f.mean}, S); err != nil {
		return nil, nil, err
	}
	crew, done := f.crew()
	defer done()
	return eigen.TopEigenvectors(newSymAcc(D, S).toSym(nil), P, f.opts.Cancel, crew, f.opts.routes.eigenRoutes())
}

// crew returns the team for a fit's own parallel work (the Gram matrix,
// Lanczos's products, the map): the local runner's, whose members make
// the passes, or, for a fit over another executor, a team of
// Options.Threads goroutines that done stops.
func (f *fitter) crew() (crew *par.Team, done func()) {
	if f.run != nil {
		return f.run.team(), func() {}
	}
	crew = par.NewTeam(par.Threads(f.opts.Threads))
	return crew, crew.Close
}

// pcaGram diagonalises the M x M Gram matrix of the centred samples and
// maps its eigenvectors v to unit projections X^T v / sqrt(lambda). The
// Gram matrix of samples whose values are all small integers is computed
// exactly (eigen.GramCentredInt), else in float64 from the centred samples
// (eigen.GramUpper). Samples held in memory as uint8 (as given, or narrowed:
// narrow.go) go to the integer path straight from there, and the map
// reads them there too (eigen.GramMapInt): no float64 copy of the M x D samples
// is made.
func (f *fitter) pcaGram(P int) (*mat.Dense, []float64, error) {
	D := f.size
	crew, done := f.crew()
	defer done()
	var X *mat.Dense
	x16, ld := f.residentU8(crew)
	if x16 == nil {
		X = mat.NewDense(f.m, D, nil)
		// The raw samples (the pass with no mean), centred here as the pass
		// would centre them.
		if err := f.pass(&Pass{Op: OpCentred, Shape: f.shape, Samples: f.m}, X.RawMatrix().Data); err != nil {
			return nil, nil, err
		}
		x16, ld = eigen.GramIntegers(X, crew, f.opts.routes.eigenRoutes())
		xr := X.RawMatrix()
		par.Rows(crew, f.m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				floats.Sub(xr.Data[i*xr.Stride:i*xr.Stride+D], f.mean)
			}
		})
	}
	cancel := f.opts.Cancel
	var K *mat.SymDense
	var op *eigen.IntGram
	var err error
	if x16 != nil {
		K, op, err = eigen.GramCentredInt(x16, ld, f.m, D, cancel, crew, eigen.LanczosFits(f.m, P) && (f.opts.routes == nil || !f.opts.routes.eigen.NoLanczos))
	} else {
		K, err = eigen.GramUpper(X, cancel, crew)
	}
	if err != nil {
		return nil, nil, err
	}
	V, vals, err := eigen.TopEigenvectorsWith(K, op, P, cancel, crew, f.opts.routes.eigenRoutes())
	if err != nil {
		return nil, nil, err
	}
	var W *mat.Dense
	if X == nil {
		W, err = eigen.GramMapInt(x16, ld, f.mean, V, cancel, crew)
	} else {
		W, err = eigen.GramMap(X, V, cancel, crew)
	}
	if err != nil {
		return nil, nil, err
	}
	// Features past the samples' rank have no variance: Gram eigenvectors
	// there map to rounding noise, so those columns are completed as any
	// orthonormal directions beyond the first rank ones (zero variance, as
	// the scatter path's eigenvectors of zero eigenvalues).
	rank := P
	for j := range P {
		if vals[j] <= pcaRankTol*vals[0] {
			rank = j
			break
		}
	}
	for j := range rank {
		col := mat.Col(nil, j, W)
		floats.Scale(1/floats.Norm(col, 2), col)
		eigen.FixSign(col)
		W.SetCol(j, col)
	}
	completeOrthonormal(W, rank)
	return W, vals, nil
}

// residentU8 returns the samples as eigen.GramIntegersU8 does (on crew's
// members) when the fit reads them from memory as uint8 at their own
// scale; else nil.
func (f *fitter) residentU8(crew *par.Team) (x16 []int16, ld int) {
	if f.scaled == nil || f.scaleExp != 0 {
		return nil, 0
	}
	r, ok := f.scaled.Source.(Resident)
	if !ok {
		return nil, 0
	}
	b, ok := r.Resident()
	if !ok || b.U8 == nil || len(b.U8) != f.m*f.size {
		return nil, 0
	}
	return eigen.GramIntegersU8(b.U8, f.m, f.size, crew, f.opts.routes.eigenRoutes())
}
