//go:build race

package solver

// raceEnabled: the race detector's runtime allocates on synchronisation,
// so allocation counts mean nothing under it.
const raceEnabled = true
