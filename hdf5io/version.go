package hdf5io

// #cgo CFLAGS: -I${SRCDIR}/../include
// #include "sompca.h"
import "C"

import "fmt"

// Version is the version of the sompca library, written into every model
// file as its library_version attribute. It is read from the
// SOMPCA_VERSION_* macros of include/sompca.h, the one place the version
// is written (the C library reports the same macros, the pkg-config file
// and the Python package take them from there too).
var Version = fmt.Sprintf("%d.%d.%d", C.SOMPCA_VERSION_MAJOR, C.SOMPCA_VERSION_MINOR, C.SOMPCA_VERSION_PATCH)
