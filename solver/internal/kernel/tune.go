package kernel

// The kernels' thresholds, in one place; the assembly's own choices
// (rows per block, prefetch distances) are in the .s files' comments.

// shortRow is the row length below which a plain loop beats a call to
// gonum's assembly kernels for float64.
const shortRow = 16
