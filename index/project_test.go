package index

import (
	stdcmp "cmp"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestEventRowStaysSmall: every list scans every row of its window, so a row must stay 72 bytes and
// free of pointers (which would also make the garbage collector visit each row). New per-event data
// that is not scanned belongs in eventLinks.
func TestEventRowStaysSmall(t *testing.T) {
	if size := unsafe.Sizeof(eventRow{}); size > 72 {
		t.Errorf("eventRow is %d bytes, want at most 72", size)
	}
	rt := reflect.TypeFor[eventRow]()
	for i := range rt.NumField() {
		switch f := rt.Field(i); f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface, reflect.Chan, reflect.Func:
			t.Errorf("eventRow.%s is a %s, which holds a pointer", f.Name, f.Type.Kind())
		}
	}
}

// row is an event row at local start `start` (hours), published, with a venue.
func row(id uint64, start int64, venue uint64) eventRow {
	return eventRow{id: id, startLocal: start * 3600, startUTC: start * 3600, venue: venue, status: statePublish}
}

// built is the projection of puts built from scratch, as a full load does: appended, then sorted.
func built(puts map[uint64]eventPut) *projection {
	p := newProjection()
	for _, put := range puts {
		p.appendLoaded(put.row, put.links)
	}
	p.sort()
	return p
}

// diffProjections compares two projections: rows, position keys, links, places and the sets of
// linked events. Equal ones are told apart first without cmp, which is slow enough to dominate the
// property test.
func diffProjections(got, want *projection) string {
	// Two histories lay the links out differently in linkIDs, and may size their tables of refs
	// differently: what they hold is compared.
	sameLinks := got.refs.len() == want.refs.len()
	for id := range allLinks(want) {
		a, b := got.linksOf(id), want.linksOf(id)
		sameLinks = sameLinks && slices.Equal(a.orgs, b.orgs) && slices.Equal(a.terms, b.terms) && a.parent == b.parent &&
			a.modified == b.modified
	}
	linksDiff := ""
	if !sameLinks {
		linksDiff = "links:\n" + cmp.Diff(allLinks(want), allLinks(got), cmp.AllowUnexported(eventLinks{}), cmpopts.EquateEmpty())
	}
	sameSets := func(a, b map[uint64]eventIDs) bool { return maps.EqualFunc(a, b, slices.Equal) }
	samePlaces := func(a, b map[uint64]*placeRow) bool {
		return maps.EqualFunc(a, b, func(x, y *placeRow) bool { return *x == *y })
	}
	if slices.Equal(got.events, want.events) && maps.Equal(startsOf(got), startsOf(want)) &&
		linksDiff == "" && sameSets(got.venueEvents, want.venueEvents) &&
		sameSets(got.orgEvents, want.orgEvents) && sameSets(got.termEvents, want.termEvents) &&
		sameSets(got.seriesEvents, want.seriesEvents) && samePlaces(got.venues, want.venues) && samePlaces(got.orgs, want.orgs) &&
		slices.Equal(got.listed, want.listed) && slices.Equal(got.featuredListed, want.featuredListed) &&
		slices.Equal(got.featured.ids(), want.featured.ids()) && maps.EqualFunc(got.termListed, want.termListed, slices.Equal) &&
		maps.EqualFunc(got.venueListed, want.venueListed, slices.Equal) && maps.EqualFunc(got.placeListed, want.placeListed, slices.Equal) &&
		maps.Equal(got.scheduled, want.scheduled) && got.dueFrom == want.dueFrom && got.keysReady == want.keysReady &&
		maps.EqualFunc(got.placeCells, want.placeCells, sameCells) {
		return ""
	}
	// The offsets are bounds, which only widen until the rows are listed again (listRows): no two
	// histories need to agree on them, and checkOffsets checks that they bound the rows.
	return linksDiff + cmp.Diff(want, got, cmp.AllowUnexported(projection{}, eventRow{}, placeRow{}, rowKey{}, point{}, placeCell{}, cell{}, idSet{}),
		cmpopts.EquateEmpty(), cmpopts.SortSlices(lessPoint),
		cmpopts.IgnoreFields(projection{}, "minOffset", "maxOffset", "refs", "linkIDs", "linkGarbage")) +
		cmp.Diff(startsOf(want), startsOf(got))
}

// allLinks is every event's links in p, by event ID.
func allLinks(p *projection) map[uint64]eventLinks {
	out := make(map[uint64]eventLinks, p.refs.len())
	for r := range p.refs.all() {
		out[r.id] = p.linksOf(r.id)
	}
	return out
}

// startsOf is the local start p's refs hold for each event, by event ID.
func startsOf(p *projection) map[uint64]int64 {
	out := make(map[uint64]int64, p.refs.len())
	for r := range p.refs.all() {
		out[r.id] = r.startLocal
	}
	return out
}

// sameCells reports whether two cells hold the same positions, in any order, and the same keys.
func sameCells(a, b *placeCell) bool {
	return slices.Equal(a.keys, b.keys) &&
		slices.Equal(slices.SortedFunc(slices.Values(a.points), comparePoints), slices.SortedFunc(slices.Values(b.points), comparePoints))
}

func comparePoints(a, b point) int {
	return stdcmp.Or(stdcmp.Compare(a.lat, b.lat), stdcmp.Compare(a.lng, b.lng))
}

func lessPoint(a, b point) bool { return comparePoints(a, b) < 0 }

// TestLinksStayCompact: links rewritten again and again leave linkIDs at most twice what the events'
// links hold, each event reads its last links, and lists read before a compaction stay as they were.
func TestLinksStayCompact(t *testing.T) {
	p := newProjection()
	linksAt := func(id uint64, round int) eventLinks {
		v := id*1000 + uint64(round)
		return eventLinks{orgs: []uint64{v}, terms: []uint64{v + 1, v + 2}[:1+round%2], parent: v + 3}
	}
	for round := range 50 {
		for id := uint64(1); id <= 100; id++ {
			p.setRef(id, 0, linksAt(id, round))
		}
		if live := 100 * (2 + round%2); len(p.linkIDs) > 2*live {
			t.Fatalf("round %d: linkIDs holds %d IDs for %d live", round, len(p.linkIDs), live)
		}
	}
	for id := uint64(1); id <= 100; id++ {
		got, want := p.linksOf(id), linksAt(id, 49)
		if !slices.Equal(got.orgs, want.orgs) || !slices.Equal(got.terms, want.terms) || got.parent != want.parent {
			t.Fatalf("event %d: links %v, want %v", id, got, want)
		}
	}
	// A compaction moves the lists that lay after the links dropped: those read before must not change.
	before := allLinks(p)
	p.dropRef(1)
	p.compactLinks()
	for id, l := range before {
		if want := linksAt(id, 49); !slices.Equal(l.orgs, want.orgs) || !slices.Equal(l.terms, want.terms) {
			t.Fatalf("event %d: links read before the compaction now read %v, want %v", id, l, want)
		}
	}
	if l := p.linksOf(1); len(l.orgs)+len(l.terms) != 0 || l.parent != 0 {
		t.Errorf("dropped links read %v", l)
	}
}

func TestPutEvents(t *testing.T) {
	links := func(orgs, terms []uint64) eventLinks { return eventLinks{orgs: orgs, terms: terms} }
	initial := []eventPut{
		{row(1, 10, 100), links([]uint64{200}, []uint64{300})},
		{row(2, 20, 100), links(nil, []uint64{300, 301})},
		{row(3, 30, 101), links([]uint64{200, 201}, nil)},
		{row(4, 40, 0), links(nil, nil)},
	}
	featured := row(2, 20, 100)
	featured.featured = true
	tests := []struct {
		name string
		puts []eventPut
	}{
		{"nothing", nil},
		{"new rows between, before and after the others", []eventPut{
			{row(7, 25, 101), links(nil, []uint64{302})}, {row(5, 0, 0), links(nil, nil)}, {row(6, 50, 102), links([]uint64{202}, nil)}}},
		{"a new row at the start of an existing one: the ID orders them", []eventPut{{row(0, 20, 0), links(nil, nil)}, {row(9, 20, 0), links(nil, nil)}}},
		{"replaced in place", []eventPut{{featured, links(nil, []uint64{301})}}},
		{"replaced in place with other links", []eventPut{{row(1, 10, 101), links([]uint64{201}, []uint64{302})}}},
		{"moved later", []eventPut{{row(1, 35, 100), links([]uint64{200}, []uint64{300})}}},
		{"moved earlier", []eventPut{{row(4, 5, 0), links(nil, nil)}}},
		{"two rows swap places", []eventPut{{row(1, 20, 100), links(nil, nil)}, {row(2, 10, 100), links(nil, nil)}}},
		{"every kind at once", []eventPut{
			{row(3, 1, 0), links(nil, nil)}, {featured, links(nil, nil)}, {row(8, 30, 101), links([]uint64{201}, nil)},
			{row(4, 40, 102), links(nil, []uint64{303})}, {row(1, 45, 100), links(nil, nil)}}},
		{"the last put of an ID wins", []eventPut{
			{row(1, 50, 100), links(nil, nil)}, {row(8, 15, 0), links(nil, nil)}, {row(1, 12, 101), links(nil, []uint64{300})},
			{row(8, 60, 0), links([]uint64{200}, nil)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := map[uint64]eventPut{}
			for _, put := range append(slices.Clone(initial), tc.puts...) {
				want[put.row.id] = put
			}
			p := built(map[uint64]eventPut{})
			p.putEvents(initial)
			p.putEvents(tc.puts)
			if diff := diffProjections(p, built(want)); diff != "" {
				t.Errorf("projection (-want +got):\n%s", diff)
			}
		})
	}
}

// checkOffsets fails the test unless p's offsets bound every row's.
func checkOffsets(t *testing.T, p *projection) {
	t.Helper()
	for _, r := range p.events {
		if off := r.startLocal - r.startUTC; off < p.minOffset || off > p.maxOffset {
			t.Fatalf("row %d is %d s from UTC, outside the offsets [%d, %d]", r.id, off, p.minOffset, p.maxOffset)
		}
	}
}

// putOneByOne is how putEvent worked before putEvents: remove the row, then insert it at its place.
func putOneByOne(p *projection, put eventPut) {
	p.removeEvent(put.row.id)
	i, _ := slices.BinarySearchFunc(p.events, &put.row, func(x eventRow, k *eventRow) int { return compareRows(&x, k) })
	p.events = slices.Insert(p.events, i, put.row)
	p.link(&put.row, put.links)
}

// TestPutEventsAsOneByOne applies random batches (new rows, moves, in-place changes, repeated IDs)
// and removals to a projection and checks that it always equals the same changes applied one by one,
// and the projection of the same rows built from scratch.
func TestPutEventsAsOneByOne(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		batched, single := newProjection(), newProjection()
		want := map[uint64]eventPut{}
		ids := func() []uint64 {
			var out []uint64
			for range rng.IntN(4) {
				out = append(out, uint64(1+rng.IntN(8)))
			}
			return out
		}
		for step := range 60 {
			if rng.IntN(5) == 0 {
				for range 1 + rng.IntN(5) {
					id := uint64(1 + rng.IntN(300))
					batched.removeEvent(id)
					single.removeEvent(id)
					delete(want, id)
				}
			} else {
				var puts []eventPut
				for range rng.IntN(80) {
					id := uint64(1 + rng.IntN(300))
					r := row(id, int64(rng.IntN(50)), uint64(rng.IntN(4)))
					if old, ok := want[id]; ok && rng.IntN(2) == 0 {
						r.startLocal = old.row.startLocal // an in-place change
					}
					r.hidden = rng.IntN(2) == 0
					if r.venue != 0 && rng.IntN(4) != 0 {
						// The venue's position, which may have moved: a few positions per venue.
						r.hasGeo, r.lat, r.lng = true, float64(rng.IntN(3)), float64(r.venue)
					}
					// Published, scheduled (listed once due) or a draft: what listed and scheduled hold.
					r.status = []state{statePublish, stateFuture, stateDraft}[rng.IntN(3)]
					r.startUTC = r.startLocal - []int64{0, 3600, -5 * 3600}[rng.IntN(3)] // its zone's offset
					r.date = int64(rng.IntN(1000))
					puts = append(puts, eventPut{r, eventLinks{orgs: ids(), terms: ids()}})
				}
				batched.putEvents(puts)
				for _, put := range puts {
					putOneByOne(single, put)
					want[put.row.id] = put
				}
			}
			if diff := diffProjections(batched, single); diff != "" {
				t.Fatalf("seed %d step %d: batched (+) against one by one (-):\n%s", seed, step, diff)
			}
			if diff := diffProjections(batched, built(want)); diff != "" {
				t.Fatalf("seed %d step %d: batched (+) against built from scratch (-):\n%s", seed, step, diff)
			}
			checkOffsets(t, batched)
			checkOffsets(t, single)
		}
	}
}
