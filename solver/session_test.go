package solver

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sessionFit drives a Session in this goroutine over blocks of the given
// sizes (cycled through), computing each block's partial with PassPartial
// and a per-block cache kept across passes, as a distributed driver does;
// it returns the model and the number of passes. With join, runs of that
// many consecutive blocks (cycled through) are fed as one partial made by
// JoinPartials, as a worker that computed them sends it; a joined partial
// of blocks that start at multiples of BlockMultiple is checked to be the
// partial that PassPartial makes of their union, byte for byte.
func sessionFit(t testing.TB, src Source, opts Options, sizes []int, join ...int) (*Model, int, error) {
	t.Helper()
	s, err := NewSession(src.Len(), src.Shape(), opts)
	if err != nil {
		return nil, 0, err
	}
	defer s.Close()
	caches := map[[2]int][]float64{}
	passes := 0
	for {
		more, err := s.Next()
		if err != nil {
			return nil, passes, err
		}
		if !more {
			break
		}
		passes++
		var run [][]byte // partials waiting to be joined
		runFirst, runs, aligned := 0, 0, true
		for b, first := 0, 0; first < src.Len(); b++ {
			n := min(sizes[b%len(sizes)], src.Len()-first)
			req, err := s.Request(first, n)
			if err != nil {
				t.Fatal(err)
			}
			info, err := ReadPassInfo(req)
			if err != nil {
				t.Fatal(err)
			}
			if info.First != first || info.N != n || !reflect.DeepEqual(info.Shape, src.Shape()) {
				t.Fatalf("ReadPassInfo = %+v for block [%d, %d)", info, first, first+n)
			}
			key := [2]int{first, n}
			if len(caches[key]) != info.CacheLen {
				caches[key] = make([]float64, info.CacheLen)
			}
			x, err := src.Read(first, n)
			if err != nil {
				t.Fatal(err)
			}
			partial, err := PassPartial(nil, req, x, caches[key])
			if err != nil {
				t.Fatal(err)
			}
			if len(partial) > info.PartialLen {
				t.Fatalf("partial of %d bytes, ReadPassInfo said at most %d", len(partial), info.PartialLen)
			}
			first += n
			if len(join) == 0 {
				if err := s.Feed(first-n, n, partial); err != nil {
					return nil, passes, err
				}
				continue
			}
			if len(run) == 0 {
				runFirst = first - n
			}
			run = append(run, partial)
			aligned = aligned && (first-n)%BlockMultiple == 0
			if len(run) < join[runs%len(join)] && first < src.Len() {
				continue
			}
			joined, err := JoinPartials(nil, req, run)
			if err != nil {
				t.Fatal(err)
			}
			if aligned {
				req, _ := s.Request(runFirst, first-runFirst)
				x, _ := src.Read(runFirst, first-runFirst)
				whole, err := PassPartial(nil, req, x, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(joined, whole) {
					t.Fatalf("the partials of blocks from %d to %d joined differ from the partial of their union", runFirst, first)
				}
			}
			if err := s.Feed(runFirst, first-runFirst, joined); err != nil {
				return nil, passes, err
			}
			run, runs, aligned = run[:0], runs+1, true
		}
	}
	m, err := s.Model()
	return m, passes, err
}

// TestSessionIsFit: a session's model is Model.Fit's on the same samples
// with the same mode updates (the default, auto, resolves alike in both:
// ModeUpdates.Resolve), bit for bit with blocks of whole grains, whatever
// the blocks (they are the same per-BlockMultiple terms folded in the same
// order), and to rounding with blocks that cut grains (the same terms
// grouped differently: 1e-12).
func TestSessionIsFit(t *testing.T) {
	const M = 3*BlockMultiple + 17
	cases := append(tvpCases, methodCase{PCA, false}, methodCase{MPCA, false}, methodCase{CSA, false})
	for _, shape := range [][]int{{7, 5}, {4, 7, 3}} {
		data := randomTensors(5, M, shape)
		for _, c := range cases {
			for _, up := range []ModeUpdates{ModeUpdatesAuto, ModeUpdatesRows, ModeUpdatesScatter} {
				sessionIsFit(t, data, M, shape, c, up)
			}
		}
	}
}

func sessionIsFit(t *testing.T, data []float64, M int, shape []int, c methodCase, up ModeUpdates) {
	opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3, MaxIter: 4, ModeUpdates: up}
	ref, src := fitOrFatal(t, data, M, shape, opts)
	for _, sizes := range [][]int{{M}, {BlockMultiple}, {2 * BlockMultiple, BlockMultiple}} {
		got, passes, err := sessionFit(t, src, opts, sizes)
		if err != nil {
			t.Fatalf("%v %v blocks %v: %v", shape, c, sizes, err)
		}
		if passes < 2 {
			t.Errorf("%v %v: %d passes", shape, c, passes)
		}
		if !reflect.DeepEqual(got, ref) {
			t.Errorf("%v %v %v: session with blocks %v differs from Fit", shape, c, up, sizes)
		}
	}
	got, _, err := sessionFit(t, src, opts, []int{100, 37, BlockMultiple + 1})
	if err != nil {
		t.Fatal(err)
	}
	checkSameModel(t, got, ref, 1e-12, shape, c)
}

// TestJoinPartials: partials of neighbouring blocks joined by
// JoinPartials, in runs that split subtrees of the reduction tree (runs of
// 3 blocks of 4 leaves end at leaf 12, inside a subtree of 16) and, with
// blocks that cut leaves, leaves too, are folded as the parts are: the
// model is the one fed block by block, bit for bit (so, with blocks of
// whole grains, Model.Fit's), for sums and rows passes alike; and with
// blocks of whole grains the joined partial is the union's own partial
// (sessionFit checks it).
func TestJoinPartials(t *testing.T) {
	const M = 5*BlockMultiple + 17
	cases := []methodCase{{SOMPCA, true}, {UMPCA, false}, {TROD, false}, {MPCA, false}, {PCA, false}}
	for _, shape := range [][]int{{7, 5}, {4, 7, 3}} {
		data := randomTensors(6, M, shape)
		for _, c := range cases {
			for _, up := range []ModeUpdates{ModeUpdatesRows, ModeUpdatesScatter} {
				opts := Options{Method: c.method, RelaxedStart: c.rs, Components: 3, MaxIter: 3, ModeUpdates: up}
				ref, src := fitOrFatal(t, data, M, shape, opts)
				for _, blocks := range []struct{ sizes, join []int }{
					{[]int{BlockMultiple}, []int{3, 2}},
					{[]int{2 * BlockMultiple, BlockMultiple}, []int{2}},
					{[]int{100, 37, BlockMultiple + 1}, []int{2, 3}},
				} {
					want := ref
					if blocks.sizes[0]%BlockMultiple != 0 { // leaves cut by the blocks: the same blocks fed one by one
						var err error
						if want, _, err = sessionFit(t, src, opts, blocks.sizes); err != nil {
							t.Fatal(err)
						}
					}
					got, _, err := sessionFit(t, src, opts, blocks.sizes, blocks.join...)
					if err != nil {
						t.Fatalf("%v %v %v blocks %v joined by %v: %v", shape, c, up, blocks.sizes, blocks.join, err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%v %v %v: blocks %v joined by %v give another model", shape, c, up, blocks.sizes, blocks.join)
					}
				}
			}
		}
	}
}

// TestJoinPartialsErrors: partials that are not of neighbouring blocks
// of the request's pass, in order, are refused with the blocks named.
func TestJoinPartialsErrors(t *testing.T) {
	const M = 3 * BlockMultiple
	shape := []int{4, 7, 3}
	src, err := NewSliceSource(randomTensors(7, M, shape), M, shape)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(M, shape, Options{Method: SOMPCA, Components: 2, MaxIter: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	partial := func(first, n int) []byte {
		req, _ := s.Request(first, n)
		x, _ := src.Read(first, n)
		b, err := PassPartial(nil, req, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	req, _ := s.Request(0, BlockMultiple)
	a, b, c := partial(0, BlockMultiple), partial(BlockMultiple, BlockMultiple), partial(2*BlockMultiple, BlockMultiple)
	for _, tc := range []struct {
		name     string
		request  []byte
		partials [][]byte
		want     string
	}{
		{"none", req, nil, "no partials"},
		{"a gap", req, [][]byte{a, c}, "want a block from sample 64"},
		{"out of order", req, [][]byte{b, a}, "want a block from sample 128"},
		{"truncated", req, [][]byte{a, b[:len(b)-8]}, "truncated or corrupt"},
		{"not a partial", req, [][]byte{a, req}, "not a partial"},
		{"not a request", a, [][]byte{a, b}, "not a request"},
	} {
		_, err := JoinPartials(nil, tc.request, tc.partials)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// checkSameModel compares the learned arrays of two models to tol relative.
func checkSameModel(t *testing.T, got, want *Model, tol float64, shape []int, c methodCase) {
	t.Helper()
	for n := range want.Projections {
		if !mat.EqualApprox(got.Projections[n], want.Projections[n], tol) {
			t.Errorf("%v %v: projection %d differs beyond %g", shape, c, n, tol)
		}
	}
	for j, v := range want.Variance {
		if math.Abs(got.Variance[j]-v) > tol*want.Variance[0] {
			t.Errorf("%v %v: variance %d: %g, Fit %g", shape, c, j, got.Variance[j], v)
		}
	}
	for i, v := range want.Mean {
		if math.Abs(got.Mean[i]-v) > tol*math.Max(1, math.Abs(v)) {
			t.Errorf("%v %v: mean[%d] differs", shape, c, i)
		}
	}
}

// TestSessionCache: a block cache that is lost (a fresh one), skipped
// (the pass ran elsewhere, so the kept one goes stale) or another block's
// changes nothing: the partial is then computed from the samples. On
// samples of float32 values (Lead 0: the cache of X x_1 u^(1)) and on
// others (tvpFit.lead: the cache of each mode in turn).
func TestSessionCache(t *testing.T) {
	const M = 3 * BlockMultiple
	shape := []int{4, 7, 3}
	frac := randomTensors(8, M, shape)
	for _, data := range [][]float64{frac, byteValues(frac)} {
		opts := Options{Method: SOMPCA, RelaxedStart: true, Components: 3, MaxIter: 3, ModeUpdates: ModeUpdatesScatter}
		ref, src := fitOrFatal(t, data, M, shape, opts)
		s, err := NewSession(M, shape, opts)
		if err != nil {
			t.Fatal(err)
		}
		caches := map[int][]float64{} // kept per block, as a driver's workers keep them
		used := 0
		for pass := 0; ; pass++ {
			more, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !more {
				break
			}
			for first := 0; first < M; first += BlockMultiple {
				req, _ := s.Request(first, BlockMultiple)
				info, _ := ReadPassInfo(req)
				var c []float64
				if info.CacheLen > 0 {
					if first == 0 {
						used++
					}
					if len(caches[first]) != info.CacheLen {
						caches[first] = make([]float64, info.CacheLen)
					}
					c = caches[first]
					switch used % 7 {
					case 2: // the pass ran elsewhere: the kept cache goes stale
						c = nil
					case 4: // lost: a fresh one
						c = make([]float64, info.CacheLen)
						caches[first] = c
					case 6: // another block's
						c = caches[(first+BlockMultiple)%M]
					}
				}
				x, _ := src.Read(first, BlockMultiple)
				partial, err := PassPartial(nil, req, x, c)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Feed(first, BlockMultiple, partial); err != nil {
					t.Fatal(err)
				}
			}
		}
		if used == 0 {
			t.Error("no pass asked for a block cache on order-3 samples")
		}
		got, err := s.Model()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if !reflect.DeepEqual(got, ref) {
			t.Error("the session with lost, stale and foreign caches differs from Fit")
		}
	}
}

// TestPassPartialCacheKey: PassPartial reads a block cache only when it
// holds the block's samples contracted in the pass's cache mode with the
// pass's vector of that mode (the vectors of modes 1 and 2 are equal
// here, so only the mode tells them apart), and when it does it reads no
// sample: those passes are handed NaN samples, the others the samples,
// and every pass gives the rows PassPartial makes without a cache.
func TestPassPartialCacheKey(t *testing.T) {
	const M = 40
	shape := []int{3, 5, 5}
	data := randomTensors(17, M, shape)
	nan := make([]float64, len(data))
	for i := range nan {
		nan[i] = math.NaN()
	}
	u := []float64{0.3, -0.2, 0.5, 0.1, 0.7}
	vs := [][]float64{{0.2, 0.9, -0.4}, u, slices.Clone(u)}
	var cache []float64
	for i, c := range cacheKeyPasses[:len(cacheKeyPasses)-1] { // all Lead > 0: one cache size
		if c.change {
			vs[c.lead-1][0] += 0.25
		}
		p := &Pass{Op: OpModeRows, Shape: shape, Samples: M, Mode: c.mode, Vectors: vs, Lead: c.lead}
		req := (&sessionPass{p: p}).request(0, M)
		want, err := PassPartial(nil, req, Block{F64: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := ReadPassInfo(req)
		if len(cache) != info.CacheLen {
			cache = make([]float64, info.CacheLen)
		}
		x := data
		if c.fromCache {
			x = nan
		}
		got, err := PassPartial(nil, req, Block{F64: x}, cache)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("pass %d (mode %d, lead %d, from the cache %v): the rows differ (%v)", i, c.mode, c.lead, c.fromCache, err)
		}
	}
}

// TestSessionErrors: the errors of a local fit, with the same messages
// (NaN names the sample by its index in [0, M)), and misuse.
func TestSessionErrors(t *testing.T) {
	const M = 2*BlockMultiple + 30
	shape := []int{5, 4}
	data := randomTensors(3, M, shape)
	data[(BlockMultiple+7)*20+3] = math.NaN()
	src, _ := NewSliceSource(data, M, shape)
	var m Model
	local := m.Fit(src, Options{})
	if local == nil || !strings.Contains(local.Error(), "sample 71 holds a NaN or Inf value") {
		t.Fatalf("local fit: %v", local)
	}
	_, _, err := sessionFit(t, src, Options{}, []int{BlockMultiple})
	if err == nil || err.Error() != local.Error() || !errors.Is(err, ErrData) {
		t.Errorf("session error %v, local fit's %v", err, local)
	}

	// Too many components: from Next, after the passes of the statistics,
	// as from Fit.
	good, _ := NewSliceSource(randomTensors(3, M, shape), M, shape)
	if _, _, err := sessionFit(t, good, Options{Components: 6}, []int{BlockMultiple}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "6 features requested") {
		t.Errorf("session with P = 6 > I_0: %v", err)
	}
	if _, err := NewSession(1, shape, Options{}); !errors.Is(err, ErrData) {
		t.Errorf("NewSession with 1 sample: %v", err)
	}

	// Progress is called from Next, and cancels.
	calls := 0
	s, err := NewSession(M, shape, Options{RelaxedStart: true, Progress: func(done, total int, v float64) bool {
		calls++
		return done < 2
	}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		more, err := s.Next()
		if err != nil {
			if !errors.Is(err, ErrCanceled) || calls != 2 {
				t.Errorf("cancelled session: %v after %d calls", err, calls)
			}
			break
		}
		if !more {
			t.Fatal("the session finished despite cancellation")
		}
		req, _ := s.Request(0, M)
		x, _ := good.Read(0, M)
		p, _ := PassPartial(nil, req, x, nil)
		if err := s.Feed(0, M, p); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	// Misuse.
	s, _ = NewSession(M, shape, Options{})
	if _, err := s.Request(0, M); !errors.Is(err, ErrInvalid) {
		t.Errorf("Request before Next: %v", err)
	}
	if _, err := s.Model(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Model before the end: %v", err)
	}
	if more, err := s.Next(); !more || err != nil {
		t.Fatalf("Next: %v %v", more, err)
	}
	for _, b := range [][2]int{{0, 0}, {-1, 5}, {M - 5, 6}} {
		if _, err := s.Request(b[0], b[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("Request(%d, %d): %v", b[0], b[1], err)
		}
	}
	req, _ := s.Request(0, 10)
	if _, err := ReadPassInfo(req[:len(req)-1]); !errors.Is(err, ErrInvalid) {
		t.Errorf("truncated request: %v", err)
	}
	if _, err := ReadPassInfo([]byte("not a request")); !errors.Is(err, ErrInvalid) {
		t.Errorf("garbage request: %v", err)
	}
	x, _ := good.Read(0, 10)
	p, err := PassPartial(nil, req, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PassPartial(nil, req, Block{F64: x.F64[:20]}, nil); !errors.Is(err, ErrShape) {
		t.Errorf("PassPartial with 1 sample for 10: %v", err)
	}
	if more, err := s.Next(); more || !errors.Is(err, ErrInvalid) {
		t.Errorf("Next before the pass was fed: %v %v", more, err)
	}
	s.Close()
	s, _ = NewSession(M, shape, Options{})
	s.Next()
	if err := s.Feed(10, 10, p); !errors.Is(err, ErrInvalid) {
		t.Errorf("Feed out of order: %v", err)
	}
	if _, err := s.Next(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Next after a failed feed: %v", err)
	}
	s.Close()
	s, _ = NewSession(M, shape, Options{})
	s.Next()
	if err := s.Feed(0, 10, p[:len(p)-8]); !errors.Is(err, ErrInvalid) {
		t.Errorf("Feed of a truncated partial: %v", err)
	}
	s.Close()
	s.Close() // twice is fine
}

// TestSessionPartialsAreSmall: with scatter mode updates
// (Options.ModeUpdates), no pass of an SO-MPCA fit without
// relaxed start moves a value per sample: a block's partial is bounded by
// its subtrees' I x I scatters (one subtree for an aligned block of a
// power of two leaves), not by its n x I_n partial projections. With rows
// the mode passes move n I_n values.
func TestSessionPartialsAreSmall(t *testing.T) {
	const M, n = 8192, 4096 // two blocks of 256 leaves: one subtree each
	shape := []int{9, 8}
	src := must(NewSliceSource(randomTensors(3, M, shape), M, shape))
	for _, up := range []ModeUpdates{ModeUpdatesScatter, ModeUpdatesRows} {
		s, err := NewSession(M, shape, Options{Method: SOMPCA, Components: 2, MaxIter: 2, ModeUpdates: up})
		if err != nil {
			t.Fatal(err)
		}
		largest := 0
		for {
			more, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !more {
				break
			}
			for first := 0; first < M; first += n {
				req, _ := s.Request(first, n)
				x, _ := src.Read(first, n)
				partial, err := PassPartial(nil, req, x, nil)
				if err != nil {
					t.Fatal(err)
				}
				largest = max(largest, len(partial))
				if err := s.Feed(first, n, partial); err != nil {
					t.Fatal(err)
				}
			}
		}
		s.Close()
		// The largest sum partial is the mean pass's (prod I_n + 1 values)
		// or a 9 x 9 scatter; 1 KiB covers either with its header.
		rows := n * 9 * 8
		switch {
		case up == ModeUpdatesScatter && largest > 1024:
			t.Errorf("scatter updates: a block's partial took %d bytes, want <= 1 KiB (rows would be %d)", largest, rows)
		case up == ModeUpdatesRows && largest < rows:
			t.Errorf("rows updates: largest partial %d bytes, want the %d bytes of a block's rows", largest, rows)
		}
	}
}

// TestModeUpdatesRule: ModeUpdatesAuto resolves by the data's shape alone
// (rows up to RowsLimit partial projections, M x max_n I_n, the scatter
// beyond), and Model.Fit, whatever its threads and memory limit, and a
// fit session make the same choice: the default fits are equal bit for
// bit, and equal to the fit that asks for the resolved choice.
func TestModeUpdatesRule(t *testing.T) {
	for _, c := range []struct {
		shape []int
		m     int
		want  ModeUpdates
	}{
		{[]int{32, 22, 10}, RowsLimit / 32, ModeUpdatesRows},      // exactly at the limit
		{[]int{10, 22, 32}, RowsLimit/32 + 1, ModeUpdatesScatter}, // one sample more; any mode may be the largest
		{[]int{32, 22, 10}, 20000, ModeUpdatesRows},               // gait, 2 x 10^4: 5 MiB of rows
		{[]int{32, 22, 10}, 100000, ModeUpdatesScatter},           // gait, 10^5: 24 MiB
		{[]int{512, 512}, 2048, ModeUpdatesRows},                  // images of 512 x 512, 2048 of them
		{[]int{7}, 2, ModeUpdatesRows},                            // order 1
	} {
		if got := ModeUpdatesAuto.Resolve(c.shape, c.m); got != c.want {
			t.Errorf("auto on %d x %v: %v, want %v", c.m, c.shape, got, c.want)
		}
		for _, u := range []ModeUpdates{ModeUpdatesRows, ModeUpdatesScatter} {
			if got := u.Resolve(c.shape, c.m); got != u {
				t.Errorf("%v on %d x %v resolved to %v", u, c.m, c.shape, got)
			}
		}
	}

	// Both sides of the limit, fitted: shape {64, 2}, M = RowsLimit/64 is
	// rows, one more sample the scatter. The scatter and the rows agree
	// only to rounding on these samples (checked below), so equality bit
	// for bit says which one auto took.
	shape := []int{64, 2}
	for _, c := range []struct {
		m    int
		want ModeUpdates
	}{{RowsLimit / 64, ModeUpdatesRows}, {RowsLimit/64 + 1, ModeUpdatesScatter}} {
		data := randomTensors(31, c.m, shape)
		opts := Options{Method: SOMPCA, Components: 2, MaxIter: 2, Threads: 1}
		auto, src := fitOrFatal(t, data, c.m, shape, opts)
		forced := opts
		forced.ModeUpdates = c.want
		want, _ := fitOrFatal(t, data, c.m, shape, forced)
		if !reflect.DeepEqual(auto, want) {
			t.Errorf("M = %d: the default fit is not the %v fit", c.m, c.want)
		}
		other := opts
		other.ModeUpdates = ModeUpdatesRows + ModeUpdatesScatter - c.want
		if o, _ := fitOrFatal(t, data, c.m, shape, other); reflect.DeepEqual(o, want) {
			t.Fatalf("M = %d: rows and scatter fits are equal: the test cannot tell them apart", c.m)
		} else {
			checkSameModel(t, o, want, 1e-9, shape, methodCase{SOMPCA, false})
		}
		// Neither threads nor a memory limit (the smallest that holds the
		// workspaces of either choice) change the choice.
		varied := opts
		varied.Threads, varied.MemoryLimit = 3, 64<<20
		if got, _ := fitOrFatal(t, data, c.m, shape, varied); !reflect.DeepEqual(got, want) {
			t.Errorf("M = %d: the default fit with 3 threads and a 64 MiB limit differs", c.m)
		}
		// A session (the executor of a distributed driver), in blocks of
		// whole BlockMultiples.
		got, _, err := sessionFit(t, src, opts, []int{64 * BlockMultiple})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("M = %d: the default session fit is not the default local fit", c.m)
		}
	}
}
