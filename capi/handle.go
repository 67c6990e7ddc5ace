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

// boxKind is one kind of handle box (struct sompca_box in capi.h): its
// magic number and how messages name it.
type boxKind struct {
	magic  C.uint64_t
	noun   string // "model"
	makers string // the functions that make one
}

var (
	modelBox   = boxKind{C.SOMPCA_MODEL_MAGIC, "model", "sompca_fit or sompca_model_load"}
	sessionBox = boxKind{C.SOMPCA_SESSION_MAGIC, "session", "sompca_session_begin"}
)

// newBox boxes v in C memory as a handle of kind k and registers the box.
func newBox(k boxKind, v any) (unsafe.Pointer, error) {
	box := (*C.struct_sompca_box)(C.malloc(C.sizeof_struct_sompca_box))
	if box == nil {
		return nil, errorf(C.SOMPCA_ENOMEM, "cannot allocate a %s handle", k.noun)
	}
	box.magic = k.magic
	box.handle = C.uintptr_t(cgo.NewHandle(v))
	liveMu.Lock()
	live[uintptr(unsafe.Pointer(box))] = struct{}{}
	liveMu.Unlock()
	return unsafe.Pointer(box), nil
}

// boxOf returns the box that p refers to: SOMPCA_ENOTFITTED for NULL,
// SOMPCA_EHANDLE for a pointer that is not a live box of kind k (freed,
// foreign, or a box of another kind). Call with liveMu held.
func boxOf(k boxKind, p unsafe.Pointer) (*C.struct_sompca_box, error) {
	if p == nil {
		return nil, errorf(C.SOMPCA_ENOTFITTED, "%s is NULL", k.noun)
	}
	box := (*C.struct_sompca_box)(p)
	if _, ok := live[uintptr(p)]; !ok || box.magic != k.magic {
		return nil, errorf(C.SOMPCA_EHANDLE, "%s %p is not a live sompca %s (freed, or not made by %s)", k.noun, p, k.noun, k.makers)
	}
	return box, nil
}

// boxValue returns the value held by the live box p of kind k.
func boxValue[T any](k boxKind, p unsafe.Pointer) (T, error) {
	var zero T
	liveMu.RLock()
	box, err := boxOf(k, p)
	liveMu.RUnlock()
	if err != nil {
		return zero, err
	}
	v, ok := cgo.Handle(box.handle).Value().(T)
	if !ok {
		return zero, errorf(C.SOMPCA_EINTERNAL, "%s %p holds a %T, not a %T", k.noun, p, cgo.Handle(box.handle).Value(), zero)
	}
	return v, nil
}

// freeBox unregisters and frees the live box p of kind k and returns the
// value it held; a box that is not live, or of another kind, is left
// alone (SOMPCA_EHANDLE).
func freeBox(k boxKind, p unsafe.Pointer) (any, error) {
	liveMu.Lock()
	box, err := boxOf(k, p)
	if err == nil {
		delete(live, uintptr(p))
	}
	liveMu.Unlock()
	if err != nil {
		return nil, err
	}
	h := cgo.Handle(box.handle)
	v := h.Value()
	h.Delete()
	box.magic = 0
	box.handle = 0
	C.free(p)
	return v, nil
}

// newHandle boxes m as a model handle.
func newHandle(m *solver.Model) (*C.sompca_model, error) {
	p, err := newBox(modelBox, m)
	return (*C.sompca_model)(p), err
}

// modelOf returns the model that a handle refers to.
func modelOf(p *C.sompca_cmodel) (*solver.Model, error) {
	return boxValue[*solver.Model](modelBox, unsafe.Pointer(p))
}

//export sompca_go_model_free
func sompca_go_model_free(model *C.sompca_model) {
	if model == nil {
		return
	}
	run("sompca_model_free", func() error {
		v, err := freeBox(modelBox, unsafe.Pointer(model))
		if m, ok := v.(*solver.Model); ok {
			modelFiles.Delete(m)
		}
		return err
	})
}

// clearOut checks that an export's output pointer is not NULL and sets
// what it points to to its zero value (NULL for a handle), so that a
// failed call leaves no stale value behind.
func clearOut[T any](out *T, name string) error {
	if out == nil {
		return errorf(C.SOMPCA_EINVAL, "%s is NULL", name)
	}
	var zero T
	*out = zero
	return nil
}
