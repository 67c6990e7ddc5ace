# The engine's table (issue 9): CPU seconds per fit (min / median, and the
# median wall seconds) of the same samples through the Go API, the C API
# and the Python estimators, per method, dtype and thread count, for the
# paper's gait size (731 x 32 x 22 x 10) and 2000 images of 32 x 32,
# P = 32, K = 20, tol = 0, with the C/Go and Python/Go ratios and the
# 2-thread speed-up and efficiency; then each contraction kernel's
# elements per CPU second and fraction of one core's FMA peak per element type. It takes
# minutes: it is not part of make test.
#
#   make bench-engine
#   make bench-engine ENGINE_ARGS='--reps 5 --methods so-mpca-rs,pca --cases gait'
#   make bench-kernels                      the kernels alone
#
# See bench/engine/table.py --help; add rows to its CASES.

ENGINE_ARGS ?=

.PHONY: bench-engine bench-kernels

bench: bench-engine

bench-engine: $(BUILD)/bench/cfit python-package
	CGO_ENABLED=0 $(GO) build -o $(BUILD)/gofit ./bench/gofit
	$(PY) bench/engine/table.py --gofit $(BUILD)/gofit --cfit $(BUILD)/bench/cfit $(ENGINE_ARGS)
	$(MAKE) --no-print-directory bench-kernels

# One line per kernel x shape x element type x implementation (go: the
# portable loops, avx2: the assembly), on one sample in cache
# (BenchmarkKernels), streamed over many samples (BenchmarkKernelsStream)
# and in whole passes (BenchmarkPassRate), uint8fixed the exact uint8
# kernels of solver/internal/kernel/fixed.go on the uint8 data: Gelem/cpu-s (elements, one FMA
# each, per CPU second) and peak-frac, their fraction of 8 float64 FMAs per
# cycle at /proc/cpuinfo's clock. See bench/MEASUREMENTS.md, "Engine notes", for what
# bounds them.
bench-kernels:
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench 'Kernels|PassRate' -benchtime 200ms ./solver | grep -E 'Gelem|^ok'

$(BUILD)/bench/cfit: bench/engine/cfit.c include/sompca.h $(BUILD)/libsompca.so
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -Werror -std=c99 -O2 -I include -o $@ $< -L $(BUILD) -lsompca -Wl,-rpath,'$$ORIGIN/..'
