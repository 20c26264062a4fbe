package index

import (
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
}

// FacetCounts are the counts Facets asked for, by value; a value no listed event has is absent.
type FacetCounts struct {
	Terms, Venues, Orgs map[uint64]int
	Months              map[Month]int
}

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

// tally counts the facets of the rows a list matched, visited in any order.
type tally struct {
	*Facets
	p      *projection
	counts FacetCounts
	// seen holds, with Collapse, the values each series has been counted for.
	seen map[counted]struct{}
	// month and [monthLo, monthHi) are the month of the row last counted and its instants in Unix
	// seconds: rows come in order of local start, so most fall in the month of the previous one.
	month            Month
	monthLo, monthHi int64
	// terms are the terms the current row has been counted for.
	terms []uint64
}

func newTally(f *Facets, p *projection, collapse bool) *tally {
	t := &tally{Facets: f, p: p, counts: FacetCounts{Terms: map[uint64]int{}, Venues: map[uint64]int{},
		Orgs: map[uint64]int{}, Months: map[Month]int{}}}
	if collapse {
		t.seen = map[counted]struct{}{}
	}
	return t
}

// add counts the row r matched.
func (t *tally) add(r *eventRow) {
	var l eventLinks
	if len(t.Terms) > 0 || t.Orgs || t.seen != nil {
		l = t.p.linksOf(r.id)
	}
	// Only a series' rows can repeat a series: a row with no parent and no occurrences is its own.
	series := uint64(0)
	if t.seen != nil {
		if series = l.parent; series == 0 && len(t.p.seriesEvents[r.id]) > 0 {
			series = r.id
		}
	}
	t.terms = t.terms[:0]
	for _, term := range l.terms {
		for _, to := range t.Terms[term] {
			if !slices.Contains(t.terms, to) {
				t.terms = append(t.terms, to)
				t.count(t.counts.Terms, dimTerm, to, series)
			}
		}
	}
	if t.Venues && r.venue != 0 {
		t.count(t.counts.Venues, dimVenue, r.venue, series)
	}
	if t.Orgs {
		for i, org := range l.orgs {
			if !slices.Contains(l.orgs[:i], org) {
				t.count(t.counts.Orgs, dimOrg, org, series)
			}
		}
	}
	if t.Months != nil {
		if r.startUTC < t.monthLo || r.startUTC >= t.monthHi {
			t.setMonth(r.startUTC)
		}
		if series == 0 || t.first(dimMonth, uint64(t.month.Year)*12+uint64(t.month.Month), series) {
			t.counts.Months[t.month]++
		}
	}
}

// count counts value in counts, once for a series (0: none).
func (t *tally) count(counts map[uint64]int, dim dimension, value, series uint64) {
	if series == 0 || t.first(dim, value, series) {
		counts[value]++
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
	y, m, _ := time.Unix(unix, 0).In(t.Months).Date()
	t.month = Month{y, m}
	t.monthLo = datetime.Wall{Year: y, Month: m, Day: 1}.In(t.Months).Unix()
	t.monthHi = datetime.Wall{Year: y, Month: m + 1, Day: 1}.In(t.Months).Unix()
}
