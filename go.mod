module github.com/sompca/sompca

go 1.24.0

require gonum.org/v1/gonum v0.17.0

require gonum.org/v1/hdf5 v0.0.0-20210714002203-8c5d23bc6946

require golang.org/x/sys v0.41.0
