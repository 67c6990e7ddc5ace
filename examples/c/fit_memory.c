/*
 * fit_memory.c - fit SO-MPCA-RS on an array in memory, watch its progress,
 * transform into a buffer of the right size, and handle errors: what each
 * failure looks like (status code, sompca_errstr, sompca_last_error).
 *
 *   fit_memory
 *
 * Build: cc -std=c99 -I include fit_memory.c -L build -lsompca
 *    or: cc fit_memory.c $(pkg-config --cflags --libs sompca)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sompca.h"

#define N_SAMPLES 30
#define ROWS 6
#define COLS 5

/* Progress: called after each EMP; returning non-zero cancels the fit. */
static int show_progress(void *user, int done, int total, double variance)
{
	int cancel_after = *(const int *)user;
	printf("  EMP %d of %d: captured variance %.4f\n", done, total, variance);
	return cancel_after > 0 && done >= cancel_after;
}

/* Prints what a call returned: the code, its static text and the message. */
static void report(const char *what, int status)
{
	if (status == SOMPCA_OK)
		printf("%s: ok\n", what);
	else
		printf("%s: status %d (%s): %s\n", what, status, sompca_errstr(status),
		       sompca_last_error());
}

int main(void)
{
	/* 30 grey 6 x 5 images as float32, read in place by the library. */
	static float images[N_SAMPLES][ROWS][COLS];
	uint32_t state = 7;
	for (int m = 0; m < N_SAMPLES; m++)
		for (int i = 0; i < ROWS; i++)
			for (int j = 0; j < COLS; j++) {
				state = state * 1664525u + 1013904223u;
				images[m][i][j] = (float)((m % 5) * (i + 1) + (m % 2) * j + (state >> 28));
			}
	const size_t shape[2] = {ROWS, COLS};

	sompca_options opts;
	sompca_options_init(&opts);
	opts.method = SOMPCA_METHOD_SOMPCA;
	opts.relaxed_start = 1;
	int cancel_after = 0;
	opts.progress = show_progress;
	opts.progress_user = &cancel_after;

	printf("fitting SO-MPCA-RS on %d samples of %d x %d (float32)\n", N_SAMPLES, ROWS, COLS);
	sompca_model *model = NULL;
	int status = sompca_fit(&model, images, SOMPCA_FLOAT32, N_SAMPLES, 2, shape, &opts);
	report("fit", status);
	if (status != SOMPCA_OK)
		return 1;

	/* Ask how large the features are, then transform into our buffer. */
	size_t need = 0, p = 0;
	sompca_model_n_components(model, &p);
	status = sompca_transform_size(model, N_SAMPLES, &need);
	double *features = status == SOMPCA_OK ? malloc(need * sizeof *features) : NULL;
	if (features == NULL)
		return 1;
	status = sompca_transform(model, features, need, images, SOMPCA_FLOAT32, N_SAMPLES);
	report("transform", status);
	printf("features of sample 0:");
	for (size_t j = 0; j < p; j++)
		printf(" %.4f", features[j]);
	printf("\n");

	printf("\nerror handling: each failure gives a code and a message, and no model\n");
	const size_t bad_shape[2] = {ROWS, 0};
	sompca_model *none = NULL;
	report("fit with a zero-sized mode", sompca_fit(&none, images, SOMPCA_FLOAT32, N_SAMPLES, 2,
	                                                 bad_shape, &opts));
	report("transform into too small a buffer",
	       sompca_transform(model, features, need - 1, images, SOMPCA_FLOAT32, N_SAMPLES));
	sompca_options bad = opts;
	bad.mode = 7;
	report("fit with mode 7 of a 2-mode sample",
	       sompca_fit(&none, images, SOMPCA_FLOAT32, N_SAMPLES, 2, shape, &bad));
	report("load a missing file", sompca_model_load(&none, "no-such-model.h5"));
	report("use a NULL model", sompca_transform_size(NULL, 1, &need));
	cancel_after = 2;
	report("fit cancelled by the progress callback after 2 EMPs",
	       sompca_fit(&none, images, SOMPCA_FLOAT32, N_SAMPLES, 2, shape, &opts));
	printf("no model was made by the failed calls: %s\n", none == NULL ? "yes" : "no");

	free(features);
	sompca_model_free(model);
	return 0;
}
