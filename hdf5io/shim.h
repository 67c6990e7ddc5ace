/* shim.h: the few HDF5 C calls that gonum.org/v1/hdf5 does not expose
 * (error-stack text, type introspection, reads and writes with an explicit
 * native memory type, attributes, link deletion). Callers hold the package
 * mutex: Debian's libhdf5 is not thread-safe. */
#ifndef SOMPCA_HDF5IO_SHIM_H
#define SOMPCA_HDF5IO_SHIM_H

#include <stddef.h>
#include <hdf5.h>

/* Element kinds, in the order of kindNames in types.go. */
enum {
	SOMPCA_H5_INT8,
	SOMPCA_H5_UINT8,
	SOMPCA_H5_INT16,
	SOMPCA_H5_UINT16,
	SOMPCA_H5_INT32,
	SOMPCA_H5_UINT32,
	SOMPCA_H5_INT64,
	SOMPCA_H5_UINT64,
	SOMPCA_H5_FLOAT32,
	SOMPCA_H5_FLOAT64
};

int sompca_h5_silence(void);
size_t sompca_h5_errmsg(char *buf, size_t cap);
void sompca_h5_clear(void);
int sompca_h5_type_info(hid_t dtype, int *cls, size_t *size, int *is_signed);
int sompca_h5_dataset_type(hid_t dset, int *cls, size_t *size, int *is_signed);
int sompca_h5_obj_type(hid_t loc, const char *name);
int sompca_h5_link_exists(hid_t loc, const char *name);
herr_t sompca_h5_link_delete(hid_t loc, const char *name);
herr_t sompca_h5_read(hid_t dset, int kind, hid_t memspace, hid_t filespace, void *buf);
herr_t sompca_h5_write(hid_t dset, int kind, hid_t memspace, hid_t filespace, const void *buf);
herr_t sompca_h5_write_rows(hid_t dset, hsize_t row0, hsize_t rows, hsize_t cols, const double *buf);
herr_t sompca_h5_close_dataset(hid_t dset);
int sompca_h5_chunk_dims(hid_t dset, int rank, hsize_t *dims);
hid_t sompca_h5_open_cached(hid_t loc, const char *name, size_t nbytes, size_t nslots);
herr_t sompca_h5_read_block(hid_t dset, int kind, int rank, const hsize_t *start, const hsize_t *count, void *buf);
hid_t sompca_h5_create_dataset(hid_t loc, const char *name, int kind, int rank, const hsize_t *dims);
herr_t sompca_h5_attr_write(hid_t loc, const char *name, int kind, hssize_t len, const void *buf);
herr_t sompca_h5_attr_write_string(hid_t loc, const char *name, const char *value);
int sompca_h5_attr_info(hid_t loc, const char *name, int *cls, hssize_t *npoints);
herr_t sompca_h5_attr_read(hid_t loc, const char *name, int kind, void *buf);
long sompca_h5_attr_read_string(hid_t loc, const char *name, char *buf, size_t cap);

#endif
