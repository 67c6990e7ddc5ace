# The package version. It must equal the version of the libsompca it loads
# (sompca_version()); the ctypes layer checks this at import time.
__version__ = "0.1.0"
