package index

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/calendard/calendard/storage"
)

// Visibility says which records a caller may see in a list (CONTRACT 5.5).
type Visibility struct {
	Actor storage.Actor
	// Statuses is the `status` filter; nil means the default for the caller.
	Statuses []storage.Status
}

// allows reports whether a record with these fields is listed for the caller.
func (v *Visibility) allows(author uint64, status, trashed storage.Status, date int64, now time.Time) bool {
	status = effective(status, date, now)
	if v.Statuses != nil {
		if !slices.Contains(v.Statuses, status) {
			return false
		}
	} else if status == storage.StatusTrash || (status != storage.StatusPublish && !v.Actor.Can(storage.CapEditPosts)) {
		return false
	}
	if status == storage.StatusPublish {
		return true // readable by everyone; the common case skips building a Post
	}
	return v.Actor.CanRead(post(author, status, trashed, date))
}

// Geo is the geolocation filter of the events list.
type Geo struct {
	// Point restricts to venues within RadiusKm of (Lat, Lng); without it, only having coordinates counts.
	Point              bool
	Lat, Lng, RadiusKm float64
}

// EventFilter is a validated events-list query (CONTRACT 5.2). Zero values mean "no filter".
type EventFilter struct {
	Lang storage.Lang
	Visibility
	Now time.Time
	// Start and End bound the start instant, inclusive; ignored with Include.
	Start, End time.Time
	Search     string
	// Terms are category IDs (already expanded with their descendants) and, separately, tag IDs: an
	// event matches a list when it has one of its IDs.
	Categories, Tags []uint64
	Venues, Orgs     []uint64
	Featured         *bool
	Geo              *Geo
	Include          []uint64
	Empty            bool // post_parent: events never have one
	Offset, Limit    int
}

// Page is one page of a list: the IDs in order and how many match in all.
type Page struct {
	IDs   []uint64
	Total int
}

// Events answers an events list.
func (ix *Index) Events(ctx context.Context, f *EventFilter) (Page, error) {
	l := ix.langs[f.Lang]
	text, err := l.textMatches(ctx, storage.TypeEvent, f.Search)
	if err != nil || f.Empty {
		return Page{}, err
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	rows := l.proj.events
	bounded := len(f.Include) == 0
	if bounded {
		rows = l.proj.window(f.Start.Unix(), f.End.Unix())
	}
	var matched []*eventRow
	count := 0
	for i := range rows {
		r := &rows[i]
		if !f.matches(r, text, bounded) {
			continue
		}
		if len(f.Include) > 0 {
			matched = append(matched, r)
		} else if count >= f.Offset && count < f.Offset+f.Limit {
			matched = append(matched, r)
		}
		count++
	}
	if len(f.Include) > 0 {
		// Included events are listed by publication date (CONTRACT 5.2).
		slices.SortFunc(matched, func(a, b *eventRow) int { return cmp.Or(cmp.Compare(a.date, b.date), cmp.Compare(a.id, b.id)) })
		matched = matched[min(f.Offset, len(matched)):min(f.Offset+f.Limit, len(matched))]
	}
	page := Page{Total: count, IDs: make([]uint64, len(matched))}
	for i, r := range matched {
		page.IDs[i] = r.id
	}
	return page, nil
}

func (f *EventFilter) matches(r *eventRow, text idSet, bounded bool) bool {
	switch {
	case r.hidden:
		return false
	case bounded && (r.startUTC < f.Start.Unix() || r.startUTC > f.End.Unix()):
		return false
	case len(f.Include) > 0 && !slices.Contains(f.Include, r.id):
		return false
	case f.Featured != nil && r.featured != *f.Featured:
		return false
	case len(f.Venues) > 0 && !slices.Contains(f.Venues, r.venue):
		return false
	case len(f.Orgs) > 0 && !anyOf(r.orgs, f.Orgs):
		return false
	case len(f.Categories) > 0 && !anyOf(r.terms, f.Categories):
		return false
	case len(f.Tags) > 0 && !anyOf(r.terms, f.Tags):
		return false
	case f.Geo != nil && !f.Geo.contains(r):
		return false
	}
	if text != nil && !text.has(r.id) {
		return false
	}
	return f.allows(r.author, r.status, r.trashed, r.date, f.Now)
}

func anyOf(have, want []uint64) bool {
	for _, id := range have {
		if slices.Contains(want, id) {
			return true
		}
	}
	return false
}

// earthRadiusKm is the mean Earth radius of CONTRACT 5.2.
const earthRadiusKm = 6371.0088

func (g *Geo) contains(r *eventRow) bool {
	if !r.hasGeo {
		return false
	}
	return !g.Point || Distance(g.Lat, g.Lng, r.lat, r.lng) <= g.RadiusKm
}

// Distance is the great-circle (haversine) distance in kilometres between two points in degrees.
func Distance(lat1, lng1, lat2, lng2 float64) float64 {
	rad := math.Pi / 180
	dLat, dLng := (lat2-lat1)*rad, (lng2-lng1)*rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * earthRadiusKm * math.Asin(math.Min(1, math.Sqrt(a)))
}

// PlaceFilter is a validated venues or organizers list query (CONTRACT 5.3).
type PlaceFilter struct {
	Type storage.PostType
	Lang storage.Lang
	Visibility
	Now    time.Time
	Search string
	// Linked restricts to these records (the venue or organizers of the `event` parameter's event).
	Linked        []uint64
	HasEvents     *bool
	Upcoming      bool
	Offset, Limit int
}

// Places answers a venues or organizers list, newest publication first.
func (ix *Index) Places(ctx context.Context, f *PlaceFilter) (Page, error) {
	l := ix.langs[f.Lang]
	text, err := l.textMatches(ctx, f.Type, f.Search)
	if err != nil {
		return Page{}, err
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	rows, links := l.proj.venues, l.proj.venueEvents
	if f.Type == storage.TypeOrganizer {
		rows, links = l.proj.orgs, l.proj.orgEvents
	}
	var matched []*placeRow
	for _, r := range rows {
		if f.Linked != nil && !slices.Contains(f.Linked, r.id) {
			continue
		}
		if text != nil && !text.has(r.id) {
			continue
		}
		if !f.allows(r.author, r.status, r.trashed, r.date, f.Now) {
			continue
		}
		if f.HasEvents != nil && l.proj.hasEvents(links[r.id], f.Now) != *f.HasEvents {
			continue
		}
		if f.Upcoming && !l.proj.hasUpcoming(links[r.id], f.Now, f.Actor.Can(storage.CapEditPosts)) {
			continue
		}
		matched = append(matched, r)
	}
	slices.SortFunc(matched, func(a, b *placeRow) int { return cmp.Or(cmp.Compare(b.date, a.date), cmp.Compare(b.id, a.id)) })
	page := Page{Total: len(matched)}
	for _, r := range matched[min(f.Offset, len(matched)):min(f.Offset+f.Limit, len(matched))] {
		page.IDs = append(page.IDs, r.id)
	}
	return page, nil
}

// hasEvents: linked to an event whose status is publish, future or private (CONTRACT 5.3).
func (p *projection) hasEvents(events map[uint64]struct{}, now time.Time) bool {
	for id := range events {
		if r := p.event(id); r != nil {
			switch effective(r.status, r.date, now) {
			case storage.StatusPublish, storage.StatusFuture, storage.StatusPrivate:
				return true
			}
		}
	}
	return false
}

// hasUpcoming: linked to an event that has not started, is listed, and is published (or, for callers
// with edit_posts, scheduled or private).
func (p *projection) hasUpcoming(events map[uint64]struct{}, now time.Time, editor bool) bool {
	for id := range events {
		r := p.event(id)
		if r == nil || r.hidden || r.startUTC < now.Unix() {
			continue
		}
		switch effective(r.status, r.date, now) {
		case storage.StatusPublish:
			return true
		case storage.StatusFuture, storage.StatusPrivate:
			if editor {
				return true
			}
		}
	}
	return false
}

// textMatches returns the IDs of records of type t whose text matches search, or nil when search
// does not restrict anything.
func (l *lang) textMatches(ctx context.Context, t storage.PostType, search string) (idSet, error) {
	if strings.TrimSpace(search) == "" {
		return nil, nil
	}
	must, mustNot := textQuery(l.mapping, search)
	if len(must) == 0 && len(mustNot) == 0 {
		return nil, nil // only stop words: everything matches
	}
	kind := bleve.NewTermQuery(t.String())
	kind.SetField(fieldType)
	b := bleve.NewBooleanQuery()
	b.AddMust(append([]query.Query{kind}, must...)...)
	b.AddMustNot(mustNot...)
	return l.matchingIDs(ctx, b)
}

// matchingIDs walks the documents q matches with a bare searcher: every match is needed, unscored
// and unsorted, so the top-N collector of a SearchRequest would only add a heap and allocations.
func (l *lang) matchingIDs(ctx context.Context, q query.Query) (idSet, error) {
	adv, err := l.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := q.Searcher(ctx, r, l.mapping, search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r}
	out := idSet{} // non-nil even when nothing matches: nil would mean "no restriction"
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if dm == nil {
			return out, nil
		}
		ext, err := r.ExternalID(dm.IndexInternalID)
		if err != nil {
			return nil, err
		}
		if id, err := strconv.ParseUint(ext[1:], 10, 64); err == nil {
			out.add(id)
		}
		sctx.DocumentMatchPool.Put(dm)
	}
}

// idSet is a set of record IDs as a bitset: IDs come from one dense sequence, so a bit per ID is
// smaller and far faster to fill and probe than a map. A nil idSet means "no restriction".
type idSet []uint64

func (s *idSet) add(id uint64) {
	w := int(id / 64)
	if w >= len(*s) {
		*s = append(*s, make([]uint64, w+1-len(*s))...)
	}
	(*s)[w] |= 1 << (id % 64)
}

func (s idSet) has(id uint64) bool {
	w := int(id / 64)
	return w < len(s) && s[w]&(1<<(id%64)) != 0
}
