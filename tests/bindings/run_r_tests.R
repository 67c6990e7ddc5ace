# make test-r: the R package's (bindings/r) examples of the help pages, then the testthat suite,
# against the package installed in build/rlib; fails on any failure, error,
# warning or skip (a skipped test is not a pass).
args <- commandArgs(trailingOnly = TRUE)
library(testthat)
library(sompca)
options(warn = 2)   # an example's warning is an error
for (topic in c("sompca_fit", "predict.sompca", "sompca_save"))
  utils::example(topic, package = "sompca", character.only = TRUE, echo = FALSE)
options(warn = 0)
results <- as.data.frame(test_dir(args[1], reporter = "summary", stop_on_failure = FALSE))
bad <- sum(results$failed) + sum(results$error) + sum(results$skipped) + sum(results$warning)
cat(sprintf("test-r: %d expectations in %d tests; %d failed, %d errors, %d skipped, %d warnings\n",
            sum(results$nb), nrow(results), sum(results$failed), sum(results$error),
            sum(results$skipped), sum(results$warning)))
if (bad > 0) quit(status = 1)
