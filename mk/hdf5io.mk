# hdf5io: HDF5 in and out, cgo over gonum.org/v1/hdf5 and Debian's
# libhdf5-dev (+ pkg-config, already in APT_PACKAGES). The h5py
# interoperability tests run the project venv's python ($(PY), which has
# h5py after deps-python) named by SOMPCA_PYTHON.

TEST_TARGETS += test-hdf5io

.PHONY: test-hdf5io bench-hdf5io hdf5io-fixtures

test-hdf5io: deps
	$(GO) vet ./hdf5io/...
	SOMPCA_PYTHON=$(abspath $(PY)) $(GO) test -count=1 ./hdf5io/...

bench-hdf5io: deps
	$(GO) test -run '^$$' -bench . -benchmem ./hdf5io/...

# Regenerates the checked-in fixture hdf5io/testdata/odd.h5.
hdf5io-fixtures: deps-python
	$(PY) hdf5io/testdata/make_fixtures.py
