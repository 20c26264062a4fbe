package index

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/calendard/calendard/storage"
)

// eventRow is the projection of one event: every structured field a list filters, orders or counts
// by. Rows live in a slice ordered by (local start, ID), so a date window is a contiguous run; a list
// scans every row of its window, so a row is kept small (72 bytes) and holds no pointers. An event's
// organizers and terms are kept beside it (linkSpan) and tested through the sets of linked events.
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
	hidden     bool  // hidden from listings, as is a series' parent whose first day is excluded
	featured   bool
	hasGeo     bool
	// sharesText: the event is an occurrence with its series parent's text, and no Bleve document of
	// its own (parentTexts).
	sharesText bool
}

// eventLinks are an event's organizers and terms (categories and tags share one ID space), the
// series it is an occurrence of, and when it was last modified (Unix seconds, for orderby=modified):
// kept beside the links rather than in the row, which has no room left, while a span has.
type eventLinks struct {
	orgs, terms []uint64
	parent      uint64
	modified    int64
}

// linkSpan is how a projection keeps an event's links: its parent, where its organizers, then its
// terms, lie in the projection's linkIDs, and its modified stamp. Neither the spans nor the list hold
// a pointer, so the collector marks the map and the list as two objects, where two slices for each of
// a million events were two million pointers to follow at every collection. The stamp takes the four
// bytes the span's alignment left over: seconds from 1970 in 32 bits reach 2106 (spanStamp).
type linkSpan struct {
	parent                     uint64
	off, orgs, terms, modified uint32
}

// spanStamp is a modified instant as a span keeps it, held within what 32 bits count.
func spanStamp(unix int64) uint32 { return uint32(min(max(unix, 0), math.MaxUint32)) }

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
	events []eventRow // ordered by (startLocal, id)
	// refs finds each event's row and its links (linksOf), whose IDs lie in linkIDs, of which
	// linkGarbage are no longer any event's (setRef).
	refs        eventRefs
	linkIDs     []uint64
	linkGarbage int
	venues      map[uint64]*placeRow
	orgs        map[uint64]*placeRow
	// The events linked to each venue, organizer and term: for has_events and only_with_upcoming, for
	// visiting only the candidates of a small filter, and for testing a large one by event ID.
	venueEvents map[uint64]eventIDs
	orgEvents   map[uint64]eventIDs
	termEvents  map[uint64]eventIDs
	// The occurrences of each series, by its parent (post_parent), and those of them that share its
	// text, which a search matching the parent matches (lang.withSharers).
	seriesEvents map[uint64]eventIDs
	textEvents   map[uint64]eventIDs
	// listed holds the position keys of the publicly listed rows (rowListed), in row order;
	// featuredListed those of the featured rows, termListed those of each term's, venueListed each
	// venue's and placeListed those at each position (a venue's, copied into its events' rows): an
	// anonymous list without filters but the dates, featured, categories, tags, venues, a geo filter
	// and a search counts and pages its date window from them instead of visiting every row
	// (listedPage). featured holds the IDs of featuredListed, to test the rows another filter leads.
	// listed, featuredListed and featured are derived from the rows (listRows); the others are saved.
	// scheduled holds the publication dates of the scheduled rows not hidden, and dueFrom the
	// earliest: from then until the publication job rewrites the row, it is listed without being in
	// listed, and lists visit the rows again. keysReady is false while a full load appends rows
	// unsorted (appendLoaded), or a batch puts many (putEvents): rebuildKeys builds them then, and the
	// sets of linked events above.
	listed         []rowKey
	featuredListed []rowKey
	featured       *idSet
	termListed     map[uint64][]rowKey
	venueListed    map[uint64][]rowKey
	placeListed    map[point][]rowKey
	scheduled      map[uint64]int64
	dueFrom        int64
	keysReady      bool
	// placeCells groups the positions of placeListed by cell of the map, so that a geo filter visits
	// the cells near its circle rather than every position, and takes one list for a cell wholly
	// within it. They are built with the keys.
	placeCells map[cell]*placeCell
	// minOffset and maxOffset bound how far each row's local start lies from its start in UTC (its
	// zone's offset), for the date windows (span). They widen from zero as rows come, and listRows
	// narrows them to the rows': in a calendar of one zone they are an hour apart, where any zone
	// would be 30 hours.
	minOffset, maxOffset int64
	// gen changes whenever a row does: what was derived from the rows at one generation (the
	// positions of a search's listed rows, textCache) is good for that generation only. Generations are unique across
	// projections, since a language's projection may be replaced by another.
	gen uint64
}

// generations numbers the generations of every projection.
var generations atomic.Uint64

// rowKey is a row's position key: rows are ordered by local start, then ID.
type rowKey struct {
	startLocal int64
	id         uint64
}

func keyOf(r *eventRow) rowKey { return rowKey{r.startLocal, r.id} }

// point is a row's position, for the geo filter's keys.
type point struct{ lat, lng float64 }

func compareKeys(a, b rowKey) int {
	return cmp.Or(cmp.Compare(a.startLocal, b.startLocal), cmp.Compare(a.id, b.id))
}

func newProjection() *projection {
	return &projection{
		refs:        newEventRefs(0),
		venues:      map[uint64]*placeRow{},
		orgs:        map[uint64]*placeRow{},
		venueEvents: map[uint64]eventIDs{},
		orgEvents:   map[uint64]eventIDs{},
		termEvents:  map[uint64]eventIDs{},

		seriesEvents: map[uint64]eventIDs{},
		textEvents:   map[uint64]eventIDs{},
		termListed:   map[uint64][]rowKey{},
		venueListed:  map[uint64][]rowKey{},
		placeListed:  map[point][]rowKey{},
		placeCells:   map[cell]*placeCell{},
		scheduled:    map[uint64]int64{},
		dueFrom:      math.MaxInt64,
		keysReady:    true,
		gen:          generations.Add(1),
	}
}

func eventRowOf(e *storage.Event, venue *storage.Venue) (eventRow, eventLinks) {
	local := e.StartUTC
	if w, err := time.Parse("2006-01-02 15:04:05", e.Start); err == nil {
		local = w
	}
	r := eventRow{
		id: e.ID, author: e.Author, status: stateOf(e.Status), trashed: stateOf(e.TrashedFrom), date: e.Date.Unix(),
		startUTC: e.StartUTC.Unix(), startLocal: local.Unix(), hidden: e.HideFromListings || e.FirstExcluded(), featured: e.Featured,
		venue: e.VenueID,
	}
	if venue != nil && venue.Geo != nil {
		r.hasGeo, r.lat, r.lng = true, venue.Geo.Lat, venue.Geo.Lng
	}
	return r, eventLinks{orgs: slices.Clone(e.OrganizerIDs), terms: append(slices.Clone(e.Categories), e.Tags...), parent: e.Parent,
		modified: int64(spanStamp(e.Modified.Unix()))}
}

func placeRowOf(p *storage.Post) *placeRow {
	return &placeRow{id: p.ID, author: p.Author, status: p.Status, trashed: p.TrashedFrom, date: p.Date.Unix()}
}

func compareRows(a, b *eventRow) int { return compareKeys(keyOf(a), keyOf(b)) }

// find returns the position of the row for id, or -1.
func (p *projection) find(id uint64) int {
	ref, ok := p.refs.get(id)
	if !ok {
		return -1
	}
	key := eventRow{id: id, startLocal: ref.startLocal}
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
	if len(puts) > keysPutOneByOne && p.keysReady {
		// Each key put costs a copy of its list: past a few, one pass over every row costs less.
		p.keysReady = false
		defer p.rebuildKeys()
	}
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

// keysPutOneByOne is how many rows putEvents puts into their lists of keys one by one; a larger
// batch (the change log replayed at start-up) has them built again in one pass.
const keysPutOneByOne = 64

// rowListed reports whether a row is listed for anyone (a published event not hidden from listings),
// whoever asks and whenever: what listed holds.
func rowListed(r *eventRow) bool { return r.status == statePublish && !r.hidden }

// rowScheduled reports whether a row is listed once its publication date comes.
func rowScheduled(r *eventRow) bool { return r.status == stateFuture && !r.hidden }

// putKeys records r, with links l, in listed, featuredListed, featured, termListed, venueListed,
// placeListed and scheduled.
func (p *projection) putKeys(r *eventRow, l eventLinks) {
	if rowScheduled(r) {
		p.scheduled[r.id] = r.date
		p.dueFrom = min(p.dueFrom, r.date)
	}
	if !rowListed(r) {
		return
	}
	k := keyOf(r)
	p.listed = insertKey(p.listed, k)
	if r.featured {
		p.featuredListed = insertKey(p.featuredListed, k)
		if p.featured == nil {
			p.featured = &idSet{}
		}
		p.featured.add(r.id)
	}
	for _, t := range l.terms {
		p.termListed[t] = insertKey(p.termListed[t], k)
	}
	if r.venue != 0 {
		p.venueListed[r.venue] = insertKey(p.venueListed[r.venue], k)
	}
	if r.hasGeo {
		at := point{r.lat, r.lng}
		c := p.cellAt(at, 0)
		if len(p.placeListed[at]) == 0 {
			c.points = append(c.points, at)
		}
		p.placeListed[at] = insertKey(p.placeListed[at], k)
		c.keys = insertKey(c.keys, k)
	}
}

// dropKeys forgets what putKeys recorded.
func (p *projection) dropKeys(r *eventRow, l eventLinks) {
	if date, ok := p.scheduled[r.id]; ok {
		delete(p.scheduled, r.id)
		if date == p.dueFrom {
			p.dueFrom = math.MaxInt64
			for _, d := range p.scheduled {
				p.dueFrom = min(p.dueFrom, d)
			}
		}
	}
	if !rowListed(r) {
		return
	}
	k := keyOf(r)
	p.listed = removeKey(p.listed, k)
	if r.featured {
		p.featuredListed = removeKey(p.featuredListed, k)
		p.featured.remove(r.id)
	}
	for _, t := range l.terms {
		removeKeyOf(p.termListed, t, k)
	}
	if r.venue != 0 {
		removeKeyOf(p.venueListed, r.venue, k)
	}
	if r.hasGeo {
		at := point{r.lat, r.lng}
		removeKeyOf(p.placeListed, at, k)
		// A row whose position drifted from its keys, as Check repairs, may name no cell.
		c := p.placeCells[cellOf(at)]
		if c == nil {
			return
		}
		if _, ok := p.placeListed[at]; !ok {
			c.points = slices.DeleteFunc(c.points, func(pt point) bool { return pt == at })
		}
		if c.keys = removeKey(c.keys, k); len(c.keys) == 0 {
			delete(p.placeCells, cellOf(at))
		}
	}
}

// insertKey adds k to the ordered keys, once.
func insertKey(keys []rowKey, k rowKey) []rowKey { return insertSorted(keys, k, compareKeys) }

// insertSorted adds v to the list s ordered by compare, once.
func insertSorted[S ~[]E, E any](s S, v E, compare func(E, E) int) S {
	i, found := slices.BinarySearchFunc(s, v, compare)
	if found {
		return s
	}
	return slices.Insert(s, i, v)
}

// removeKeyOf takes k out of the keys of m at key, and forgets them once empty.
func removeKeyOf[K comparable](m map[K][]rowKey, key K, k rowKey) { removeFrom(m, key, k, compareKeys) }

// removeFrom takes v out of the ordered list of m at key, and forgets the list once empty.
func removeFrom[K comparable, S ~[]E, E any](m map[K]S, key K, v E, compare func(E, E) int) {
	if s := removeSorted(m[key], v, compare); len(s) > 0 {
		m[key] = s
	} else {
		delete(m, key)
	}
}

// clipLists copies every list of m into just the room it needs.
func clipLists[K comparable, S ~[]E, E any](m map[K]S) {
	for key, s := range m {
		m[key] = slices.Clone(s)
	}
}

// removeKey takes k out of the ordered keys, if it is there.
func removeKey(keys []rowKey, k rowKey) []rowKey { return removeSorted(keys, k, compareKeys) }

// removeSorted takes v out of the list s ordered by compare, if it is there.
func removeSorted[S ~[]E, E any](s S, v E, compare func(E, E) int) S {
	if i, found := slices.BinarySearchFunc(s, v, compare); found {
		return slices.Delete(s, i, i+1)
	}
	return s
}

// rebuildKeys fills listed, termListed, venueListed, placeListed and placeCells from the ordered rows,
// with the sets of linked events (linkedSets), and through listRows scheduled and the offsets.
func (p *projection) rebuildKeys() {
	p.listRows()
	p.termListed, p.venueListed, p.placeListed = map[uint64][]rowKey{}, map[uint64][]rowKey{}, map[point][]rowKey{}
	for _, sets := range p.linkedSets() {
		*sets = map[uint64]eventIDs{}
	}
	for i := range p.events {
		r := &p.events[i]
		l := p.linksOf(r.id)
		p.eachSet(r, l, func(sets map[uint64]eventIDs, key uint64) { sets[key] = append(sets[key], r.id) })
		if !rowListed(r) {
			continue
		}
		k := keyOf(r)
		for _, t := range l.terms {
			// A term named twice by one event is listed once.
			if keys := p.termListed[t]; len(keys) == 0 || keys[len(keys)-1] != k {
				p.termListed[t] = append(keys, k)
			}
		}
		if r.venue != 0 {
			p.venueListed[r.venue] = append(p.venueListed[r.venue], k)
		}
		if r.hasGeo {
			at := point{r.lat, r.lng}
			p.placeListed[at] = append(p.placeListed[at], k)
		}
	}
	// The sets were gathered in the rows' order, by start, and an event naming a term twice is in
	// its set once.
	for _, sets := range p.linkedSets() {
		for key, ids := range *sets {
			slices.Sort(ids)
			(*sets)[key] = slices.Compact(ids)
		}
		clipLists(*sets)
	}
	// Appending left up to twice the room each list needs, 60 MB for the terms' at 1M events.
	clipLists(p.termListed)
	clipLists(p.venueListed)
	clipLists(p.placeListed)
	p.buildCells()
	p.keysReady = true
	p.gen = generations.Add(1)
}

// listRows fills listed, featuredListed, featured, scheduled, dueFrom and the offsets from the
// ordered rows: one pass over the rows alone derives them, so a saved projection does not hold them.
func (p *projection) listRows() {
	p.listed, p.featuredListed, p.featured = prefault(make([]rowKey, 0, len(p.events))), nil, &idSet{}
	p.scheduled, p.dueFrom = map[uint64]int64{}, math.MaxInt64
	p.minOffset, p.maxOffset = 0, 0
	for i := range p.events {
		r := &p.events[i]
		p.widenOffsets(r)
		if rowListed(r) {
			p.listed = append(p.listed, keyOf(r))
			if r.featured {
				p.featuredListed = append(p.featuredListed, keyOf(r))
				p.featured.add(r.id)
			}
		} else if rowScheduled(r) {
			p.scheduled[r.id] = r.date
			p.dueFrom = min(p.dueFrom, r.date)
		}
	}
}

// listedAt returns the positions in listed of the listed rows among the IDs of set. A few IDs are
// looked up one by one; past one in candidateShare of the listed rows, as candidates would be, it
// costs less to visit every listed row and probe set as a bitset.
func (p *projection) listedAt(set *roaring64.Bitmap) *roaring.Bitmap {
	at := roaring.New()
	if int(set.GetCardinality())*candidateShare <= len(p.listed) {
		for it := set.Iterator(); it.HasNext(); {
			if r := p.event(it.Next()); r != nil && rowListed(r) {
				i, _ := slices.BinarySearchFunc(p.listed, keyOf(r), compareKeys)
				at.Add(uint32(i))
			}
		}
	} else {
		bits := bitsOf(set)
		for i, k := range p.listed {
			if bits.Contains(k.id) {
				at.Add(uint32(i))
			}
		}
	}
	at.RunOptimize()
	return at
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

// link records an event row's ref, with its links l, and its keys.
func (p *projection) link(r *eventRow, l eventLinks) {
	p.gen = generations.Add(1)
	p.widenOffsets(r)
	p.setRef(r.id, r.startLocal, l)
	if p.keysReady {
		p.putKeys(r, l)
		p.eachSet(r, l, func(sets map[uint64]eventIDs, key uint64) { sets[key] = insertSorted(sets[key], r.id, cmp.Compare) })
	}
}

// unlink forgets what link recorded for an event row.
func (p *projection) unlink(r *eventRow) {
	p.gen = generations.Add(1)
	l := p.linksOf(r.id)
	if p.keysReady {
		p.dropKeys(r, l)
		p.eachSet(r, l, func(sets map[uint64]eventIDs, key uint64) { removeFrom(sets, key, r.id, cmp.Compare) })
	}
	p.dropRef(r.id)
}

// linksOf returns the links of event id, none when p has no such event. Their lists are p's, to read
// only; a later change to p's links leaves them as they are.
func (p *projection) linksOf(id uint64) eventLinks {
	s, _ := p.refs.get(id)
	mid, end := s.off+s.orgs, s.off+s.orgs+s.terms
	return eventLinks{orgs: p.linkIDs[s.off:mid:mid], terms: p.linkIDs[mid:end:end], parent: s.parent, modified: int64(s.modified)}
}

// setRef records the ref of event id: its row's local start, and l as its links. The lists are
// copied to the end of linkIDs, and those they replace left where they are, until they are half of it
// (compactLinks).
func (p *projection) setRef(id uint64, startLocal int64, l eventLinks) {
	if old, ok := p.refs.get(id); ok {
		p.linkGarbage += int(old.orgs + old.terms)
	}
	off := len(p.linkIDs)
	p.linkIDs = append(append(p.linkIDs, l.orgs...), l.terms...)
	p.refs.put(eventRef{id: id, startLocal: startLocal, linkSpan: spanOf(uint32(off), l)})
	if p.linkGarbage > len(p.linkIDs)/2 {
		p.compactLinks()
	}
}

// spanOf is the span of links l whose IDs lie in linkIDs from off.
func spanOf(off uint32, l eventLinks) linkSpan {
	return linkSpan{parent: l.parent, off: off, orgs: uint32(len(l.orgs)), terms: uint32(len(l.terms)), modified: spanStamp(l.modified)}
}

// dropRef forgets event id's ref and links, if any.
func (p *projection) dropRef(id uint64) {
	if s, ok := p.refs.delete(id); ok {
		p.linkGarbage += int(s.orgs + s.terms)
	}
}

// compactLinks copies the lists of every event's links into a new linkIDs, without the garbage. A new
// one, not the old one rewritten: lists linksOf returned before stay as they were.
func (p *projection) compactLinks() {
	ids := make([]uint64, 0, len(p.linkIDs)-p.linkGarbage)
	for s := range p.refs.all() {
		n := s.orgs + s.terms
		ids = append(ids, p.linkIDs[s.off:s.off+n]...)
		s.off = uint32(len(ids)) - n
	}
	p.linkIDs, p.linkGarbage = ids, 0
}

// eachSet calls f for every set of linked events an event row with links l belongs in: with the
// field of p that holds that kind of set, and the key of the set.
func (p *projection) eachSet(r *eventRow, l eventLinks, f func(sets map[uint64]eventIDs, key uint64)) {
	if r.venue != 0 {
		f(p.venueEvents, r.venue)
	}
	for _, o := range l.orgs {
		f(p.orgEvents, o)
	}
	for _, t := range l.terms {
		f(p.termEvents, t)
	}
	if l.parent != 0 {
		f(p.seriesEvents, l.parent)
		if r.sharesText {
			f(p.textEvents, l.parent)
		}
	}
}

// linkedSets are the fields of p holding sets of linked events, each filled through eachSet.
func (p *projection) linkedSets() []*map[uint64]eventIDs {
	return []*map[uint64]eventIDs{&p.venueEvents, &p.orgEvents, &p.termEvents, &p.seriesEvents, &p.textEvents}
}

// appendLoaded adds a row of a full load, whose rows come in no order: sort orders them once all are
// in, and builds the keys then.
func (p *projection) appendLoaded(r eventRow, l eventLinks) {
	p.keysReady = false
	p.events = append(p.events, r)
	p.link(&r, l)
}

// sort orders rows appended by a full load.
func (p *projection) sort() {
	slices.SortFunc(p.events, func(a, b eventRow) int { return compareRows(&a, &b) })
	p.rebuildKeys()
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

// widenOffsets widens minOffset and maxOffset to the offset of r.
func (p *projection) widenOffsets(r *eventRow) {
	off := r.startLocal - r.startUTC
	p.minOffset, p.maxOffset = min(p.minOffset, off), max(p.maxOffset, off)
}

// span is the date window [lo, hi], in UTC seconds, with the bounds of p's offsets.
func (p *projection) span(lo, hi int64) window {
	return window{lo: lo, hi: hi, minOffset: p.minOffset, maxOffset: p.maxOffset}
}

// window returns the rows whose local start can fall within w: the caller checks startUTC.
func (p *projection) window(w window) []eventRow {
	from, _ := slices.BinarySearchFunc(p.events, w.lo+w.minOffset, func(r eventRow, t int64) int { return cmp.Compare(r.startLocal, t) })
	to, _ := slices.BinarySearchFunc(p.events, w.hi+w.maxOffset+1, func(r eventRow, t int64) int { return cmp.Compare(r.startLocal, t) })
	if to < from { // lo after hi: an empty window, not an error (docs/API.md "Events list parameters")
		return nil
	}
	return p.events[from:to]
}
