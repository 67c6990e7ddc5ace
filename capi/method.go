package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// methodNames holds the canonical name of every method, with and without
// relaxed start, as C strings made once and never freed (the static
// strings sompca_method_name returns). Index: 2*method + relaxed_start.
var methodNames = func() []*C.char {
	out := make([]*C.char, 2*(C.SOMPCA_METHOD_CSA+1))
	for m := solver.Method(0); m <= solver.CSA; m++ {
		out[2*m] = C.CString(m.Name(false))
		if m.IsTVP() {
			out[2*m+1] = C.CString(m.Name(true))
		}
	}
	return out
}()

//export sompca_go_method_from_name
func sompca_go_method_from_name(name *C.sompca_cchar, outMethod *C.int, outRelaxedStart *C.int) C.int {
	return run("sompca_method_from_name", func() error {
		if outMethod == nil {
			return errorf(C.SOMPCA_EINVAL, "out_method is NULL")
		}
		s, err := goString(name, "name")
		if err != nil {
			return err
		}
		m, rs, err := solver.ParseMethod(s)
		if err != nil {
			return withCode(C.SOMPCA_EINVAL, err)
		}
		*outMethod = C.int(m)
		if outRelaxedStart != nil {
			*outRelaxedStart = 0
			if rs {
				*outRelaxedStart = 1
			}
		}
		return nil
	})
}

//export sompca_go_method_name
func sompca_go_method_name(method C.int, relaxedStart C.int) *C.sompca_cchar {
	defer recoverVoid("sompca_method_name")
	if method < 0 || method > C.SOMPCA_METHOD_CSA {
		return nil
	}
	i := 2 * int(method)
	if relaxedStart != 0 && methodNames[i+1] != nil {
		i++
	}
	return (*C.sompca_cchar)(unsafe.Pointer(methodNames[i]))
}
