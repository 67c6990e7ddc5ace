//go:build !linux

package solver

// physicalMemory returns 0: unknown on this system.
func physicalMemory() int64 { return 0 }

func memoryCap(soft bool) (int64, string) { return 0, "" }
