//go:build !amd64 || purego

package kernel

// PrefetchWrite does nothing without assembly (see prefetch_amd64.go).
func PrefetchWrite(b []float64) {}
