package handlers

import (
	"slices"
	"time"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// eventFilter turns the parsed eventFilterParams of rq into the index's query of the events list
// (CONTRACT 5.2), for the caller's language and visibility, with the default window where a date
// bound is not sent, and asks for the events offset to offset+limit. The JSON list and every other
// representation of it (the iCalendar feed, facets) build their query here, so that they never
// disagree on which events a request names; they differ only in the page they ask for. It returns
// the 400 of a geoloc point missing one coordinate, or the store's error.
func (h *Handler) eventFilter(rq *request, offset, limit int) (*index.EventFilter, error) {
	f := &index.EventFilter{Lang: rq.lang, Visibility: visibility(rq), Now: rq.now,
		Offset: offset, Limit: limit, Featured: rq.vals.boolean("featured")}
	f.Start, f.End = defaultWindow(rq.now, rq.site.Loc)
	if b, ok := rq.vals["start_date"].(dayBound); ok {
		f.Start = b.t
	}
	if b, ok := rq.vals["end_date"].(dayBound); ok {
		f.End = b.t
	}
	if s := rq.vals.str("search"); s != nil {
		f.Search = *s
	}
	if c, ok := rq.vals["categories"].(termFilter); ok {
		terms, err := h.db.Terms(rq.r.Context(), storage.TaxCategory)
		if err != nil {
			return nil, err
		}
		f.Categories = withDescendants(terms, c.ids)
	}
	if t, ok := rq.vals["tags"].(termFilter); ok {
		f.Tags = t.ids
	}
	if v, ok := rq.vals["venue"].(idList); ok {
		f.Venues = v
	}
	if o, ok := rq.vals["organizer"].(idList); ok {
		f.Orgs = o
	}
	if inc, ok := rq.vals["include"].(idList); ok {
		f.Include = inc
	}
	if p, ok := rq.vals["post_parent"].(int64); ok {
		f.Parent = uint64(p)
	}
	if h := rq.vals.boolean("hide_subsequent_recurrences"); h != nil {
		f.Collapse = *h
	}
	if geo := rq.vals.boolean("geoloc"); geo != nil && *geo {
		lat, hasLat := rq.vals["geoloc_lat"].(float64)
		lng, hasLng := rq.vals["geoloc_lng"].(float64)
		switch {
		case hasLat && !hasLng:
			return nil, invalidParam("geoloc_lng", "rest_invalid_param", "geoloc_lat and geoloc_lng must be given together")
		case hasLng && !hasLat:
			return nil, invalidParam("geoloc_lat", "rest_invalid_param", "geoloc_lat and geoloc_lng must be given together")
		}
		radius := 25.0
		if r, ok := rq.vals["geoloc_radius"].(float64); ok {
			radius = r
		}
		f.Geo = &index.Geo{Point: hasLat, Lat: lat, Lng: lng, RadiusKm: radius}
	}
	return f, nil
}

// defaultWindow is the date window of the events list when no bound is sent (CONTRACT 5.2): from
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

// visibility is what the caller may see of a list (CONTRACT 5.5): its own capabilities, narrowed by a
// `status` parameter.
func visibility(rq *request) index.Visibility {
	v := index.Visibility{Actor: rq.actor}
	if s, ok := rq.vals["status"].([]storage.Status); ok {
		v.Statuses = s
	}
	return v
}

// withDescendants adds every descendant category of ids (CONTRACT 5.2: a category filter matches its
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
