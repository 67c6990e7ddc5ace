# hdf5io: HDF5 in and out, cgo over gonum.org/v1/hdf5 and Debian's
# libhdf5-dev (+ pkg-config, already in APT_PACKAGES). The h5py
# interoperability tests run the project venv's python ($(PY), which has
# h5py after deps-python) named by SOMPCA_PYTHON.

TEST_TARGETS += test-hdf5io

.PHONY: test-hdf5io bench-hdf5io bench-hdf5 hdf5io-fixtures

test-hdf5io: deps
	$(GO) vet ./hdf5io/...
	SOMPCA_PYTHON=$(abspath $(PY)) $(GO) test -count=1 ./hdf5io/...

bench-hdf5io: deps
	$(GO) test -run '^$$' -bench . -benchmem ./hdf5io/...

# Regenerates the checked-in fixture hdf5io/testdata/odd.h5.
hdf5io-fixtures: deps-python
	$(PY) hdf5io/testdata/make_fixtures.py

# make bench-hdf5: the library's HDF5 reads and fits against h5py's read,
# per dataset layout (tests/bench-hdf5/bench.py says what each row is).
# The datasets (up to 700 MB each) stay in build/bench-hdf5-data for
# later runs. BENCH_HDF5_ARGS passes options, e.g. --sizes 10000 --repeat 5.
BENCH_HDF5_ARGS ?=
bench-hdf5: deps
	$(GO) build -o $(BUILD)/bench-hdf5-tool ./tests/bench-hdf5
	$(PY) tests/bench-hdf5/bench.py --tool $(BUILD)/bench-hdf5-tool $(BENCH_HDF5_ARGS)
