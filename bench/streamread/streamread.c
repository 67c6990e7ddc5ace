// streamread: how fast 1 or 2 cores read an array from memory (or L3), to
// compare with the passes of a fit over float samples (bench/MEASUREMENTS.md,
// "Engine notes"). Each of T threads reads its contiguous share of an array of
// S MB with AVX2 loads summed into 8 accumulators (the loads are the whole
// work), PASSES times, the threads meeting at a barrier between passes; in
// mode b every other pass walks each share from its end, as the runner's
// turning passes do (each member on the same samples both ways), in mode f
// every pass goes forward. The array sits on transparent huge pages, as
// bench/gofit holds the samples. Pass 0 warms up; the rest are timed by
// thread 0 from barrier to barrier.
//
//	gcc -O2 -mavx2 -pthread -o /tmp/streamread bench/streamread/streamread.c
//	/tmp/streamread 41.2 2 60 b    # MB, threads, passes, mode
//
// prints the mean rate over the timed passes and the median and best pass
// (GB/s, 1e9 bytes). Time it under the benchmark lock (TEAM.md).
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double *A;
static size_t N; // elements, a multiple of 32 T
static int T, passes;
static char mode;
static pthread_barrier_t bar;
static double *ts;     // ts[p]: the start of pass p; ts[passes]: the end
static double sink[8]; // keeps the sums alive

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define ACC(s, q) s = _mm256_add_pd(s, _mm256_load_pd(q))

static double sum8(__m256d s0, __m256d s1, __m256d s2, __m256d s3, __m256d s4, __m256d s5, __m256d s6, __m256d s7) {
	__m256d s = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)),
	                          _mm256_add_pd(_mm256_add_pd(s4, s5), _mm256_add_pd(s6, s7)));
	double o[4];
	_mm256_storeu_pd(o, s);
	return o[0] + o[1] + o[2] + o[3];
}

static double forward(const double *p, size_t n) {
	__m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
	for (size_t i = 0; i < n; i += 32) {
		ACC(s0, p + i); ACC(s1, p + i + 4); ACC(s2, p + i + 8); ACC(s3, p + i + 12);
		ACC(s4, p + i + 16); ACC(s5, p + i + 20); ACC(s6, p + i + 24); ACC(s7, p + i + 28);
	}
	return sum8(s0, s1, s2, s3, s4, s5, s6, s7);
}

static double backward(const double *p, size_t n) {
	__m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
	for (size_t i = n; i >= 32; i -= 32) {
		const double *q = p + i - 32;
		ACC(s0, q + 28); ACC(s1, q + 24); ACC(s2, q + 20); ACC(s3, q + 16);
		ACC(s4, q + 12); ACC(s5, q + 8); ACC(s6, q + 4); ACC(s7, q);
	}
	return sum8(s0, s1, s2, s3, s4, s5, s6, s7);
}

static void *reader(void *arg) {
	int w = (int)(long)arg;
	size_t share = N / T;
	const double *s = A + w * share;
	double acc = 0;
	for (int p = 0; p < passes; p++) {
		pthread_barrier_wait(&bar);
		if (w == 0)
			ts[p] = now();
		acc += (mode == 'b' && p % 2) ? backward(s, share) : forward(s, share);
	}
	pthread_barrier_wait(&bar);
	if (w == 0)
		ts[passes] = now();
	sink[w] = acc;
	return 0;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: streamread MB threads passes [f|b]\n");
		return 2;
	}
	double mb = atof(argv[1]);
	T = atoi(argv[2]);
	passes = atoi(argv[3]);
	mode = argc > 4 ? argv[4][0] : 'f';
	if (T < 1 || T > 8 || passes < 2) {
		fprintf(stderr, "streamread: 1-8 threads, at least 2 passes\n");
		return 2;
	}
	N = (size_t)(mb * 1e6 / 8) / (32 * T) * (32 * T);
	size_t huge = 2 << 20, bytes = (N * 8 + huge - 1) / huge * huge;
	A = aligned_alloc(huge, bytes);
	madvise(A, bytes, MADV_HUGEPAGE);
	for (size_t i = 0; i < N; i++)
		A[i] = i * 1e-9;
	ts = malloc(sizeof(double) * (passes + 1));
	pthread_barrier_init(&bar, 0, T);
	pthread_t th[8];
	for (int w = 0; w < T; w++)
		pthread_create(&th[w], 0, reader, (void *)(long)w);
	for (int w = 0; w < T; w++)
		pthread_join(th[w], 0);
	int n = passes - 1; // pass 0 warms up
	double *d = malloc(sizeof(double) * n);
	for (int p = 1; p < passes; p++)
		d[p - 1] = ts[p + 1] - ts[p];
	qsort(d, n, sizeof(double), cmp);
	double gb = N * 8 / 1e9;
	printf("%.1f MB, %d threads, mode %c, %d passes: mean %.2f GB/s, median pass %.2f, best %.2f\n", N * 8 / 1e6, T, mode,
	       passes, n * gb / (ts[passes] - ts[1]), gb / d[n / 2], gb / d[0]);
	return sink[0] == 1234.5;
}
