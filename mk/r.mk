# The R package (bindings/r): sompca_fit, predict, print, summary,
# sompca_save and sompca_load through .Call over the C ABI.
#
#   make r          R CMD build, then R CMD INSTALL into build/rlib (linked to build/libsompca.so);
#                   use it with .libPaths("build/rlib") or R_LIBS=build/rlib
#   make test-r     its testthat suite: fits against Python's (tests/bindings/reference.py, 1e-12)
#                   and a model read across languages (fitted in Octave, saved again by Python);
#                   runs test-octave first for that model; Ctrl-C during a fit; README.md's R blocks
#
# The Debian packages come with Octave's (deps-bindings in mk/octave.mk): r-base-core and
# r-cran-testthat; R's headers and Makeconf are in r-base-core, so r-base-dev is not needed.

RLIB       := $(BUILD)/rlib
R_PKG_DIR  := $(BUILD)/r
R_PKG_SRC  := $(shell find bindings/r -type f -not -name '*~')
R_STAMP    := $(RLIB)/sompca/DESCRIPTION

TEST_TARGETS += test-r

.PHONY: r test-r

r: $(R_STAMP)

# R CMD build and INSTALL must be clean: any warning fails the build.
$(R_STAMP): $(R_PKG_SRC) include/sompca.h $(SOMPCA_LIB) | deps-bindings
	rm -rf $(R_PKG_DIR) && mkdir -p $(R_PKG_DIR) $(RLIB)
	cd $(R_PKG_DIR) && R CMD build --no-manual $(CURDIR)/bindings/r > build.log 2>&1 || { cat build.log; exit 1; }
	cd $(R_PKG_DIR) && SOMPCA_CFLAGS="-I$(CURDIR)/include" \
	  SOMPCA_LIBS="-L$(CURDIR)/$(BUILD) -Wl,-rpath,$(CURDIR)/$(BUILD) -lsompca" \
	  R CMD INSTALL --library=$(CURDIR)/$(RLIB) sompca_*.tar.gz > install.log 2>&1 || { cat install.log; exit 1; }
	@! grep -i -E 'warning[: ]|^error|: error:' $(R_PKG_DIR)/build.log $(R_PKG_DIR)/install.log || \
	  { echo "error: R CMD build/INSTALL gave warnings" >&2; exit 1; }
	touch $@

test-r: $(R_STAMP) test-octave
	@grep -qx 'Version: $(SOMPCA_VERSION)' bindings/r/DESCRIPTION || \
	  { echo "error: bindings/r/DESCRIPTION's Version is not sompca.h's $(SOMPCA_VERSION)" >&2; exit 1; }
	env -u SOMPCA_LIBRARY -u PYTHONPATH $(PY) tests/bindings/reference.py relay $(XCHECK_DIR)
	SOMPCA_XCHECK_DIR=$(CURDIR)/$(XCHECK_DIR) R_LIBS=$(CURDIR)/$(RLIB) Rscript tests/bindings/run_r_tests.R bindings/r/tests/testthat
	R_LIBS=$(CURDIR)/$(RLIB) sh tests/bindings/ctrl_c.sh 'caught:.*cancel' Rscript tests/bindings/ctrl_c_fit.R
	@# README.md's R blocks run as a reader at the repository's root would (mk/octave.mk's MATLAB blocks alike).
	rm -rf $(XCHECK_DIR)/readme-r
	$(PY) tests/bindings/readme_blocks.py r $(XCHECK_DIR)/readme-r
	ln -s $(CURDIR)/$(BUILD) $(XCHECK_DIR)/readme-r/
	for f in $(XCHECK_DIR)/readme-r/*.R; do \
	  (cd $(XCHECK_DIR)/readme-r && Rscript -e 'options(warn = 2)' -e "source('$$(basename $$f)', echo = FALSE)") || exit 1; \
	done
	cd $(XCHECK_DIR)/readme-r && rm build   # no link loops left in build/
	@echo "test-r: passed"
