package index

import (
	"slices"
	"time"

	"github.com/calendard/calendard/storage"
)

// Visibility says which records a caller may see in a list (docs/API.md "Lists").
type Visibility struct {
	Actor storage.Actor
	// Statuses is the `status` filter; nil means the default for the caller.
	Statuses []storage.Status
}

// Allows reports whether record p is listed for the caller at now.
func (v *Visibility) Allows(p *storage.Post, now time.Time) bool {
	return v.allows(p.Author, p.Status, p.TrashedFrom, p.Date.Unix(), now)
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

// EventFilter is a validated events-list query (docs/API.md "Events list parameters"). Zero values mean "no filter".
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
	// Parent restricts to the occurrences of this series (post_parent).
	Parent uint64
	// Collapse keeps of each series its first occurrence in the list (hide_subsequent_recurrences).
	Collapse bool
	// Facets, when not nil, asks for the list's facet counts (Page.Facets).
	Facets *Facets
	// Order is the list's order (orderby), reversed when Desc (order=desc). OrderRelevance needs a
	// search, and OrderDistance a geo filter with a point.
	Order         Order
	Desc          bool
	Offset, Limit int
}

// keyable reports whether the key path (listedPage) can answer f as the scan does, as far as f
// alone decides: a list that anyone may see, for a caller who sees no more than that (without
// edit_posts, no status filter), filtered by no more than dates, categories, tags, venues, geo, a
// search and featured=true, in the default order (the keys are kept by start) or nearest first from a
// geo filter's point (each position's keys are in start order). Every other field keeps the keys out: they hold only the listed rows'
// positions, terms, venues and places, not their organizers or series, nor the rows a status filter
// adds; and facets are counted from the rows. A new field that the key path does not honour belongs
// here (TestEventFilterFieldsClassified fails until it is classified).
func (f *EventFilter) keyable() bool {
	return len(f.Include)+len(f.Orgs) == 0 && f.Parent == 0 && f.Facets == nil && (f.Featured == nil || *f.Featured) && !f.Collapse &&
		f.Statuses == nil && !f.Actor.Can(storage.CapEditPosts) && (f.inOrder() || f.byDistance())
}

// PlaceFilter is a validated venues or organizers list query (docs/API.md "Venue and organizer list parameters").
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

// Page is one page of a list: the IDs in order and how many match in all.
type Page struct {
	IDs   []uint64
	Total int
	// TypoTolerant is set when the search found nothing as typed and this page answers it with typo
	// tolerance instead (typoEdits).
	TypoTolerant bool
	// Facets are the counts EventFilter.Facets asked for; nil when it asked for none.
	Facets *FacetCounts
	// Distances are, with a geo filter's point, how far from it each event of IDs has its venue, in
	// kilometres (distance_km); nil otherwise.
	Distances []float64
}
