//go:build amd64 && !purego

package solver

// The exact uint8 contractions in AVX2 assembly (fixed_amd64.s): the bits
// of dotRowsFixedGo and axpyRowsFixedGo, since every sum is exact and
// combined as fixedVec.combine does.
//
// What bounds them: each 16 bytes of a row are widened once (VPMOVZXBW)
// and take one VPMADDWD and one VPADDD per limb, 8 vector operations per
// 16 elements (axpyRows adds 2 unpacks per 16 columns of a row pair),
// where the float64 uint8 kernels take 4 per 4 elements. Zen 3 issues 2
// VPMADDWD a cycle, and they, the VPADDDs that accumulate them and the
// unpacks share the 4 floating-point pipes: C with inline assembly under
// the lock (2026-11-27, clock 3.09-3.13 GHz by a chain of adds) runs
// VPMADDWD alone at 2.0 a cycle, VPADDD alone at 3.2, and mixed pairs of
// the two, or of either with unpacks, at 3.0-3.5 a cycle (16 VPMADDWD
// and 16 VPADDD in 9.5-10.5 cycles), so the bound is the count of vector
// operations, not the multiply-adds. The rest is per row and per block.
// Rows of more than fixedQuadMax columns go two at a time, and
// dotRows sums each row's 4 x 8 int32 lanes by limb (18 unpacks and adds
// a row pair) and converts them. Shorter rows, where those sums cost
// about as much as the multiply-adds, go four at a time with no sums
// across lanes: the four rows' bytes are transposed so that lane i of a
// limb's accumulator sums row i mod 4's products against the limb pairs
// of fixedVec.tab, laid out to match, and the four rows' sums are
// converted together. 32 columns at a time (16 unpacks for the
// transposition and the widening) take 12.0-13.1 cycles each 16 columns
// of 4 rows, 16 at a time (4 VPMOVZXBW and 8 unpacks) 13.6 (C, as above);
// so rows take 32 columns at a time while more than 16 are left. A block
// of 32 columns of 4 rows is 80 vector operations (16 unpacks, 32
// VPMADDWD, 32 VPADDD) in 24-26 cycles, 3.1-3.3 a cycle (20.6 cycles,
// 3.9 a cycle, in a quieter hour of the same day): at the pipes' rate for
// this mix. Each quad of rows then sums its accumulators' halves and
// converts and combines them (about 20 operations): 11-12 cycles more on
// one block, 15-16 on two (C, as above), more than their count, since
// they wait on the block's last adds and on each other. In the fits the
// quad kernel takes 9.2-11.6 ns per 128 elements (gait uint8, mostly rows
// of 220) and 11.9-15.1 (faces, rows of 60), 1 thread, timed call by call
// inside bench/gofit by an instrumented build (not kept), against 7.7-8.4
// for a block in cache; leaving out the per-quad sums (wrong results, for
// the measure only) took one such run from 9.2 and 12.5 to 8.4 and 11.5.
// Keeping 16 quads' accumulators in the frame and summing them after
// the 16th made no difference there (-6% to +8% by run, -0.6% on
// average over 16 runs interleaved with this kernel call by call; whole
// fits, 18 each interleaved, medians -2% to +2%; not kept). axpyRows
// converts and combines each 16 columns (about 60 operations) once per
// block of rows.
// Hence BenchmarkKernels on one sample in cache (min ns/op of 9
// interleaved runs, chrt, on the loaded machine; fixed vs float64 uint8
// kernel): dotRows 128 x 128 1.49x, gait 32 x 220 1.13x, faces 80 x 60
// 1.19x, 32 x 32 1.33x, rows of 10 (704 x 10) 0.92x (the rows of 16
// bytes are 6 columns longer); 512 x 512 (two rows at a time) 1.41-1.65x;
// axpyRows 512 x 512 1.38x, 128 x 128 1.44x, 32 x 220 1.15x, 80 x 60
// 1.42x. Of dotRows 32 x 220, 80 x 60 and 704 x 10 the last 4 rows (their
// last blocks of 16 would read past the sample) go through
// dotRowsFixedQuad's copy to a buffer. In a fit only a leaf's last rows
// do: rows0 contracts a leaf's 16 uint8 samples in one call (gait: 25,370
// of a fit's 28,320 calls are 512 rows of 220, the rest 64 to 448;
// faces: 1280 rows of 60; counted by an instrumented bench/gofit, not
// kept), and dotRowsFixedQuad's own time, its copies included, was 0.01
// of its 2.18 s over 8 one-thread gait fits (pprof). Reading those rows
// in place up to cap(x) took 32 x 220 from 563 to 542 ns and 80 x 60
// from 510 to 459 in cache (min of 10, in-process, not kept): nothing a
// fit could show, so the copy stays. In passes over the 721 faces (57680
// rows of 60 from memory) the fixed dotRows takes 443 against 569 ns a
// sample (1.28x) by 16 columns at a time, and by 32 at a time 4-7% less
// again (min of 7, interleaved: 304 against 325 us a pass; 80 x 60 in
// cache 456 against 480 ns, 128-column rows 251 against 268 us a pass).
// In a fit axpyRows was bound by reading the sample from L3 down its
// rows, 16 columns at a time; it now prefetches the next sample as it
// goes and takes two row pairs an iteration (see axpyRowsFixedAVX2),
// which took 21% off its time in the gait fit (solver/doc.go, "Kernels").
// Where the rest of its in-fit time goes (2026-11-27, session 7): not to
// L3. BenchmarkFixedStream (fixed_linux_test.go) walks the 731 gait
// samples (5.1 MB) as the fit does, axpyRows a sample a call into a
// leaf's rows and dotRows a leaf of 16 samples a call, against the same
// calls on one sample or leaf in cache; in a quiet spell (chrt, 200
// passes, 3 runs each, /tmp/s4-solver.test -test.bench
// BenchmarkFixedStream -test.benchtime 200x -test.count 3, the test
// binary built by go test -c) axpyRows took 485-531 ns a sample in cache and
// 504-628 streaming on 4 KB pages, 539-580 and 515-555 on huge pages;
// dotRows 465-485 and 489-533, 481-565 and 536-644; another run
// (-test.benchtime 100x -test.count 3, huge pages) axpyRows 515-578 in
// cache, 632-675 streaming. Within about 0-15% of each other, in this
// machine's noise: the prefetch of the next sample keeps the stream from
// L3 near the in-cache rate, and huge pages change nothing there. A pass
// whose samples were evicted to DRAM first (64 MB read before it) took
// 9.5-12 us a sample, about 20 times as long, so the fit's samples do
// stay in L3. Timed call by call inside
// bench/gofit (an instrumented build, not kept; 2-4 fits, 1 thread), the
// fit's axpyRows calls took 620-850 ns a sample by the hour, the same
// hour's streaming bench 545-810: the 835 against 505 ns of last
// session's pprof compared a loaded hour with a quiet one. By pprof, two
// runs of 8 one-thread fits (bench/gofit -threads 1 -repeat 8
// -cpuprofile, chrt; a fit makes 453,951 axpyRows calls and dotRows
// 431,290 samples, counted by the instrumented build), each followed by
// the bench: axpyRows 1.92 and 2.26 s, 529 and 622 ns a sample, against
// 533-553 streaming and 506-545 in cache; dotRowsFixedQuad 1.76 and 1.99
// s, 510 and 577 ns, against 485-498 and 476-488: 0-15% apart, as the
// fits' own times moved (0.60-0.66 s, then 0.59-0.76). One cost is
// the fit's own: the first sample of a grain whose call did not follow
// the previous call's samples. At 1 thread (3 fits, an instrumented
// build at 44cee4f) 44,160 of the 89,280 grain starts (contractor.mode0
// calls of 16 samples) did not: the next grain came 32 samples before the
// end of the one just done (the pass walks those leaves downwards), so
// the previous call's prefetch of "the next sample" fetched one already
// contracted. Those first samples took 1,368-1,371 ns, against 843-859
// for the rest of a grain and 859-941 for the grain starts that did
// follow (a loaded hour; each figure with two time.Now calls'
// overhead). Prefetching such a grain's first sample in full before its
// call (PREFETCHT0 every 64 bytes) took them to 1,078 and 743 ns (the
// rest 842 and 645): 300-400 ns saved on 14,720 calls a fit, about 5 ms
// of a 0.7-0.9 s one-thread fit, 0.6%: below what whole fits resolve
// here, not kept. dotRowsFixedQuad in the fit took 545-635 ns a sample against
// 566-619 streaming in the same hour (call timers).
// The short rows' dotRows, which reads x in order, four rows side by
// side, prefetches four quads of rows ahead: about 4% of its time in the
// gait fit (see dotRowsFixedQuadAVX2). A limb-pair table for axpyRows
// (VMOVDQU of 32 bytes a pair and limb instead of VPBROADCASTD) made no
// difference there (perf samples 18344 and 18020, with and without).
// axpyRows' loop now runs at the multiply-adds' bound (about 5.5 cycles
// a row pair of 16 columns, in cache), and blocks of up to 255 rows
// convert their sums after the last block rather than at each block's
// end, where the conversion held up the next block (about 33 cycles a
// block): 32 x 220 630 -> 508 ns in cache, 80 x 60 377 -> 335 (see
// axpyRowsFixedAVX2 and solver/doc.go, "Kernels").

//go:noescape
func dotRowsFixedAVX2(dst *float64, x *uint8, limbs *int16, ld, rows, cols int, scale float64)

//go:noescape
func dotRowsFixedQuadAVX2(dst *float64, x *uint8, tab *int16, rows, cols int, scale float64)

//go:noescape
func axpyRowsFixedAVX2(dst *float64, x *uint8, limbs *int16, ld, rows, cols int, scale float64, sums *int64)

// dotRowsFixedAsm is dotRowsFixedGo in assembly, for rows, cols >= 1
// (useAVX2 only): rows of up to fixedQuadMax columns four at a time
// (dotRowsFixedQuad), longer ones two at a time.
func dotRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *fixedVec) {
	if f.n != cols || rows < 1 || cols < 1 {
		panic("solver: dotRowsFixedAsm: bad shape")
	}
	if cols <= fixedQuadMax {
		dotRowsFixedQuad(dst, x, rows, cols, f)
		return
	}
	// The assembly reads x[:rows*cols] and the limb rows to cols rounded
	// up to fixedPad (zero past cols), and writes dst[:rows].
	_, _, _ = dst[rows-1], x[rows*cols-1], f.limbs[fixedLimbs*f.ld-1]
	dotRowsFixedAVX2(&dst[0], &x[0], &f.limbs[0], f.ld, rows, cols, f.scale)
}

// dotRowsFixedQuad is dotRowsFixedAsm for cols <= fixedQuadMax, four rows
// at a time by dotRowsFixedQuadAVX2, which reads each row's blocks of 16
// bytes whole (f.tab's limbs are zero past cols): the rows whose blocks
// end inside x in place, the last few (fewer than 4 + 16/cols) copied
// four at a time to a buffer with zeros after them. Each row's result is
// its own, so the rows a call groups together cannot change a bit.
func dotRowsFixedQuad(dst []float64, x []uint8, rows, cols int, f *fixedVec) {
	span := (cols + fixedPad - 1) / fixedPad * fixedPad
	_ = f.tab[span*16-1] // fixedTabLen(cols)
	// Row r's blocks end inside x when r*cols + span <= rows*cols.
	inside := 0
	if n := rows * cols; n >= span {
		inside = min((n-span)/cols+1, rows)
	}
	quads := inside &^ 3
	if quads > 0 {
		_, _ = dst[quads-1], x[quads*cols-1]
		dotRowsFixedQuadAVX2(&dst[0], &x[0], &f.tab[0], quads, cols, f.scale)
	}
	var buf [3*fixedQuadMax + 256]uint8 // 3 cols + span
	var out [4]float64
	for r := quads; r < rows; r += 4 {
		k := min(4, rows-r)
		m := copy(buf[:], x[r*cols:(r+k)*cols])
		clear(buf[m : 3*cols+span])
		dotRowsFixedQuadAVX2(&out[0], &buf[0], &f.tab[0], 4, cols, f.scale)
		copy(dst[r:r+k], out[:k])
	}
}

// axpyRowsFixedAsm is axpyRowsFixedGo in assembly, for cols >= 16 and
// 1 <= rows <= 2^15 (useAVX2 only), with sums as scratch of fixedLimbs*cols
// int64.
func axpyRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *fixedVec, sums []int64) {
	// The assembly reads x[:rows*cols] and the limb rows to rows + 1,
	// writes dst[:cols], and for rows <= 255 uses 256 bytes of sums a
	// block of 16 columns ((cols+15)/16 blocks: at most 16 (cols+15)
	// bytes, less than the 32 cols of fixedLimbs*cols int64).
	if f.n != rows || cols < fixedPad || rows < 1 || rows > 1<<15 {
		panic("solver: axpyRowsFixedAsm: bad shape")
	}
	_, _, _, _ = dst[cols-1], x[rows*cols-1], f.limbs[fixedLimbs*f.ld-1], sums[(cols+15)/16*32-1]
	axpyRowsFixedAVX2(&dst[0], &x[0], &f.limbs[0], f.ld, rows, cols, f.scale, &sums[0])
}
