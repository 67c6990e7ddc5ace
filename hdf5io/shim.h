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
	SOMPCA_H5_FLOAT64,
	SOMPCA_H5_FLOAT16,    /* read as float */
	SOMPCA_H5_LONGDOUBLE, /* read as double */
	SOMPCA_H5_BOOL        /* h5py's bool enum, read as its 1-byte values */
};

int sompca_h5_silence(void);
size_t sompca_h5_errmsg(char *buf, size_t cap);
void sompca_h5_clear(void);
int sompca_h5_type_info(hid_t dtype, int *cls, size_t *size, int *is_signed);
int sompca_h5_dataset_type(hid_t dset, int *cls, size_t *size, int *is_signed);
int sompca_h5_dataset_flavor(hid_t dset);
int sompca_h5_userblock(hid_t file, hsize_t *size);
int sompca_h5_obj_type(hid_t loc, const char *name);
int sompca_h5_link_exists(hid_t loc, const char *name);
herr_t sompca_h5_link_delete(hid_t loc, const char *name);
int sompca_h5_link_target(hid_t loc, const char *name, char *file, char *path, size_t cap);
herr_t sompca_h5_read(hid_t dset, int kind, hid_t memspace, hid_t filespace, void *buf);
herr_t sompca_h5_write(hid_t dset, int kind, hid_t memspace, hid_t filespace, const void *buf);
herr_t sompca_h5_close_dataset(hid_t dset);
int sompca_h5_chunk_dims(hid_t dset, int rank, hsize_t *dims);
hid_t sompca_h5_open_cached(hid_t loc, const char *name, size_t nbytes, size_t nslots);
herr_t sompca_h5_hyperslab(hid_t dset, int kind, int rank, const hsize_t *start, const hsize_t *count, void *buf, int write);
int sompca_h5_raw_chunks(hid_t dset, int kind);
void sompca_transpose_u8(const uint8_t *src, size_t rows, size_t cols, uint8_t *dst);
int sompca_h5_read_chunks(hid_t dset, int rank, const hsize_t *chunk,
                          const hsize_t *start, const hsize_t *count, size_t esize, void *buf,
                          void *rowbuf, size_t rowcap);
hid_t sompca_h5_create_dataset(hid_t loc, const char *name, int kind, int rank, const hsize_t *dims, int checksum);
herr_t sompca_h5_checksummed_format(hid_t file);
herr_t sompca_h5_create(const char *path, int checksummed);
herr_t sompca_h5_create_group(hid_t loc, const char *name);
/* A file in memory: its bytes once closed (buf, malloc'ed, len). */
struct sompca_h5_image {
	void *buf;
	size_t len;
};
herr_t sompca_h5_image_create(struct sompca_h5_image *img);
hid_t sompca_h5_image_open(struct sompca_h5_image *img, const void *buf, size_t len, int write);
/* Where a dataset's bytes are (sompca_h5_dataset_storage). */
struct sompca_h5_storage {
	int layout;               /* H5D_layout_t */
	int nfilters;             /* filters in the pipeline */
	int nexternal;            /* external raw data files */
	unsigned long long bytes; /* H5Dget_storage_size */
	int allocated;            /* 0: none, 1: part (chunks), 2: all */
	unsigned long long nchunks; /* chunked: allocated chunks */
	size_t nvirtual;          /* virtual: mappings */
};
int sompca_h5_dataset_storage(hid_t dset, struct sompca_h5_storage *st);
herr_t sompca_h5_external(hid_t dset, int i, char *name, size_t cap, long long *offset, unsigned long long *size);
long sompca_h5_virtual(hid_t dset, size_t i, char *file, char *name, size_t cap);
int sompca_h5_missing_filters(hid_t dset, char *buf, size_t cap);
long long sompca_h5_file_size(hid_t file);
herr_t sompca_h5_flush(hid_t file);
herr_t sompca_h5_abandon(hid_t file);
herr_t sompca_h5_attr_write(hid_t loc, const char *name, int kind, hssize_t len, const void *buf);
herr_t sompca_h5_attr_write_string(hid_t loc, const char *name, const char *value);
/* What an attribute's datatype and dataspace say, read before its value. */
struct sompca_h5_attr_desc {
	int cls;            /* H5T_class_t */
	size_t size;        /* bytes of one element (for variable-length strings, of the pointer) */
	int is_signed;      /* integers: two's complement */
	size_t precision;   /* integers and floats: significant bits */
	size_t offset;      /* integers and floats: bit offset of the value */
	int vlen_str;       /* strings: variable length */
	int cset;           /* strings: H5T_cset_t */
	int space;          /* H5S_class_t: H5S_SCALAR, H5S_SIMPLE or H5S_NULL */
	int rank;           /* simple dataspaces: number of dimensions */
	hssize_t npoints;   /* number of elements */
};
int sompca_h5_attr_info(hid_t loc, const char *name, struct sompca_h5_attr_desc *desc);
herr_t sompca_h5_attr_read(hid_t loc, const char *name, int kind, void *buf);
long sompca_h5_attr_read_string(hid_t loc, const char *name, char *buf, size_t cap);
int sompca_h5_type_standard(hid_t dtype);
int sompca_h5_dataset_type_standard(hid_t dset);
int sompca_h5_attr_type_standard(hid_t loc, const char *name);

#endif
