package solver

import (
	"errors"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAllModes checks feature-level fusion against its definition: an
// AllModes fit holds, feature by feature and bit for bit, the features of
// the N single-mode SO-MPCA fits (same vectors, variances, sweeps and
// histories, the same order within a mode), sorted by captured variance
// across modes, and transforms to the single fits' features. The N fits
// share their first EMP, with or without relaxed start
// (TestAllModesFirstEMPShared): the fused model holds it once, labelled
// AllModes, and it stands for EMP 0 of every mode. No two fused features
// are the same.
func TestAllModes(t *testing.T) {
	const M = grain + 9
	for _, shape := range [][]int{{7, 5}, {4, 7, 3}, {3, 5, 2, 4}} {
		data := randomTensors(31, M, shape)
		for _, rs := range []bool{false, true} {
			opts := Options{Method: SOMPCA, RelaxedStart: rs, Threads: 2, Mode: OrthogonalMode(AllModes)}
			var calls []int
			opts.Progress = func(done, total int, _ float64) bool { calls = append(calls, done, total); return true }
			fused, src := fitOrFatal(t, data, M, shape, opts)
			opts.Progress = nil
			const shared = 1 // the first EMP, which all modes' fits have
			total := 0
			offsets := make([]int, len(shape)) // fused extraction index of mode n's EMP k (k >= shared) is offsets[n] + k
			for n, d := range shape {
				offsets[n] = total - n*shared
				total += d
			}
			total -= (len(shape) - 1) * shared
			sharedAt := slices.Index(fused.FeatureModes, AllModes)
			if sharedAt < 0 || slices.Contains(fused.FeatureModes[sharedAt+1:], AllModes) {
				t.Fatalf("%v rs=%v: feature modes %v, want one %d (the shared first EMP)", shape, rs, fused.FeatureModes, AllModes)
			}
			for i := range total {
				for j := range i {
					same := true
					for q := range shape {
						same = same && slices.Equal(mat.Col(nil, i, fused.Projections[q]), mat.Col(nil, j, fused.Projections[q]))
					}
					if same {
						t.Errorf("%v rs=%v: fused features %d and %d are the same EMP", shape, rs, j, i)
					}
				}
			}
			if fused.Mode != AllModes || fused.Components() != total || len(fused.FeatureModes) != total {
				t.Fatalf("%v rs=%v: mode %d, %d features, %d feature modes; want %d, %d, %d", shape, rs, fused.Mode, fused.Components(), len(fused.FeatureModes), AllModes, total, total)
			}
			if err := fused.Validate(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(calls); i += 2 {
				if calls[i] != i/2+1 || calls[i+1] != total {
					t.Fatalf("%v rs=%v: progress call %d reported %d of %d, want %d of %d", shape, rs, i/2, calls[i], calls[i+1], i/2+1, total)
				}
			}
			for j := 1; j < total; j++ {
				if fused.Variance[j] > fused.Variance[j-1] {
					t.Fatalf("%v rs=%v: feature %d has variance %v > feature %d's %v", shape, rs, j, fused.Variance[j], j-1, fused.Variance[j-1])
				}
			}
			y, err := fused.TransformTo(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			for n := range shape {
				opts.Mode = OrthogonalMode(n)
				single, _ := fitOrFatal(t, data, M, shape, opts)
				ys, err := single.TransformTo(nil, src)
				if err != nil {
					t.Fatal(err)
				}
				P := single.Components()
				k := 0
				for j, fm := range fused.FeatureModes {
					if fm != n && fm != AllModes {
						continue
					}
					if k >= P {
						t.Fatalf("%v rs=%v: more than %d features of mode %d", shape, rs, P, n)
					}
					ext := single.Extraction[k] + offsets[n]
					if fm == AllModes {
						ext = single.Extraction[k] // the shared EMP is EMP 0 of mode 0's fit
					}
					same := (fm == AllModes) == (single.Extraction[k] < shared) &&
						fused.Variance[j] == single.Variance[k] &&
						fused.Iterations[j] == single.Iterations[k] &&
						fused.Extraction[j] == ext &&
						slices.Equal(fused.History[j], single.History[k])
					for q := range shape {
						same = same && slices.Equal(mat.Col(nil, j, fused.Projections[q]), mat.Col(nil, k, single.Projections[q]))
					}
					for s := range M {
						same = same && y[s*total+j] == ys[s*P+k]
					}
					if !same {
						t.Errorf("%v rs=%v: fused feature %d differs from mode-%d feature %d", shape, rs, j, n, k)
					}
					k++
				}
				if k != P {
					t.Errorf("%v rs=%v: %d features of mode %d, want %d", shape, rs, k, n, P)
				}
			}

			// Components = 3 keeps, of each mode's first min(3, I_n)
			// EMPs, the 3 of largest variance: those features of the
			// full fused fit, in its order.
			opts.Mode, opts.Components = OrthogonalMode(AllModes), 3
			few, _ := fitOrFatal(t, data, M, shape, opts)
			var want []int
			for j, n := range fused.FeatureModes {
				// the shared EMP is EMP 0 of every mode
				if (n == AllModes || fused.Extraction[j]-offsets[n] < 3) && len(want) < 3 {
					want = append(want, j)
				}
			}
			for i, j := range want {
				if few.Variance[i] != fused.Variance[j] || few.FeatureModes[i] != fused.FeatureModes[j] {
					t.Errorf("%v rs=%v: Components=3: feature %d (mode %d, variance %v), want mode %d, variance %v", shape, rs, i, few.FeatureModes[i], few.Variance[i], fused.FeatureModes[j], fused.Variance[j])
				}
			}
			if few.Components() != 3 || few.Validate() != nil {
				t.Errorf("%v rs=%v: Components=3 gave %d features (%v)", shape, rs, few.Components(), few.Validate())
			}

			// By extraction: mode 0's EMPs, then mode 1's, ...
			opts.Components, opts.Order = 0, ByExtraction
			byExt, _ := fitOrFatal(t, data, M, shape, opts)
			if !slices.IsSorted(byExt.FeatureModes) || !slices.IsSorted(byExt.Extraction) || byExt.Extraction[total-1] != total-1 {
				t.Errorf("%v rs=%v: ByExtraction: modes %v, extraction %v", shape, rs, byExt.FeatureModes, byExt.Extraction)
			}
		}
	}
}

// TestAllModesFirstEMPShared checks what feature fusion relies on to
// keep the first EMP once: with and without relaxed start, the N
// single-mode SO-MPCA fits' first EMPs (extraction index 0) are bit for
// bit the same (vectors, variance, sweeps, history), since no
// orthogonality constraint applies to the first EMP; their second EMPs
// (constrained in different modes) differ.
func TestAllModesFirstEMPShared(t *testing.T) {
	const M = grain + 9
	for _, shape := range [][]int{{7, 5}, {4, 7, 3}, {3, 5, 2, 4}} {
		data := randomTensors(31, M, shape)
		for _, rs := range []bool{false, true} {
			var fits []*Model
			for n := range shape {
				m, _ := fitOrFatal(t, data, M, shape, Options{Method: SOMPCA, RelaxedStart: rs, Threads: 2, Mode: OrthogonalMode(n), Order: ByExtraction})
				fits = append(fits, m)
			}
			same := func(a, b *Model, j int) bool {
				eq := a.Variance[j] == b.Variance[j] && a.Iterations[j] == b.Iterations[j] && slices.Equal(a.History[j], b.History[j])
				for q := range shape {
					eq = eq && slices.Equal(mat.Col(nil, j, a.Projections[q]), mat.Col(nil, j, b.Projections[q]))
				}
				return eq
			}
			for n, m := range fits[1:] {
				if m.Extraction[0] != 0 || !same(fits[0], m, 0) {
					t.Errorf("%v rs=%v: mode %d's first EMP differs from mode 0's", shape, rs, n+1)
				}
				if same(fits[0], m, 1) {
					t.Errorf("%v rs=%v: mode %d's second EMP equals mode 0's (the test cannot tell modes apart)", shape, rs, n+1)
				}
			}
		}
	}
}

// TestAllModesValidate: per-feature modes must be present, of the right
// length and in range exactly when Mode is AllModes.
func TestAllModesValidate(t *testing.T) {
	shape := []int{4, 3}
	data := randomTensors(5, 20, shape)
	fused, _ := fitOrFatal(t, data, 20, shape, Options{Mode: OrthogonalMode(AllModes)})
	single, _ := fitOrFatal(t, data, 20, shape, Options{})
	for _, c := range []struct {
		name string
		edit func(m *Model)
	}{
		{"short", func(m *Model) { m.FeatureModes = m.FeatureModes[1:] }},
		{"range", func(m *Model) { m.FeatureModes[2] = 2 }},
		{"negative", func(m *Model) { m.FeatureModes[2] = -3 }},
		{"two shared", func(m *Model) { m.FeatureModes[0], m.FeatureModes[1] = AllModes, AllModes }},
		{"missing", func(m *Model) { m.FeatureModes = nil }},
		{"single", func(m *Model) { m.Mode = 0 }},
	} {
		m := *fused
		m.FeatureModes = slices.Clone(fused.FeatureModes)
		c.edit(&m)
		if err := m.Validate(); err == nil {
			t.Errorf("%s: Validate accepted feature modes %v with mode %d", c.name, m.FeatureModes, m.Mode)
		}
	}
	if !slices.Contains(fused.FeatureModes, AllModes) || fused.Validate() != nil {
		t.Errorf("fused feature modes %v (want one %d): %v", fused.FeatureModes, AllModes, fused.Validate())
	}
	s := *single
	s.FeatureModes = make([]int, s.Components())
	if err := s.Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("single-mode model with feature modes: %v, want ErrInvalid", err)
	}
	var m Model
	if err := m.Fit(mustSource(t, data, 20, shape), Options{Mode: OrthogonalMode(-3)}); !errors.Is(err, ErrInvalid) {
		t.Errorf("mode -3: %v, want ErrInvalid", err)
	}
}

func mustSource(t *testing.T, data []float64, m int, shape []int) *SliceSource {
	t.Helper()
	src, err := NewSliceSource(data, m, shape)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
