# The MATLAB/Octave binding (bindings/matlab): one MEX gateway over the C
# ABI (MATLAB's C MEX API only) and the .m wrappers sompca_fit,
# sompca_transform, sompca_save and sompca_load.
#
#   make octave        build/matlab/sompca_mex.mex, built by Octave's mkoctfile --mex
#                      (MATLAB: see bindings/matlab/README.md)
#   make test-octave   the Octave suite: the binding's fits of the samples of
#                      tests/bindings/reference.py against Python's (1e-12), Python's
#                      model files, bad arguments, Ctrl-C and README.md's MATLAB blocks
#
# Octave and R (mk/r.mk) come from Debian, without their recommended
# packages, in one apt-get run: about 2.5 minutes on a fresh machine.

BINDINGS_APT_PACKAGES := octave liboctave-dev r-base-core r-cran-testthat
MEX_DIR     := $(BUILD)/matlab
SOMPCA_MEX  := $(MEX_DIR)/sompca_mex.mex
XCHECK_DIR  := $(BUILD)/xcheck
OCTAVE_RUN  := octave-cli --norc --quiet --no-window-system

TEST_TARGETS += test-octave

.PHONY: octave test-octave deps-bindings

deps-bindings:
	@$(MAKE) --no-print-directory deps-system EXTRA_APT_PACKAGES="$(BINDINGS_APT_PACKAGES)" \
	  APT_INSTALL_FLAGS=--no-install-recommends

octave: $(SOMPCA_MEX)

# '\$$ORIGIN': mkoctfile passes its arguments through a shell.
$(SOMPCA_MEX): bindings/matlab/sompca_mex.c include/sompca.h $(SOMPCA_LIB) | deps-bindings
	@mkdir -p $(@D)
	CFLAGS="-g -O2 $(C_WARN) -std=c99" mkoctfile --mex -DSOMPCA_OCTAVE_INTERRUPT -Iinclude -o $@ $< -L$(BUILD) -lsompca '-Wl,-rpath,\$$ORIGIN/..'

# The samples and Python's fits of them, for the Octave and R suites.
$(XCHECK_DIR)/manifest.txt: tests/bindings/reference.py $(SOMPCA_LIB) | python-package
	rm -rf $(@D) && mkdir -p $(@D)
	env -u SOMPCA_LIBRARY -u PYTHONPATH $(PY) tests/bindings/reference.py make $(@D)

test-octave: $(SOMPCA_MEX) $(XCHECK_DIR)/manifest.txt
	$(OCTAVE_RUN) --eval "addpath('bindings/matlab', '$(MEX_DIR)', 'bindings/matlab/tests'); test_sompca('$(XCHECK_DIR)')"
	sh tests/bindings/ctrl_c.sh 'caught sompca:canceled' $(OCTAVE_RUN) \
	  --eval "addpath('bindings/matlab', '$(MEX_DIR)', 'bindings/matlab/tests'); ctrl_c_fit"
	@# README.md's MATLAB blocks run as a reader at the repository's root would, in a folder of their
	@# own whose bindings/ and build/ are the repository's.
	rm -rf $(XCHECK_DIR)/readme-octave
	$(PY) tests/bindings/readme_blocks.py matlab $(XCHECK_DIR)/readme-octave
	ln -s $(CURDIR)/bindings $(CURDIR)/$(BUILD) $(XCHECK_DIR)/readme-octave/
	for f in $(XCHECK_DIR)/readme-octave/*.m; do \
	  (cd $(XCHECK_DIR)/readme-octave && $(OCTAVE_RUN) --eval "source('$$(basename $$f)')") || exit 1; \
	done
	cd $(XCHECK_DIR)/readme-octave && rm bindings build   # no link loops left in build/
	@echo "test-octave: passed"
