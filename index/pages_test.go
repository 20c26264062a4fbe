package index

import (
	"slices"
	"testing"
	"unsafe"
)

// TestPrefaultKeepsTheSlice: prefault returns the slice it was given, of any size or alignment, and
// leaves what it holds as it was.
func TestPrefaultKeepsTheSlice(t *testing.T) {
	whole := make([]uint64, 3<<12)
	for i := range whole {
		whole[i] = uint64(i)
	}
	tests := []struct {
		name string
		s    []uint64
	}{
		{"nil", nil},
		{"within a page", whole[1:9]},
		{"across pages, unaligned", whole[3 : 2<<12+5]},
		{"room beyond its length", whole[: 10 : 3<<12]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := slices.Clone(tc.s)
			got := prefault(tc.s)
			if unsafe.SliceData(got) != unsafe.SliceData(tc.s) || len(got) != len(tc.s) || cap(got) != cap(tc.s) ||
				!slices.Equal(got, want) {
				t.Errorf("prefault changed the slice")
			}
		})
	}
}
