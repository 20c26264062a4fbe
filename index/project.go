package index

import (
	"cmp"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/calendard/calendard/storage"
)

// eventRow is the projection of one event: every structured field a list filters, orders or counts
// by. Rows live in a slice ordered by (local start, ID), so a date window is a contiguous run; a list
// scans every row of its window, so a row is kept small (72 bytes) and holds no pointers. An event's
// organizers and terms are kept beside it (eventLinks) and tested through the sets of linked events.
type eventRow struct {
	id         uint64
	author     uint64
	venue      uint64
	date       int64 // publication instant, Unix seconds
	startUTC   int64
	startLocal int64 // the wall clock in the event's zone, read as if it were UTC: the sort key
	lat, lng   float64
	status     state
	trashed    state // status before trashing, for the permission rules
	hidden     bool
	featured   bool
	hasGeo     bool
}

// eventLinks are an event's organizers and terms (categories and tags share one ID space), and the
// series it is an occurrence of.
type eventLinks struct {
	orgs, terms []uint64
	parent      uint64
}

// state is a storage.Status in one byte.
type state uint8

const (
	stateNone state = iota
	statePublish
	stateFuture
	stateDraft
	statePending
	statePrivate
	stateTrash
)

var statuses = [...]storage.Status{stateNone: "", statePublish: storage.StatusPublish, stateFuture: storage.StatusFuture,
	stateDraft: storage.StatusDraft, statePending: storage.StatusPending, statePrivate: storage.StatusPrivate,
	stateTrash: storage.StatusTrash}

func stateOf(s storage.Status) state {
	for i, st := range statuses {
		if st == s {
			return state(i)
		}
	}
	return stateNone
}

func (s state) status() storage.Status { return statuses[s] }

// placeRow is the projection of a venue or organizer.
type placeRow struct {
	id      uint64
	author  uint64
	status  storage.Status
	trashed storage.Status
	date    int64
}

// post rebuilds the fields the permission rules read.
func post(author uint64, status, trashed storage.Status, date int64) *storage.Post {
	return &storage.Post{Author: author, Status: status, TrashedFrom: trashed, Date: time.Unix(date, 0)}
}

// effective reports a due scheduled record as published, as every read of the store does.
func effective(status storage.Status, date int64, now time.Time) storage.Status {
	return storage.Effective(status, time.Unix(date, 0), now)
}

// projection is one language's in-memory view of its records.
type projection struct {
	events  []eventRow // ordered by (startLocal, id)
	eventAt map[uint64]int64
	links   map[uint64]eventLinks
	venues  map[uint64]*placeRow
	orgs    map[uint64]*placeRow
	// The events linked to each venue, organizer and term: for has_events and only_with_upcoming, for
	// visiting only the candidates of a small filter, and for testing a large one by event ID.
	venueEvents map[uint64]*roaring64.Bitmap
	orgEvents   map[uint64]*roaring64.Bitmap
	termEvents  map[uint64]*roaring64.Bitmap
	// The occurrences of each series, by its parent (post_parent).
	seriesEvents map[uint64]*roaring64.Bitmap
}

func newProjection() *projection {
	return &projection{
		eventAt:     map[uint64]int64{},
		links:       map[uint64]eventLinks{},
		venues:      map[uint64]*placeRow{},
		orgs:        map[uint64]*placeRow{},
		venueEvents: map[uint64]*roaring64.Bitmap{},
		orgEvents:   map[uint64]*roaring64.Bitmap{},
		termEvents:  map[uint64]*roaring64.Bitmap{},

		seriesEvents: map[uint64]*roaring64.Bitmap{},
	}
}

func eventRowOf(e *storage.Event, venue *storage.Venue) (eventRow, eventLinks) {
	local := e.StartUTC
	if w, err := time.Parse("2006-01-02 15:04:05", e.Start); err == nil {
		local = w
	}
	r := eventRow{
		id: e.ID, author: e.Author, status: stateOf(e.Status), trashed: stateOf(e.TrashedFrom), date: e.Date.Unix(),
		startUTC: e.StartUTC.Unix(), startLocal: local.Unix(), hidden: e.HideFromListings, featured: e.Featured,
		venue: e.VenueID,
	}
	if venue != nil && venue.Geo != nil {
		r.hasGeo, r.lat, r.lng = true, venue.Geo.Lat, venue.Geo.Lng
	}
	return r, eventLinks{orgs: slices.Clone(e.OrganizerIDs), terms: append(slices.Clone(e.Categories), e.Tags...), parent: e.Parent}
}

func placeRowOf(p *storage.Post) *placeRow {
	return &placeRow{id: p.ID, author: p.Author, status: p.Status, trashed: p.TrashedFrom, date: p.Date.Unix()}
}

func compareRows(a, b *eventRow) int {
	return cmp.Or(cmp.Compare(a.startLocal, b.startLocal), cmp.Compare(a.id, b.id))
}

// find returns the position of the row for id, or -1.
func (p *projection) find(id uint64) int {
	start, ok := p.eventAt[id]
	if !ok {
		return -1
	}
	key := eventRow{id: id, startLocal: start}
	i, found := slices.BinarySearchFunc(p.events, &key, func(r eventRow, k *eventRow) int { return compareRows(&r, k) })
	if !found {
		return -1
	}
	return i
}

// putEvent inserts or replaces an event's row, keeping the order and the links.
func (p *projection) putEvent(r eventRow, l eventLinks) {
	p.putEvents([]eventPut{{r, l}})
}

// eventPut is an event's new row and links.
type eventPut struct {
	row   eventRow
	links eventLinks
}

// putEvents inserts or replaces the rows of puts (the last put of an ID wins), as putEvent would one
// after the other, but in O(n + k log k) for k puts into n rows rather than O(k·n): replaying the
// change log at start-up puts thousands of rows at a time, most of them already loaded by the scan.
// A row whose position key (startLocal, id) is unchanged is replaced where it stands; the rows that
// move are taken out in one compacting pass, and they and the new rows are merged in sorted.
func (p *projection) putEvents(puts []eventPut) {
	last := make(map[uint64]int, len(puts))
	for i := range puts {
		last[puts[i].row.id] = i
	}
	var moved []int
	var add []eventRow
	for i := range puts {
		put := &puts[i]
		if last[put.row.id] != i {
			continue
		}
		if at := p.find(put.row.id); at >= 0 {
			old := &p.events[at]
			p.unlink(old)
			if old.startLocal == put.row.startLocal {
				*old = put.row
				p.link(old, put.links)
				continue
			}
			moved = append(moved, at)
		}
		add = append(add, put.row)
		p.link(&put.row, put.links)
	}
	p.events = deleteAt(p.events, moved)
	p.events = merge(p.events, add)
}

// deleteAt removes the rows at the given positions, in one pass from the first of them.
func deleteAt(rows []eventRow, at []int) []eventRow {
	if len(at) == 0 {
		return rows
	}
	slices.Sort(at)
	w := at[0]
	for i, from := range at {
		to := len(rows)
		if i+1 < len(at) {
			to = at[i+1]
		}
		w += copy(rows[w:], rows[from+1:to])
	}
	return rows[:w]
}

// merge inserts add into the ordered rows, none of which shares a position key with them. It works
// from the end, so each row after the first insertion point moves once, by one copy per inserted row.
func merge(rows, add []eventRow) []eventRow {
	if len(add) == 0 {
		return rows
	}
	slices.SortFunc(add, func(a, b eventRow) int { return compareRows(&a, &b) })
	n := len(rows)
	rows = slices.Grow(rows, len(add))[:n+len(add)]
	for j := len(add) - 1; j >= 0; j-- {
		// rows[:n] are the old rows not yet moved. Before add[j] come the at of them below it and
		// the j smaller new rows still to place; rows[at:n] follow it.
		at, _ := slices.BinarySearchFunc(rows[:n], &add[j], func(r eventRow, k *eventRow) int { return compareRows(&r, k) })
		copy(rows[at+j+1:], rows[at:n])
		rows[at+j] = add[j]
		n = at
	}
	return rows
}

// link records an event row's position key and its links.
func (p *projection) link(r *eventRow, l eventLinks) {
	p.eventAt[r.id] = r.startLocal
	p.links[r.id] = l
	p.eachSet(r, l, func(sets *map[uint64]*roaring64.Bitmap, key uint64) { link(*sets, key, r.id) })
}

// unlink forgets what link recorded for an event row.
func (p *projection) unlink(r *eventRow) {
	l := p.links[r.id]
	delete(p.eventAt, r.id)
	delete(p.links, r.id)
	p.eachSet(r, l, func(sets *map[uint64]*roaring64.Bitmap, key uint64) { unlink(*sets, key, r.id) })
}

// eachSet calls f for every set of linked events an event row with links l belongs in: with the
// field of p that holds that kind of set, and the key of the set.
func (p *projection) eachSet(r *eventRow, l eventLinks, f func(sets *map[uint64]*roaring64.Bitmap, key uint64)) {
	if r.venue != 0 {
		f(&p.venueEvents, r.venue)
	}
	for _, o := range l.orgs {
		f(&p.orgEvents, o)
	}
	for _, t := range l.terms {
		f(&p.termEvents, t)
	}
	if l.parent != 0 {
		f(&p.seriesEvents, l.parent)
	}
}

// sort orders rows appended by a full load.
func (p *projection) sort() {
	slices.SortFunc(p.events, func(a, b eventRow) int { return compareRows(&a, &b) })
}

func (p *projection) removeEvent(id uint64) {
	i := p.find(id)
	if i < 0 {
		return
	}
	p.unlink(&p.events[i])
	p.events = slices.Delete(p.events, i, i+1)
}

func (p *projection) event(id uint64) *eventRow {
	if i := p.find(id); i >= 0 {
		return &p.events[i]
	}
	return nil
}

func link(m map[uint64]*roaring64.Bitmap, from, to uint64) {
	set := m[from]
	if set == nil {
		set = roaring64.New()
		m[from] = set
	}
	set.Add(to)
}

func unlink(m map[uint64]*roaring64.Bitmap, from, to uint64) {
	if set := m[from]; set != nil {
		set.Remove(to)
		if set.IsEmpty() {
			delete(m, from)
		}
	}
}

// linked returns the events linked to any of ids in m, as a set to test rows against; nil when ids
// is empty (no restriction).
func linked(m map[uint64]*roaring64.Bitmap, ids []uint64) idSet {
	if len(ids) == 0 {
		return nil
	}
	out := idSet{}
	for _, id := range ids {
		if set := m[id]; set != nil {
			out.addAll(set)
		}
	}
	return out
}

// window returns the rows whose local start can fall within [lo, hi] UTC seconds: a zone moves a wall
// clock at most 15 hours from UTC, so the run is widened by that and the caller checks startUTC.
func (p *projection) window(lo, hi int64) []eventRow {
	const slack = 15 * 3600
	from, _ := slices.BinarySearchFunc(p.events, lo-slack, func(r eventRow, t int64) int { return cmp.Compare(r.startLocal, t) })
	to, _ := slices.BinarySearchFunc(p.events, hi+slack+1, func(r eventRow, t int64) int { return cmp.Compare(r.startLocal, t) })
	if to < from { // lo after hi: an empty window, not an error (CONTRACT 5.2)
		return nil
	}
	return p.events[from:to]
}
