package solver

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrMemory: Options.MemoryLimit cannot hold what a fit needs at least
// (its workspaces and, for a source that reads from a file, one run of
// samples read ahead while another is processed). The message names both
// sizes.
var ErrMemory = errors.New("solver: memory limit too small")

// MemoryPlanner is implemented by sources that allocate the memory their
// samples are handed out in (hdf5io.Source). Before its first pass, Fit
// offers such a source the part of Options.MemoryLimit its own
// workspaces leave: PlanMemory chooses how to read within budget bytes
// (load the whole dataset when it fits, else stream it in runs that fit),
// and returns the bytes it will hold, or an error wrapping ErrMemory when
// budget cannot hold reads of minRead samples, the fewest the engine asks
// for at once. What PlanMemory leaves over goes to the cache of partial
// contractions (order N >= 3). Sources over the caller's memory
// (SliceSource) hold none of their own and need not implement it.
type MemoryPlanner interface {
	PlanMemory(budget int64, minRead int) (used int64, err error)
}

// DefaultMemoryLimit returns the memory budget of a fit whose
// Options.MemoryLimit is 0: a quarter of the machine's physical memory,
// or 1 GiB where the system does not say how much it has, but no more
// than the process may allocate (see MemoryCap) or the system has
// available (MemAvailable).
func DefaultMemoryLimit() int64 {
	limit, _ := defaultMemoryLimit()
	return limit
}

// defaultMemoryLimit is DefaultMemoryLimit and what sets it, for messages.
func defaultMemoryLimit() (int64, string) {
	limit, what := int64(1<<30), "the default memory limit"
	if total := physicalMemory(); total > 0 {
		limit, what = total/4, "the default memory limit (a quarter of physical memory)"
	}
	// Never more than the process may still allocate (ulimit -v and -d,
	// its cgroup's memory.max) or the system has available.
	if room, name := memoryCap(true); room > 0 && room < limit {
		limit, what = room, "the default memory limit, the room left under "+name+","
	}
	return limit, what
}

// MemoryCap returns the bytes the process may still allocate before the
// operating system refuses: the room under RLIMIT_AS, RLIMIT_DATA and the
// cgroup's memory.max, whichever is least; 0 when none is set (or the
// system is not Linux). Programs that embed the Go runtime in another
// process (the C library) set the runtime's soft memory limit from it.
func MemoryCap() int64 {
	room, _ := memoryCap(false)
	return room
}

// FormatBytes formats a byte count for messages: "512 MiB (536870912 bytes)".
func FormatBytes(b int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(b), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", b)
	}
	return fmt.Sprintf("%.4g %s (%d bytes)", v, units[u], b)
}

// planMemory splits the fit's memory limit: first the workspaces of the
// method (the TVP methods' partial projections included), then what the
// source holds (see MemoryPlanner), and the rest,
// f.spare, may hold the cache of partial contractions. This is the one
// place where the budget is computed.
func (f *fitter) planMemory(src Source, threads int) error {
	limit := f.opts.MemoryLimit
	if limit < 0 {
		return errorf(ErrInvalid, "solver: MemoryLimit = %d: want 0 (the default, %s) or a positive number of bytes", limit, FormatBytes(DefaultMemoryLimit()))
	}
	what := "the memory limit"
	if limit == 0 {
		limit, what = defaultMemoryLimit()
	}
	// Beyond what the operating system grants, an allocation would make
	// the Go runtime abort the whole process: the budget never exceeds it.
	if room, name := memoryCap(false); room > 0 && room < limit {
		limit, what = room, "the room left under "+name
	}
	work := f.workspaceBytes(threads)
	if work > limit {
		return errorf(ErrMemory, "solver: %s of %s is too small: %v on %d samples of shape %v with %d threads needs %s of workspace "+
			"(scatter matrices and per-thread buffers); give the process more memory or the fit a larger MemoryLimit, "+
			"use fewer threads, or fewer features or a smaller sample shape", what, FormatBytes(limit), f.opts.Method, f.m, f.shape, threads, FormatBytes(work))
	}
	f.spare = limit - work
	if p, ok := src.(MemoryPlanner); ok {
		used, err := p.PlanMemory(f.spare, readUnit)
		if err != nil {
			return &sourceError{start: 0, n: f.m, err: err} // a source that loads the data reads it here
		}
		f.spare -= used
	}
	return nil
}

// workspaceBytes estimates the memory a fit allocates besides the
// samples and the contraction cache: per thread, the method's rows; the
// partial results held by the reduction tree (about one per thread plus
// one per level: see runner.climb); the training features (M x P) the TVP
// methods keep; PCA's and the Tucker methods' matrices.
func (f *fitter) workspaceBytes(threads int) int64 {
	th := int64(threads)
	size, m := int64(f.size), int64(f.m)
	maxI := int64(0)
	var scatter int64 // sum_n I_n^2
	for _, d := range f.shape {
		maxI = max(maxI, int64(d))
		scatter += int64(d) * int64(d)
	}
	p := int64(f.opts.Components)
	const g = grain
	var floats int64
	partial := size + 2 // the largest partial result of a pass (OpSum's)
	switch f.spec.family {
	case familyPCA:
		// The D x D scatter (its partials too), or with M < D the M x D
		// data and its M x M Gram matrix.
		if p == 0 {
			p = min(m-1, size)
		}
		floats = min(size, m)*min(size, m) + m*size*int64(b2i(m < size)) + th*64*size + size*p
		if m >= size {
			partial = max(partial, size*size)
		}
	case familyTucker:
		// Per thread: a leaf's samples, two projection buffers and two
		// transposes (see modeScattersLeaf), and the core's rows.
		floats = th*(6*g*size) + 2*scatter + 4*size
		partial = max(partial, scatter, 3*size+1)
	default:
		if p == 0 {
			p = maxI
		}
		// ... plus the M x max_n I_n partial projections of the mode
		// updates (tvpFit.ys) unless they fold the scatter. (The M x I_1
		// of the uniform start, tvpFit.start, come from f.spare.)
		floats = th*(g*(maxI+p)) + 2*m*p + maxI*maxI + 2*maxI*p
		if !f.scatterUpdates {
			floats += m * maxI
		}
		partial = max(partial, maxI*maxI+maxI*p)
	}
	partials := th + int64(bits.Len64(uint64(m/g+1))) + 1
	return 8 * (floats + partials*partial + 2*size) // plus the mean
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cacheFits reports whether the cache of Z_m = X_m x_1 u^(1), M x
// prod_{n>=2} I_n float64, is worth keeping (order N >= 3) and fits in
// what the memory limit leaves. The fit is the same, bit for bit, with it
// or without it; without it a sweep reads the data N times rather than 2
// (or N/(N-1): fitTVP then sizes it for the longest rows of the modes it
// rotates through that fit, see tvpFit.lead).
func (f *fitter) cacheFits() bool {
	return f.n >= 3 && f.cacheBytes() <= f.spare
}

// cacheBytes returns the bytes of the cache of partial contractions.
func (f *fitter) cacheBytes() int64 {
	return int64(f.m) * int64(cacheRow(f.shape)) * 8
}
