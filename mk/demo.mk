# The demo: sompca on real data (Fashion-MNIST) through the paper's
# experiment protocol (Shi and Lu 2015, Sec. 4), with pictures.
#
#   make demo              build, fetch and convert the data, run the protocol at a
#                          size that takes a few minutes on 2 cores; writes
#                          build/demo/table.md, table.csv and three PNGs
#   make demo DEMO_FULL=1  the paper's full protocol: L = 1..7, 10 random splits
#                          (also as an environment variable: DEMO_FULL=1 make demo)
#   make demo DEMO_ARGS='--L 1,2 --splits 5 --per-class 200'
#                          any options of `examples/python/paper_protocol.py splits`
#   make demo-data         only the data: build/fashion-mnist.h5 (cached)
#   make test-demo         the tests of the example programs (part of `make test`)
#
# The data is Debian's package dataset-fashion-mnist, installed here (not by
# `make test`, which does not need it) with apt-get when run as root.

DEMO_DIR      := $(BUILD)/demo
FASHION_H5    := $(BUILD)/fashion-mnist.h5
FASHION_PKG   := dataset-fashion-mnist
FASHION_DIR   := /usr/share/datasets/fashion-mnist
EXAMPLES_PY   := examples/python

# The default run and the full protocol; DEMO_ARGS overrides both. The
# methods: the paper's nine and, beyond the paper, SO-MPCA-RS fused over
# every mode at the feature level (-FF) and at the score level (-SF).
DEMO_METHODS    := PCA,CSA,MPCA,TROD,UMPCA,SO-MPCA,SO-MPCA-RS,TROD-RS,UMPCA-RS,SO-MPCA-RS-FF,SO-MPCA-RS-SF
DEMO_SMALL_ARGS := --L 1,2,3,4,5,6,7 --splits 10 --per-class 100 --methods $(DEMO_METHODS)
DEMO_FULL_ARGS  := --L 1,2,3,4,5,6,7 --splits 10 --per-class 1000 --methods $(DEMO_METHODS)
DEMO_ARGS ?= $(if $(DEMO_FULL),$(DEMO_FULL_ARGS),$(DEMO_SMALL_ARGS))

TEST_TARGETS += test-demo

.PHONY: demo demo-data test-demo

demo: deps lib python-package demo-data
	@echo "demo: the paper's protocol on Fashion-MNIST ($(DEMO_ARGS)); results in $(DEMO_DIR)/"
	env -u SOMPCA_LIBRARY -u PYTHONPATH $(PY) $(EXAMPLES_PY)/paper_protocol.py splits $(FASHION_H5) \
	  --out $(DEMO_DIR) $(DEMO_ARGS)

demo-data: $(FASHION_H5)

# Rebuilt only when missing or when the converter changes, so a second
# `make demo` does not touch the data.
$(FASHION_H5): $(EXAMPLES_PY)/fashion_to_hdf5.py $(EXAMPLES_PY)/atomic.py | deps-python
	@if ! dpkg -s $(FASHION_PKG) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian package $(FASHION_PKG) (31 MB download)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(FASHION_PKG) >/dev/null) || \
	      { echo "error: apt-get could not install $(FASHION_PKG), which the demo needs" >&2; exit 1; }; \
	  else \
	    echo "error: the demo needs the Debian package $(FASHION_PKG); run: sudo apt-get install $(FASHION_PKG)" >&2; \
	    exit 1; \
	  fi; \
	fi
	@mkdir -p $(BUILD)
	$(PY) $(EXAMPLES_PY)/fashion_to_hdf5.py --source $(FASHION_DIR) $@

# Run from the tests' folder with a clean environment so that `import
# sompca` finds the installed package (as a newcomer's program would).
test-demo: deps lib python-package
	cd $(EXAMPLES_PY)/tests && env -u SOMPCA_LIBRARY -u PYTHONPATH $(CURDIR)/$(PY) -m pytest -q -p no:cacheprovider .
