/*
 * test_dlopen.c - libsompca.so loads with dlopen (as Python's ctypes loads
 * it) and reports errors through it: a library whose static TLS is too
 * large fails here with "cannot allocate memory in static TLS block".
 *
 * Usage: test_dlopen path/to/libsompca.so
 */
#include <dlfcn.h>
#include <string.h>

#include "check.h"

int main(int argc, char **argv)
{
	CHECK(argc == 2);
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	CHECK_MSG(lib != NULL, "dlopen: %s", dlerror());
	int (*version_number)(void);
	int (*load)(sompca_model **, const char *);
	const char *(*last_error)(void);
	*(void **)&version_number = dlsym(lib, "sompca_version_number");
	*(void **)&load = dlsym(lib, "sompca_model_load");
	*(void **)&last_error = dlsym(lib, "sompca_last_error");
	CHECK(version_number != NULL && load != NULL && last_error != NULL);
	CHECK(version_number() == SOMPCA_VERSION_NUMBER);
	sompca_model *model = NULL;
	CHECK(load(&model, "/nonexistent/model.h5") == SOMPCA_ENOTFOUND);
	CHECK_MSG(strstr(last_error(), "/nonexistent/model.h5") != NULL, "message %s", last_error());
	CHECK(dlsym(lib, "sompca_capi_set_error") == NULL); /* internal helpers are not exported */
	check_report();
	return 0;
}
