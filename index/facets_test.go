package index

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
)

// randomFacets asks for a random choice of the world's facets: some of its terms (each category
// leading to itself and its parent, as the handlers expand a category filter), venues, organizers,
// and months in one of two zones.
func (w *world) randomFacets() *Facets {
	r := w.rng
	f := &Facets{Terms: map[uint64][]uint64{}, Venues: r.IntN(2) == 0, Orgs: r.IntN(2) == 0}
	if w.to == nil { // a store without newWorld's data
		return f
	}
	if r.IntN(2) == 0 {
		for i, c := range w.to.cats {
			f.Terms[c] = []uint64{c}
			if i > 2 {
				f.Terms[c] = append(f.Terms[c], w.to.cats[i-3])
			}
		}
	}
	if r.IntN(2) == 0 {
		for _, tag := range w.to.tags {
			f.Terms[tag] = []uint64{tag}
		}
	}
	if r.IntN(2) == 0 {
		f.Limit = 1 + r.IntN(5) // venues and organizers past it are dropped, and kept ones pruned as they come
	}
	switch r.IntN(3) {
	case 0:
		f.Months = time.UTC
	case 1:
		f.Months = mustZone("Europe/Amsterdam")
	}
	return f
}

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// bruteFacets counts, for each value f.Facets asks for, the events f matches that have it, a series
// once with Collapse: the list's total with the value added as a filter.
func (w *world) bruteFacets(t *testing.T, f *EventFilter) *wantCounts {
	var hits []*storage.Event
	bruteTolerant(w.ix.langs[f.Lang], f.Search, func(typos bool) Page {
		hits = w.bruteHitsTyped(t, f, typos)
		return Page{Total: len(hits)}
	})
	want := &wantCounts{Terms: map[uint64]int{}, Venues: map[uint64]int{}, Orgs: map[uint64]int{}, Months: map[Month]int{}}
	seen := map[string]bool{}
	add := func(dim string, value any, series uint64, count func()) {
		if k := fmt.Sprint(dim, value, series); !seen[k] {
			seen[k] = true
			count()
		}
	}
	for _, e := range hits {
		series := e.ID
		if f.Collapse {
			series = cmp.Or(e.Parent, e.ID)
		}
		for _, term := range append(slices.Clone(e.Categories), e.Tags...) {
			for _, to := range f.Facets.Terms[term] {
				add("term", to, series, func() { want.Terms[to]++ })
			}
		}
		if f.Facets.Venues && e.VenueID != 0 {
			add("venue", e.VenueID, series, func() { want.Venues[e.VenueID]++ })
		}
		if f.Facets.Orgs {
			for _, org := range e.OrganizerIDs {
				add("org", org, series, func() { want.Orgs[org]++ })
			}
		}
		if f.Facets.Months != nil {
			y, m, _ := e.StartUTC.In(f.Facets.Months).Date()
			add("month", Month{y, m}, series, func() { want.Months[Month{y, m}]++ })
		}
	}
	if f.Facets.Limit > 0 {
		want.Venues, want.Orgs = firstOf(want.Venues, f.Facets.Limit), firstOf(want.Orgs, f.Facets.Limit)
	}
	return want
}

// firstOf keeps of counts the first limit by count descending, then ID, as a brute force: every
// count sorted.
func firstOf(counts map[uint64]int, limit int) map[uint64]int {
	var all []ValueCount
	for id, n := range counts {
		all = append(all, ValueCount{id, n})
	}
	slices.SortFunc(all, func(a, b ValueCount) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.ID, b.ID)) })
	return countsByID(all[:min(limit, len(all))])
}

// TestFacetsEqualBruteForce: the facet counts of random lists, for every role, collapsed or not, in
// every language, through the scan and the candidates, counted by row and by set, equal the brute-force count of the events
// each list matches that have the value; asking for facets changes neither the page nor the total.
func TestFacetsEqualBruteForce(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(*seeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			w := newWorld(t, seed, 300)
			for _, share := range [][2]int{{candidateShare, facetRowShare}, {1, 0}, {candidateShare, 1 << 30}} {
				t.Run(fmt.Sprint("share", share), func(t *testing.T) {
					defer func(was, wasRows int) { candidateShare, facetRowShare = was, wasRows }(candidateShare, facetRowShare)
					candidateShare, facetRowShare = share[0], share[1]
					for i := range 150 {
						f := w.randomEventFilter()
						f.Facets = w.randomFacets()
						got, err := w.ix.Events(ctx, f)
						if err != nil {
							t.Fatal(err)
						}
						plain := *f
						plain.Facets = nil
						want, err := w.ix.Events(ctx, &plain)
						if err != nil {
							t.Fatal(err)
						}
						if got.Total != want.Total || !slices.Equal(got.IDs, want.IDs) || got.TypoTolerant != want.TypoTolerant {
							t.Fatalf("query %d %+v: facets change the page: %d %v, want %d %v", i, *f, got.Total, got.IDs, want.Total, want.IDs)
						}
						if f.Facets.Limit > 0 && !(slices.IsSortedFunc(got.Facets.Venues, byCount) && slices.IsSortedFunc(got.Facets.Orgs, byCount)) {
							t.Fatalf("query %d: limited counts out of order: %v %v", i, got.Facets.Venues, got.Facets.Orgs)
						}
						if wantFacets := w.bruteFacets(t, f); !equalCounts(got.Facets, wantFacets) {
							t.Fatalf("query %d %+v total %d ids %v\n got %+v\nwant %+v", i, *f, got.Total, got.IDs, *got.Facets, *wantFacets)
						}
					}
				})
			}
		})
	}
}

// equalCounts compares the counts got with those wanted, mapped by value.
func equalCounts(got *FacetCounts, want *wantCounts) bool {
	return maps.Equal(countsByID(got.Terms), want.Terms) && maps.Equal(countsByID(got.Venues), want.Venues) &&
		maps.Equal(countsByID(got.Orgs), want.Orgs) && maps.Equal(got.Months, want.Months)
}

// wantCounts are facet counts mapped by value.
type wantCounts struct {
	Terms, Venues, Orgs map[uint64]int
	Months              map[Month]int
}

// countsByID maps counts by value; a value listed twice maps to -1, which no count wanted equals.
func countsByID(list []ValueCount) map[uint64]int {
	m := map[uint64]int{}
	for _, c := range list {
		if _, twice := m[c.ID]; twice {
			m[c.ID] = -1
			continue
		}
		m[c.ID] = c.N
	}
	return m
}

// TestFacetMonths: a month runs from 00:00:00 on its first day in the zone to the next month's,
// wherever the zone's offset puts them in UTC.
func TestFacetMonths(t *testing.T) {
	amsterdam, santiago := mustZone("Europe/Amsterdam"), mustZone("America/Santiago")
	for _, tc := range []struct {
		name string
		loc  *time.Location
		at   time.Time
		want Month
	}{
		{"UTC first second", time.UTC, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Month{2026, 12}},
		{"UTC last second", time.UTC, time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC), Month{2026, 11}},
		{"ahead of UTC: November in UTC, December there", amsterdam, time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC), Month{2026, 12}},
		{"ahead of UTC: the last second of November there", amsterdam, time.Date(2026, 11, 30, 22, 59, 59, 0, time.UTC), Month{2026, 11}},
		{"behind UTC: January in UTC, December there", santiago, time.Date(2027, 1, 1, 2, 0, 0, 0, time.UTC), Month{2026, 12}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := &tally{Facets: &Facets{Months: tc.loc}}
			tl.setMonth(tc.at.Unix())
			if tl.month != tc.want {
				t.Errorf("month of %v in %v = %v, want %v", tc.at, tc.loc, tl.month, tc.want)
			}
			if u := tc.at.Unix(); u < tl.monthLo || u >= tl.monthHi {
				t.Errorf("%v is outside its month's bounds [%v, %v)", tc.at, time.Unix(tl.monthLo, 0).UTC(), time.Unix(tl.monthHi, 0).UTC())
			}
			lo := time.Unix(tl.monthLo, 0).In(tc.loc)
			if lo.Day() != 1 || lo.Month() != tc.want.Month || time.Unix(tl.monthLo-1, 0).In(tc.loc).Month() == tc.want.Month {
				t.Errorf("month starts at %v, want the first instant of its first day", lo)
			}
			hi := time.Unix(tl.monthHi, 0).In(tc.loc)
			if hi.Day() != 1 || hi.Month() == tc.want.Month || time.Unix(tl.monthHi-1, 0).In(tc.loc).Month() != tc.want.Month {
				t.Errorf("month ends at %v, want the first instant of the next", hi)
			}
		})
	}
}

// TestTopCounts: the first counts by count descending, then ID, whether a heap picks them (few of
// many) or all are sorted, ties included.
func TestTopCounts(t *testing.T) {
	few := []ValueCount{{1, 5}, {2, 7}, {3, 5}, {4, 1}}
	r := rand.New(rand.NewPCG(1, 2))
	var many []ValueCount
	for id := range uint64(500) {
		many = append(many, ValueCount{id + 1, r.IntN(20)}) // many ties
	}
	sorted := slices.Clone(many)
	slices.SortFunc(sorted, func(a, b ValueCount) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.ID, b.ID)) })
	for _, tc := range []struct {
		name   string
		counts []ValueCount
		limit  int
		want   []ValueCount
	}{
		{"two of four", few, 2, []ValueCount{{2, 7}, {1, 5}}},
		{"more than there are", few, 10, []ValueCount{{2, 7}, {1, 5}, {3, 5}, {4, 1}}},
		{"none", few, 0, []ValueCount{}},
		{"three of 500, by a heap", many, 3, sorted[:3]},
		{"100 of 500, sorted whole", many, 100, sorted[:100]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := TopCounts(slices.Clone(tc.counts), tc.limit); !slices.Equal(got, tc.want) {
				t.Errorf("TopCounts(%d) = %v, want %v", tc.limit, got, tc.want)
			}
		})
	}
}
