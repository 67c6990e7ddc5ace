# The same samples give the same model as Python's sompca (the same library
# on the same numbers: equal to rounding, 1e-12), and Python's model files
# read here give the same features.
tol <- 1e-12

fit_case <- function(x, case, ...) {
  args <- list(x, case$p, method = case$method, ...)
  if (case$mode == "all") args$mode <- "all"
  else if (case$mode != "none") args$mode <- as.numeric(case$mode) + 1   # Python's 0-based mode n is R's n+1
  if (case$max_iter > 0) args$max_iter <- case$max_iter
  if (case$tol > 0) args$tol <- case$tol
  if (case$q > 0) args$q <- case$q
  do.call(sompca_fit, args)
}

expect_python_model <- function(model, dir, case, shape) {
  p <- model$n_components
  prefix <- file.path(dir, case$name)
  expect_equal(model$method, case$method)
  expect_equal(model$shape, shape)
  if (case$method == "pca") {
    # Python's rows follow a sample's C order; R's its column-major order.
    u <- read_bin(paste0(prefix, "_u1.bin"), c(prod(shape), p))
    u <- matrix(aperm(array(u, dim = c(rev(shape), p)), c(rev(seq_along(shape)), length(shape) + 1)), ncol = p)
    expect_close(model$projections[[1]], u, tol)
  } else {
    for (n in seq_along(shape)) {
      expect_close(model$projections[[n]], read_bin(sprintf("%s_u%d.bin", prefix, n), c(shape[n], p)), tol)
    }
  }
  expect_close(model$variance, read_bin(paste0(prefix, "_variance.bin"), p), tol)
  expect_close(model$variance_ratio, read_bin(paste0(prefix, "_ratio.bin"), p), tol)
  mean <- read_bin(paste0(prefix, "_mean.bin"), shape)
  expect_close(as.vector(model$mean), as.vector(mean), tol)
  expect_equal(model$iterations, read_bin(paste0(prefix, "_iterations.bin"), p))
  expect_length(model$history, p)
}

test_that("every method gives Python's model and features", {
  dir <- xcheck_dir()
  manifest <- read_manifest(dir)
  for (case in manifest$cases) {
    spec <- manifest$data[[case$data]]
    x <- read_samples(dir, case$data, spec)
    shape <- spec$dim[-1]
    model <- fit_case(x, case)
    expect_python_model(model, dir, case, shape)
    f <- predict(model, x)
    features <- read_bin(file.path(dir, paste0(case$name, "_features.bin")), dim(f))
    expect_close(f, features, tol)

    # Samples last: the same model.
    n <- length(shape)
    xl <- aperm(x, c(seq_len(n) + 1, 1))
    last <- fit_case(xl, case, samples_last = TRUE)
    expect_identical(last$variance, model$variance)
    expect_identical(predict(last, xl, samples_last = TRUE), f)

    python <- sompca_load(file.path(dir, paste0(case$name, ".h5")))
    expect_python_model(python, dir, case, shape)
    expect_close(predict(python, x), features, tol)
  }
})

test_that("a model fitted in Octave and saved again by Python transforms alike here", {
  # MATLAB -> Python -> R: test-octave wrote octave_model.h5 and its features of
  # data set a; reference.py relay read it in Python, checked the features and saved
  # python_from_octave.h5.
  dir <- xcheck_dir()
  manifest <- read_manifest(dir)
  x <- read_samples(dir, "a", manifest$data$a)
  model <- sompca_load(file.path(dir, "python_from_octave.h5"))
  f <- predict(model, x)
  expect_close(f, read_bin(file.path(dir, "octave_features.bin"), dim(f)), tol)
  expect_close(f, read_bin(file.path(dir, "python_from_octave_features.bin"), dim(f)), tol)
  expect_equal(model$method, "so-mpca-rs")
  expect_equal(model$shape, c(6, 5, 4))
})
