# The documentation site (docs/): Sphinx, numpydoc and sphinx-gallery, pinned, pip-installed into .venv.
#
#   make docs       build/docs/html/index.html: docs/*.rst, the Python API from the installed package's
#                   docstrings (autosummary), include/sompca.h, `go doc -all` of solver and hdf5io,
#                   CHANGELOG.md, docs/DESIGN.md's determinism section, and the example gallery (docs/examples/plot_*.py), whose examples run
#                   during the build and draw its figures
#   make test-docs  (part of make test) the same build with warnings as errors, so the docs cannot rot,
#                   and CITATION.cff validated against the CFF 1.2.0 schema (cffconvert ships it)
#
# The site is built from a copy of docs/ in build/docs/src, beside the generated inputs in _generated/,
# so that nothing is written into the source tree.

DOCS_PY_PACKAGES := sphinx==9.0.4 numpydoc==1.11.0 sphinx-gallery==0.22.1 cffconvert==2.0.0
DOCS_STAMP       := $(VENV)/.docs-stamp-$(shell echo "$(DOCS_PY_PACKAGES)" | md5sum | cut -c1-8)
DOCS_BUILD       := $(BUILD)/docs
SPHINXOPTS       ?=

TEST_TARGETS += test-docs

.PHONY: docs test-docs

$(DOCS_STAMP): $(PY_STAMP)
	$(PY) -m pip install -q $(DOCS_PY_PACKAGES) || { echo "error: pip could not install $(DOCS_PY_PACKAGES)" >&2; exit 1; }
	rm -f $(VENV)/.docs-stamp*
	touch $@

docs: $(DOCS_STAMP) python-package
	rm -rf $(DOCS_BUILD)/src && mkdir -p $(DOCS_BUILD)/src/_generated
	cp -r docs/. $(DOCS_BUILD)/src/
	cp include/sompca.h include/sompca.hpp CHANGELOG.md docs/DESIGN.md $(DOCS_BUILD)/src/_generated/
	$(GO) doc -all ./solver > $(DOCS_BUILD)/src/_generated/go-solver.txt
	$(GO) doc -all ./hdf5io > $(DOCS_BUILD)/src/_generated/go-hdf5io.txt
	cd $(DOCS_BUILD) && env -u SOMPCA_LIBRARY -u PYTHONPATH MPLBACKEND=Agg $(CURDIR)/$(PY) -m sphinx -b html -q \
	  $(SPHINXOPTS) -d doctrees src html
	@echo "make docs: $(DOCS_BUILD)/html/index.html"

test-docs: SPHINXOPTS = -W --keep-going
test-docs: docs
	$(VENV)/bin/cffconvert --validate -i CITATION.cff
	@# The gallery ran: every example's page holds the figure it drew.
	@for ex in docs/examples/plot_*.py; do name=$$(basename $$ex .py); \
	  ls $(DOCS_BUILD)/html/_images/sphx_glr_$${name}_001.png > /dev/null || \
	    { echo "test-docs: $$name drew no figure" >&2; exit 1; }; done
	@echo "test-docs: passed"
