# The R interface itself: shapes, types, S3 methods, files and errors.

samples <- function(m = 30, shape = c(6, 5, 4), seed = 1) {
  set.seed(seed)
  array(rnorm(m * prod(shape)), dim = c(m, shape))
}

test_that("the model has R's shapes and its features are uncorrelated with unit-norm vectors", {
  x <- samples()
  model <- sompca_fit(x, 3)
  expect_s3_class(model, "sompca")
  expect_equal(model$shape, c(6, 5, 4))
  expect_equal(model$n_samples, 30)
  expect_equal(vapply(model$projections, dim, numeric(2)), rbind(c(6, 5, 4), 3))
  # Each EMP's vectors have unit norm (the method's constraint).
  for (u in model$projections) expect_close(sqrt(colSums(u^2)), rep(1, 3), 1e-12)
  expect_equal(dim(model$mean), c(6, 5, 4))
  # The mean, against R's own (apply over the samples axis).
  expect_close(model$mean, apply(x, 2:4, mean), 1e-12)
  # Variance: the features' sample variance on the training samples (S_p / (M - 1), solver/doc.go).
  f <- predict(model, x)
  expect_equal(dim(f), c(30, 3))
  expect_close(model$variance, apply(f, 2, var), 1e-12)
  # One sample as an array of the sample shape.
  expect_equal(predict(model, x[5, , , ]), f[5, , drop = FALSE], tolerance = 0)
})

test_that("integer, logical and raw samples are read as their values", {
  set.seed(2)
  v <- sample(0:255, 30 * 7 * 6, replace = TRUE)
  ints <- array(v, dim = c(30, 7, 6))
  raw <- array(as.raw(v), dim = c(30, 7, 6))
  dbl <- array(as.double(v), dim = c(30, 7, 6))
  expect_identical(sompca_fit(raw, 3)$variance, sompca_fit(dbl, 3)$variance)
  expect_identical(sompca_fit(ints, 3)$variance, sompca_fit(dbl, 3)$variance)
  m <- sompca_fit(raw, 3)
  expect_identical(predict(m, raw), predict(m, dbl))
  b <- array(v > 127, dim = c(30, 7, 6))
  expect_identical(sompca_fit(b, 3)$variance, sompca_fit(b + 0, 3)$variance)
})

test_that("print and summary describe the model", {
  model <- sompca_fit(samples(), 3, method = "so-mpca")
  expect_output(print(model), "sompca model: so-mpca, 3 features of 6 x 5 x 4 samples \\(30 fitted\\)")
  s <- summary(model)
  expect_equal(s$table$variance, model$variance)
  expect_equal(s$table$cumulative, cumsum(model$variance_ratio))
  expect_output(print(s), "orthogonal mode: 1")
  expect_output(print(summary(sompca_fit(samples(), 0, method = "mpca", q = 0.9))), "mode ranks:")
})

test_that("save and load keep the model, and so do saveRDS and readRDS", {
  model <- sompca_fit(samples(), 3)
  file <- tempfile(fileext = ".h5")
  on.exit(unlink(file))
  sompca_save(model, file)
  again <- sompca_load(file)
  keep <- setdiff(names(model), c("handle", "file"))
  expect_identical(again[keep], model[keep])
  expect_identical(predict(again, samples()), predict(model, samples()))
  # saveRDS keeps no external pointer: the model comes back from its file bytes.
  rds <- tempfile(fileext = ".rds")
  on.exit(unlink(rds), add = TRUE)
  saveRDS(model, rds)
  restored <- readRDS(rds)
  expect_identical(predict(restored, samples()), predict(model, samples()))
  sompca_save(restored, file)
  expect_identical(sompca_load(file)$variance, model$variance)
  # Truncated bytes are an error, never another model.
  restored <- readRDS(rds)
  restored$file <- restored$file[seq_len(length(restored$file) %/% 2)]
  expect_error(predict(restored, samples()), "sompca_model_deserialize")
})

test_that("bad arguments are R errors naming what is wrong", {
  x <- samples()
  model <- sompca_fit(x, 3)
  expect_error(sompca_fit(x, 3, method = "nope"), "unknown method \"nope\"")
  expect_error(sompca_fit(x, -1), "n_components must be a whole number")
  expect_error(sompca_fit(x, 3, mode = 4), "mode must be a whole number in \\[1, 3\\]")
  expect_error(sompca_fit(x, 7), "at most")
  expect_error(sompca_fit(x, 3, method = "mpca", q = 2), "q")
  expect_error(sompca_fit(list(1, 2), 3), "x must be a numeric, logical or raw array")
  expect_error(sompca_fit(1:10, 3), "x must be an array")
  bad <- x
  bad[4, 2, 2, 2] <- NaN
  expect_error(sompca_fit(bad, 3), "NaN")
  expect_error(predict(model, x[, 1:3, , ]), "want c\\(M, 6, 5, 4\\)")
  expect_error(sompca_load(file.path(tempdir(), "missing.h5")), "missing.h5")
  notmodel <- tempfile()
  writeLines("not a model", notmodel)
  on.exit(unlink(notmodel))
  expect_error(sompca_load(notmodel), basename(notmodel))
  expect_error(sompca_save(list(), "x.h5"), "model must be a sompca model")
})
