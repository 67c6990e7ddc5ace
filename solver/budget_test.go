package solver

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// The complexity budget (docs/DESIGN.md, "Route table"): every special
// route of the eigen step and every kernel variant that can be switched
// off inside one fit is timed against the route it replaces, on the rows
// of `make bench-engine`, by
//
//	go test -run '^$' -bench RouteBudget -benchtime 1x -timeout 0 ./solver \
//	    [-args -budget.routes=dense,formRows -budget.rows=gait/uint8 -budget.threads=1,2 -budget.pairs=7]
//
// For each route and row it fits the row's samples with the route on and
// off alternately (on-off, off-on, ...: pairs), and prints the process CPU
// seconds of each side's fits (min / median) and the median of the pairs'
// off/on ratios: the route gains (ratio - 1). Route "aa" compares the
// default routes with themselves (the noise). Every fit's captured
// variances are checked against the route-on fit's, so a switch that
// broke a fit does not pass for a speed-up. The whole table (every route,
// row and thread count, 7 pairs) takes about an hour of CPU; it is not
// part of `make test` (a benchmark, and skipped without -bench).
var (
	budgetRoutes  = flag.String("budget.routes", "", "BenchmarkRouteBudget: comma-separated routes (empty: all)")
	budgetRows    = flag.String("budget.rows", "", "BenchmarkRouteBudget: comma-separated rows (empty: the uint8 and perturbed ones)")
	budgetThreads = flag.String("budget.threads", "1,2", "BenchmarkRouteBudget: thread counts")
	budgetPairs   = flag.Int("budget.pairs", 7, "BenchmarkRouteBudget: on/off pairs per route and row")
)

// budgetRow is one fit of the table: make bench-engine's cases (uniform
// integers 0..255), as uint8, float64 (narrowed to uint8 by the fit) and
// float64 with a fraction (bench/run.py's perturbed: every value times 1
// + 1e-15 N(0, 1)), which takes the float kernels.
type budgetRow struct {
	name   string
	m      int
	shape  []int
	method Method
	rs     bool
	data   string // "uint8", "float64", "perturbed"
}

var budgetRowsAll = []budgetRow{
	{"gait/uint8", 731, []int{32, 22, 10}, SOMPCA, true, "uint8"},
	{"gait/float64", 731, []int{32, 22, 10}, SOMPCA, true, "float64"},
	{"gait/perturbed", 731, []int{32, 22, 10}, SOMPCA, true, "perturbed"},
	{"image/uint8", 2000, []int{32, 32}, SOMPCA, true, "uint8"},
	{"image/float64", 2000, []int{32, 32}, SOMPCA, true, "float64"},
	{"gait-pca/uint8", 731, []int{32, 22, 10}, PCA, false, "uint8"},
	{"image-pca/uint8", 2000, []int{32, 32}, PCA, false, "uint8"},
	{"gait-mpca/uint8", 731, []int{32, 22, 10}, MPCA, false, "uint8"},
	{"image-mpca/uint8", 2000, []int{32, 32}, MPCA, false, "uint8"},
}

// budgetRoute switches one route off; rows names the rows that can take
// it (a route that a row cannot take costs and gains nothing there: the
// float64 rows of integers are narrowed to uint8 and then take the uint8
// rows' routes, so they are measured only when named by -budget.rows);
// from2 says that the route acts only with 2 or more threads.
// -budget.rows selects among each route's rows.
type budgetRoute struct {
	name  string
	rows  []string
	from2 bool
	off   func(r *routes)
}

var (
	tvpRows   = []string{"gait/uint8", "gait/perturbed", "image/uint8"}
	gaitRows  = []string{"gait/uint8", "gait/perturbed"}
	pcaRows   = []string{"gait-pca/uint8", "image-pca/uint8"}
	mpcaRows  = []string{"gait-mpca/uint8", "image-mpca/uint8"}
	uint8Rows = []string{"gait/uint8", "image/uint8", "gait-pca/uint8", "image-pca/uint8", "gait-mpca/uint8", "image-mpca/uint8"}
)

var budgetRoutesAll = []budgetRoute{
	{"aa", slices.Concat(tvpRows, pcaRows, mpcaRows), false, func(r *routes) {}},
	{"dense", gaitRows, false, func(r *routes) { r.eigen.NoDense = true }}, // n <= 16: gait's mode of 10
	{"krylovOnY", tvpRows, false, func(r *routes) { r.eigen.FormAlways = true }},
	{"formRows", tvpRows, false, func(r *routes) { r.eigen.NoFormRows = true }},
	{"topComplement", nil, false, func(r *routes) { r.eigen.Complement = -1 }}, // n >= 64: no row
	{"ritzEveryLead", tvpRows, false, func(r *routes) { r.eigen.RitzEveryProduct = true }},
	{"axpySlabs", []string{"gait/perturbed"}, false, func(r *routes) { r.slabsOff = true }}, // float64 cache rows
	{"kron", gaitRows, false, func(r *routes) { r.kronOff = true }},                         // order >= 3
	{"sumU8", uint8Rows, false, func(r *routes) { r.sumU8Off = true }},
	{"keepStart", []string{"gait/uint8"}, false, func(r *routes) { r.keepStartOff = true }}, // not rotating, rest >= 128
	{"rotate", []string{"gait/perturbed"}, false, func(r *routes) { r.rotateOff = true }},   // order >= 3, not float32 values
	{"rowsPieceMin", tvpRows, true, func(r *routes) { r.piecesOf = 4 }},
	{"narrowProduct", mpcaRows, false, func(r *routes) { r.narrowOff = true }},
	{"skip", mpcaRows, false, func(r *routes) { r.skipOff = true }},
	{"complements", mpcaRows, false, func(r *routes) { r.complementsOff = true }},
	{"lanczos", pcaRows, false, func(r *routes) { r.eigen.NoLanczos = true }},
	{"intGram", pcaRows, false, func(r *routes) { r.eigen.FloatGram = true }},
}

func (r budgetRow) source() Source {
	rng := rand.New(rand.NewPCG(1, 2))
	size := r.m
	for _, d := range r.shape {
		size *= d
	}
	if r.data == "uint8" {
		x := make([]uint8, size)
		for i := range x {
			x[i] = uint8(rng.IntN(256))
		}
		return must(NewSliceSource(x, r.m, r.shape))
	}
	x := make([]float64, size)
	for i := range x {
		x[i] = float64(rng.IntN(256))
		if r.data == "perturbed" {
			x[i] *= 1 + 1e-15*rng.NormFloat64()
		}
	}
	return must(NewSliceSource(x, r.m, r.shape))
}

func listed(list, name string) bool {
	return list == "" || slices.Contains(strings.Split(list, ","), name)
}

func BenchmarkRouteBudget(b *testing.B) {
	var threads []int
	for _, t := range strings.Split(*budgetThreads, ",") {
		var n int
		if _, err := fmt.Sscan(t, &n); err != nil || n < 1 {
			b.Fatalf("-budget.threads %q: want positive integers", *budgetThreads)
		}
		threads = append(threads, n)
	}
	w := os.Stdout
	fmt.Fprintf(w, "| route | row | threads | on CPU s min / med | off CPU s min / med | off/on (median of %d pairs) |\n|---|---|---|---|---|---|\n", *budgetPairs)
	for _, row := range budgetRowsAll {
		if !listed(*budgetRows, row.name) || (*budgetRows == "" && row.data == "float64") {
			continue
		}
		src := row.source()
		for _, t := range threads {
			opts := Options{Method: row.method, RelaxedStart: row.rs, Components: 32, MaxIter: 20, Threads: t}
			var ref Model // the route-on fit, for the check of every other
			if err := ref.Fit(src, opts); err != nil {
				b.Fatal(err)
			}
			for _, rt := range budgetRoutesAll {
				if !listed(*budgetRoutes, rt.name) || !slices.Contains(rt.rows, strings.Replace(row.name, "/float64", "/uint8", 1)) || (rt.from2 && t < 2) {
					continue
				}
				off := &routes{}
				rt.off(off)
				on := opts
				offOpts := opts
				offOpts.routes = off
				var onCPU, offCPU, ratio []float64
				for i := range *budgetPairs {
					first, second := on, offOpts
					if i%2 == 1 {
						first, second = offOpts, on
					}
					c1 := budgetFit(b, src, first, &ref)
					c2 := budgetFit(b, src, second, &ref)
					if i%2 == 1 {
						c1, c2 = c2, c1
					}
					onCPU, offCPU, ratio = append(onCPU, c1), append(offCPU, c2), append(ratio, c2/c1)
				}
				fmt.Fprintf(w, "| %s | %s | %d | %.3f / %.3f | %.3f / %.3f | %.3f |\n", rt.name, row.name, t,
					slices.Min(onCPU), median(onCPU), slices.Min(offCPU), median(offCPU), median(ratio))
			}
		}
	}
}

// budgetFit fits src with opts and returns the fit's process CPU seconds,
// after checking its captured variances against ref's (the routes change
// rounding only: 1e-6 relative is far above rounding and far below any
// wrong answer).
func budgetFit(b *testing.B, src Source, opts Options, ref *Model) float64 {
	var m Model
	c0 := processCPU()
	err := m.Fit(src, opts)
	c := float64(processCPU()-c0) / 1e9
	if err != nil {
		b.Fatal(err)
	}
	if len(m.Variance) != len(ref.Variance) {
		b.Fatalf("%d variances, want %d", len(m.Variance), len(ref.Variance))
	}
	for i, v := range m.Variance {
		if math.Abs(v-ref.Variance[i]) > 1e-6*math.Abs(ref.Variance[0]) {
			b.Fatalf("variance %d: %g, want %g (the default routes')", i, v, ref.Variance[i])
		}
	}
	return c
}

func median(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
