# The samples and Python's fits written by tests/bindings/reference.py
# (make test-r points SOMPCA_XCHECK_DIR at them): raw little-endian float64
# in C order, samples first.

xcheck_dir <- function() {
  dir <- Sys.getenv("SOMPCA_XCHECK_DIR")
  if (!nzchar(dir)) skip("SOMPCA_XCHECK_DIR is not set (make test-r sets it)")
  dir
}

# A C-order array of dims d as an R array of dims d.
c_order <- function(v, d) {
  if (length(d) == 1) return(v)
  aperm(array(v, dim = rev(d)), rev(seq_along(d)))
}

read_bin <- function(file, d) {
  size <- file.size(file)
  v <- readBin(file, "double", n = size / 8, size = 8, endian = "little")
  stopifnot(length(v) == prod(d))
  c_order(v, d)
}

read_manifest <- function(dir) {
  lines <- strsplit(readLines(file.path(dir, "manifest.txt")), " ")
  data <- list()
  cases <- list()
  for (w in lines) {
    if (w[1] == "data") {
      data[[w[2]]] <- list(dtype = w[3], dim = as.numeric(w[-(1:3)]))
    } else {
      cases[[length(cases) + 1]] <- list(name = w[2], data = w[3], method = w[4], p = as.numeric(w[5]),
                                         mode = w[6], max_iter = as.numeric(w[7]), tol = as.numeric(w[8]),
                                         q = as.numeric(w[9]))
    }
  }
  list(data = data, cases = cases)
}

# The samples of a data set, samples first, in R's type for the dtype.
read_samples <- function(dir, name, spec) {
  x <- read_bin(file.path(dir, paste0(name, ".bin")), spec$dim)
  switch(spec$dtype,
         uint8 = array(as.raw(x), dim = dim(x)),
         bool = array(x != 0, dim = dim(x)),
         x)
}

# got and want of the same dimensions, their largest difference at most tol.
expect_close <- function(got, want, tol) {
  expect_identical(dim(got), dim(want))
  expect_identical(length(got), length(want))
  expect_lte(max(abs(as.vector(got) - as.vector(want)), 0), tol)
}
