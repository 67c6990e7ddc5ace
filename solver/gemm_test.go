package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGemmSerial: the tiled product equals one blas64.Gemm call bit for
// bit, for products large enough that gonum computes the latter on
// several goroutines, with A or A^T, and with strides wider than the
// matrices.
func TestGemmSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	general := func(r, c, pad int) blas64.General {
		g := blas64.General{Rows: r, Cols: c, Stride: c + pad, Data: make([]float64, r*(c+pad))}
		for i := range g.Data {
			g.Data[i] = rng.NormFloat64()
		}
		return g
	}
	for _, sh := range [][3]int{{300, 7, 50}, {5, 900, 33}, {130, 450, 70}, {64, 192, 1}, {1, 1, 1}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			A := general(m, k, 3)
			if tA == blas.Trans {
				A = general(k, m, 3)
			}
			B := general(k, n, 2)
			C0 := general(m, n, 5)
			want := blas64.General{Rows: m, Cols: n, Stride: C0.Stride, Data: append([]float64(nil), C0.Data...)}
			got := blas64.General{Rows: m, Cols: n, Stride: C0.Stride, Data: append([]float64(nil), C0.Data...)}
			blas64.Gemm(tA, blas.NoTrans, 1.5, A, B, 0.5, want)
			gemmSerial(tA, 1.5, A, B, 0.5, got)
			for i := range want.Data {
				if math.Float64bits(got.Data[i]) != math.Float64bits(want.Data[i]) {
					t.Fatalf("%dx%dx%d %c: element %d = %v, Gemm gives %v", m, n, k, tA, i, got.Data[i], want.Data[i])
				}
			}
		}
	}
}

// TestNarrowProduct: modeProduct's path for a last mode of few columns
// gives gemmSerial's bits (the reference: gonum's order, TestGemmSerial),
// with zero and negative-zero entries in src, which gonum skips.
func TestNarrowProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 3))
	for _, sh := range [][3]int{{1, 1, 1}, {37, 10, 9}, {700, 10, 1}, {50, 70, 3}, {20, 22, modeProductNarrow - 1}} {
		rows, d, r := sh[0], sh[1], sh[2]
		src := make([]float64, rows*d)
		for i := range src {
			switch rng.IntN(8) {
			case 0:
				src[i] = 0
			case 1:
				src[i] = math.Copysign(0, -1)
			default:
				src[i] = rng.NormFloat64()
			}
		}
		U := blas64.General{Rows: d, Cols: r, Stride: r + 2, Data: make([]float64, d*(r+2))}
		for i := range U.Data {
			U.Data[i] = rng.NormFloat64()
		}
		want := blas64.General{Rows: rows, Cols: r, Stride: r, Data: make([]float64, rows*r)}
		gemmSerial(blas.NoTrans, 1, blas64.General{Rows: rows, Cols: d, Stride: d, Data: src}, U, 0, want)
		got := make([]float64, rows*r+1)
		got[rows*r] = -7 // past the end: must stay
		narrowProduct(got[:rows*r], src, rows, d, U, &scratch{})
		for i := range want.Data {
			if math.Float64bits(got[i]) != math.Float64bits(want.Data[i]) {
				t.Fatalf("%dx%dx%d: element %d = %v, gemmSerial gives %v", rows, d, r, i, got[i], want.Data[i])
			}
		}
		if got[rows*r] != -7 {
			t.Fatalf("%dx%dx%d: wrote past the end", rows, d, r)
		}
	}
}
