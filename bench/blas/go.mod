module github.com/sompca/sompca/bench/blas

go 1.26.8

require (
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20190313105609-8cb42192e0e0
)

require golang.org/x/exp v0.0.0-20261014143641-f0251eb4aa3e // indirect
