package solver

import (
	"fmt"
	"runtime"
	"sync"
)

// grain is the number of consecutive samples one goroutine processes at a
// time. Reductions are made per grain and folded in grain order, so
// results do not depend on the number of goroutines nor on how a Source
// splits its reads: a fit from a file equals the fit from memory, bit for
// bit.
const grain = 256

// readBytes bounds the size of one Read, counted as float64 elements.
const readBytes = 32 << 20

// runner makes passes over a Source, spreading grains over goroutines.
// Reads hold a whole number of grains, at most readBytes (as float64)
// and, if the source has a method MaxRead() int, at most that many
// samples rounded down to whole grains (but at least one grain).
type runner struct {
	src     Source
	m, size int // samples, elements per sample
	threads int
	block   int // samples per Read, a multiple of grain
}

func newRunner(src Source, size, threads int) *runner {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	m := src.Len()
	perRead := max(1, readBytes/(8*size*grain)) * grain
	if mr, ok := src.(interface{ MaxRead() int }); ok {
		perRead = min(perRead, max(1, mr.MaxRead()/grain)*grain)
	}
	return &runner{src: src, m: m, size: size, threads: threads, block: min(perRead, roundUp(max(m, 1), grain))}
}

func roundUp(a, b int) int { return (a + b - 1) / b * b }

// each calls work(w, start, x) for every grain of samples
// [start, start+n), with x holding exactly those samples; the calls of one
// round run concurrently, each with its own w in [0, threads). After each
// round, fold(w) is called for the round's grains in sample order, from
// one goroutine. work must not fail; a read error ends the pass.
func (r *runner) each(work func(w, start int, x Block), fold func(w int)) error {
	var wg sync.WaitGroup
	for bs := 0; bs < r.m; bs += r.block {
		bn := min(r.block, r.m-bs)
		blk, err := r.src.Read(bs, bn)
		if err != nil {
			return err
		}
		if got := blk.elems(); got != bn*r.size {
			return fmt.Errorf("solver: source returned %d elements for %d samples of %d elements", got, bn, r.size)
		}
		grains := (bn + grain - 1) / grain
		for g0 := 0; g0 < grains; g0 += r.threads {
			k := min(r.threads, grains-g0)
			run := func(i int) {
				lo := (g0 + i) * grain
				hi := min(lo+grain, bn)
				work(i, bs+lo, blk.slice(lo*r.size, hi*r.size))
			}
			if k == 1 {
				run(0)
			} else {
				// A panic in a worker would end the process before any
				// caller could recover it (the C interface turns panics
				// into status codes): carry it to this goroutine instead.
				var panicked any
				var once sync.Once
				wg.Add(k)
				for i := range k {
					go func() {
						defer wg.Done()
						defer func() {
							if r := recover(); r != nil {
								once.Do(func() { panicked = r })
							}
						}()
						run(i)
					}()
				}
				wg.Wait()
				if panicked != nil {
					panic(fmt.Sprintf("solver: panic in a pass over the data: %v", panicked))
				}
			}
			if fold != nil {
				for i := range k {
					fold(i)
				}
			}
		}
	}
	return nil
}
