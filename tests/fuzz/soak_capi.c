/*
 * soak_capi: N fit/transform/free cycles through the C API (default
 * 10,000); the resident set may not grow by 1 MB or more between the end
 * of a warm-up (the first tenth) and the end. Exit status 1 if it does.
 * Part of `make soak`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sompca.h"

enum { M = 30, ROWS = 6, COLS = 5, P = 3 };

/* Resident set size in bytes, from /proc/self/statm. */
static long rss(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f == NULL || fscanf(f, "%ld %ld", &pages, &resident) != 2)
		resident = -1;
	if (f != NULL)
		fclose(f);
	return resident * sysconf(_SC_PAGESIZE);
}

int main(int argc, char **argv)
{
	long cycles = argc > 1 ? atol(argv[1]) : 10000;
	static double x[M * ROWS * COLS];
	double features[M * P];
	unsigned state = 1;
	for (int i = 0; i < M * ROWS * COLS; i++) {
		state = state * 1664525u + 1013904223u;
		x[i] = (double)(state >> 8) / (1 << 24) + (i % COLS) * (i / COLS % ROWS) * 0.1;
	}
	const size_t shape[2] = {ROWS, COLS};
	sompca_options opts;
	sompca_options_init(&opts);
	opts.method = SOMPCA_METHOD_SOMPCA;
	opts.n_components = P;
	long warm = 0, warm_at = cycles / 10;
	for (long c = 0; c < cycles; c++) {
		sompca_model *model = NULL;
		if (sompca_fit(&model, x, SOMPCA_FLOAT64, M, 2, shape, &opts) != SOMPCA_OK ||
		    sompca_transform(model, features, M * P, x, SOMPCA_FLOAT64, M) != SOMPCA_OK) {
			fprintf(stderr, "soak_capi: cycle %ld failed: %s\n", c, sompca_last_error());
			return 2;
		}
		sompca_model_free(model);
		if (c + 1 == warm_at)
			warm = rss();
	}
	long end = rss(), growth = end - warm;
	printf("soak_capi: %ld fit/transform/free cycles; RSS %.1f MB after %ld, %.1f MB at the end: growth %+.3f MB (limit 1 MB)\n",
	       cycles, warm / 1e6, warm_at, end / 1e6, growth / 1e6);
	return growth < 1000000 ? 0 : 1;
}
