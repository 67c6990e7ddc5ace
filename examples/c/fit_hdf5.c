/*
 * fit_hdf5.c - fit a model on an HDF5 dataset, print the variance each
 * feature captures, save the model, and write the features of the data.
 *
 *   fit_hdf5 [--layout LAYOUT] [--method NAME] [--components P]
 *            DATA.h5 DATASET MODEL.h5 FEATURES.h5
 *
 * LAYOUT is samples-first (the default), samples-last, or column-major for
 * data written by MATLAB -v7.3, R or Julia (--samples-last is the same as
 * --layout samples-last).
 * NAME is any name sompca_method_from_name reads: so-mpca-rs (the default,
 * the paper's method), so-mpca, fo-mpca,
 * fo-mpca-rs, trod, trod-rs, umpca, umpca-rs, pca, mpca or csa. The
 * features go to dataset /features of FEATURES.h5, n_samples x P.
 *
 * Build: cc -std=c99 -I include fit_hdf5.c -L build -lsompca
 *    or: cc fit_hdf5.c $(pkg-config --cflags --libs sompca)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sompca.h"

/* Prints a failed call's status and message, and exits. */
static void die(const char *what, int status)
{
	fprintf(stderr, "fit_hdf5: %s failed: %s (status %d): %s\n", what, sompca_errstr(status),
	        status, sompca_last_error());
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: fit_hdf5 [--layout samples-first|samples-last|column-major] [--method NAME] [--components P] "
	                "DATA.h5 DATASET MODEL.h5 FEATURES.h5\n");
	exit(2);
}

int main(int argc, char **argv)
{
	sompca_options opts;
	sompca_options_init(&opts);
	opts.method = SOMPCA_METHOD_SOMPCA;
	opts.relaxed_start = 1;
	int layout = SOMPCA_LAYOUT_SAMPLES_FIRST, arg = 1;
	for (; arg < argc && strncmp(argv[arg], "--", 2) == 0; arg++) {
		if (strcmp(argv[arg], "--samples-last") == 0) {
			layout = SOMPCA_LAYOUT_SAMPLES_LAST;
		} else if (strcmp(argv[arg], "--layout") == 0 && arg + 1 < argc) {
			const char *name = argv[++arg];
			if (strcmp(name, "samples-first") == 0)
				layout = SOMPCA_LAYOUT_SAMPLES_FIRST;
			else if (strcmp(name, "samples-last") == 0)
				layout = SOMPCA_LAYOUT_SAMPLES_LAST;
			else if (strcmp(name, "column-major") == 0)
				layout = SOMPCA_LAYOUT_COLUMN_MAJOR;
			else
				usage();
		} else if (strcmp(argv[arg], "--method") == 0 && arg + 1 < argc) {
			/* The library parses method names: no table of our own. */
			int status = sompca_method_from_name(argv[++arg], &opts.method, &opts.relaxed_start);
			if (status != SOMPCA_OK) {
				fprintf(stderr, "fit_hdf5: %s\n", sompca_last_error());
				usage();
			}
		} else if (strcmp(argv[arg], "--components") == 0 && arg + 1 < argc) {
			opts.n_components = atoi(argv[++arg]);
		} else {
			usage();
		}
	}
	if (argc - arg != 4)
		usage();
	const char *data = argv[arg], *dataset = argv[arg + 1], *model_path = argv[arg + 2],
	           *features_path = argv[arg + 3];

	if (sompca_version_number() != SOMPCA_VERSION_NUMBER)
		fprintf(stderr, "fit_hdf5: warning: built with sompca.h %d, running libsompca %s\n",
		        SOMPCA_VERSION_NUMBER, sompca_version());

	sompca_model *model = NULL;
	int status = sompca_fit_hdf5(&model, data, dataset, layout, &opts);
	if (status != SOMPCA_OK)
		die("fit", status);
	if (*sompca_last_warning() != '\0')
		fprintf(stderr, "fit_hdf5: warning: %s\n", sompca_last_warning());

	/* The sizes of what the accessors copy out come from the model. */
	size_t n_samples, order, p, shape[32];
	int mode, method, relaxed_start;
	if ((status = sompca_model_method(model, &method, &relaxed_start)) != SOMPCA_OK ||
	    (status = sompca_model_n_samples(model, &n_samples)) != SOMPCA_OK ||
	    (status = sompca_model_order(model, &order)) != SOMPCA_OK ||
	    (status = sompca_model_shape(model, shape, 32)) != SOMPCA_OK ||
	    (status = sompca_model_n_components(model, &p)) != SOMPCA_OK ||
	    (status = sompca_model_mode(model, &mode)) != SOMPCA_OK)
		die("reading the model", status);
	printf("sompca %s: fitted %s on %zu samples of shape ", sompca_version(),
	       sompca_method_name(method, relaxed_start), n_samples);
	for (size_t k = 0; k < order; k++)
		printf("%s%zu", k ? " x " : "", shape[k]);
	printf(" from %s:%s", data, dataset);
	if (mode >= 0)
		printf(", orthogonal mode %d", mode);
	printf("\n");

	double *variance = malloc(p * sizeof *variance), *ratio = malloc(p * sizeof *ratio);
	if (variance == NULL || ratio == NULL) {
		fprintf(stderr, "fit_hdf5: out of memory\n");
		return 1;
	}
	if ((status = sompca_model_variance(model, variance, p)) != SOMPCA_OK ||
	    (status = sompca_model_variance_ratio(model, ratio, p)) != SOMPCA_OK)
		die("reading the variances", status);
	double total = 0;
	for (size_t j = 0; j < p; j++) {
		printf("feature %zu: variance %.17g ratio %.6f\n", j, variance[j], ratio[j]);
		total += ratio[j];
	}
	printf("%zu features explain %.2f%% of the variance\n", p, 100 * total);

	if ((status = sompca_model_save(model, model_path)) != SOMPCA_OK)
		die("saving the model", status);
	printf("saved the model to %s\n", model_path);
	status = sompca_transform_hdf5(model, data, dataset, layout, features_path, "/features", 1);
	if (status != SOMPCA_OK)
		die("transform", status);
	printf("wrote %zu x %zu features to %s:/features\n", n_samples, p, features_path);

	free(variance);
	free(ratio);
	sompca_model_free(model);
	return 0;
}
