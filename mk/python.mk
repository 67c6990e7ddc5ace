# Python bindings (bindings/python): the sompca package over ctypes.
#
#   make python-package   pip-install the package, with build/libsompca.so inside, into .venv
#   make test-python      the pytest suite against the installed package, then the Python example

PY_PKG := bindings/python

TEST_TARGETS += test-python

.PHONY: python-package test-python

# The installed package carries its own copy of build/libsompca.so (setup.py
# runs `make lib`, up to date here, and copies it), so it works from any
# directory without SOMPCA_LIBRARY. setuptools builds in the tree: its build/
# is removed. (mk/wheel.mk makes wheels and sdists for pip users.)
python-package: deps-python lib
	$(PY) -m pip install -q --force-reinstall --no-deps ./$(PY_PKG)
	rm -rf $(PY_PKG)/build

# Run from the tests' folder with a clean environment so that `import sompca`
# finds the installed package, not the source tree.
test-python: deps lib python-package
	cd $(PY_PKG)/tests && env -u SOMPCA_LIBRARY -u PYTHONPATH $(CURDIR)/$(PY) -m pytest -q -p no:cacheprovider .
	env -u SOMPCA_LIBRARY -u PYTHONPATH $(PY) examples/python/quickstart.py
