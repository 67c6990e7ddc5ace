//go:build !unix

package eigen

// processCPU is 0 where getrusage is missing: reportCPU then reports 0.
func processCPU() int64 { return 0 }
