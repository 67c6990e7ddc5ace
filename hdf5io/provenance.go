package hdf5io

// #include "shim.h"
import "C"

import (
	"errors"
	"path/filepath"

	"github.com/sompca/sompca/solver"
)

// Provenance attributes that TransformFile writes on a features dataset,
// in this order (model_file only when Options.ModelFile names it).
var provenanceNames = []string{"sompca_version", "method", "model_file", "model_checksum", "source_file",
	"source_dataset", "layout"}

// provenance returns the attributes that say where features come from:
// the library version, the method (with "-rs" for relaxed start), the
// model file and its checksum (the checksum attribute a model file
// carries, computed from the model), the source file (absolute) and
// dataset, and the layout it was read with.
func provenance(model *solver.Model, src *Source, modelFile string) map[string]string {
	method := model.Method.String()
	if model.RelaxedStart {
		method += "-rs"
	}
	attrs := map[string]string{
		"sompca_version": Version,
		"method":         method,
		"model_checksum": modelChecksum(model),
		"source_file":    absPath(src.path),
		"source_dataset": src.dataset,
		"layout":         src.layout.String(),
	}
	if modelFile != "" {
		attrs["model_file"] = absPath(modelFile)
	}
	return attrs
}

// absPath returns path made absolute (as it is if that fails).
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// writeProvenance writes the attributes on the dataset d. Callers hold
// h5mu.
func writeProvenance(d C.hid_t, attrs map[string]string) error {
	var errs []error
	for _, name := range provenanceNames {
		if v, ok := attrs[name]; ok {
			errs = append(errs, writeStringAttr(d, name, v))
		}
	}
	return errors.Join(errs...)
}
