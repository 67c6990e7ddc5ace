package hdf5io

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe is refused before libhdf5 opens it: open(2) of a FIFO
// blocks until a writer comes, and a read from it until the writer
// writes, in C where no cancellation reaches (a test that hangs here
// fails by the test binary's timeout).
func TestFIFOIsRefusedAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "data.h5")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(fifo, "/X", Options{})
	if !errors.Is(err, ErrNotHDF5) || !strings.Contains(err.Error(), "named pipe (FIFO)") {
		t.Errorf("Open of a FIFO: %v, want ErrNotHDF5 naming the FIFO", err)
	}
	if _, err := LoadModel(fifo); !errors.Is(err, ErrNotHDF5) {
		t.Errorf("LoadModel of a FIFO: %v, want ErrNotHDF5", err)
	}
	if _, err := Open("/dev/null", "/X", Options{}); !errors.Is(err, ErrNotHDF5) || !strings.Contains(err.Error(), "character device") {
		t.Errorf("Open of /dev/null: %v, want ErrNotHDF5 naming a character device", err)
	}
}
