/*
 * mkdata.c - writes the small HDF5 file the C examples run on in
 * `make test`: 40 samples of 8 x 6 as float64 dataset /x (samples first)
 * and the same samples as float32 dataset /x_last (8 x 6 x 40, samples
 * last). The values are a fixed low-rank pattern plus integer noise from a
 * linear congruential generator, so every run writes the same file.
 *
 * Usage: mkdata OUT.h5
 */
#include <stdint.h>
#include <stdio.h>

#include "h5data.h"

#define M 40
#define R 8
#define C 6

int main(int argc, char **argv)
{
	static double x[M][R][C];
	static float x_last[R][C][M];
	uint32_t state = 2015;
	if (argc != 2) {
		fprintf(stderr, "usage: mkdata OUT.h5\n");
		return 2;
	}
	for (int m = 0; m < M; m++)
		for (int i = 0; i < R; i++)
			for (int j = 0; j < C; j++) {
				state = state * 1664525u + 1013904223u;
				double noise = (double)(state >> 24) / 32.0;
				x[m][i][j] = (m % 4) * (i + 1) + (m % 3) * (j + 2) * 0.5 + noise;
				x_last[i][j][m] = (float)x[m][i][j];
			}
	hsize_t dims[3] = {M, R, C}, dims_last[3] = {R, C, M};
	if (h5data_write(argv[1], "/x", H5T_NATIVE_DOUBLE, 3, dims, x) != 0) {
		fprintf(stderr, "mkdata: cannot write %s\n", argv[1]);
		return 1;
	}
	/* A second dataset in the same file. */
	hid_t file = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t space = H5Screate_simple(3, dims_last, NULL);
	hid_t set = H5Dcreate2(file, "/x_last", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT,
	                       H5P_DEFAULT);
	int bad = file < 0 || set < 0 ||
	          H5Dwrite(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, x_last) < 0;
	if (set >= 0)
		H5Dclose(set);
	H5Sclose(space);
	if (file >= 0 && H5Fclose(file) < 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, "mkdata: cannot write %s/x_last\n", argv[1]);
		return 1;
	}
	return 0;
}
