package index

import (
	"iter"
	"math/bits"
	"math/rand/v2"
)

// eventRef is what a projection keeps of an event beside its row, found by the event's ID: the row's
// local start, which finds the row among the ordered rows (find), and the span of its links.
type eventRef struct {
	id         uint64
	startLocal int64
	linkSpan
}

// eventRefs holds the refs of a projection's events by ID: an open-addressing table, probed linearly,
// whose entries stay ordered by the hash of their ID (hash, a bijection, so no two IDs share one).
// An entry therefore lies at its home slot, or right after the entry before it, whatever the order of
// the puts: the saved entries, in that order, are placed again in one sequential pass (place), where
// filling a map inserted each at a random place. A probe stops at the first entry ordered after the
// ID sought, and a deletion shifts the entries after it back towards their homes, so no slot is
// marked deleted. The table does not wrap: its entries may spill past the last home, into slots added
// at its end as needed.
type eventRefs struct {
	// slots[0] holds the ref of ID 0 when hasZero, an ID 0 marking the other slots empty; slots[1:]
	// are the table, homes slots and spill room after them.
	slots   []eventRef
	hasZero bool
	n       int
	homes   int
	// mult is the table's hash multiplier, odd and drawn at random (newEventRefs) and saved with the
	// refs: the IDs of a mirrored site are the site's to choose, and with a known multiplier a hostile
	// one could choose thousands whose hashes share one home, each put then shifting them all.
	mult uint64
}

// refsSpill is how many slots a table adds past its last home at a time, for entries pushed out of it.
const refsSpill = 64

// hash orders and places the entries: multiplicative hashing by the table's odd multiplier, which
// maps no two IDs to one hash, and spreads IDs evenly over the homes whatever their pattern, the
// multiplier being unknown to whoever chose them.
func (t *eventRefs) hash(id uint64) uint64 { return id * t.mult }

// newEventRefs is an empty table for n refs, two thirds full with them, hashed by a multiplier drawn
// at random. It grows past seven eighths (put), at the cost of shifting longer runs of entries.
func newEventRefs(n int) eventRefs { return refsHashed(n, rand.Uint64()|1) }

// refsHashed is newEventRefs hashed by mult, an odd number: a saved table's.
func refsHashed(n int, mult uint64) eventRefs { return refsWithHomes(max(16, n+n/2), mult) }

func refsWithHomes(homes int, mult uint64) eventRefs {
	return eventRefs{slots: prefault(make([]eventRef, 1+homes+refsSpill)), homes: homes, mult: mult}
}

// home is the slot of hash h when no entry lies before it: h scaled to the number of homes, which
// keeps the hashes' order, and lets a table of any size do (a power of two would leave one loaded
// anywhere from three eighths to three quarters full).
func (t *eventRefs) home(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(t.homes))
	return 1 + int(hi)
}

// len is how many refs t holds.
func (t *eventRefs) len() int { return t.n }

// seek returns the slot of id, or where it belongs when it is not there.
func (t *eventRefs) seek(id uint64) (int, bool) {
	if id == 0 {
		return 0, t.hasZero
	}
	h := t.hash(id)
	i := t.home(h)
	for ; i < len(t.slots) && t.slots[i].id != 0; i++ {
		if eh := t.hash(t.slots[i].id); eh >= h {
			return i, eh == h
		}
	}
	return i, false
}

// get returns the ref of id, if t holds it.
func (t *eventRefs) get(id uint64) (eventRef, bool) {
	if i, ok := t.seek(id); ok {
		return t.slots[i], true
	}
	return eventRef{}, false
}

// put records r, replacing the ref of its ID.
func (t *eventRefs) put(r eventRef) {
	i, ok := t.seek(r.id)
	switch {
	case ok:
		t.slots[i] = r
		return
	case i == 0:
		t.slots[0], t.hasZero = r, true
		t.n++
		return
	}
	if 8*(t.n+1) > 7*t.homes {
		t.grow()
		t.put(r)
		return
	}
	free := t.free(i)
	copy(t.slots[i+1:free+1], t.slots[i:free])
	t.slots[i] = r
	t.n++
}

// delete forgets the ref of id, if any, and returns it.
func (t *eventRefs) delete(id uint64) (eventRef, bool) {
	i, ok := t.seek(id)
	if !ok {
		return eventRef{}, false
	}
	r := t.slots[i]
	t.n--
	if i == 0 {
		t.slots[0], t.hasZero = eventRef{}, false
		return r, true
	}
	// The entries after it that lie past their homes move back one slot each, up to the first empty
	// slot or entry at its home.
	for ; i+1 < len(t.slots) && t.slots[i+1].id != 0 && t.home(t.hash(t.slots[i+1].id)) <= i; i++ {
		t.slots[i] = t.slots[i+1]
	}
	t.slots[i] = eventRef{}
	return r, true
}

// all yields every ref, in the order of their hashes; the caller may change a ref but its ID.
func (t *eventRefs) all() iter.Seq[*eventRef] {
	return func(yield func(*eventRef) bool) {
		for i := range t.slots {
			if t.used(i) && !yield(&t.slots[i]) {
				return
			}
		}
	}
}

// used reports whether slot i holds a ref.
func (t *eventRefs) used(i int) bool { return i > 0 && t.slots[i].id != 0 || i == 0 && t.hasZero }

// grow doubles the table, placing the entries again in their order.
func (t *eventRefs) grow() {
	old := *t
	*t = refsWithHomes(2*old.homes, old.mult)
	for r := range old.all() {
		t.place(*r)
	}
}

// place adds r, whose ID's hash orders after those of every ID t holds (or is 0, the first), as the
// last entry: right after the entry before it, or at its home. Decoding a saved projection places its
// refs in the order they were saved.
func (t *eventRefs) place(r eventRef) {
	if r.id == 0 {
		t.slots[0], t.hasZero = r, true
		t.n++
		return
	}
	t.slots[t.free(t.home(t.hash(r.id)))] = r
	t.n++
}

// free returns the first empty slot from slot i, adding slots past the end when there is none.
func (t *eventRefs) free(i int) int {
	for ; i < len(t.slots) && t.slots[i].id != 0; i++ {
	}
	if i == len(t.slots) {
		t.slots = append(t.slots, make([]eventRef, refsSpill)...)
	}
	return i
}
