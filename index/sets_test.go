package index

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// TestIDSetSparse: an idSet answers the same for IDs far apart (a mirroring store's own IDs from
// 2^40, a client's include of any number) as for dense ones, counts them so too, and its memory
// follows how many it holds, not how large they are.
func TestIDSetSparse(t *testing.T) {
	const far = 1 << 40
	for _, tc := range []struct {
		name      string
		ids       []uint64
		absent    []uint64
		wantBytes int // at most
	}{
		{name: "dense", ids: []uint64{1, 63, 64, 375}, absent: []uint64{0, 2, 376, far}, wantBytes: 64},
		{name: "far", ids: []uint64{far, far + 1}, absent: []uint64{0, 1, far + 2}, wantBytes: 64},
		{name: "both", ids: []uint64{7, 375, far + 5}, absent: []uint64{8, far, far + 6}, wantBytes: 96},
		{name: "a client's largest", ids: []uint64{1<<63 - 1, denseIDs, denseIDs - 1}, absent: []uint64{1 << 62}, wantBytes: 8<<20 + 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, s := range map[string]*idSet{"setOf": setOf(tc.ids), "bitsOf": bitsOf(roaring64.BitmapOf(tc.ids...))} {
				for _, id := range tc.ids {
					if !s.Contains(id) {
						t.Errorf("%s: %d missing", name, id)
					}
				}
				for _, id := range tc.absent {
					if s.Contains(id) {
						t.Errorf("%s: %d present", name, id)
					}
				}
				if got, want := s.ids(), slices.Sorted(slices.Values(tc.ids)); !slices.Equal(got, want) {
					t.Errorf("%s: ids() = %v, want %v", name, got, want)
				}
				if n := s.count(append(slices.Clone(tc.absent), tc.ids...)); n != len(tc.ids) {
					t.Errorf("%s: count = %d of %v and %v, want %d", name, n, tc.ids, tc.absent, len(tc.ids))
				}
				seen := setOf(tc.absent[:1])
				if n := s.countNew(tc.ids, seen) + s.countNew(tc.ids, seen); n != len(tc.ids) {
					t.Errorf("%s: countNew = %d over %v twice, want %d", name, n, tc.ids, len(tc.ids))
				}
				if n := s.countNew(tc.absent, seen); n != 0 {
					t.Errorf("%s: countNew = %d over %v, want 0", name, n, tc.absent)
				}
				if s.bytes() > tc.wantBytes {
					t.Errorf("%s: %d bytes, want at most %d", name, s.bytes(), tc.wantBytes)
				}
				s.remove(tc.ids[0])
				if s.Contains(tc.ids[0]) {
					t.Errorf("%s: %d still there after remove", name, tc.ids[0])
				}
			}
		})
	}
	var none *idSet
	if none.Contains(1) || none.ids() != nil || none.bytes() != 0 {
		t.Error("a nil idSet is not empty")
	}
	none.remove(1)
}

// TestKeyMerge: the merge of ordered lists yields their union in order, each key once, whatever the
// lists' number, lengths and overlaps.
func TestKeyMerge(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 11))
	for round := range 300 {
		lists := make([][]rowKey, rnd.IntN(9))
		want := map[rowKey]bool{}
		for i := range lists {
			for range rnd.IntN(40) {
				// Few starts and IDs, so that keys repeat across lists and share starts.
				k := rowKey{startLocal: rnd.Int64N(20), id: uint64(rnd.IntN(30))}
				if !slices.Contains(lists[i], k) {
					lists[i] = append(lists[i], k)
				}
				want[k] = true
			}
			slices.SortFunc(lists[i], compareKeys)
		}
		var got []rowKey
		m := newKeyMerge(lists)
		for k, ok := m.next(); ok; k, ok = m.next() {
			got = append(got, k)
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: merged %d keys %v, want the %d of %v", round, len(got), got, len(want), lists)
		}
		for i, k := range got {
			if !want[k] || (i > 0 && compareKeys(got[i-1], k) >= 0) {
				t.Fatalf("round %d: merged %v, want the keys of %v in order, once each", round, got, lists)
			}
		}
	}
}
