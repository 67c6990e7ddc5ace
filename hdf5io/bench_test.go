package hdf5io

import (
	"fmt"
	"path/filepath"
	"testing"
)

// benchmarkRead measures one pass of reads over a dataset of m samples of
// 32 x 32 int16 (converted to float32), in runs of 4096 samples (the
// solver's reads for this sample size), with the default ChunkBytes, from
// a file with samples first or last.
func benchmarkRead(b *testing.B, m int, samplesLast bool) {
	path := filepath.Join(b.TempDir(), "bench.h5")
	x := make([]int16, m*32*32)
	for i := range x {
		x[i] = int16(i)
	}
	dims := []int{m, 32, 32}
	if samplesLast {
		dims = []int{32, 32, m}
	}
	if err := WriteArray(path, "/X", dims, x, false); err != nil {
		b.Fatal(err)
	}
	src, err := Open(path, "/X", Options{SamplesLast: samplesLast})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	b.SetBytes(int64(len(x) * 2))
	b.ResetTimer()
	for range b.N {
		for start := 0; start < m; start += 4096 {
			if _, err := src.Read(start, min(4096, m-start)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkRead(b *testing.B) {
	for _, size := range []struct {
		name string
		m    int
	}{{"Small", 500}, {"Medium", 5000}, {"Large", 50000}} {
		for _, last := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/samplesLast=%v", size.name, last), func(b *testing.B) { benchmarkRead(b, size.m, last) })
		}
	}
}
