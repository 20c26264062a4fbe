package handlers

import (
	"slices"
	"time"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// defaultRadiusKm is geoloc_radius when it is not sent.
const defaultRadiusKm = 25

// eventQuery is the events list's query as the rows of eventFilterParams write it: the index's filter,
// and what of the parameters the filter takes only once eventFilter has completed it.
type eventQuery struct {
	paging
	index.EventFilter
	highlighting
	// categories are the categories filter's IDs as sent; the filter's add their descendants.
	categories []uint64
	// geoloc asks for a venue with coordinates, within radiusKm of (lat, lng) when both are sent.
	geoloc   bool
	lat, lng *float64
	radiusKm float64
	facetQuery
	// orderby is the order's name as sent ("": the default), and desc the direction sent (nil: the
	// order's default); setOrder completes the filter's order from them.
	orderby string
	desc    *bool
}

// newEventQuery is the query of an events list request before its parameters: the first page of the
// default date window (defaultWindow).
func newEventQuery(rq *request) any {
	q := &eventQuery{paging: firstPage, radiusKm: defaultRadiusKm}
	q.Start, q.End = defaultWindow(rq.now, rq.site.Loc)
	return q
}

// eventFilter completes the events list's query of rq into the index's (docs/API.md "Events list parameters"), for the
// caller's language and visibility, and asks for the events offset to offset+limit. The JSON list and
// every other representation of it (the iCalendar feed, facets) build their query here, so that they
// never disagree on which events a request names; they differ only in the page they ask for. It
// returns the 400 of a geoloc point missing one coordinate or of an order the filters do not allow
// (setOrder), or the store's error.
func (h *Handler) eventFilter(rq *request, offset, limit int) (*index.EventFilter, error) {
	q := rq.query.(*eventQuery)
	f := q.EventFilter
	f.Lang, f.Actor, f.Now, f.Offset, f.Limit = rq.lang, rq.actor, rq.now, offset, limit
	if q.categories != nil {
		terms, err := h.db.Terms(rq.r.Context(), storage.TaxCategory)
		if err != nil {
			return nil, err
		}
		f.Categories = withDescendants(terms, q.categories)
	}
	var problems []problem
	if q.geoloc {
		switch {
		case q.lat != nil && q.lng == nil:
			problems = append(problems, problem{name: "geoloc_lng", code: "rest_invalid_param", message: "geoloc_lat and geoloc_lng must be given together"})
		case q.lng != nil && q.lat == nil:
			problems = append(problems, problem{name: "geoloc_lat", code: "rest_invalid_param", message: "geoloc_lat and geoloc_lng must be given together"})
		default:
			f.Geo = &index.Geo{RadiusKm: q.radiusKm}
			if q.lat != nil {
				f.Geo.Point, f.Geo.Lat, f.Geo.Lng = true, *q.lat, *q.lng
			}
		}
	}
	// Every parameter that does not fit the others is named at once, as validate names those
	// invalid on their own.
	if problems = append(problems, q.setOrder(&f)...); len(problems) > 0 {
		return nil, invalidParams(problems)
	}
	return &f, nil
}

// defaultWindow is the date window of the events list when no bound is sent (docs/API.md "Events list parameters"): from
// 00:00:00 today to 23:59:59 on the date 24 months ahead, both in loc, as instants. It is computed
// per request rather than by a job, so it moves at midnight in loc without anything to schedule.
func defaultWindow(now time.Time, loc *time.Location) (start, end time.Time) {
	// The months are counted on the wall calendar: Time.AddDate goes through time.Date, which may read a
	// midnight that loc skips as 23:00 the day before, and the window would end a day short. Wall.In
	// normalises the month as time.Date does, so 29 February still moves to 1 March.
	last := datetime.WallOf(now.In(loc))
	last.Month += 24
	last.Hour, last.Min, last.Sec = 23, 59, 59
	return dayEdge(now, loc, false), last.In(loc)
}

// dayEdge is 00:00:00 (or 23:59:59 when end) of t's calendar day in loc. A wall clock that loc skips
// moves forward (Wall.In): on a day whose clocks jump from 00:00 to 01:00 it starts at 01:00, where
// time.Date may answer 23:00 the day before.
func dayEdge(t time.Time, loc *time.Location, end bool) time.Time {
	w := datetime.WallOf(t.In(loc))
	w.Hour, w.Min, w.Sec = 0, 0, 0
	if end {
		w.Hour, w.Min, w.Sec = 23, 59, 59
	}
	return w.In(loc)
}

// withDescendants adds every descendant category of ids (docs/API.md "Events list parameters": a category filter matches its
// subtree).
func withDescendants(terms []*storage.Term, ids []uint64) []uint64 {
	out := slices.Clone(ids)
	for grew := true; grew; {
		grew = false
		for _, t := range terms {
			if slices.Contains(out, t.Parent) && !slices.Contains(out, t.ID) {
				out = append(out, t.ID)
				grew = true
			}
		}
	}
	return out
}
