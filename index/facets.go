package index

import (
	"cmp"
	"slices"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

// Facets asks an events list for its facet counts (docs/API.md "Facets"): for each value of the
// dimensions asked, how many listed events have it. That is the list's total with the value added as
// a filter, every other filter of the list applied, and a series collapsed (Collapse) counted once
// in each value it has. They are counted by the pass that counts the total, so a list with facets is
// never answered from the keys (listedPage), which count without visiting the rows.
type Facets struct {
	// Terms maps each term counted to the terms whose filter passes an event with it: a category to
	// itself and its ancestors (a category's filter takes its descendants), a tag to itself. An
	// event counts once in a term however many of its terms lead there. Terms it lacks are not counted.
	Terms map[uint64][]uint64
	// Venues and Orgs count by venue and by organizer.
	Venues, Orgs bool
	// Months, when not nil, counts by calendar month of the start instant in this zone.
	Months *time.Location
	// Limit, when above 0, keeps of the venues and organizers only the first Limit by count
	// descending, then ID (TopCounts): a list names no more, and at 1M events a whole window's
	// 83,000 counts were half of the bytes its facets allocated.
	Limit int
}

// FacetCounts are the counts Facets asked for, in no order (venues and organizers in TopCounts' order
// when Facets.Limit bounds them); a value no listed event has is absent.
// Terms, venues and organizers are listed rather than mapped: at 1M events, putting a whole window's
// counts of 50,000 venues and 33,000 organizers into maps was a fifth of its list's cost.
type FacetCounts struct {
	Terms, Venues, Orgs []ValueCount
	Months              map[Month]int
}

// ValueCount is how many listed events have one term, venue or organizer.
type ValueCount struct {
	ID uint64
	N  int
}

// TopCounts returns the first limit of counts by count descending, then ID, in that order (docs/API.md
// "Facets"), reordering counts: a heap picks them in one pass (smallest), where sorting every count
// of a whole window's 50,000 venues at 1M events took about a millisecond.
func TopCounts(counts []ValueCount, limit int) []ValueCount {
	n := max(min(limit, len(counts)), 0)
	if n*selectShare < len(counts) {
		smallest(counts, n, byCount)
		counts = counts[:n]
	}
	slices.SortFunc(counts, byCount)
	return counts[:n]
}

// byCount orders counts by count descending, then ID.
func byCount(a, b ValueCount) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.ID, b.ID)) }

// Month is a calendar month.
type Month struct {
	Year  int
	Month time.Month
}

// dimension is one kind of facet value, to tell them apart in the series already counted.
type dimension uint8

const (
	dimTerm dimension = iota
	dimVenue
	dimOrg
	dimMonth
)

// counted is a series counted for one value of one dimension.
type counted struct {
	dim           dimension
	value, series uint64
}

// tally counts the facets of the rows a list matched, visited in any order: months as they come,
// the rest when the pass is done (done). While the rows are few it keeps them and counts each by its
// links; past 1/facetRowShare of the projection's rows it marks their IDs instead, and the events
// linked to each venue, organizer and term probe them: a bit added per link (idSet.count), where a
// row's links and its counts were map lookups, 2.3 ms of CPU for a whole window of 10k synthetic
// events (docs/BENCHMARKS.md, section "Facets").
type tally struct {
	*Facets
	p        *projection
	collapse bool
	// rows are the rows matched while they are few; matched their IDs once they are not.
	rows    []*eventRow
	matched *idSet
	counts  FacetCounts
	// byRow counts terms, venues and organizers (by dimension) while the rows are counted one by one.
	byRow [dimMonth]map[uint64]int
	// seen holds, with collapse, the values each series has been counted for.
	seen map[counted]struct{}
	// month and [monthLo, monthHi) are the month of the row last counted and its instants in Unix
	// seconds: rows come in order of local start, so most fall in the month of the previous one.
	month            Month
	monthLo, monthHi int64
	// inMonth counts the rows of month not yet added to counts.Months: a map assignment per row was
	// a tenth of a whole window's facets at 100k events.
	inMonth int
	// terms are the terms the current row has been counted for.
	terms []uint64
}

// facetRowShare sets when a tally counts by set: once the rows matched reach 1/facetRowShare of the
// projection's, whose links the count by set visits. Tests set it to 0 (always by row) and to a huge
// value (always by set).
var facetRowShare = 32

func newTally(f *Facets, p *projection, collapse bool) *tally {
	t := &tally{Facets: f, p: p, collapse: collapse, counts: FacetCounts{Months: map[Month]int{}},
		byRow: [dimMonth]map[uint64]int{{}, {}, {}}}
	if collapse {
		t.seen = map[counted]struct{}{}
	}
	return t
}

// add counts the row r matched in its month, and records it for the other facets.
func (t *tally) add(r *eventRow) {
	if t.Months != nil {
		t.countMonth(r, t.seriesOf(r.id))
	}
	if t.matched != nil {
		t.matched.add(r.id)
		return
	}
	t.rows = append(t.rows, r)
	if len(t.rows)*facetRowShare >= len(t.p.events) {
		t.matched = bitsFor(r.id)
		for _, r := range t.rows {
			t.matched.add(r.id)
		}
		t.rows = nil
	}
}

// done counts the rows recorded and returns the counts.
func (t *tally) done() *FacetCounts {
	t.flushMonth()
	if t.matched == nil {
		for _, r := range t.rows {
			t.addRow(r)
		}
		t.counts.Terms = listCounts(t.byRow[dimTerm], 0)
		t.counts.Venues, t.counts.Orgs = listCounts(t.byRow[dimVenue], t.Limit), listCounts(t.byRow[dimOrg], t.Limit)
		return &t.counts
	}
	c := setCount{tally: t, once: bitsFor(uint64(len(t.matched.words)) * 64), series: map[uint64]struct{}{}}
	if t.Venues {
		t.counts.Venues = c.each(t.p.venueEvents)
	}
	if t.Orgs {
		t.counts.Orgs = c.each(t.p.orgEvents)
	}
	// Each term counted for itself and the terms it leads to: a category's events are its own and its
	// descendants', an event with two of them once.
	from := map[uint64][]eventIDs{}
	for term, to := range t.Terms {
		if set := t.p.termEvents[term]; len(set) > 0 {
			for _, bucket := range to {
				from[bucket] = append(from[bucket], set)
			}
		}
	}
	for bucket, sets := range from {
		if n := c.count(sets); n > 0 {
			t.counts.Terms = append(t.counts.Terms, ValueCount{bucket, n})
		}
	}
	return &t.counts
}

// setCount counts the matched events of sets of linked events (tally.done).
type setCount struct {
	*tally
	// once marks the events of one value counted, when it has several sets; series the series.
	once   *idSet
	series map[uint64]struct{}
}

// each counts the matched events of each value of links, the first Limit of them when it is above 0.
func (c *setCount) each(links map[uint64]eventIDs) []ValueCount {
	var counts []ValueCount
	for value, set := range links {
		if n := c.count([]eventIDs{set}); n > 0 {
			counts = keepCount(counts, ValueCount{value, n}, c.Limit)
		}
	}
	return firstCounts(counts, c.Limit)
}

// listCounts lists the counts of a dimension counted row by row, the first limit of them when it is
// above 0.
func listCounts(counts map[uint64]int, limit int) []ValueCount {
	var list []ValueCount
	for value, n := range counts {
		list = keepCount(list, ValueCount{value, n}, limit)
	}
	return firstCounts(list, limit)
}

// keepCount adds c to counts, of which, when limit is above 0, only the first limit (by count
// descending, then ID) are kept once twice as many have come: whatever the values, a list holds at
// most 2×limit counts.
func keepCount(counts []ValueCount, c ValueCount, limit int) []ValueCount {
	if counts = append(counts, c); limit > 0 && len(counts) >= 2*limit {
		smallest(counts, limit, byCount)
		counts = counts[:limit]
	}
	return counts
}

// firstCounts is TopCounts when limit is above 0, and counts as they are otherwise.
func firstCounts(counts []ValueCount, limit int) []ValueCount {
	if limit > 0 {
		return TopCounts(counts, limit)
	}
	return counts
}

// count counts the matched events of the union of sets, a series once with collapse.
func (c *setCount) count(sets []eventIDs) int {
	switch {
	case len(sets) == 1 && !c.collapse:
		return c.matched.count(sets[0])
	case !c.collapse:
		n := 0
		for _, set := range sets {
			n += c.matched.countNew(set, c.once)
		}
		c.forget(sets)
		return n
	}
	n := 0
	clear(c.series)
	for _, set := range sets {
		for _, id := range set {
			if !c.matched.Contains(id) || len(sets) > 1 && c.once.Contains(id) {
				continue
			}
			if len(sets) > 1 {
				c.once.add(id)
			}
			if series := c.seriesOf(id); series != 0 {
				if _, ok := c.series[series]; ok {
					continue
				}
				c.series[series] = struct{}{}
			}
			n++
		}
	}
	if len(sets) > 1 {
		c.forget(sets)
	}
	return n
}

// forget empties once of the events of sets, for the next value.
func (c *setCount) forget(sets []eventIDs) {
	for _, set := range sets {
		for _, id := range set {
			c.once.remove(id)
		}
	}
}

// seriesOf returns, with collapse, the series of event id when it belongs to one: its parent's ID.
// Only a series' events can repeat a series; 0 says id is its own.
func (t *tally) seriesOf(id uint64) uint64 {
	if !t.collapse {
		return 0
	}
	if ref, _ := t.p.refs.get(id); ref.parent != 0 {
		return ref.parent
	}
	if len(t.p.seriesEvents[id]) > 0 {
		return id
	}
	return 0
}

// addRow counts the row r by its links (its month is counted already).
func (t *tally) addRow(r *eventRow) {
	var l eventLinks
	if len(t.Terms) > 0 || t.Orgs {
		l = t.p.linksOf(r.id)
	}
	series := t.seriesOf(r.id)
	t.terms = t.terms[:0]
	for _, term := range l.terms {
		for _, to := range t.Terms[term] {
			if !slices.Contains(t.terms, to) {
				t.terms = append(t.terms, to)
				t.count(dimTerm, to, series)
			}
		}
	}
	if t.Venues && r.venue != 0 {
		t.count(dimVenue, r.venue, series)
	}
	if t.Orgs {
		for i, org := range l.orgs {
			if !slices.Contains(l.orgs[:i], org) {
				t.count(dimOrg, org, series)
			}
		}
	}
}

// countMonth counts r in the month it starts in, once for a series (0: none).
func (t *tally) countMonth(r *eventRow, series uint64) {
	if r.startUTC < t.monthLo || r.startUTC >= t.monthHi {
		t.setMonth(r.startUTC)
	}
	if series == 0 || t.first(dimMonth, uint64(t.month.Year)*12+uint64(t.month.Month), series) {
		t.inMonth++
	}
}

// flushMonth adds the rows counted in the current month to counts.Months.
func (t *tally) flushMonth() {
	if t.inMonth > 0 {
		t.counts.Months[t.month] += t.inMonth
		t.inMonth = 0
	}
}

// count counts value of dimension dim for one row, once for a series (0: none).
func (t *tally) count(dim dimension, value, series uint64) {
	if series == 0 || t.first(dim, value, series) {
		t.byRow[dim][value]++
	}
}

// first reports whether series is counted for value for the first time, and records it.
func (t *tally) first(dim dimension, value, series uint64) bool {
	k := counted{dim, value, series}
	if _, ok := t.seen[k]; ok {
		return false
	}
	t.seen[k] = struct{}{}
	return true
}

// setMonth makes the month of instant unix the current one, with its bounds: from 00:00:00 on its
// first day to 00:00:00 on the next month's first day in the zone, as the list's day bounds read them.
func (t *tally) setMonth(unix int64) {
	t.flushMonth()
	y, m, _ := time.Unix(unix, 0).In(t.Months).Date()
	t.month = Month{y, m}
	t.monthLo = datetime.Wall{Year: y, Month: m, Day: 1}.In(t.Months).Unix()
	t.monthHi = datetime.Wall{Year: y, Month: m + 1, Day: 1}.In(t.Months).Unix()
}
