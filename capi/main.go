package main

// #cgo CFLAGS: -I${SRCDIR}/../include
// #include "capi.h"
import "C"

// main is required by -buildmode=c-shared and never runs.
func main() {}
