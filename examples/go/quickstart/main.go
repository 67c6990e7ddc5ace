// Command quickstart fits SO-MPCA-RS to synthetic 2nd-order samples held in
// memory, prints what it learned and checks the features by a 1-nearest-
// neighbour classifier. It uses the pure-Go solver only (no cgo).
//
//	go run ./examples/go/quickstart
package main

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/sompca/sompca/solver"
)

const (
	classes  = 4
	perClass = 30
	rows     = 12
	cols     = 10
)

// makeData returns perClass noisy 12 x 10 "images" of each of 4 classes;
// each class is a different smooth pattern.
func makeData(rng *rand.Rand) (x []float64, labels []int) {
	for c := range classes {
		for range perClass {
			for i := range rows {
				for j := range cols {
					v := math.Sin(float64(i*(c+1))/4) * math.Cos(float64(j*(c+2))/5)
					x = append(x, 100+50*v+10*rng.NormFloat64())
				}
			}
			labels = append(labels, c)
		}
	}
	return x, labels
}

func main() {
	rng := rand.New(rand.NewPCG(1, 2))
	x, labels := makeData(rng)
	M := len(labels)
	src, err := solver.NewSliceSource(x, M, []int{rows, cols})
	if err != nil {
		log.Fatal(err)
	}

	var model solver.Model
	opts := solver.DefaultOptions(solver.SOMPCA) // SO-MPCA-RS, as on every surface
	opts.Components = 8
	if err := model.Fit(src, opts); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%v-rs on %d samples of %dx%d: orthogonal mode %d, %d features\n",
		model.Method, M, rows, cols, model.Mode, model.Components())
	for j, v := range model.Variance {
		fmt.Printf("  feature %d (EMP %d): captured variance %.2f (%.1f%%)\n",
			j+1, model.Extraction[j]+1, v, 100*v/model.TotalVariance)
	}

	feats, err := model.TransformTo(nil, src)
	if err != nil {
		log.Fatal(err)
	}
	// Leave-one-out 1-nearest-neighbour accuracy on the features.
	P := model.Components()
	correct := 0
	for a := range M {
		best, bestD := -1, math.Inf(1)
		for b := range M {
			if a == b {
				continue
			}
			d := 0.0
			for p := range P {
				t := feats[a*P+p] - feats[b*P+p]
				d += t * t
			}
			if d < bestD {
				best, bestD = b, d
			}
		}
		if labels[best] == labels[a] {
			correct++
		}
	}
	fmt.Printf("leave-one-out 1-NN accuracy: %.1f%%\n", 100*float64(correct)/float64(M))
}
