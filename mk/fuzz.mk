# Hardening: fuzzing and resource soaks (none of it in `make test` but the
# fuzz tests' seed corpora, which run with the packages' tests).
#
#   make fuzz                 each Go fuzz target for FUZZTIME (default 30s):
#                             hdf5io FuzzLoadModel and FuzzOpen (arbitrary bytes as a
#                             model or data file), capi FuzzOptions (C options validation)
#   make fuzz-files           FUZZ_N (default 2000) bit-flipped and truncated copies of a
#                             saved model and of an h5py data file, each loaded through
#                             Python in a child process; prints clean error / same /
#                             different / crash / hang counts (FUZZ_ARGS: more options of
#                             tests/fuzz/fuzz_files.py, e.g. --seed 2 --fresh)
#   make soak                 resource soaks: 10,000 fit/free cycles from C and 2,000
#                             fit/transform cycles from Python (RSS growth < 1 MB), 1,000
#                             save/load cycles (no file descriptor left open)

FUZZTIME  ?= 30s
FUZZ_N    ?= 2000
FUZZ_ARGS ?=
SOAK_DIR  := $(BUILD)/soak

TEST_TARGETS += test-fuzz-seeds

.PHONY: fuzz fuzz-files soak test-fuzz-seeds

# The capi seeds (hdf5io's run with test-hdf5io).
test-fuzz-seeds: deps
	$(GO) test -count=1 -run '^Fuzz' ./capi

fuzz: deps
	$(GO) test -run '^$$' -fuzz '^FuzzLoadModel$$' -fuzztime $(FUZZTIME) ./hdf5io
	$(GO) test -run '^$$' -fuzz '^FuzzOpen$$' -fuzztime $(FUZZTIME) ./hdf5io
	$(GO) test -run '^$$' -fuzz '^FuzzOptions$$' -fuzztime $(FUZZTIME) ./capi

fuzz-files: deps lib python-package
	env -u SOMPCA_LIBRARY -u PYTHONPATH $(PY) tests/fuzz/fuzz_files.py -n $(FUZZ_N) --keep $(BUILD)/fuzz-files $(FUZZ_ARGS)

$(SOAK_DIR)/soak_capi: tests/fuzz/soak_capi.c include/sompca.h $(SOMPCA_LIB)
	@mkdir -p $(@D)
	$(CC) $(C_WARN) -std=c11 -I include -o $@ $< -L $(BUILD) -lsompca -Wl,-rpath,'$$ORIGIN/..'

soak: deps lib python-package $(SOAK_DIR)/soak_capi
	$(SOAK_DIR)/soak_capi 10000
	env -u SOMPCA_LIBRARY -u PYTHONPATH $(PY) tests/fuzz/soak.py --fits 2000 --saves 1000
