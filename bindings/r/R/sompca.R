# The R interface: thin wrappers over the .Call layer (src/sompca_r.c).
# The library reads samples in C order, samples first (M x I_1 x ... x I_N
# with the last index fastest); R arrays are column-major, so the samples
# are handed over as aperm(X) with the modes reversed, whose memory is
# exactly that, in their own storage type (double, or raw for bytes).

.methods <- c("so-mpca-rs", "so-mpca", "fo-mpca-rs", "fo-mpca", "trod", "trod-rs",
              "umpca", "umpca-rs", "pca", "mpca", "csa")

.whole <- function(value, name, lo, hi = .Machine$integer.max) {
  if (!is.numeric(value) || length(value) != 1 || is.na(value) || value != round(value) ||
      value < lo || value > hi)
    stop(sprintf("%s must be a whole number in [%s, %s], got %s", name, format(lo), format(hi),
                 paste(format(value), collapse = " ")), call. = FALSE)
  as.double(value)
}

.real <- function(value, name) {
  if (!is.numeric(value) || length(value) != 1 || is.na(value))
    stop(sprintf("%s must be a number, got %s", name, paste(format(value), collapse = " ")), call. = FALSE)
  as.double(value)
}

# The samples of x in the library's layout: list(data, shape, m). shape =
# NULL takes the sample shape from x; else x must hold samples of it.
.samples <- function(x, shape, samples_last, caller) {
  if (!is.logical(samples_last) || length(samples_last) != 1 || is.na(samples_last))
    stop("samples_last must be TRUE or FALSE", call. = FALSE)
  if (!(is.numeric(x) || is.logical(x) || is.raw(x)) || is.complex(x))
    stop(sprintf("%s: x must be a numeric, logical or raw array, got %s", caller, class(x)[1]), call. = FALSE)
  d <- dim(x)
  if (is.null(d)) {
    if (is.null(shape))
      stop(sprintf("%s: x must be an array with dim = c(M, I_1, ..., I_N) (or a matrix of vector samples)",
                   caller), call. = FALSE)
    if (length(x) != prod(shape))
      stop(sprintf("%s: x is a vector of %d values: want an array of samples of dim c(%s)", caller,
                   length(x), paste(shape, collapse = ", ")), call. = FALSE)
    d <- shape   # one sample
    dim(x) <- d
  }
  if (is.null(shape)) {
    if (length(d) < 2)
      stop(sprintf("%s: x must have a samples axis and at least one mode", caller), call. = FALSE)
    shape <- if (samples_last) d[-length(d)] else d[-1]
  }
  n <- length(shape)
  want <- if (samples_last) c(shape, NA) else c(NA, shape)
  got <- if (length(d) == n) (if (samples_last) c(d, 1) else c(1, d)) else d   # one sample
  if (length(got) != n + 1 || any(got[!is.na(want)] != shape))
    stop(sprintf("%s: x has dim c(%s): want %s (the model's sample shape)", caller, paste(d, collapse = ", "),
                 if (samples_last) sprintf("c(%s, M)", paste(shape, collapse = ", "))
                 else sprintf("c(M, %s)", paste(shape, collapse = ", "))), call. = FALSE)
  dim(x) <- got
  m <- if (samples_last) got[n + 1] else got[1]
  if (is.logical(x)) {
    if (anyNA(x)) stop(sprintf("%s: x has NA", caller), call. = FALSE)
    x <- array(as.raw(x), dim = got)
  } else if (is.integer(x)) {
    storage.mode(x) <- "double"
  }
  perm <- if (samples_last) c(rev(seq_len(n)), n + 1) else rev(seq_len(n + 1))
  data <- if (n == 1 && samples_last) x else aperm(x, perm)
  dim(data) <- NULL
  list(data = data, shape = as.double(shape), m = m)
}

# An index that maps a C-order flattened sample to R's column-major order.
.c_to_r <- function(shape) {
  n <- length(shape)
  if (n == 1) return(seq_len(shape))
  as.vector(aperm(array(seq_len(prod(shape)), rev(shape)), rev(seq_len(n))))
}

.model <- function(ptr) {
  info <- .Call(sompca_r_info, ptr)
  shape <- info$shape
  p <- info$n_components
  idx <- .c_to_r(shape)
  projections <- lapply(info$projections, function(u) matrix(u, ncol = p, byrow = TRUE))
  if (info$method == "pca") projections[[1]] <- projections[[1]][idx, , drop = FALSE]
  so <- startsWith(info$method, "so-mpca")
  structure(list(
    method = info$method, shape = shape, n_components = p, n_samples = info$n_samples,
    mode = if (info$mode == -2) "all" else if (info$mode >= 0) info$mode + 1 else NULL,
    projections = projections, variance = info$variance, variance_ratio = info$variance_ratio,
    mean = array(info$mean[idx], dim = shape), history = info$history, iterations = info$iterations,
    extraction_order = info$extraction + 1,
    feature_modes = if (so) ifelse(info$feature_modes == -2, 0, info$feature_modes + 1) else NULL,
    ranks = info$ranks, max_iter = info$max_iter, tol = info$tol, q = info$q,
    file = .Call(sompca_r_serialize, ptr), handle = ptr), class = "sompca")
}

# The library's model: the handle, or, for an object that saveRDS or save
# kept without it, the model remade from its file bytes.
.handle <- function(model) {
  if (.Call(sompca_r_alive, model$handle)) model$handle else .Call(sompca_r_deserialize, model$file)
}

#' @export
sompca_fit <- function(x, n_components = NULL, method = "so-mpca-rs", mode = NULL, max_iter = 20,
                       tol = 0, n_threads = 0, q = 0.97, samples_last = FALSE, verbose = FALSE) {
  if (!is.character(method) || length(method) != 1 || is.na(method))
    stop("method must be one string such as \"so-mpca-rs\"", call. = FALSE)
  s <- .samples(x, NULL, samples_last, "sompca_fit")
  n <- length(s$shape)
  cmode <- if (is.null(mode)) -1 else if (identical(mode, "all")) -2 else .whole(mode, "mode", 1, n) - 1
  opts <- list(n_components = if (is.null(n_components)) 0 else .whole(n_components, "n_components", 0),
               mode = cmode, max_iter = .whole(max_iter, "max_iter", 1), tol = .real(tol, "tol"),
               n_threads = .whole(n_threads, "n_threads", 0, 4096), q = .real(q, "q"),
               verbose = if (isTRUE(verbose)) 1 else 0)
  .model(.Call(sompca_r_fit, s$data, s$shape, method, opts))
}

#' @export
predict.sompca <- function(object, newdata, samples_last = FALSE, ...) {
  s <- .samples(newdata, object$shape, samples_last, "predict")
  t(.Call(sompca_r_transform, .handle(object), s$data))
}

#' @export
print.sompca <- function(x, ...) {
  cat(sprintf("sompca model: %s, %d features of %s samples (%d fitted)\n", x$method, x$n_components,
              paste(x$shape, collapse = " x "), x$n_samples))
  invisible(x)
}

#' @export
summary.sompca <- function(object, ...) {
  p <- object$n_components
  table <- data.frame(feature = seq_len(p), variance = object$variance, ratio = object$variance_ratio,
                      cumulative = cumsum(object$variance_ratio), sweeps = object$iterations)
  structure(list(model = object, table = table), class = "summary.sompca")
}

#' @export
print.summary.sompca <- function(x, ...) {
  print(x$model)
  m <- x$model
  if (!is.null(m$mode)) cat(sprintf("orthogonal mode: %s\n", format(m$mode)))
  if (!is.null(m$ranks)) cat(sprintf("mode ranks: %s\n", paste(m$ranks, collapse = ", ")))
  print(x$table, row.names = FALSE, digits = 4)
  invisible(x)
}

#' @export
sompca_save <- function(model, file) {
  if (!inherits(model, "sompca")) stop("model must be a sompca model", call. = FALSE)
  if (!is.character(file) || length(file) != 1 || is.na(file) || !nzchar(file))
    stop("file must be one file name", call. = FALSE)
  invisible(.Call(sompca_r_save, .handle(model), path.expand(file)))
}

#' @export
sompca_load <- function(file) {
  if (!is.character(file) || length(file) != 1 || is.na(file) || !nzchar(file))
    stop("file must be one file name", call. = FALSE)
  .model(.Call(sompca_r_load, path.expand(file)))
}
