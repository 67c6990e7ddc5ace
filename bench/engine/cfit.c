/*
 * cfit.c - times fits through libsompca's C interface on samples read from
 * a raw file, for bench/engine/table.py (the "C" column of make bench).
 *
 *   cfit FILE DTYPE M,I_1,...,I_N METHOD P K THREADS REPS
 *
 * DTYPE is uint8, float32 or float64; METHOD any name that
 * sompca_method_from_name reads; tol is 0 (every fit makes its K sweeps). Prints the seconds of each fit and its
 * CPU seconds, one fit per line ("1.234 cpu 2.345"), after one fit that is
 * not timed. The samples are held in transparent huge pages where the
 * kernel allows it (madvise(MADV_HUGEPAGE)), as NumPy holds its large
 * arrays and bench/gofit its samples, so that every path reads the same
 * kind of memory.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "sompca.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* User + system CPU seconds of the process. */
static double cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static void fail(const char *what)
{
	fprintf(stderr, "cfit: %s: %s\n", what, sompca_last_error());
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc != 9) {
		fprintf(stderr, "usage: cfit FILE DTYPE M,I_1,...,I_N METHOD P K THREADS REPS\n");
		return 2;
	}
	int dtype = strcmp(argv[2], "uint8") == 0     ? SOMPCA_UINT8
	            : strcmp(argv[2], "float32") == 0 ? SOMPCA_FLOAT32
	            : strcmp(argv[2], "float64") == 0 ? SOMPCA_FLOAT64
	                                              : -1;
	if (dtype < 0) {
		fprintf(stderr, "cfit: unknown dtype %s\n", argv[2]);
		return 2;
	}
	size_t dims[33], n = 0;
	for (char *s = argv[3]; *s && n < 33; n++) {
		dims[n] = strtoul(s, &s, 10);
		if (*s == ',')
			s++;
	}
	FILE *f = fopen(argv[1], "rb");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long bytes = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *data = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (data == MAP_FAILED)
		data = NULL;
	else
		madvise(data, bytes, MADV_HUGEPAGE); /* a refusal leaves small pages */
	if (data == NULL || fread(data, 1, bytes, f) != (size_t)bytes) {
		fprintf(stderr, "cfit: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);

	int method, relaxed_start;
	if (sompca_method_from_name(argv[4], &method, &relaxed_start) != SOMPCA_OK)
		fail("method");
	sompca_options opts;
	if (sompca_options_defaults(method, &opts) != SOMPCA_OK)
		fail("options");
	opts.relaxed_start = relaxed_start;
	opts.n_components = atoi(argv[5]);
	opts.max_iter = atoi(argv[6]);
	opts.tol = 0;
	opts.n_threads = atoi(argv[7]);
	int reps = atoi(argv[8]);
	for (int i = 0; i <= reps; i++) {
		double t0 = now(), c0 = cpu();
		sompca_model *model = NULL;
		if (sompca_fit(&model, data, dtype, dims[0], n - 1, dims + 1, &opts) != SOMPCA_OK)
			fail("fit");
		double t = now() - t0, c = cpu() - c0;
		sompca_model_free(model);
		if (i > 0)
			printf("%.6f cpu %.6f\n", t, c);
	}
	munmap(data, bytes);
	return 0;
}
