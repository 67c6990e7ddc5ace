# sompca: `make test` and `make demo` set up what they need on a fresh
# machine (Debian packages by apt-get when run as root, Python packages
# into the project-local virtual environment .venv) and then run.
#
# Each part of the project keeps its rules in mk/<part>.mk and adds its
# test target to TEST_TARGETS.

GO      ?= go
BUILD   := build
VENV    := .venv
PY      := $(VENV)/bin/python
APT_PACKAGES := libhdf5-dev pkg-config
# dask[array,distributed]: the Dask driver and its LocalCluster tests (issue 11); pandas: DataFrame input
# and scikit-learn's set_output in the Python tests; xarray and zarr: DataArray and zarr input (issue 35).
PY_PACKAGES  := numpy h5py hdf5plugin pytest scikit-learn matplotlib pandas 'dask[array,distributed]' xarray zarr

# CGO_CFLAGS replaces cgo's default "-g -O2": keep the optimization (hdf5io's
# chunk copies run at -O0 several times slower).
export CGO_CFLAGS  ?= -g -O2 $(shell pkg-config --cflags hdf5 2>/dev/null)
export CGO_LDFLAGS ?= $(shell pkg-config --libs hdf5 2>/dev/null)

TEST_TARGETS := test-solver test-go-examples

.PHONY: all test test-solver vet deps deps-system deps-python bench bench-go clean

all: lib

include $(sort $(wildcard mk/*.mk))

test: $(TEST_TARGETS)
	@echo "make test: all test suites passed"

test-solver:
	@mkdir -p $(BUILD)
	CGO_ENABLED=0 $(GO) vet ./solver/...
	CGO_ENABLED=0 $(GO) test -count=1 ./solver/...
	CGO_ENABLED=0 $(GO) test -count=1 -tags purego ./solver/...   # the portable Go kernels too

# The Go examples run and their output is checked.
test-go-examples:
	CGO_ENABLED=0 $(GO) run ./examples/go/quickstart > $(BUILD)/go-quickstart.out 2>&1 || { cat $(BUILD)/go-quickstart.out; exit 1; }
	grep -q "leave-one-out 1-NN accuracy: 100.0%" $(BUILD)/go-quickstart.out || { cat $(BUILD)/go-quickstart.out; exit 1; }

# make bench prints the speed tables: the engine's (mk/bench-engine.mk)
# and issue 18's reference table (mk/bench.mk); make bench-go runs every Go
# benchmark, with allocations (-benchmem).
bench:

bench-go:
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench . -benchmem ./solver/...

deps: deps-system deps-python

# Debian packages: installed with apt-get when missing and we are root;
# otherwise say exactly what to install. APT_INSTALL_FLAGS: extra apt-get
# flags (the bindings' large packages use --no-install-recommends).
deps-system:
	@missing=""; for p in $(APT_PACKAGES) $(EXTRA_APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_INSTALL_FLAGS) $$missing >/dev/null) || \
	      { echo "error: apt-get could not install:$$missing" >&2; exit 1; }; \
	  else \
	    echo "error: missing Debian packages:$$missing; run: sudo apt-get install$$missing" >&2; exit 1; \
	  fi; \
	fi

# Python packages go into the project-local virtual environment .venv. The
# stamp's name carries a digest of PY_PACKAGES, so a venv made before a
# package was added gets it on the next run.
PY_STAMP := $(VENV)/.stamp-$(shell echo "$(PY_PACKAGES)" | md5sum | cut -c1-8)

$(PY_STAMP):
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(PY_PACKAGES) || { echo "error: pip could not install $(PY_PACKAGES)" >&2; exit 1; }
	rm -f $(VENV)/.stamp*
	touch $@

deps-python: $(PY_STAMP)

clean:
	rm -rf $(BUILD)
