//go:build amd64 && !purego

package kernel

//go:noescape
func prefetchWrite(p *float64, n int)

// PrefetchWrite asks for the cache lines of b that the caller is about to
// write (PREFETCHW on amd64; nothing in the portable build). It changes
// no value. A pass that fills a cache larger than L2 (the contraction
// cache of 16 x the gait samples: 20 MB) asks for the next sample's row
// while it computes this one's, so that the kernel's stores do not wait
// on their misses.
func PrefetchWrite(b []float64) {
	if len(b) > 0 {
		prefetchWrite(&b[0], len(b))
	}
}
