# A fit of minutes (P = 32, 10,000 sweeps per EMP) for tests/bindings/ctrl_c.sh,
# which interrupts it: the package must turn Ctrl-C into an R error.
library(sompca)
x <- array(rnorm(300 * 32 * 32), dim = c(300, 32, 32))
r <- tryCatch({
  sompca_fit(x, 32, max_iter = 10000, n_threads = 1, verbose = TRUE)
  "not cancelled"
}, error = function(e) paste("caught:", conditionMessage(e)))
cat(r, "\n")
