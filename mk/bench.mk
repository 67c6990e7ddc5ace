# The speed table of issue 18: every row (SO-MPCA-RS at the paper's face
# shape and at modes 64..512, MPCA, CSA and PCA on the gait shape, PCA on
# 3000 x 6000) timed for sompca through Python and in pure Go beside an
# independent NumPy implementation (bench/reference.py) and scikit-learn,
# in one run, as ratios. It takes minutes: it is not part of make test.
#
#   make bench-reference                          every row, 3 repeats
#   make bench-reference BENCH_ARGS='-k faces -r 5 --scaling'
#
# See bench/run.py --help (--blas-threads, --profile DIR, --gofit-before).

BENCH_ARGS ?=

.PHONY: bench-reference

bench: bench-reference

bench-reference: python-package
	CGO_ENABLED=0 $(GO) build -o $(BUILD)/gofit ./bench/gofit
	$(PY) bench/run.py --gofit $(BUILD)/gofit $(BENCH_ARGS)

# Issue 18 point 6: the PCA Gram matrix (3000 x 6000) and its tridiagonal
# reduction (Dsytrd) with gonum's pure Go against OpenBLAS through cgo
# (bench/blas, its own Go module so that the project does not depend on
# it). Measurement only: the solver does not use OpenBLAS. BLAS_ARGS='M D'
# for another size.
BLAS_ARGS ?=

.PHONY: bench-blas

bench-blas:
	$(MAKE) deps-system EXTRA_APT_PACKAGES="libopenblas-dev liblapacke-dev"
	cd bench/blas && CGO_ENABLED=1 CGO_LDFLAGS=-lopenblas $(GO) run . $(BLAS_ARGS)
