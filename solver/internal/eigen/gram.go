package eigen

import (
	"sync/atomic"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
	"github.com/sompca/sompca/solver/internal/par"
)

// GramUpper returns X X^T with its upper triangle set, on the members of
// crew (nil: the caller alone). cancel (may be nil) is polled before every
// panel (par.ErrCanceled).
func GramUpper(X *mat.Dense, cancel func() bool, crew *par.Team) (*mat.SymDense, error) {
	m, d := X.Dims()
	K := mat.NewSymDense(m, nil)
	kr := K.RawSymmetric()
	xr := X.RawMatrix()
	err := gramPanels(m, gramPanel, cancel, crew, func(j0, j1 int, halt func() bool) {
		gramPanelUpper(kr.Data, kr.Stride, xr.Data, xr.Stride, d, j0, j1, halt)
	})
	if err != nil {
		return nil, err
	}
	return K, nil
}

// gramPanels calls panel(j0, j1, halt) for the panels of width columns of
// an m x m Gram matrix on the members of crew (nil: the caller alone),
// polling cancel (may be nil) before every panel and, through halt, within
// them (par.ErrCanceled: a panel returns early once halt reports true). The
// panels of the upper triangle widen with j (panel j0 holds j1 columns'
// worth of rows), so they are taken widest first: the members then end
// on narrow ones, together.
func gramPanels(m, width int, cancel func() bool, crew *par.Team, panel func(j0, j1 int, halt func() bool)) error {
	var stopped atomic.Bool // cancel returned true
	halt := func() bool {
		if stopped.Load() {
			return true
		}
		if canceled(cancel) {
			stopped.Store(true)
			return true
		}
		return false
	}
	panels := (m + width - 1) / width
	par.RunTasks(crew, panels, func(_, p int) {
		if halt() {
			return
		}
		p = panels - 1 - p
		panel(p*width, min(m, (p+1)*width), halt)
	})
	if stopped.Load() {
		return par.ErrCanceled
	}
	return nil
}

// gramPanelUpper adds to k (stride ldk) the entries (i, j), i <= j, j in
// [j0, j1), of X X^T, X (rows of d, stride ldx); k starts at zero there.
func gramPanelUpper(k []float64, ldk int, x []float64, ldx, d, j0, j1 int, halt func() bool) {
	var out [12]float64
	for c0 := 0; c0 < d; c0 += gramChunkK {
		c1 := min(d, c0+gramChunkK)
		c4 := c0 + (c1-c0)&^3 // the kernel's part of the chunk
		for i := 0; i < j1; i += 3 {
			if i%gramHaltRows == 0 && halt() {
				return
			}
			for j := j0 + max(0, (i-j0)&^3); j < j1; j += 4 {
				if i+3 <= j1 && j+4 <= j1 && c4 > c0 {
					tile3x4(&out, x[i*ldx:], ldx, x[j*ldx:], ldx, c0, c4, c1)
					for r := range 3 {
						for s := range 4 {
							if i+r <= j+s {
								k[(i+r)*ldk+j+s] += out[4*r+s]
							}
						}
					}
					continue
				}
				for r := i; r < min(i+3, j1); r++ {
					for s := j; s < min(j+4, j1); s++ {
						if r <= s {
							k[r*ldk+s] += floats.Dot(x[r*ldx+c0:r*ldx+c1], x[s*ldx+c0:s*ldx+c1])
						}
					}
				}
			}
		}
	}
}

// GramMap returns X^T V (d x p) for X (m x d) and V (m x p): PCA's map
// from the Gram matrix's eigenvectors to projections. Each entry is the
// dot product of a column of X with one of V, by dots (the kernel.Gram3x4
// kernel) on chunks of gramMapChunk columns of X transposed into a
// buffer, the chunks spread over goroutines; every entry is one dots sum,
// so the result does not depend on the number of threads (gonum's Dgemm
// for X^T V runs at about a fifth of the kernel's rate). cancel (may be
// nil) is polled before every chunk (par.ErrCanceled); crew as GramUpper.
func GramMap(X, V *mat.Dense, cancel func() bool, crew *par.Team) (*mat.Dense, error) {
	m, d := X.Dims()
	xr := X.RawMatrix()
	return gramMapBy(m, d, func(xt []float64, c0, c1 int) {
		for i := range m {
			for r, x := range xr.Data[i*xr.Stride+c0 : i*xr.Stride+c1] {
				xt[r*m+i] = x
			}
		}
	}, V, cancel, crew)
}

// GramMapInt is GramMap for the centred samples X = x16 - 1 mean^T, x16
// (m rows of stride ld) as GramIntegers returns them: the same map, the
// same bits as GramMap of the float64 centred samples (each entry
// float64(x) - mean_c, rounded once, in both), without them.
func GramMapInt(x16 []int16, ld int, mean []float64, V *mat.Dense, cancel func() bool, crew *par.Team) (*mat.Dense, error) {
	m, _ := V.Dims()
	return gramMapBy(m, len(mean), func(xt []float64, c0, c1 int) {
		mu := mean[c0:c1]
		for i := range m {
			for r, x := range x16[i*ld+c0 : i*ld+c1] {
				xt[r*m+i] = float64(x) - mu[r]
			}
		}
	}, V, cancel, crew)
}

// gramMapBy is GramMap, with transpose(xt, c0, c1) setting xt to the
// columns [c0, c1) of X as rows of m.
func gramMapBy(m, d int, transpose func(xt []float64, c0, c1 int), V *mat.Dense, cancel func() bool, crew *par.Team) (*mat.Dense, error) {
	_, p := V.Dims()
	vt := make([]float64, p*m) // V^T
	for i := range m {
		for j := range p {
			vt[j*m+i] = V.At(i, j)
		}
	}
	wt := make([]float64, p*d) // W^T
	l := par.NewTasks(crew)
	xts := make([][]float64, l.Size()) // per member: the transposed chunk
	var stopped atomic.Bool
	l.Run((d+gramMapChunk-1)/gramMapChunk, par.TaskFunc(func(w, c int) {
		if stopped.Load() || canceled(cancel) {
			stopped.Store(true)
			return
		}
		if xts[w] == nil {
			xts[w] = make([]float64, gramMapChunk*m)
		}
		c0, c1 := c*gramMapChunk, min(d, (c+1)*gramMapChunk)
		transpose(xts[w], c0, c1)
		dots(wt[c0:], d, xts[w], m, c1-c0, vt, m, p, m)
	}))
	if stopped.Load() {
		return nil, par.ErrCanceled
	}
	W := mat.NewDense(d, p, nil)
	for c := range d {
		for j := range p {
			W.Set(c, j, wt[j*d+c])
		}
	}
	return W, nil
}

// tile3x4 sets out[4r+s] to the dot product of columns [c0, c1) of row r
// of a with those of row s of b (r < 3, s < 4): the kernel.Gram3x4 kernel over
// [c0, c4), c4 - c0 a multiple of 4, then the up to 3 columns left, in
// order. Gram and Lanczos tiles share it, so their sums agree bit for bit.
func tile3x4(out *[12]float64, a []float64, lda int, b []float64, ldb int, c0, c4, c1 int) {
	kernel.Gram3x4(out, a[c0:], lda, b[c0:], ldb, c4-c0)
	if c4 == c1 {
		return
	}
	for r := range 3 {
		for s := range 4 {
			v := out[4*r+s]
			for c := c4; c < c1; c++ {
				v += a[r*lda+c] * b[s*ldb+c]
			}
			out[4*r+s] = v
		}
	}
}
