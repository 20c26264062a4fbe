package index

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEventRefsAgainstMap: puts, replacements and deletions in any order leave a table holding what a
// map holds, each entry where its order puts it (checkRefs), and placing its entries again in the
// order all yields them builds the same table, as decoding a saved projection does.
func TestEventRefsAgainstMap(t *testing.T) {
	tests := []struct {
		name string
		ids  func(rng *rand.Rand) uint64
		ops  int
	}{
		{"dense IDs of one sequence", func(rng *rand.Rand) uint64 { return uint64(rng.IntN(3000)) }, 20000},
		{"a language's share of a sequence", func(rng *rand.Rand) uint64 { return 7 * uint64(1+rng.IntN(2000)) }, 20000},
		{"mirrored IDs, from 2^40", func(rng *rand.Rand) uint64 { return 1<<40 + uint64(rng.IntN(500)) }, 5000},
		{"any 64 bits, and 0", func(rng *rand.Rand) uint64 {
			if rng.IntN(20) == 0 {
				return 0
			}
			return rng.Uint64() >> (rng.IntN(4) * 21)
		}, 5000},
		// These all hash to the last home of any table under 2^50 slots: they spill past its end.
		{"hashes crowding the last home", func(rng *rand.Rand) uint64 { return crowdingID(uint64(rng.IntN(300))) }, 3000},
	}
	for _, tc := range tests {
		for seed := range uint64(*seeds) {
			t.Run(fmt.Sprint(tc.name, "/seed", seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 11))
				got, want := refsHashed(rng.IntN(100), crowdedMult), map[uint64]eventRef{}
				for op := range tc.ops {
					id := tc.ids(rng)
					switch rng.IntN(3) {
					case 0, 1:
						r := eventRef{id: id, startLocal: int64(op), linkSpan: linkSpan{parent: uint64(op), off: uint32(op)}}
						got.put(r)
						want[id] = r
					case 2:
						r, ok := got.delete(id)
						if w, wok := want[id]; ok != wok || r != w {
							t.Fatalf("op %d: delete(%d) = %v, %v; want %v, %v", op, id, r, ok, w, wok)
						}
						delete(want, id)
					}
					w, present := want[id]
					if r, ok := got.get(id); ok != present || r != w {
						t.Fatalf("op %d: get(%d) = %v, %v; want %v, %v", op, id, r, ok, w, present)
					}
				}
				checkRefs(t, &got, want)
				placed := refsHashed(got.len(), got.mult)
				for r := range got.all() {
					placed.place(*r)
				}
				checkRefs(t, &placed, want)
			})
		}
	}
}

// checkRefs fails the test unless refs holds what want holds, found by get, in the order of their
// hashes, each at its home or right after the entry before it.
func checkRefs(t *testing.T, refs *eventRefs, want map[uint64]eventRef) {
	t.Helper()
	all := map[uint64]eventRef{}
	for r := range refs.all() {
		all[r.id] = *r
	}
	if !maps.Equal(all, want) || refs.len() != len(want) {
		t.Fatalf("the table holds %d refs (len %d), want %d", len(all), refs.len(), len(want))
	}
	for id, r := range want {
		if got, ok := refs.get(id); !ok || got != r {
			t.Fatalf("get(%d) = %v, %v; want %v", id, got, ok, r)
		}
	}
	last := 0
	for i := 1; i < len(refs.slots); i++ {
		if refs.slots[i].id == 0 {
			continue
		}
		h := refs.hash(refs.slots[i].id)
		if home := refs.home(h); i != max(home, last+1) || (last > 0 && refs.hash(refs.slots[last].id) >= h) {
			t.Fatalf("slot %d holds ID %d, of home %d, after slot %d", i, refs.slots[i].id, home, last)
		}
		last = i
	}
}

// crowdedMult is the multiplier the tables of TestEventRefsAgainstMap hash by, known to the test
// so that it can choose IDs whose hashes crowd one home, as a hostile site could if it knew a table's.
const crowdedMult = 0x9e3779b97f4a7c15

// crowdingID is the ID whose hash by crowdedMult is the k-th largest: the multiplier times its
// inverse is 1.
func crowdingID(k uint64) uint64 {
	inverse := uint64(crowdedMult)
	for range 5 { // Newton's iteration doubles the bits that are right, from 3
		inverse *= 2 - crowdedMult*inverse
	}
	return (math.MaxUint64 - k) * inverse
}

// TestEventRefsResistChosenIDs: IDs chosen so that their hashes by a known multiplier crowd one
// home, as a hostile mirrored site could choose them, spread over a table hashed by its own random
// multiplier: no run of occupied slots grows anywhere near their number, so a put stays cheap.
func TestEventRefsResistChosenIDs(t *testing.T) {
	const n = 3000
	if a, b := newEventRefs(0), newEventRefs(0); a.mult%2 == 0 || a.mult == b.mult {
		t.Fatalf("multipliers %#x and %#x: want odd ones drawn at random", a.mult, b.mult)
	}
	longestRun := func(refs eventRefs) int {
		for k := range uint64(n) {
			refs.put(eventRef{id: crowdingID(k)})
		}
		run, longest := 0, 0
		for _, s := range refs.slots[1:] {
			if run++; s.id == 0 {
				run = 0
			}
			longest = max(longest, run)
		}
		return longest
	}
	// The IDs do crowd the multiplier they were chosen for: one run holds them all.
	if got := longestRun(refsHashed(n, crowdedMult)); got != n {
		t.Fatalf("the chosen IDs under their multiplier: longest run %d, want %d", got, n)
	}
	if got := longestRun(newEventRefs(n)); got >= 200 {
		t.Errorf("the chosen IDs under a random multiplier: longest run %d of %d", got, n)
	}
}
