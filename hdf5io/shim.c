/* shim.c: see shim.h. Every function returns HDF5's negative error value on
 * failure and leaves HDF5's error stack for sompca_h5_errmsg to read. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"

int sompca_h5_silence(void)
{
	return H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

struct errbuf {
	char *buf;
	size_t cap, len;
	int entries;
};

static void errbuf_add(struct errbuf *e, const char *s)
{
	size_t n = strlen(s);
	if (e->len + n + 1 > e->cap)
		n = e->cap > e->len + 1 ? e->cap - e->len - 1 : 0;
	memcpy(e->buf + e->len, s, n);
	e->len += n;
	e->buf[e->len] = '\0';
}

/* Walking downward goes from the API call to the innermost failure, so the
 * text reads "H5Fopen: unable to open file: ... : truncated file". */
static herr_t errwalk(unsigned n, const H5E_error2_t *err, void *data)
{
	struct errbuf *e = data;
	if (n == 0 && err->func_name != NULL) {
		errbuf_add(e, err->func_name);
		errbuf_add(e, ": ");
	} else if (e->entries > 0) {
		errbuf_add(e, ": ");
	}
	errbuf_add(e, err->desc != NULL ? err->desc : "(no description)");
	e->entries++;
	return 0;
}

size_t sompca_h5_errmsg(char *buf, size_t cap)
{
	struct errbuf e = {buf, cap, 0, 0};
	if (cap == 0)
		return 0;
	buf[0] = '\0';
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, errwalk, &e);
	H5Eclear2(H5E_DEFAULT);
	return e.len;
}

void sompca_h5_clear(void)
{
	H5Eclear2(H5E_DEFAULT);
}

/* Every HDF5 API call clears the error stack on entry, so a function that
 * cleans up after a failure saves the stack first and restores it last. */
static hid_t save_errors(int failed)
{
	return failed ? H5Eget_current_stack() : -1;
}

static void restore_errors(hid_t saved)
{
	if (saved >= 0)
		H5Eset_current_stack(saved); /* also closes saved */
}

static hid_t native(int kind)
{
	switch (kind) {
	case SOMPCA_H5_INT8: return H5T_NATIVE_INT8;
	case SOMPCA_H5_UINT8: return H5T_NATIVE_UINT8;
	case SOMPCA_H5_INT16: return H5T_NATIVE_INT16;
	case SOMPCA_H5_UINT16: return H5T_NATIVE_UINT16;
	case SOMPCA_H5_INT32: return H5T_NATIVE_INT32;
	case SOMPCA_H5_UINT32: return H5T_NATIVE_UINT32;
	case SOMPCA_H5_INT64: return H5T_NATIVE_INT64;
	case SOMPCA_H5_UINT64: return H5T_NATIVE_UINT64;
	case SOMPCA_H5_FLOAT32: return H5T_NATIVE_FLOAT;
	case SOMPCA_H5_FLOAT64: return H5T_NATIVE_DOUBLE;
	case SOMPCA_H5_FLOAT16: return H5T_NATIVE_FLOAT;
	case SOMPCA_H5_LONGDOUBLE: return H5T_NATIVE_DOUBLE;
	}
	return -1;
}

int sompca_h5_type_info(hid_t dtype, int *cls, size_t *size, int *is_signed)
{
	H5T_class_t c = H5Tget_class(dtype);
	if (c == H5T_NO_CLASS)
		return -1;
	*cls = (int)c;
	*size = H5Tget_size(dtype);
	*is_signed = 0;
	if (c == H5T_INTEGER) {
		H5T_sign_t s = H5Tget_sign(dtype);
		if (s == H5T_SGN_ERROR)
			return -1;
		*is_signed = s == H5T_SGN_2;
	}
	return 0;
}

int sompca_h5_dataset_type(hid_t dset, int *cls, size_t *size, int *is_signed)
{
	hid_t t = H5Dget_type(dset), saved;
	int rc;
	if (t < 0)
		return -1;
	rc = sompca_h5_type_info(t, cls, size, is_signed);
	saved = save_errors(rc < 0);
	H5Tclose(t);
	restore_errors(saved);
	return rc;
}

/* Is t an enum {FALSE = 0, TRUE = 1} over a 1-byte integer (h5py's bool)? */
static int is_bool_enum(hid_t t)
{
	char *name;
	signed char v;
	int ok = H5Tget_size(t) == 1 && H5Tget_nmembers(t) == 2;
	for (unsigned i = 0; ok && i < 2; i++) {
		if (H5Tget_member_value(t, i, &v) < 0 || (name = H5Tget_member_name(t, i)) == NULL)
			return -1;
		ok = v == (signed char)i && strcmp(name, i ? "TRUE" : "FALSE") == 0;
		H5free_memory(name);
	}
	return ok;
}

/* Is t a compound {r, i} of two floats (h5py's complex)? */
static int is_complex(hid_t t)
{
	int ok = H5Tget_nmembers(t) == 2;
	for (unsigned i = 0; ok && i < 2; i++) {
		char *name = H5Tget_member_name(t, i);
		if (name == NULL)
			return -1;
		ok = strcmp(name, i ? "i" : "r") == 0 && H5Tget_member_class(t, i) == H5T_FLOAT;
		H5free_memory(name);
	}
	return ok;
}

/* sompca_h5_dataset_flavor returns 1 for h5py's bool (enum), 2 for h5py's
 * complex (compound {r, i}), 0 for anything else, negative on error. */
int sompca_h5_dataset_flavor(hid_t dset)
{
	hid_t t = H5Dget_type(dset), saved;
	int rc = 0;
	if (t < 0)
		return -1;
	switch (H5Tget_class(t)) {
	case H5T_ENUM:
		rc = is_bool_enum(t);
		break;
	case H5T_COMPOUND:
		rc = is_complex(t) > 0 ? 2 : 0;
		break;
	default:
		break;
	}
	saved = save_errors(rc < 0);
	H5Tclose(t);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_userblock sets *size to the file's user block size (512 in
 * MATLAB -v7.3 files). */
int sompca_h5_userblock(hid_t file, hsize_t *size)
{
	hid_t plist = H5Fget_create_plist(file), saved;
	herr_t rc;
	if (plist < 0)
		return -1;
	rc = H5Pget_userblock(plist, size);
	saved = save_errors(rc < 0);
	H5Pclose(plist);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_obj_type returns the H5I type (H5I_GROUP, H5I_DATASET,
 * H5I_DATATYPE) of the object name refers to, or a negative value. */
int sompca_h5_obj_type(hid_t loc, const char *name)
{
	hid_t obj = H5Oopen(loc, name, H5P_DEFAULT);
	H5I_type_t t;
	if (obj < 0)
		return -1;
	t = H5Iget_type(obj);
	H5Oclose(obj);
	return (int)t;
}

int sompca_h5_link_exists(hid_t loc, const char *name)
{
	return H5Lexists(loc, name, H5P_DEFAULT);
}

/* sompca_h5_link_target gives the kind of the link name (0: hard, 1:
 * soft, 2: external, 3: other) and, for a soft link, its target path
 * (into path) or, for an external link, its file (into file) and path;
 * both NUL-terminated, truncated to cap bytes. Returns the kind or -1. */
int sompca_h5_link_target(hid_t loc, const char *name, char *file, char *path, size_t cap)
{
	H5L_info_t info;
	char *val = NULL;
	int rc = -1;
	hid_t saved;
	file[0] = path[0] = 0;
	if (H5Lget_info(loc, name, &info, H5P_DEFAULT) < 0)
		goto out;
	if (info.type == H5L_TYPE_HARD) {
		rc = 0;
		goto out;
	}
	if (info.type != H5L_TYPE_SOFT && info.type != H5L_TYPE_EXTERNAL) {
		rc = 3;
		goto out;
	}
	if ((val = malloc(info.u.val_size + 1)) == NULL || H5Lget_val(loc, name, val, info.u.val_size + 1, H5P_DEFAULT) < 0)
		goto out;
	val[info.u.val_size] = 0;
	if (info.type == H5L_TYPE_SOFT) {
		snprintf(path, cap, "%s", val);
		rc = 1;
	} else {
		unsigned flags;
		const char *f = NULL, *o = NULL;
		if (H5Lunpack_elink_val(val, info.u.val_size, &flags, &f, &o) < 0)
			goto out;
		snprintf(file, cap, "%s", f);
		snprintf(path, cap, "%s", o);
		rc = 2;
	}
out:
	free(val);
	saved = save_errors(rc < 0);
	restore_errors(saved);
	return rc;
}

herr_t sompca_h5_link_delete(hid_t loc, const char *name)
{
	return H5Ldelete(loc, name, H5P_DEFAULT);
}

/* read_type returns a new memory type for reading the dataset as kind:
 * native(kind), or for SOMPCA_H5_BOOL a native copy of h5py's bool enum
 * (HDF5 converts enums only to enums), whose bytes are its values 0 and 1.
 * The caller closes it. */
static hid_t read_type(hid_t dset, int kind)
{
	hid_t file_type, mem_type;
	if (kind != SOMPCA_H5_BOOL)
		return H5Tcopy(native(kind));
	if ((file_type = H5Dget_type(dset)) < 0)
		return -1;
	mem_type = H5Tget_native_type(file_type, H5T_DIR_ASCEND);
	H5Tclose(file_type);
	return mem_type;
}

herr_t sompca_h5_read(hid_t dset, int kind, hid_t memspace, hid_t filespace, void *buf)
{
	hid_t mem_type = read_type(dset, kind), saved;
	herr_t rc;
	if (mem_type < 0)
		return -1;
	rc = H5Dread(dset, mem_type, memspace, filespace, H5P_DEFAULT, buf);
	saved = save_errors(rc < 0);
	H5Tclose(mem_type);
	restore_errors(saved);
	return rc;
}

herr_t sompca_h5_write(hid_t dset, int kind, hid_t memspace, hid_t filespace, const void *buf)
{
	return H5Dwrite(dset, native(kind), memspace, filespace, H5P_DEFAULT, buf);
}

/* With checksum, the dataset is chunked (at most about 1 MiB a chunk,
 * whole rows of the last axes) and every chunk carries HDF5's Fletcher-32
 * checksum, which H5Dread verifies. */
hid_t sompca_h5_create_dataset(hid_t loc, const char *name, int kind, int rank, const hsize_t *dims, int checksum)
{
	hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5P_DEFAULT, dset = -1, saved;
	if (space < 0)
		return -1;
	if (checksum && rank > 0) {
		hsize_t chunk[H5S_MAX_RANK];
		size_t row = H5Tget_size(native(kind));
		int i;
		for (i = 1; i < rank; i++) {
			chunk[i] = dims[i] > 0 ? dims[i] : 1;
			row *= chunk[i];
		}
		chunk[0] = dims[0] > 0 ? dims[0] : 1;
		if (row > 0 && chunk[0] > ((size_t)1 << 20) / row)
			chunk[0] = ((size_t)1 << 20) / row > 0 ? ((size_t)1 << 20) / row : 1;
		if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0 ||
		    H5Pset_fletcher32(dcpl) < 0 || H5Pset_obj_track_times(dcpl, 0) < 0)
			goto out;
	}
	dset = H5Dcreate2(loc, name, native(kind), space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
out:
	saved = save_errors(dset < 0);
	if (dcpl != H5P_DEFAULT && dcpl >= 0)
		H5Pclose(dcpl);
	H5Sclose(space);
	restore_errors(saved);
	return dset;
}

herr_t sompca_h5_abandon(hid_t file);

static hid_t untimed(hid_t cls, int off);

/* H5Flush_or_abandon flushes and closes a new file, or abandons it (see
 * sompca_h5_abandon) when a write fails. */
static herr_t H5Flush_or_abandon(hid_t f)
{
	if (H5Fflush(f, H5F_SCOPE_LOCAL) < 0) {
		hid_t saved = save_errors(1);
		sompca_h5_abandon(f);
		restore_errors(saved);
		return -1;
	}
	return H5Fclose(f);
}

/* sompca_h5_create creates (truncates) the file at path and closes it;
 * with checksummed in the HDF5 1.10 format, superblock version 3 and
 * version 2 object headers, all with checksums. */
herr_t sompca_h5_create(const char *path, int checksummed)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = untimed(H5P_FILE_CREATE, checksummed), f = -1, saved;
	herr_t rc = -1;
	if (fapl >= 0 && fcpl >= 0 &&
	    (!checksummed || H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) >= 0) &&
	    (f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl)) >= 0) {
		rc = H5Flush_or_abandon(f);
	}
	saved = save_errors(rc < 0);
	if (fapl >= 0)
		H5Pclose(fapl);
	if (fcpl >= 0 && fcpl != H5P_DEFAULT)
		H5Pclose(fcpl);
	restore_errors(saved);
	return rc;
}

/* untimed returns a creation property list of class cls whose objects
 * carry no time stamps when off is non-zero (model files: the same model
 * makes the same bytes), else H5P_DEFAULT. */
static hid_t untimed(hid_t cls, int off)
{
	hid_t p;
	if (!off)
		return H5P_DEFAULT;
	if ((p = H5Pcreate(cls)) >= 0 && H5Pset_obj_track_times(p, 0) < 0) {
		H5Pclose(p);
		return -1;
	}
	return p;
}

/* sompca_h5_create_group creates the group name in a model file (no time
 * stamps) and closes it. */
herr_t sompca_h5_create_group(hid_t loc, const char *name)
{
	hid_t gcpl = untimed(H5P_GROUP_CREATE, 1), g = -1, saved;
	if (gcpl < 0)
		return -1;
	g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
	saved = save_errors(g < 0);
	H5Pclose(gcpl);
	restore_errors(saved);
	return g < 0 ? -1 : H5Gclose(g);
}

/* sompca_h5_checksummed_format makes the objects written from now on use
 * the HDF5 1.10 file format, whose metadata (superblock, object headers,
 * chunk indexes) carries checksums that the library verifies on read. */
herr_t sompca_h5_checksummed_format(hid_t file)
{
	return H5Fset_libver_bounds(file, H5F_LIBVER_V110, H5F_LIBVER_V110);
}

/* sompca_h5_dataset_storage describes where a dataset's bytes are: its
 * layout, filters, external files and virtual mappings, the bytes it
 * occupies in the file and, for a chunked one, how many chunks are
 * allocated (the others read the fill value). */
int sompca_h5_dataset_storage(hid_t dset, struct sompca_h5_storage *st)
{
	hid_t dcpl = H5Dget_create_plist(dset), saved;
	int rc = -1;
	H5D_space_status_t status;
	memset(st, 0, sizeof *st);
	if (dcpl < 0)
		return -1;
	st->layout = H5Pget_layout(dcpl);
	st->nfilters = H5Pget_nfilters(dcpl);
	st->nexternal = H5Pget_external_count(dcpl);
	if (st->layout < 0 || st->nfilters < 0 || st->nexternal < 0)
		goto out;
	st->bytes = H5Dget_storage_size(dset);
	if (H5Dget_space_status(dset, &status) < 0)
		goto out;
	st->allocated = status == H5D_SPACE_STATUS_NOT_ALLOCATED ? 0 : status == H5D_SPACE_STATUS_ALLOCATED ? 2 : 1;
	if (st->layout == H5D_CHUNKED) {
		hsize_t n = 0;
		hid_t space = H5Dget_space(dset);
		herr_t got = space < 0 ? -1 : H5Dget_num_chunks(dset, space, &n);
		if (space >= 0)
			H5Sclose(space);
		if (got < 0)
			goto out;
		st->nchunks = n;
	}
	if (st->layout == H5D_VIRTUAL) {
		size_t n = 0;
		if (H5Pget_virtual_count(dcpl, &n) < 0)
			goto out;
		st->nvirtual = n;
	}
	rc = 0;
out:
	saved = save_errors(rc < 0);
	H5Pclose(dcpl);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_external gives external file i of a dataset: its name (into
 * name, cap bytes, NUL-terminated), the offset of the data in it and the
 * bytes it holds (H5F_UNLIMITED: to the end of the file). */
herr_t sompca_h5_external(hid_t dset, int i, char *name, size_t cap, long long *offset, unsigned long long *size)
{
	hid_t dcpl = H5Dget_create_plist(dset), saved;
	herr_t rc;
	off_t off = 0;
	hsize_t sz = 0;
	if (dcpl < 0)
		return -1;
	rc = H5Pget_external(dcpl, (unsigned)i, cap, name, &off, &sz);
	if (cap > 0)
		name[cap - 1] = 0;
	*offset = (long long)off;
	*size = sz;
	saved = save_errors(rc < 0);
	H5Pclose(dcpl);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_virtual gives the source file and dataset names of mapping i
 * of a virtual dataset (NUL-terminated, truncated to cap bytes); returns
 * the length of the longer name, or -1. */
long sompca_h5_virtual(hid_t dset, size_t i, char *file, char *name, size_t cap)
{
	hid_t dcpl = H5Dget_create_plist(dset), saved;
	ssize_t nf, nd;
	long rc = -1;
	if (dcpl < 0)
		return -1;
	nf = H5Pget_virtual_filename(dcpl, i, file, cap);
	nd = nf < 0 ? -1 : H5Pget_virtual_dsetname(dcpl, i, name, cap);
	if (nf >= 0 && nd >= 0)
		rc = nf > nd ? (long)nf : (long)nd;
	saved = save_errors(rc < 0);
	H5Pclose(dcpl);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_filters names the filters of a dataset that are not available
 * to this libhdf5 (nor loadable as plugins), separated by ", ", into buf;
 * returns how many, or -1. */
int sompca_h5_missing_filters(hid_t dset, char *buf, size_t cap)
{
	hid_t dcpl = H5Dget_create_plist(dset), saved;
	int n, i, missing = 0, rc = -1;
	size_t used = 0;
	if (cap > 0)
		buf[0] = 0;
	if (dcpl < 0)
		return -1;
	if ((n = H5Pget_nfilters(dcpl)) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		unsigned flags = 0, conf = 0;
		size_t nvals = 0;
		char name[64] = "";
		H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nvals, NULL, sizeof name, name, &conf);
		htri_t avail;
		if (id < 0)
			goto out;
		if (strchr(name, ';') != NULL) /* "HDF5 zstd filter; see https://..." */
			*strchr(name, ';') = 0;
		/* H5Zfilter_avail tries the plugin path, and fails when a folder
		 * of it cannot be opened: the filter cannot be loaded either way. */
		avail = H5Zfilter_avail(id);
		if (avail > 0)
			continue;
		/* Also an optional filter (h5py marks every plugin filter so):
		 * it was skipped only where it did not shrink a chunk. */
		H5Eclear2(H5E_DEFAULT);
		missing++;
		if (used < cap) {
			int w = snprintf(buf + used, cap - used, "%s%d \"%s\"", used ? ", " : "", (int)id, name);
			if (w > 0)
				used += (size_t)w < cap - used ? (size_t)w : cap - used - 1;
		}
	}
	rc = missing;
out:
	saved = save_errors(rc < 0);
	H5Pclose(dcpl);
	restore_errors(saved);
	return rc;
}

/* len < 0 writes a scalar attribute, len >= 0 a one-dimensional one. */
herr_t sompca_h5_attr_write(hid_t loc, const char *name, int kind, hssize_t len, const void *buf)
{
	hsize_t dim = len < 0 ? 0 : (hsize_t)len;
	hid_t space = len < 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL), attr, saved;
	herr_t rc = -1;
	if (space < 0)
		return -1;
	attr = H5Acreate2(loc, name, native(kind), space, H5P_DEFAULT, H5P_DEFAULT);
	if (attr >= 0)
		rc = H5Awrite(attr, native(kind), buf);
	saved = save_errors(rc < 0);
	if (attr >= 0 && H5Aclose(attr) < 0 && saved < 0)
		rc = -1;
	H5Sclose(space);
	restore_errors(saved);
	return rc;
}

/* Strings are written as scalar variable-length UTF-8, which h5py reads
 * back as str. */
herr_t sompca_h5_attr_write_string(hid_t loc, const char *name, const char *value)
{
	hid_t type = H5Tcopy(H5T_C_S1), space = -1, attr = -1, saved;
	herr_t rc = -1;
	if (type < 0)
		return -1;
	if (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0)
		goto out;
	if ((space = H5Screate(H5S_SCALAR)) < 0)
		goto out;
	if ((attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		goto out;
	rc = H5Awrite(attr, type, &value);
out:
	saved = save_errors(rc < 0);
	if (attr >= 0 && H5Aclose(attr) < 0 && saved < 0)
		rc = -1;
	if (space >= 0)
		H5Sclose(space);
	H5Tclose(type);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_attr_info describes the attribute's datatype and dataspace
 * and returns 1 if it exists, 0 if it does not, negative on error. Nothing
 * of its value is read. */
int sompca_h5_attr_info(hid_t loc, const char *name, struct sompca_h5_attr_desc *d)
{
	htri_t exists = H5Aexists(loc, name);
	hid_t attr, type, space, saved;
	int rc = -1;
	if (exists <= 0)
		return (int)exists;
	if ((attr = H5Aopen(loc, name, H5P_DEFAULT)) < 0)
		return -1;
	memset(d, 0, sizeof *d);
	type = H5Aget_type(attr);
	space = H5Aget_space(attr);
	if (type < 0 || space < 0)
		goto out;
	if ((d->cls = (int)H5Tget_class(type)) < 0 || (d->size = H5Tget_size(type)) == 0)
		goto out;
	if (d->cls == H5T_INTEGER || d->cls == H5T_FLOAT) {
		if ((d->precision = H5Tget_precision(type)) == 0 || H5Tget_offset(type) < 0)
			goto out;
		d->offset = (size_t)H5Tget_offset(type);
	}
	if (d->cls == H5T_INTEGER) {
		H5T_sign_t sign = H5Tget_sign(type);
		if (sign == H5T_SGN_ERROR)
			goto out;
		d->is_signed = sign == H5T_SGN_2;
	}
	if (d->cls == H5T_STRING) {
		htri_t v = H5Tis_variable_str(type);
		if (v < 0 || (d->cset = (int)H5Tget_cset(type)) < 0)
			goto out;
		d->vlen_str = v > 0;
	}
	if ((d->space = (int)H5Sget_simple_extent_type(space)) < 0)
		goto out;
	if ((d->rank = H5Sget_simple_extent_ndims(space)) < 0)
		goto out;
	if ((d->npoints = H5Sget_simple_extent_npoints(space)) < 0)
		goto out;
	rc = 1;
out:
	saved = save_errors(rc < 0);
	if (space >= 0)
		H5Sclose(space);
	if (type >= 0)
		H5Tclose(type);
	H5Aclose(attr);
	restore_errors(saved);
	return rc;
}

herr_t sompca_h5_attr_read(hid_t loc, const char *name, int kind, void *buf)
{
	hid_t attr = H5Aopen(loc, name, H5P_DEFAULT), saved;
	herr_t rc;
	if (attr < 0)
		return -1;
	rc = H5Aread(attr, native(kind), buf);
	saved = save_errors(rc < 0);
	if (H5Aclose(attr) < 0 && saved < 0)
		rc = -1;
	restore_errors(saved);
	return rc;
}

/* sompca_h5_attr_read_string copies a scalar string attribute, fixed or
 * variable length, into buf (NUL-terminated, truncated to cap-1 bytes) and
 * returns its full length, or a negative value on error. */
long sompca_h5_attr_read_string(hid_t loc, const char *name, char *buf, size_t cap)
{
	hid_t attr = H5Aopen(loc, name, H5P_DEFAULT), type = -1, space = -1, mem = -1, saved;
	long n = -1;
	if (attr < 0 || cap == 0)
		goto out;
	if ((type = H5Aget_type(attr)) < 0 || H5Tget_class(type) != H5T_STRING)
		goto out;
	if ((space = H5Aget_space(attr)) < 0 || H5Sget_simple_extent_npoints(space) != 1)
		goto out;
	if (H5Tis_variable_str(type) > 0) {
		char *s = NULL;
		/* HDF5 does not convert between ASCII and UTF-8: read in the
		 * file's character set. */
		if ((mem = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mem, H5T_VARIABLE) < 0 ||
		    H5Tset_cset(mem, H5Tget_cset(type)) < 0)
			goto out;
		if (H5Aread(attr, mem, &s) < 0)
			goto out;
		n = s != NULL ? (long)strlen(s) : 0;
		strncpy(buf, s != NULL ? s : "", cap - 1);
		buf[cap - 1] = '\0';
		H5free_memory(s);
	} else {
		size_t size = H5Tget_size(type);
		char *s;
		if (size == 0 || size > 65536) /* the caller checked; never trust a size */
			goto out;
		if ((s = calloc(size + 1, 1)) == NULL)
			goto out;
		if ((mem = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mem, size + 1) < 0 ||
		    H5Tset_cset(mem, H5Tget_cset(type)) < 0 ||
		    H5Tset_strpad(mem, H5T_STR_NULLTERM) < 0 || H5Aread(attr, mem, s) < 0) {
			free(s);
			goto out;
		}
		n = (long)strlen(s);
		strncpy(buf, s, cap - 1);
		buf[cap - 1] = '\0';
		free(s);
	}
out:
	saved = save_errors(n < 0);
	if (mem >= 0)
		H5Tclose(mem);
	if (space >= 0)
		H5Sclose(space);
	if (type >= 0)
		H5Tclose(type);
	if (attr >= 0)
		H5Aclose(attr);
	restore_errors(saved);
	return n;
}

herr_t sompca_h5_close_dataset(hid_t dset)
{
	return H5Dclose(dset);
}

/* sompca_h5_chunk_dims writes the chunk shape of a chunked dataset of the
 * given rank into dims and returns 1; it returns 0 for a dataset stored
 * otherwise (contiguous, compact, virtual), negative on error. */
int sompca_h5_chunk_dims(hid_t dset, int rank, hsize_t *dims)
{
	hid_t plist = H5Dget_create_plist(dset), saved;
	int rc = -1;
	if (plist < 0)
		return -1;
	switch (H5Pget_layout(plist)) {
	case H5D_CHUNKED:
		rc = H5Pget_chunk(plist, rank, dims) == rank ? 1 : -1;
		break;
	case H5D_LAYOUT_ERROR:
		break;
	default:
		rc = 0;
	}
	saved = save_errors(rc < 0);
	H5Pclose(plist);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_type_standard returns 1 if an integer or float type has the
 * standard layout of its size (all bits significant, no offset, little or
 * big endian; floats IEEE 754 binary16/32/64 or x86 80-bit extended in 12
 * or 16 bytes; enums by their integer base), 0 if not, negative on
 * error. HDF5 converts whatever a datatype message describes, so a
 * corrupted bit position or precision would make it convert garbage, or
 * address bits outside the element. */
int sompca_h5_type_standard(hid_t dtype)
{
	H5T_class_t c = H5Tget_class(dtype);
	size_t size = H5Tget_size(dtype), prec = H5Tget_precision(dtype), spos, epos, esize, mpos, msize;
	int offset = H5Tget_offset(dtype);
	H5T_order_t order = H5Tget_order(dtype);
	if (c == H5T_NO_CLASS || size == 0 || offset < 0)
		return -1;
	if (c == H5T_ENUM) { /* h5py's bool: the enum's integer base must be standard */
		hid_t base = H5Tget_super(dtype);
		int rc;
		if (base < 0)
			return -1;
		rc = sompca_h5_type_standard(base);
		H5Tclose(base);
		return rc;
	}
	if (c != H5T_INTEGER && c != H5T_FLOAT)
		return 0;
	if (c == H5T_FLOAT && (size == 12 || size == 16) && prec == 80) {
		/* numpy's longdouble on x86: the 80-bit extended format, little endian, padded */
		if (offset != 0 || order != H5T_ORDER_LE || H5Tget_fields(dtype, &spos, &epos, &esize, &mpos, &msize) < 0)
			return offset != 0 || order != H5T_ORDER_LE ? 0 : -1;
		return spos == 79 && epos == 64 && esize == 15 && mpos == 0 && msize == 64;
	}
	if (prec != 8 * size || offset != 0 || (order != H5T_ORDER_LE && order != H5T_ORDER_BE))
		return 0;
	if (c == H5T_INTEGER)
		return 1;
	if (H5Tget_fields(dtype, &spos, &epos, &esize, &mpos, &msize) < 0)
		return -1;
	switch (size) {
	case 2: return spos == 15 && epos == 10 && esize == 5 && mpos == 0 && msize == 10;
	case 4: return spos == 31 && epos == 23 && esize == 8 && mpos == 0 && msize == 23;
	case 8: return spos == 63 && epos == 52 && esize == 11 && mpos == 0 && msize == 52;
	}
	return 0;
}

int sompca_h5_dataset_type_standard(hid_t dset)
{
	hid_t t = H5Dget_type(dset), saved;
	int rc;
	if (t < 0)
		return -1;
	rc = sompca_h5_type_standard(t);
	saved = save_errors(rc < 0);
	H5Tclose(t);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_open_cached opens a dataset with a chunk cache of nbytes bytes
 * and nslots hash slots. w0 = 1: a chunk read whole is evicted first, the
 * one a read left half-used (straddling two blocks) is kept. */
hid_t sompca_h5_open_cached(hid_t loc, const char *name, size_t nbytes, size_t nslots)
{
	hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS), dset = -1, saved;
	if (dapl < 0)
		return -1;
	if (H5Pset_chunk_cache(dapl, nslots, nbytes, 1.0) >= 0)
		dset = H5Dopen2(loc, name, dapl);
	saved = save_errors(dset < 0);
	H5Pclose(dapl);
	restore_errors(saved);
	return dset;
}

/* sompca_h5_hyperslab reads (write = 0) or writes (write != 0) the
 * hyperslab start[rank], count[rank] of the dataset from or to buf, C
 * order, elements of the given kind, through a memory dataspace of the
 * hyperslab's own shape: HDF5 then maps each chunk to memory in one piece,
 * where a memory dataspace of another rank makes it map element runs one
 * by one (slow, and with a large temporary selection for small chunks). */
herr_t sompca_h5_hyperslab(hid_t dset, int kind, int rank, const hsize_t *start, const hsize_t *count, void *buf, int write)
{
	hid_t file = H5Dget_space(dset), mem = -1, saved;
	herr_t rc = -1;
	if (file < 0)
		return -1;
	if (H5Sselect_hyperslab(file, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
		goto out;
	if ((mem = H5Screate_simple(rank, count, NULL)) < 0)
		goto out;
	rc = write ? sompca_h5_write(dset, kind, mem, file, buf) : sompca_h5_read(dset, kind, mem, file, buf);
out:
	saved = save_errors(rc < 0);
	if (mem >= 0)
		H5Sclose(mem);
	H5Sclose(file);
	restore_errors(saved);
	return rc;
}

int sompca_h5_attr_type_standard(hid_t loc, const char *name)
{
	hid_t attr = H5Aopen(loc, name, H5P_DEFAULT), t = -1, saved;
	int rc = -1;
	if (attr < 0)
		return -1;
	if ((t = H5Aget_type(attr)) >= 0)
		rc = sompca_h5_type_standard(t);
	saved = save_errors(rc < 0);
	if (t >= 0)
		H5Tclose(t);
	H5Aclose(attr);
	restore_errors(saved);
	return rc;
}

/* sompca_h5_file_size returns the size in bytes of an open file, as the
 * file system sees it now, or -1 if unknown. */
long long sompca_h5_file_size(hid_t file)
{
	void *handle = NULL;
	struct stat st;
	if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || handle == NULL || fstat(*(int *)handle, &st) != 0) {
		H5Eclear2(H5E_DEFAULT);
		return -1;
	}
	return (long long)st.st_size;
}

/* sompca_h5_raw_chunks returns 1 if the chunks of a chunked dataset can be
 * read as stored (H5Dread_chunk) and copied as they are: no filters, and
 * the file's element type is the memory type the dataset is read as
 * (read_type), so that no conversion is due; 0 if not, negative on
 * error. */
int sompca_h5_raw_chunks(hid_t dset, int kind)
{
	hid_t dcpl = H5Dget_create_plist(dset), file_type = -1, mem_type = -1, saved;
	int rc = -1;
	if (dcpl < 0)
		return -1;
	if (H5Pget_layout(dcpl) != H5D_CHUNKED) {
		rc = 0;
		goto out;
	}
	int n = H5Pget_nfilters(dcpl);
	if (n < 0)
		goto out;
	if (n > 0) {
		rc = 0;
		goto out;
	}
	if ((file_type = H5Dget_type(dset)) < 0 || (mem_type = read_type(dset, kind)) < 0)
		goto out;
	htri_t eq = H5Tequal(file_type, mem_type);
	if (eq >= 0)
		rc = eq > 0;
out:
	saved = save_errors(rc < 0);
	if (mem_type >= 0)
		H5Tclose(mem_type);
	if (file_type >= 0)
		H5Tclose(file_type);
	H5Pclose(dcpl);
	restore_errors(saved);
	return rc;
}

/* copy_run copies n bytes; runs are often a few bytes (h5py's chunks=True
 * cuts the last axis into pieces of 2 to 4 elements), where a call to
 * memcpy would cost more than the copy. */
static inline void copy_run(char *dst, const char *src, size_t n)
{
	switch (n) {
	case 1: memcpy(dst, src, 1); return;
	case 2: memcpy(dst, src, 2); return;
	case 3: memcpy(dst, src, 3); return;
	case 4: memcpy(dst, src, 4); return;
	case 6: memcpy(dst, src, 6); return;
	case 8: memcpy(dst, src, 8); return;
	case 12: memcpy(dst, src, 12); return;
	case 16: memcpy(dst, src, 16); return;
	}
	memcpy(dst, src, n);
}

/* sompca_h5_read_chunks reads the hyperslab start[rank], count[rank] of a
 * dataset for which sompca_h5_raw_chunks holds into buf (C order, elements
 * of esize bytes, as sompca_h5_hyperslab would), without HDF5's generic
 * selection machinery, which is slow for small chunks (h5py's
 * chunks=True) or short runs. chunk is the chunk shape. The chunks are
 * taken a unit at a time: those of one chunk index along axis 0 (and, for
 * rank >= 3, along axis 1, so that a unit stays in cache). A unit that is one chunk lying in buf in one piece is
 * read straight into buf (H5Dread_chunk); the chunks of any other unit are
 * read as stored into rowbuf, which holds rowcap bytes, and their part of
 * buf written in order, each run of the
 * last axis copied from its chunk, so that the writes stream. Returns 0; 1, with HDF5's error stack
 * cleared, when a chunk cannot be read so (never written: the caller then
 * reads the hyperslab the ordinary way, which fills it or reports the
 * error) or rowbuf is too small. */
int sompca_h5_read_chunks(hid_t dset, int rank, const hsize_t *chunk,
                          const hsize_t *start, const hsize_t *count, size_t esize, void *buf,
                          void *rowbuf, size_t rowcap)
{
	hsize_t lo[H5S_MAX_RANK], hi[H5S_MAX_RANK], org[H5S_MAX_RANK], g[H5S_MAX_RANK];
	hsize_t i[H5S_MAX_RANK], q[H5S_MAX_RANK], r[H5S_MAX_RANK], end[H5S_MAX_RANK];
	size_t cstride[H5S_MAX_RANK], bstride[H5S_MAX_RANK], gstride[H5S_MAX_RANK];
	int d, last = rank - 1, u = rank >= 3 ? 2 : 1, rc = 1; /* axes < u are fixed in a unit */
	size_t cbytes, nunit, npieces;
	struct piece { size_t chunk, offset, len; } *pieces = NULL;
	if (rank < 2 || rank > H5S_MAX_RANK)
		return 1;
	cstride[last] = bstride[last] = esize;
	for (d = last; d > 0; d--) {
		cstride[d - 1] = cstride[d] * chunk[d];
		bstride[d - 1] = bstride[d] * count[d];
	}
	cbytes = cstride[0] * chunk[0];
	for (d = 0; d < rank; d++) {
		if (count[d] == 0)
			return 0;
		end[d] = start[d] + count[d];
		lo[d] = start[d] / chunk[d];
		hi[d] = (end[d] - 1) / chunk[d];
	}
	gstride[last] = 1;
	for (d = last; d > u; d--)
		gstride[d - 1] = gstride[d] * (hi[d] - lo[d] + 1);
	nunit = gstride[u] * (hi[u] - lo[u] + 1);
	/* A chunk lies in buf in one piece when its axes 1.. are whole in buf. */
	int one = 1;
	for (d = 1; d < rank && one; d++)
		one = start[d] % chunk[d] == 0 && count[d] == chunk[d];
	/* The runs of the last axis, the same in every row of buf. */
	npieces = hi[last] - lo[last] + 1;
	if ((pieces = malloc(npieces * sizeof *pieces)) == NULL)
		return 1;
	for (hsize_t p = start[last], k = 0; p < end[last]; k++) {
		hsize_t c = p / chunk[last], e = (c + 1) * chunk[last] < end[last] ? (c + 1) * chunk[last] : end[last];
		pieces[k].chunk = (size_t)(c - lo[last]) * cbytes;
		pieces[k].offset = (size_t)(p - c * chunk[last]) * esize;
		pieces[k].len = (size_t)(e - p) * esize;
		p = e;
	}
	for (hsize_t c0 = lo[0]; c0 <= hi[0]; c0++) {
		uint32_t filters = 0;
		hsize_t a0 = c0 * chunk[0] > start[0] ? c0 * chunk[0] : start[0];
		hsize_t b0 = (c0 + 1) * chunk[0] < end[0] ? (c0 + 1) * chunk[0] : end[0];
		org[0] = c0 * chunk[0];
		if (one && a0 == org[0] && b0 - a0 == chunk[0]) {
			for (d = 1; d < rank; d++)
				org[d] = start[d];
			if (H5Dread_chunk(dset, H5P_DEFAULT, org, &filters, (char *)buf + (a0 - start[0]) * bstride[0]) < 0 ||
			    filters != 0)
				goto fail;
			continue;
		}
		if (nunit * cbytes > rowcap)
			goto fail;
		for (hsize_t c1 = u == 2 ? lo[1] : 0; c1 <= (u == 2 ? hi[1] : 0); c1++) {
			hsize_t a1 = 0, b1 = 1;
			if (u == 2) {
				org[1] = c1 * chunk[1];
				a1 = org[1] > start[1] ? org[1] : start[1];
				b1 = org[1] + chunk[1] < end[1] ? org[1] + chunk[1] : end[1];
			}
			/* Every chunk of the unit, in the order of gstride. */
			for (d = u; d < rank; d++)
				g[d] = lo[d];
			for (size_t k = 0;; k++) {
				for (d = u; d < rank; d++)
					org[d] = g[d] * chunk[d];
				if (H5Dread_chunk(dset, H5P_DEFAULT, org, &filters, (char *)rowbuf + k * cbytes) < 0 || filters != 0)
					goto fail;
				for (d = last; d >= u; d--) {
					if (++g[d] <= hi[d])
						break;
					g[d] = lo[d];
				}
				if (d < u)
					break;
			}
			/* The unit's part of buf in order: for each index of the
			 * axes < u, every row of the last axis, its runs from their
			 * chunks. */
			for (hsize_t s0 = a0; s0 < b0; s0++) {
				for (hsize_t s1 = a1; s1 < b1; s1++) {
					size_t base0 = (size_t)(s0 - org[0]) * cstride[0];
					char *to = (char *)buf + (size_t)(s0 - start[0]) * bstride[0];
					if (u == 2) {
						base0 += (size_t)(s1 - org[1]) * cstride[1];
						to += (size_t)(s1 - start[1]) * bstride[1];
					}
					for (d = u; d < last; d++) {
						i[d] = start[d];
						q[d] = start[d] / chunk[d];
						r[d] = start[d] - q[d] * chunk[d];
					}
					for (;;) {
						size_t base = base0;
						for (d = u; d < last; d++)
							base += (size_t)(q[d] - lo[d]) * gstride[d] * cbytes + (size_t)r[d] * cstride[d];
						for (size_t k = 0; k < npieces; k++) {
							copy_run(to, (const char *)rowbuf + base + pieces[k].chunk + pieces[k].offset, pieces[k].len);
							to += pieces[k].len;
						}
						for (d = last - 1; d >= u; d--) {
							i[d]++;
							if (++r[d] == chunk[d]) {
								r[d] = 0;
								q[d]++;
							}
							if (i[d] < end[d])
								break;
							i[d] = start[d];
							q[d] = start[d] / chunk[d];
							r[d] = start[d] - q[d] * chunk[d];
						}
						if (d < u)
							break;
					}
				}
			}
		}
	}
	rc = 0;
	goto out;
fail:
	H5Eclear2(H5E_DEFAULT);
out:
	free(pieces);
	return rc;
}

#ifdef __SSE2__
#include <emmintrin.h>

/* transpose16 writes the 16 x 16 bytes at src (rows ss bytes apart)
 * transposed to dst (rows ds bytes apart): four rounds of interleaving
 * (bytes, pairs, quads, halves). */
static void transpose16(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
	__m128i r[16], t[16];
	int j;
	for (j = 0; j < 16; j++)
		r[j] = _mm_loadu_si128((const __m128i *)(src + j * ss));
	for (j = 0; j < 8; j++) { /* t[2j], t[2j+1]: rows 2j, 2j+1, columns 0-7 and 8-15 */
		t[2 * j] = _mm_unpacklo_epi8(r[2 * j], r[2 * j + 1]);
		t[2 * j + 1] = _mm_unpackhi_epi8(r[2 * j], r[2 * j + 1]);
	}
	for (j = 0; j < 4; j++) { /* r[4j..4j+3]: rows 4j..4j+3, columns 0-3, 4-7, 8-11, 12-15 */
		r[4 * j] = _mm_unpacklo_epi16(t[4 * j], t[4 * j + 2]);
		r[4 * j + 1] = _mm_unpackhi_epi16(t[4 * j], t[4 * j + 2]);
		r[4 * j + 2] = _mm_unpacklo_epi16(t[4 * j + 1], t[4 * j + 3]);
		r[4 * j + 3] = _mm_unpackhi_epi16(t[4 * j + 1], t[4 * j + 3]);
	}
	for (j = 0; j < 2; j++) { /* t[8j+2c'], t[8j+2c'+1]: rows 8j..8j+7, column pairs */
		for (int c = 0; c < 4; c++) {
			t[8 * j + 2 * c] = _mm_unpacklo_epi32(r[8 * j + c], r[8 * j + 4 + c]);
			t[8 * j + 2 * c + 1] = _mm_unpackhi_epi32(r[8 * j + c], r[8 * j + 4 + c]);
		}
	}
	for (j = 0; j < 8; j++) { /* columns 2j and 2j+1, all 16 rows */
		_mm_storeu_si128((__m128i *)(dst + 2 * j * ds), _mm_unpacklo_epi64(t[j], t[8 + j]));
		_mm_storeu_si128((__m128i *)(dst + (2 * j + 1) * ds), _mm_unpackhi_epi64(t[j], t[8 + j]));
	}
}
#endif

/* sompca_transpose_u8 writes dst[c*rows + r] = src[r*cols + c] for r <
 * rows, c < cols: samples stored last (a row per element, a column per
 * sample) made sample-major, in tiles of 16 x 16 (SSE2 where there is). */
void sompca_transpose_u8(const uint8_t *src, size_t rows, size_t cols, uint8_t *dst)
{
	for (size_t r0 = 0; r0 < rows; r0 += 16) {
		size_t r1 = r0 + 16 < rows ? r0 + 16 : rows;
		for (size_t c0 = 0; c0 < cols; c0 += 16) {
			size_t c1 = c0 + 16 < cols ? c0 + 16 : cols;
#ifdef __SSE2__
			if (r1 - r0 == 16 && c1 - c0 == 16) {
				transpose16(src + r0 * cols + c0, cols, dst + c0 * rows + r0, rows);
				continue;
			}
#endif
			for (size_t c = c0; c < c1; c++)
				for (size_t r = r0; r < r1; r++)
					dst[c * rows + r] = src[r * cols + c];
		}
	}
}

/* sompca_h5_flush writes everything the file holds in libhdf5's caches. */
herr_t sompca_h5_flush(hid_t file)
{
	return H5Fflush(file, H5F_SCOPE_LOCAL);
}

/* sompca_h5_abandon closes a file being written after a write to it
 * failed (EIO, ENOSPC, EFBIG), with every object of it still open: libhdf5
 * 1.10 cannot recover from a failed write (the object whose flush failed
 * stays open, and at exit its atexit handler flushes it again and crashes
 * the process). The file's descriptor is first pointed at an anonymous
 * memory file (/dev/null if there is none), so that those flushes succeed
 * there, never reaching the disk; the file on disk is incomplete and the
 * caller removes it. */
herr_t sompca_h5_abandon(hid_t file)
{
	void *handle = NULL;
	if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) >= 0 && handle != NULL) {
		int sink = memfd_create("sompca-abandoned-write", MFD_CLOEXEC);
		if (sink < 0)
			sink = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (sink >= 0) {
			dup3(sink, *(int *)handle, O_CLOEXEC);
			close(sink);
		}
	}
	ssize_t n = H5Fget_obj_count(file, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR | H5F_OBJ_LOCAL);
	if (n > 0) {
		hid_t *ids = malloc((size_t)n * sizeof *ids);
		if (ids != NULL) {
			n = H5Fget_obj_ids(file, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR | H5F_OBJ_LOCAL,
			                   (size_t)n, ids);
			for (ssize_t i = 0; i < n; i++) {
				switch (H5Iget_type(ids[i])) {
				case H5I_DATASET:
					H5Dclose(ids[i]);
					break;
				case H5I_GROUP:
					H5Gclose(ids[i]);
					break;
				case H5I_DATATYPE:
					H5Tclose(ids[i]);
					break;
				case H5I_ATTR:
					H5Aclose(ids[i]);
					break;
				default:
					break;
				}
			}
			free(ids);
		}
	}
	herr_t rc = H5Fclose(file);
	H5Eclear2(H5E_DEFAULT);
	return rc;
}

/* Files in memory. The core driver, without a backing store and growing
 * a byte at a time, makes the bytes the same calls make on disk; its file
 * image callbacks hand over its buffer when the file closes, after the
 * close has written the superblock (H5Fget_file_image, taken before, has
 * another superblock checksum and does not reopen). */
static void *image_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
	struct sompca_h5_image *img = udata;
	if (op == H5FD_FILE_IMAGE_OP_FILE_OPEN)
		img->len = size;
	return malloc(size);
}

static void *image_memcpy(void *dst, const void *src, size_t size, H5FD_file_image_op_t op, void *udata)
{
	(void)op, (void)udata;
	return memcpy(dst, src, size);
}

static void *image_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
	struct sompca_h5_image *img = udata;
	if (op == H5FD_FILE_IMAGE_OP_FILE_RESIZE)
		img->len = size;
	return realloc(ptr, size);
}

static herr_t image_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
	struct sompca_h5_image *img = udata;
	if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE) {
		free(img->buf);
		img->buf = ptr; /* the file's bytes, kept for the caller */
		return 0;
	}
	free(ptr);
	return 0;
}

static void *image_udata_copy(void *udata) { return udata; }
static herr_t image_udata_free(void *udata) { (void)udata; return 0; }

/* One name serves: callers hold the package mutex, and a file in memory
 * is closed before they return. */
static const char image_name[] = "sompca-memory-file";

static hid_t image_fapl(struct sompca_h5_image *img, const void *buf, size_t len, int checksummed)
{
	H5FD_file_image_callbacks_t cb = {image_malloc, image_memcpy, image_realloc, image_free,
	                                  image_udata_copy, image_udata_free, img};
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (fapl < 0)
		return -1;
	if (H5Pset_fapl_core(fapl, 1, 0) < 0 || H5Pset_file_image_callbacks(fapl, &cb) < 0 ||
	    (checksummed && H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) < 0) ||
	    (buf != NULL && H5Pset_file_image(fapl, (void *)buf, len) < 0)) {
		hid_t saved = save_errors(1);
		H5Pclose(fapl);
		restore_errors(saved);
		return -1;
	}
	return fapl;
}

/* sompca_h5_image_create makes in img the bytes of the new, empty file
 * that sompca_h5_create makes on disk, checksummed. */
herr_t sompca_h5_image_create(struct sompca_h5_image *img)
{
	hid_t fapl = image_fapl(img, NULL, 0, 1), fcpl = untimed(H5P_FILE_CREATE, 1), f, saved;
	herr_t rc = -1;
	if (fapl >= 0 && fcpl >= 0 && (f = H5Fcreate(image_name, H5F_ACC_TRUNC, fcpl, fapl)) >= 0)
		rc = H5Fclose(f);
	saved = save_errors(rc < 0);
	if (fapl >= 0)
		H5Pclose(fapl);
	if (fcpl >= 0)
		H5Pclose(fcpl);
	restore_errors(saved);
	return rc < 0 || img->buf == NULL ? -1 : 0;
}

/* sompca_h5_image_open opens the file whose bytes are buf[len] (copied),
 * for writing when write is non-zero. Its bytes when it is closed replace
 * img's. */
hid_t sompca_h5_image_open(struct sompca_h5_image *img, const void *buf, size_t len, int write)
{
	hid_t fapl = image_fapl(img, buf, len, 0), f, saved;
	if (fapl < 0)
		return -1;
	f = H5Fopen(image_name, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
	saved = save_errors(f < 0);
	H5Pclose(fapl);
	restore_errors(saved);
	return f;
}
