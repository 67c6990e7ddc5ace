package kernel

import "testing"

// TestPrefetchWrite checks that the hint leaves every value as it was,
// for lengths around a cache line and slices that start inside one (a
// loop that wrote, or ran one line short or long of a misaligned slice,
// would change a value or fault).
func TestPrefetchWrite(t *testing.T) {
	buf := make([]float64, 64)
	for i := range buf {
		buf[i] = float64(i) + 0.5
	}
	for lo := range 9 {
		for n := range 34 {
			PrefetchWrite(buf[lo : lo+n])
		}
	}
	PrefetchWrite(nil)
	for i, v := range buf {
		if want := float64(i) + 0.5; v != want {
			t.Fatalf("buf[%d] = %v after PrefetchWrite, want %v", i, v, want)
		}
	}
}
