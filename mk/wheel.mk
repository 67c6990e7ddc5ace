# Distributions of the Python package (bindings/python) for pip.
#
#   make wheel       dist/sompca-<version>-py3-none-manylinux_<glibc>_x86_64.whl: the package with
#                    libsompca.so and every shared library it needs (libhdf5 and its dependencies)
#                    grafted in by auditwheel and patchelf, so that `pip install` of it needs
#                    neither Go nor libhdf5 (py3-none: the library is loaded with ctypes); its
#                    .dist-info/licenses/ holds LICENSE and, in third-party/, the licences of the Go
#                    code linked in and of every grafted library (mk/wheel-licenses.sh)
#   make sdist       dist/sompca-<version>.tar.gz: the package plus, in native/, the Makefile and the
#                    Go and C sources of libsompca; pip builds it with `make lib` (Go, make, a C
#                    compiler and libhdf5-dev needed; it says which is missing)
#   make test-wheel  (part of make test) `auditwheel show` reports the wheel's tag, and the wheel,
#                    installed by pip into a fresh virtual environment, fits with no go on PATH and
#                    the system's libhdf5 made unloadable (tests/wheel/run.sh); building
#                    bindings/python without Go says what is missing (tests/wheel/no_go.sh)
#   make test-sdist  (not in make test: it builds the Go library from the sdist, minutes) the sdist
#                    installs where Go is, and says what is missing where it is not
#
# auditwheel, patchelf, build and setuptools come from PyPI into .venv; wheels are built without
# build isolation (with .venv's setuptools), so nothing is downloaded per build.

WHEEL_PY_PACKAGES := auditwheel patchelf build 'setuptools>=77' wheel
WHEEL_TOOLS       := $(VENV)/.wheel-tools-$(shell echo "$(WHEEL_PY_PACKAGES)" | md5sum | cut -c1-8)
DIST              := dist
WHEEL_BUILD       := $(BUILD)/wheel
WHEEL_STAMP       := $(WHEEL_BUILD)/wheel.stamp
SDIST_BUILD       := $(BUILD)/sdist
PY_PKG_SOURCES     = $(wildcard bindings/python/sompca/*.py) bindings/python/setup.py \
                     bindings/python/pyproject.toml bindings/python/README.md \
                     LICENSE mk/wheel-licenses.sh

TEST_TARGETS += test-wheel

.PHONY: wheel sdist test-wheel test-sdist

$(WHEEL_TOOLS): | deps-python
	$(PY) -m pip install -q $(WHEEL_PY_PACKAGES) || { echo "error: pip could not install $(WHEEL_PY_PACKAGES)" >&2; exit 1; }
	touch $@

wheel: $(WHEEL_STAMP)

# pip builds the platform wheel (setup.py runs `make lib`, up to date here), then auditwheel
# grafts the libraries in and names the wheel by the oldest glibc its symbols allow.
$(WHEEL_STAMP): $(SOMPCA_LIB) $(PY_PKG_SOURCES) | $(WHEEL_TOOLS)
	rm -rf $(WHEEL_BUILD) && mkdir -p $(WHEEL_BUILD) $(DIST)
	$(PY) -m pip wheel -q --no-deps --no-build-isolation -w $(WHEEL_BUILD)/raw ./$(PY_PKG)
	rm -rf $(PY_PKG)/build
	PATH=$(abspath $(VENV))/bin:$$PATH auditwheel -v repair --strip -w $(WHEEL_BUILD)/repaired \
	  $(WHEEL_BUILD)/raw/sompca-$(SOMPCA_VERSION)-py3-none-linux_x86_64.whl > $(WHEEL_BUILD)/repair.log 2>&1 \
	  || { cat $(WHEEL_BUILD)/repair.log; exit 1; }
	PATH=$(abspath $(VENV))/bin:$$PATH GO=$(GO) bash mk/wheel-licenses.sh \
	  $(WHEEL_BUILD)/repaired/sompca-$(SOMPCA_VERSION)-py3-none-manylinux_*_x86_64.whl $(WHEEL_BUILD)/repair.log \
	  $(SOMPCA_LIB) $(WHEEL_BUILD)/licenses
	rm -f $(DIST)/sompca-$(SOMPCA_VERSION)-py3-none-*.whl
	mv $(WHEEL_BUILD)/repaired/sompca-$(SOMPCA_VERSION)-py3-none-manylinux_*_x86_64.whl $(DIST)/
	@ls -l $(DIST)/sompca-$(SOMPCA_VERSION)-py3-none-manylinux_*_x86_64.whl
	touch $@

test-wheel: $(WHEEL_STAMP)
	PATH=$(abspath $(VENV))/bin:$$PATH bash tests/wheel/run.sh $(DIST) $(SOMPCA_VERSION) $(WHEEL_BUILD)/test
	bash tests/wheel/no_go.sh $(abspath $(PY)) ./$(PY_PKG) $(WHEEL_BUILD)/no-go
	rm -rf $(PY_PKG)/build

# The sdist: bindings/python plus native/, which holds what `make lib` reads: the Makefile,
# mk/*.mk, go.mod, go.sum, include/ and the non-test sources of every package ./capi builds from.
sdist: $(SOMPCA_LIB) | $(WHEEL_TOOLS)
	rm -rf $(SDIST_BUILD) && mkdir -p $(SDIST_BUILD)/pkg/native/mk $(SDIST_BUILD)/pkg/native/include $(DIST)
	cp -r $(PY_PKG)/pyproject.toml $(PY_PKG)/setup.py $(PY_PKG)/README.md $(SDIST_BUILD)/pkg/
	cp -L $(PY_PKG)/LICENSE $(SDIST_BUILD)/pkg/
	mkdir -p $(SDIST_BUILD)/pkg/sompca && cp $(PY_PKG)/sompca/*.py $(SDIST_BUILD)/pkg/sompca/
	cp Makefile go.mod go.sum $(SDIST_BUILD)/pkg/native/ && cp mk/*.mk $(SDIST_BUILD)/pkg/native/mk/
	cp include/sompca.h $(SDIST_BUILD)/pkg/native/include/
	for dir in $$(CGO_ENABLED=1 $(GO) list -deps -f '{{if .Module}}{{if eq .Module.Path "$(shell $(GO) list -m)"}}{{.Dir}}{{end}}{{end}}' ./capi); do \
	  rel=$${dir#$(CURDIR)/}; mkdir -p $(SDIST_BUILD)/pkg/native/$$rel; \
	  for f in $$dir/*.go $$dir/*.s $$dir/*.c $$dir/*.h $$dir/*.map; do \
	    case $$f in *_test.go|*'*'*) ;; *) cp $$f $(SDIST_BUILD)/pkg/native/$$rel/ ;; esac; done; done
	printf 'graft native\nglobal-exclude *.pyc\n' > $(SDIST_BUILD)/pkg/MANIFEST.in
	rm -f $(DIST)/sompca-$(SOMPCA_VERSION).tar.gz
	cd $(SDIST_BUILD)/pkg && $(abspath $(PY)) -m build -q --sdist --outdir $(abspath $(DIST)) . > ../build.log 2>&1 \
	  || { cat ../build.log; exit 1; }
	@ls -l $(DIST)/sompca-$(SOMPCA_VERSION).tar.gz

test-sdist: sdist
	PATH=$(abspath $(VENV))/bin:$$PATH bash tests/wheel/run_sdist.sh $(DIST)/sompca-$(SOMPCA_VERSION).tar.gz \
	  $(SDIST_BUILD)/test
