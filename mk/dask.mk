# Dask: fit and transform of dask arrays through the library's fit sessions
# (bindings/python/sompca/_dask.py; "Fit sessions" in include/sompca.h).
# The tests (bindings/python/tests/test_dask.py, on a LocalCluster of 2
# worker processes) run in test-python.
#
#   make bench-dask                     10^5 gait-size uint8 samples from HDF5, SO-MPCA-RS P = 10,
#                                       K = 20: LocalCluster(2 workers x 1 thread) vs the local
#                                       2-thread fit; the data is made once in build/bench-dask/
#   make bench-dask BENCH_DASK_ARGS='--samples 20000 --repeat 3'
#   git show REV:bindings/python/sompca/_dask.py > /tmp/before.py
#   make bench-dask BENCH_DASK_ARGS='--compare-driver /tmp/before.py'   also the dask fit by that
#                                       driver, in the same run (before/after figures)

BENCH_DASK_ARGS ?=

.PHONY: bench-dask

bench-dask: deps lib python-package
	env -u SOMPCA_LIBRARY -u PYTHONPATH $(PY) tests/bench-dask/bench.py --out $(BUILD)/bench-dask $(BENCH_DASK_ARGS)
