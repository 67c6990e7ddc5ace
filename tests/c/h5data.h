/*
 * h5data.h - write and read small HDF5 datasets for the C tests, with the
 * HDF5 C library directly (independent of sompca's own HDF5 code).
 */
#ifndef SOMPCA_H5DATA_H
#define SOMPCA_H5DATA_H

#include <hdf5.h>

/* Writes a new file path holding dataset name of the given rank and dims
 * and element type (H5T_NATIVE_*). Returns 0 on success. */
static inline int h5data_write(const char *path, const char *name, hid_t type, int rank,
                        const hsize_t *dims, const void *data)
{
	int rc = -1;
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (file < 0)
		return -1;
	hid_t space = H5Screate_simple(rank, dims, NULL);
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
	H5Pset_create_intermediate_group(lcpl, 1);
	hid_t set = H5Dcreate2(file, name, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
	if (set >= 0 && H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0)
		rc = 0;
	if (set >= 0)
		H5Dclose(set);
	H5Pclose(lcpl);
	H5Sclose(space);
	if (H5Fclose(file) < 0)
		rc = -1;
	return rc;
}

/* Reads dataset name of path as doubles into dst[cap]; sets dims[0..rank)
 * (rank <= 8) and returns the rank, or -1 on failure or if cap is small. */
static inline int h5data_read(const char *path, const char *name, double *dst, size_t cap,
                       hsize_t dims[8])
{
	int rank = -1;
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (file < 0)
		return -1;
	hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
	if (set >= 0) {
		hid_t space = H5Dget_space(set);
		int r = H5Sget_simple_extent_ndims(space);
		if (r >= 1 && r <= 8) {
			H5Sget_simple_extent_dims(space, dims, NULL);
			size_t n = 1;
			for (int i = 0; i < r; i++)
				n *= (size_t)dims[i];
			if (n <= cap && H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
			                        H5P_DEFAULT, dst) >= 0)
				rank = r;
		}
		H5Sclose(space);
		H5Dclose(set);
	}
	H5Fclose(file);
	return rank;
}

#endif /* SOMPCA_H5DATA_H */
