# Python bindings (bindings/python): the sompca package over ctypes.
#
#   make python-package   copy build/libsompca.so into the package and pip-install it into .venv
#   make test-python      the pytest suite against the installed package, then the Python example

PY_PKG := bindings/python

TEST_TARGETS += test-python

.PHONY: python-package test-python

# The package carries its own copy of the library (gitignored), so the
# installed package works from any directory without SOMPCA_LIBRARY.
python-package: deps-python lib
	cp $(BUILD)/libsompca.so $(PY_PKG)/sompca/libsompca.so
	$(PY) -m pip install -q --force-reinstall --no-deps ./$(PY_PKG)
	rm -rf $(PY_PKG)/build

# Run from the tests' folder with a clean environment so that `import sompca`
# finds the installed package, not the source tree.
test-python: deps lib python-package
	cd $(PY_PKG)/tests && env -u SOMPCA_LIBRARY -u PYTHONPATH $(CURDIR)/$(PY) -m pytest -q -p no:cacheprovider .
	env -u SOMPCA_LIBRARY -u PYTHONPATH $(PY) examples/python/quickstart.py
