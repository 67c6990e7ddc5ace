package eigen

import (
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
	"github.com/sompca/sompca/solver/internal/par"
)

// IntGram is the centred Gram matrix K of integer samples as an operator
// for block Lanczos (K = L + e 1^T + 1 e^T exactly, L in int32): a
// product reads 4 bytes an entry instead of 8. Made by GramCentredInt;
// IntGram.sym forms K for the paths that need it whole.
type IntGram struct {
	l  []int32   // L, n x n, both triangles
	e  []float64 // e
	n  int
	zp []float64 // the block padded to rows of 4
	sz []float64 // per row of the block: 1 . z, e . z
	// g, U and V give K back exactly (sym)
	g, u []int64
	v    int64
	// apply's call, for its tasks
	dst []float64
	b   int
	// portable runs the Go kernels (tests compare them with the assembly)
	portable bool
	rt       *Routes // route overrides (set by lanczosTop; nil: none)
}

// newIntGram returns the operator of the centred Gram matrix from the
// exact raw Gram matrix k0 (upper triangle, stride ldk, integers), U and
// V, or nil when L does not fit in int32 (k0 is then unchanged). An int32
// k0 of stride m becomes L in place.
func newIntGram[T gramAcc](k0 []T, ldk, m int, U []int64, V int64, crew *par.Team) *IntGram {
	M := int64(m)
	g := make([]int64, m)
	e := make([]float64, m)
	for i, u := range U {
		// g_i = round((2 M U_i - V) / (2 M^2)); any integer near it does.
		g[i] = int64(math.Round(float64(2*M*u-V) / float64(2*M*M)))
		e[i] = float64(2*M*M*g[i]-2*M*u+V) / float64(2*M*M)
	}
	var overflow atomic.Bool
	par.Rows(crew, m, func(lo, hi int) {
		for i := lo; i < hi && !overflow.Load(); i++ {
			for j := i; j < m; j++ {
				if v := int64(k0[i*ldk+j]) - g[i] - g[j]; v != int64(int32(v)) {
					overflow.Store(true)
					return
				}
			}
		}
	})
	if overflow.Load() {
		return nil
	}
	l, ok := any(k0).([]int32)
	if !ok || ldk != m {
		l = make([]int32, m*m)
	}
	par.Rows(crew, m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := i; j < m; j++ {
				l[i*m+j] = int32(int64(k0[i*ldk+j]) - g[i] - g[j])
			}
		}
	})
	mirrorLower(l, m, crew)
	return &IntGram{l: l, e: e, n: m, g: g, u: U, v: V}
}

// mirrorLower copies the upper triangle of l (m x m) into its lower
// triangle, by blocks of 64 x 64 (both blocks in L1), the block rows
// dealt to crew's members, longest first.
func mirrorLower(l []int32, m int, crew *par.Team) {
	const bs = 64
	blocks := (m + bs - 1) / bs
	par.RunTasks(crew, blocks, func(_, t int) {
		i0 := (blocks - 1 - t) * bs
		i1 := min(m, i0+bs)
		for j0 := 0; j0 <= i0; j0 += bs {
			for i := i0; i < i1; i++ {
				for j := j0; j < min(j0+bs, i); j++ {
					l[i*m+j] = l[j*m+i]
				}
			}
		}
	})
}

// sym returns the centred Gram matrix, its upper triangle set, as
// GramCentredInt forms it (the same bits): K0 = L + g 1^T + 1 g^T exactly,
// then centred (gramCentre).
func (o *IntGram) sym(crew *par.Team) *mat.SymDense {
	n := o.n
	K := mat.NewSymDense(n, nil)
	kr := K.RawSymmetric()
	par.Rows(crew, n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := i; j < n; j++ {
				kr.Data[i*kr.Stride+j] = float64(int64(o.l[i*n+j]) + o.g[i] + o.g[j])
			}
		}
	})
	gramCentre(kr.Data, kr.Stride, kr.Data, kr.Stride, n, o.u, o.v, crew)
	return K
}

// setBlock makes room for blocks of up to b rows.
func (g *IntGram) setBlock(b int) {
	g.zp = make([]float64, (b+3)&^3*g.n)
	g.sz = make([]float64, 2*b)
}

// apply sets the b rows of dst (rows of n) to K z_j for the rows z_j of
// z, the rows of K in panels of lanczosPanel on l's goroutines (nil: the
// caller's alone) when the work is large; every entry is summed in one
// order whatever the threads.
func (g *IntGram) apply(dst, z []float64, b int, l *par.Tasks) {
	n := g.n
	copy(g.zp, z[:b*n])
	clear(g.zp[b*n : (b+3)&^3*n])
	for j := range b {
		g.sz[2*j] = floats.Sum(z[j*n : (j+1)*n])
		g.sz[2*j+1] = floats.Dot(g.e, z[j*n:(j+1)*n])
	}
	panels := (n + lanczosPanel - 1) / lanczosPanel
	if n*b*n < g.rt.parallel() {
		l = nil
	}
	g.dst, g.b = dst, b
	l.Run(panels, g)
	g.dst = nil
}

// RunTask is apply's task p.
func (g *IntGram) RunTask(_, p int) { g.panel(g.dst, g.b, p) }

// panel is apply's task p: the rows [lo, hi) of K z, by chunks of
// gramChunkK columns (the block's chunk stays in the cache), 3 rows of L
// and 4 of the block at a time.
func (g *IntGram) panel(dst []float64, b, p int) {
	n := g.n
	lo, hi := p*lanczosPanel, min(n, (p+1)*lanczosPanel)
	for j := range b {
		clear(dst[j*n+lo : j*n+hi])
	}
	var out [12]float64
	for c0 := 0; c0 < n; c0 += intGramChunk {
		c1 := min(n, c0+intGramChunk)
		for i := lo; i < hi; i += 3 {
			ni := min(3, hi-i)
			for j0 := 0; j0 < b; j0 += 4 {
				if ni == 3 && !g.portable {
					kernel.DotsI32(&out, g.l[i*n+c0:], n, g.zp[j0*n+c0:], n, c1-c0)
				} else {
					kernel.DotsI32Go(out[:], g.l[i*n+c0:], n, ni, g.zp[j0*n+c0:], n, c1-c0)
				}
				for r := range ni {
					for s := range min(4, b-j0) {
						dst[(j0+s)*n+i+r] += out[4*r+s]
					}
				}
			}
		}
	}
	for j := range b {
		s, t := g.sz[2*j], g.sz[2*j+1]
		for i := lo; i < hi; i++ {
			dst[j*n+i] += g.e[i]*s + t
		}
	}
}
