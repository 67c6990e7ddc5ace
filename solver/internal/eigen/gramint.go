package eigen

import (
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
	"github.com/sompca/sompca/solver/internal/par"
)

// GramIntegers returns the rows of X (m x d) as 16-bit integers, padded
// with zeros to ld columns (a multiple of 16), if every value is an
// integer in [-gramIntMax, gramIntMax] and the int64 arithmetic of
// GramCentredInt cannot overflow, and rt (may be nil) does not ask for
// the float64 path; else nil. It runs on the members of crew
// (nil: the caller alone).
func GramIntegers(X *mat.Dense, crew *par.Team, rt *Routes) (x16 []int16, ld int) {
	m, d := X.Dims()
	if !gramIntFits(m, d, rt) {
		return nil, 0
	}
	xr := X.RawMatrix()
	ld = (d + 15) &^ 15
	x16 = make([]int16, m*ld)
	var refused atomic.Bool
	par.Rows(crew, m, func(lo, hi int) {
		for i := lo; i < hi && !refused.Load(); i++ {
			row := x16[i*ld : i*ld+d]
			for c, v := range xr.Data[i*xr.Stride : i*xr.Stride+d] {
				if !(v >= -gramIntMax && v <= gramIntMax) || v != math.Trunc(v) {
					refused.Store(true)
					return
				}
				row[c] = int16(v)
			}
		}
	})
	if refused.Load() {
		return nil, 0
	}
	return x16, ld
}

// gramIntFits reports whether the exact integer path is on (rt) and its int64
// arithmetic cannot overflow for m samples of d values:
// |numerator| <= 4 M^2 D gramIntMax^2.
func gramIntFits(m, d int, rt *Routes) bool {
	return (rt == nil || !rt.FloatGram) && 4*float64(m)*float64(m)*float64(d)*gramIntMax*gramIntMax < 1<<62
}

// GramIntegersU8 is GramIntegers for samples held as uint8 (m rows of d,
// contiguous): every value is an integer in range, so only the int64
// bound can refuse them (nil).
func GramIntegersU8(u8 []uint8, m, d int, crew *par.Team, rt *Routes) (x16 []int16, ld int) {
	if !gramIntFits(m, d, rt) {
		return nil, 0
	}
	ld = (d + 15) &^ 15
	x16 = make([]int16, m*ld)
	par.Rows(crew, m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := x16[i*ld : i*ld+d]
			for c, v := range u8[i*d : (i+1)*d] {
				row[c] = int16(v)
			}
		}
	})
	return x16, ld
}

// GramCentredInt returns the Gram matrix of the centred rows of X (m x d,
// uncentred), its upper triangle set, computed exactly from x16, ld
// (GramIntegers of X), on the members of crew; cancel as GramUpper.
// With op set it returns instead the same matrix as an IntGram operator,
// and no float64 matrix (the operator forms it if asked: IntGram.sym);
// if L does not fit in int32, the matrix and no operator.
//
// K0 = X0 X0^T is summed in int32 when its entries fit (d gramIntMax^2 <
// 2^31: 36 MB at m = 3000, which becomes L in place), else in float64
// (exact integers below 2^53, which become K in place).
func GramCentredInt(x16 []int16, ld, m, d int, cancel func() bool, crew *par.Team, op bool) (*mat.SymDense, *IntGram, error) {
	if float64(d)*gramIntMax*gramIntMax < 1<<31 {
		return gramCentredFrom(make([]int32, m*m), m, x16, ld, m, d, cancel, crew, op)
	}
	return gramCentredFrom([]float64(nil), 0, x16, ld, m, d, cancel, crew, op)
}

// gramAcc is the type K0 is summed in (see GramCentredInt).
type gramAcc interface{ int32 | float64 }

// gramCentredFrom is GramCentredInt, K0 summed in k0 (stride ldk; for
// float64, nil: K's own storage).
func gramCentredFrom[T gramAcc](k0 []T, ldk int, x16 []int16, ld, m, d int, cancel func() bool, crew *par.Team, op bool) (*mat.SymDense, *IntGram, error) {
	var K *mat.SymDense
	if k0 == nil {
		K = mat.NewSymDense(m, nil)
		kr := K.RawSymmetric()
		k0, ldk = any(kr.Data).([]T), kr.Stride
	}
	err := gramPanels(m, gramIntPanel, cancel, crew, func(j0, j1 int, halt func() bool) {
		gramPanelInt(k0, ldk, x16, ld, j0, j1, halt)
	})
	if err != nil {
		return nil, nil, err
	}
	// Column sums S, U = X0 S and V = S . S, in integers (exact in any
	// order).
	sums := make([]int64, d)
	var mu sync.Mutex
	par.Rows(crew, m, func(lo, hi int) {
		part := make([]int64, d)
		for i := lo; i < hi; i++ {
			for c, x := range x16[i*ld : i*ld+d] {
				part[c] += int64(x)
			}
		}
		mu.Lock()
		for c, s := range part {
			sums[c] += s
		}
		mu.Unlock()
	})
	var V int64
	for _, s := range sums {
		V += s * s
	}
	U := make([]int64, m)
	par.Rows(crew, m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var u int64
			for c, x := range x16[i*ld : i*ld+d] {
				u += int64(x) * sums[c]
			}
			U[i] = u
		}
	})
	if op {
		if g := newIntGram(k0, ldk, m, U, V, crew); g != nil {
			return nil, g, nil
		}
	}
	if K == nil {
		K = mat.NewSymDense(m, nil)
	}
	kr := K.RawSymmetric()
	gramCentre(kr.Data, kr.Stride, k0, ldk, m, U, V, crew)
	return K, nil, nil
}

// gramCentre sets the upper triangle of k (stride ldk; it may be k0's
// storage) to the centred Gram matrix (M^2 K0_ij - M (U_i + U_j) + V) /
// M^2 from the exact K0 (upper triangle of k0, stride ld0), rounded once.
func gramCentre[T gramAcc](k []float64, ldk int, k0 []T, ld0, m int, U []int64, V int64, crew *par.Team) {
	M := int64(m)
	den := float64(M * M)
	par.Rows(crew, m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row, row0 := k[i*ldk:i*ldk+m], k0[i*ld0:i*ld0+m]
			for j := i; j < m; j++ {
				num := M*M*int64(row0[j]) - M*(U[i]+U[j]) + V
				row[j] = float64(num) / den
			}
		}
	})
}

// gramPanelInt sets in k (stride ldk, zero there) the entries (i, j),
// i <= j, j in [j0, j1), of X0 X0^T for the integer rows x (stride ld, a
// multiple of 16), as exact integers.
func gramPanelInt[T gramAcc](k []T, ldk int, x []int16, ld, j0, j1 int, halt func() bool) {
	var out [12]int32
	for c0 := 0; c0 < ld; c0 += gramIntChunk {
		c1 := min(ld, c0+gramIntChunk)
		for i := 0; i < j1; i += 3 {
			if i%gramHaltRows == 0 && halt() {
				return
			}
			for j := j0 + max(0, (i-j0)&^3); j < j1; j += 4 {
				if i+3 <= j1 && j+4 <= j1 {
					kernel.GramI16(&out, x[i*ld+c0:], ld, x[j*ld+c0:], ld, c1-c0)
					for r := range 3 {
						for s := range 4 {
							if i+r <= j+s {
								k[(i+r)*ldk+j+s] += T(out[4*r+s])
							}
						}
					}
					continue
				}
				for r := i; r < min(i+3, j1); r++ {
					for s := j; s < min(j+4, j1); s++ {
						if r <= s {
							var sum int64
							b := x[s*ld+c0 : s*ld+c1]
							for c, v := range x[r*ld+c0 : r*ld+c1] {
								sum += int64(v) * int64(b[c])
							}
							k[r*ldk+s] += T(sum)
						}
					}
				}
			}
		}
	}
}
