library(testthat)
library(sompca)

test_check("sompca")
