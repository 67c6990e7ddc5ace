package main

// #include "capi.h"
import "C"

import (
	"runtime/cgo"
	"sync"
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// live is the set of the addresses of the handle boxes that sompca made
// and has not freed. A handle is looked up here before it is dereferenced,
// so a freed or foreign pointer is reported, not followed. The addresses
// are of the library's own allocations; no caller pointer is kept.
var (
	liveMu sync.RWMutex
	live   = map[uintptr]struct{}{}
)

// newHandle boxes m in C memory and registers the box.
func newHandle(m *solver.Model) (*C.sompca_model, error) {
	box := (*C.sompca_model)(C.malloc(C.sizeof_struct_sompca_model))
	if box == nil {
		return nil, errorf(C.SOMPCA_ENOMEM, "cannot allocate a model handle")
	}
	box.magic = C.SOMPCA_MODEL_MAGIC
	box.handle = C.uintptr_t(cgo.NewHandle(m))
	liveMu.Lock()
	live[uintptr(unsafe.Pointer(box))] = struct{}{}
	liveMu.Unlock()
	return box, nil
}

// modelOf returns the model that a handle refers to.
func modelOf(p *C.sompca_cmodel) (*solver.Model, error) {
	if p == nil {
		return nil, errorf(C.SOMPCA_ENOTFITTED, "model is NULL")
	}
	liveMu.RLock()
	_, ok := live[uintptr(unsafe.Pointer(p))]
	liveMu.RUnlock()
	if !ok || p.magic != C.SOMPCA_MODEL_MAGIC {
		return nil, errorf(C.SOMPCA_EHANDLE, "model %p is not a live sompca model (freed, or not made by sompca_fit or sompca_model_load)", p)
	}
	m, ok := cgo.Handle(p.handle).Value().(*solver.Model)
	if !ok {
		return nil, errorf(C.SOMPCA_EINTERNAL, "model %p holds a %T, not a model", p, cgo.Handle(p.handle).Value())
	}
	return m, nil
}

// freeHandle unregisters and frees a box; it reports whether p was live.
func freeHandle(p *C.sompca_model) bool {
	liveMu.Lock()
	_, ok := live[uintptr(unsafe.Pointer(p))]
	delete(live, uintptr(unsafe.Pointer(p)))
	liveMu.Unlock()
	if !ok {
		return false
	}
	if m, ok := cgo.Handle(p.handle).Value().(*solver.Model); ok {
		modelFiles.Delete(m)
	}
	cgo.Handle(p.handle).Delete()
	p.magic = 0
	p.handle = 0
	C.free(unsafe.Pointer(p))
	return true
}

//export sompca_go_model_free
func sompca_go_model_free(model *C.sompca_model) {
	if model == nil {
		return
	}
	run("sompca_model_free", func() error {
		if !freeHandle(model) {
			return errorf(C.SOMPCA_EHANDLE, "model %p is not a live sompca model (freed twice, or not made by sompca)", model)
		}
		return nil
	})
}
