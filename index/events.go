package index

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Events answers an events list.
func (ix *Index) Events(ctx context.Context, f *EventFilter) (Page, error) {
	l := ix.langs[f.Lang]
	v := ix.Version()
	return l.answer(ctx, f.Search, v, func(text *roaring64.Bitmap, typos bool) (Page, error) {
		var rel *relevance
		if f.Order == OrderRelevance {
			var err error
			if rel, err = l.relevance(ctx, f.Search, v, typos); err != nil {
				return Page{}, err
			}
		}
		return l.events(f, text, rel), nil
	})
}

// events pages the events of f that text allows, ranked by rel under OrderRelevance.
func (l *lang) events(f *EventFilter, text *roaring64.Bitmap, rel *relevance) Page {
	l.mu.RLock()
	defer l.mu.RUnlock()
	textAt := func() *roaring.Bitmap {
		if at := l.texts.listedAt(text, l.proj.gen); at != nil {
			return at
		}
		at := l.proj.listedAt(text)
		l.texts.putListedAt(text, l.proj.gen, at)
		return at
	}
	page, ok := l.proj.listedPage(f, text, textAt, l.union)
	if !ok {
		page = l.proj.scanPage(f, text, rel)
	}
	page.Distances = l.proj.distances(f.Geo, page.IDs)
	return page
}

// scanPage pages the events of f that text allows by visiting rows: those of the ID filters' and the
// search's candidates when they are few, else every row of the date window. Rows are visited by
// start: a list in another order takes every matched row and sorts them (scan.sort).
func (p *projection) scanPage(f *EventFilter, text *roaring64.Bitmap, rel *relevance) Page {
	rows := p.events
	if len(f.Include) == 0 {
		rows = p.window(p.span(f.Start.Unix(), f.End.Unix()))
	}
	if ids := p.candidates(f, text, len(rows)); ids != nil {
		c := compile(f, nil, p, false)
		c.rel = rel
		defer c.done()
		return c.page(p.rowsOf(ids))
	}
	c := compile(f, bitsOf(text), p, true)
	c.rel = rel
	defer c.done()
	inOrder := f.inOrder()
	var matched []*eventRow
	count := 0
	for i := range rows {
		r := &rows[i]
		if !c.matches(r) {
			continue
		}
		c.tallied(r)
		if inOrder && c.repeats(r) {
			continue
		}
		if !inOrder {
			matched = append(matched, r)
		} else if count >= f.Offset && count < f.Offset+f.Limit {
			matched = append(matched, r)
		}
		count++
	}
	if !inOrder {
		c.sort(matched, f.Offset+f.Limit)
		matched = slices.DeleteFunc(matched, c.repeats)
		count = len(matched)
		matched = matched[min(f.Offset, len(matched)):min(f.Offset+f.Limit, len(matched))]
	}
	page := Page{Total: count, IDs: make([]uint64, len(matched)), Facets: c.facets()}
	for i, r := range matched {
		page.IDs[i] = r.id
	}
	return page
}

// keyFilter is one filter of a list answered from keys (listedPage): lists, whose union holds the
// position keys of the listed rows the filter allows, and sets, whose union holds every event it
// allows. size is how many keys its lists hold within the window, or for a search, whose listed rows
// are only found when it leads (textAt), how many records it matched. disjoint says that no key is in
// two of its lists (a row has one venue and one position), so that they are counted one by one; a
// geo filter has no sets (its rows are told by their position) and only ever leads.
type keyFilter struct {
	lists    [][]rowKey
	sets     []members
	size     int
	disjoint bool
}

// listedPage answers f from the keys of the listed rows, when it can: a filter keyable accepts (the
// front page of a calendar, of each category, tag and venue, a search, a geo filter, the featured
// events, and their combinations), while no scheduled row is due (dueFrom). At 1M events visiting their windows' rows was most of their cost. The filter with the
// fewest keys within the window leads, and the others test its rows by event ID; a search leads with
// the positions of its listed rows in listed (textAt: remembered beside its matches, or found, at
// about the cost of one scan, and remembered), and several terms (a category with its subcategories)
// whose windows hold many keys with their union (unionOf). A geo filter that would not lead leaves
// the list to the scan, which tests positions row by row.
func (p *projection) listedPage(f *EventFilter, text *roaring64.Bitmap, textAt func() *roaring.Bitmap, unionOf func(ids []uint64) *termUnion) (Page, bool) {
	if !f.keyable() || f.Now.Unix() >= p.dueFrom || !p.keysReady {
		return Page{}, false
	}
	w := p.span(f.Start.Unix(), f.End.Unix())
	if w.hi < w.lo {
		return Page{IDs: []uint64{}}, true // an empty window, not an error (docs/API.md "Events list parameters")
	}
	var filters []keyFilter
	for _, by := range []struct {
		ids      []uint64
		lists    map[uint64][]rowKey
		sets     map[uint64]eventIDs
		disjoint bool
	}{{f.Categories, p.termListed, p.termEvents, false}, {f.Tags, p.termListed, p.termEvents, false},
		{f.Venues, p.venueListed, p.venueEvents, true}} {
		if len(by.ids) == 0 {
			continue
		}
		ids := slices.Compact(slices.Sorted(slices.Values(by.ids))) // an ID named twice counts once
		kf := keyFilter{disjoint: by.disjoint}
		for _, id := range ids {
			keys := w.keys(by.lists[id])
			kf.lists, kf.size = append(kf.lists, keys), kf.size+len(keys)
			if set := by.sets[id]; len(set) > 0 {
				kf.sets = append(kf.sets, set)
			}
		}
		if len(ids) > 1 && !by.disjoint && kf.size >= unionFrom {
			kf = unionOf(ids).filter(w)
		}
		filters = append(filters, kf)
	}
	if f.Featured != nil {
		keys := w.keys(p.featuredListed)
		filters = append(filters, keyFilter{lists: [][]rowKey{keys}, sets: []members{p.featured}, size: len(keys)})
	}
	geo := -1
	if f.Geo != nil {
		geo = len(filters)
		if f.byDistance() {
			filters = append(filters, keyFilter{}) // it leads: pageNearest takes the circle's positions
		} else {
			filters = append(filters, p.placeFilter(f.Geo, w))
		}
	}
	if text != nil {
		filters = append(filters, keyFilter{sets: []members{text}, size: int(text.GetCardinality())})
	}
	if len(filters) == 0 {
		return p.pageKeys([][]rowKey{w.keys(p.listed)}, false, nil, w, f), true
	}
	lead := 0
	for i, kf := range filters {
		if kf.size < filters[lead].size {
			lead = i
		}
	}
	if f.byDistance() {
		lead = geo // the order is the positions'
	}
	if geo >= 0 && lead != geo {
		return Page{}, false
	}
	var tests [][]members
	for i, kf := range filters {
		if i != lead {
			tests = append(tests, kf.sets)
		}
	}
	if f.byDistance() {
		return p.pageNearest(f.Geo, tests, w, f), true
	}
	if filters[lead].lists == nil {
		return p.pageAt(textAt(), tests, w, f), true
	}
	return p.pageKeys(filters[lead].lists, filters[lead].disjoint, tests, w, f), true
}

// placeFilter is the geo filter g as keys within w: the lists of the cells of positions wholly within
// its circle, and of the positions it allows in the cells its edge crosses, tested as the scan tests
// a row's (scan.near). At 1M events a circle of 25 km around London held ~1,000 positions, whose
// lists each cost a few binary searches and a place in pageKeys' merge.
func (p *projection) placeFilter(g *Geo, w window) keyFilter {
	kf := keyFilter{disjoint: true}
	add := func(keys []rowKey) {
		if keys = w.keys(keys); len(keys) > 0 {
			kf.lists, kf.size = append(kf.lists, keys), kf.size+len(keys)
		}
	}
	var b *box
	if g.Point {
		b = boxAround(g.Lat, g.Lng, g.RadiusKm)
	}
	for at, c := range p.placeCells {
		// reaches first: a cell wholly within the circle is within reach, and most cells of the map
		// are far out of it, which reaches tells at the cost of a subtraction where holds computes
		// four distances.
		switch {
		case b == nil:
			add(c.keys)
		case !b.reaches(at):
		case b.holds(at):
			add(c.keys)
		default:
			for _, pt := range c.points {
				if b.near(pt.lat, pt.lng) {
					add(p.placeListed[pt])
				}
			}
		}
	}
	if kf.lists == nil {
		kf.lists = [][]rowKey{} // leads with nothing to list, never with a search's positions
	}
	return kf
}

// pageNearest pages the rows of f's window at the positions within g's circle that every test
// allows, nearest first (farthest with Desc), ties by local start then ID, as the scan sorts them
// (scan.key): one distance per position, and each position's keys are already in start order, where
// the scan measured and sorted every row of the window. Positions at the same distance are merged;
// past the page, with nothing to test, a position's rows are counted by binary searches.
func (p *projection) pageNearest(g *Geo, tests [][]members, w window, f *EventFilter) Page {
	type place struct {
		km   float64
		keys []rowKey
	}
	var places []place
	b := boxAround(g.Lat, g.Lng, g.RadiusKm)
	for at, c := range p.placeCells {
		if !b.reaches(at) {
			continue
		}
		all := b.holds(at)
		for _, pt := range c.points {
			if all || b.near(pt.lat, pt.lng) {
				if keys := w.keys(p.placeListed[pt]); len(keys) > 0 {
					places = append(places, place{Distance(g.Lat, g.Lng, pt.lat, pt.lng), keys})
				}
			}
		}
	}
	slices.SortFunc(places, func(a, b place) int {
		if f.Desc {
			a, b = b, a
		}
		return cmp.Compare(a.km, b.km)
	})
	page := Page{IDs: []uint64{}}
	for i := 0; i < len(places); {
		j := i + 1
		for j < len(places) && places[j].km == places[i].km {
			j++
		}
		switch {
		case len(tests) == 0 && page.Total >= f.Offset+f.Limit:
			// Past the page, and nothing to test: counted, not visited.
			for _, pl := range places[i:j] {
				page.Total += w.count(p, pl.keys)
			}
		case j == i+1:
			for _, k := range places[i].keys {
				p.count(&page, k, w, tests, f)
			}
		default:
			lists := make([][]rowKey, 0, j-i)
			for _, pl := range places[i:j] {
				lists = append(lists, pl.keys)
			}
			m := newKeyMerge(lists)
			for k, ok := m.next(); ok; k, ok = m.next() {
				p.count(&page, k, w, tests, f)
			}
		}
		i = j
	}
	return page
}

// window is a list's date window, [lo, hi] in UTC seconds, with the bounds of the offsets of the
// rows it is applied to (projection.span). Keys are ordered by local start, which a row's zone moves
// by its offset from UTC: a key far enough inside the window starts within it whatever its offset,
// and only those near its ends are tested one by one (has).
type window struct{ lo, hi, minOffset, maxOffset int64 }

// bounds returns the positions in keys of the keys whose local start can fall within w: [from, to).
func (w window) bounds(keys []rowKey) (from, to int) {
	from = keyAt(keys, w.lo+w.minOffset)
	return from, max(keyAt(keys, w.hi+w.maxOffset+1), from)
}

// keys returns the keys whose local start can fall within w.
func (w window) keys(keys []rowKey) []rowKey {
	from, to := w.bounds(keys)
	return keys[from:to]
}

// core returns the positions in keys (within w.keys) of the keys surely within w: [from, to).
func (w window) core(keys []rowKey) (from, to int) {
	from = keyAt(keys, w.lo+w.maxOffset)
	return from, max(keyAt(keys, w.hi+w.minOffset+1), from)
}

// has reports whether the row of k starts within w.
func (w window) has(p *projection, k rowKey) bool {
	if k.startLocal >= w.lo+w.maxOffset && k.startLocal <= w.hi+w.minOffset {
		return true
	}
	r := p.event(k.id)
	return r != nil && r.startUTC >= w.lo && r.startUTC <= w.hi
}

// keyAt is the position of the first key starting at t or later.
func keyAt(keys []rowKey, t int64) int {
	i, _ := slices.BinarySearchFunc(keys, t, func(k rowKey, t int64) int { return cmp.Compare(k.startLocal, t) })
	return i
}

// edgesAndCore pages a window whose rows are, in order, the IDs low, core rows named by coreID, and the
// IDs high.
func edgesAndCore(low []uint64, core int, coreID func(i int) uint64, high []uint64, f *EventFilter) Page {
	page := Page{Total: len(low) + core + len(high), IDs: []uint64{}}
	for k := f.Offset; k < min(f.Offset+f.Limit, page.Total); k++ {
		switch {
		case k < len(low):
			page.IDs = append(page.IDs, low[k])
		case k < len(low)+core:
			page.IDs = append(page.IDs, coreID(k-len(low)))
		default:
			page.IDs = append(page.IDs, high[k-len(low)-core])
		}
	}
	return page
}

// pageKeys pages the rows of f's window among the union of lists (each ordered, within w.keys)
// that every test allows: a test is a union of sets of event IDs. Without tests, one list is counted
// by two binary searches and paged by position, and disjoint lists are counted each so and paged by
// merging their first rows; otherwise the rows of every list are visited in order.
func (p *projection) pageKeys(lists [][]rowKey, disjoint bool, tests [][]members, w window, f *EventFilter) Page {
	if len(lists) == 1 && len(tests) == 0 {
		keys := lists[0]
		coreFrom, coreTo := w.core(keys)
		core := keys[coreFrom:coreTo]
		return edgesAndCore(w.edge(p, keys[:coreFrom]), len(core), func(i int) uint64 { return core[i].id }, w.edge(p, keys[coreTo:]), f)
	}
	page := Page{IDs: []uint64{}}
	m := newKeyMerge(lists)
	if disjoint && len(tests) == 0 {
		for _, keys := range lists {
			page.Total += w.count(p, keys)
		}
		for at := 0; at < f.Offset+f.Limit; {
			k, ok := m.next()
			if !ok {
				break
			}
			if w.has(p, k) {
				if at >= f.Offset {
					page.IDs = append(page.IDs, k.id)
				}
				at++
			}
		}
		return page
	}
	for k, ok := m.next(); ok; k, ok = m.next() {
		p.count(&page, k, w, tests, f)
	}
	return page
}

// count counts the rows of keys (within w.keys) that start within w: those surely within by two
// binary searches, those near its ends one by one.
func (w window) count(p *projection, keys []rowKey) int {
	coreFrom, coreTo := w.core(keys)
	return coreTo - coreFrom + len(w.edge(p, keys[:coreFrom])) + len(w.edge(p, keys[coreTo:]))
}

// edge returns the IDs of the rows of keys that start within w, of keys near its ends.
func (w window) edge(p *projection, keys []rowKey) []uint64 {
	var ids []uint64
	for _, k := range keys {
		if w.has(p, k) {
			ids = append(ids, k.id)
		}
	}
	return ids
}

// pageAt pages the rows of f's window among the listed rows at the positions at holds that every
// test allows. Without tests the rows surely within the window are counted by two ranks and paged by
// selecting their positions.
func (p *projection) pageAt(at *roaring.Bitmap, tests [][]members, w window, f *EventFilter) Page {
	from, to := w.bounds(p.listed)
	visit := func(from, to int, each func(k rowKey)) {
		it := at.Iterator()
		it.AdvanceIfNeeded(uint32(from))
		for it.HasNext() {
			i := int(it.Next())
			if i >= to {
				return
			}
			each(p.listed[i])
		}
	}
	if len(tests) > 0 {
		page := Page{IDs: []uint64{}}
		visit(from, to, func(k rowKey) { p.count(&page, k, w, tests, f) })
		return page
	}
	coreFrom, coreTo := w.core(p.listed[from:max(from, to)])
	coreFrom, coreTo = from+coreFrom, from+coreTo
	edge := func(from, to int) []uint64 {
		var ids []uint64
		visit(from, to, func(k rowKey) {
			if w.has(p, k) {
				ids = append(ids, k.id)
			}
		})
		return ids
	}
	before := rankBelow(at, coreFrom)
	core := int(rankBelow(at, coreTo) - before)
	return edgesAndCore(edge(from, coreFrom), core, func(i int) uint64 {
		pos, _ := at.Select(uint32(before) + uint32(i)) // within the core's count: always found
		return p.listed[pos].id
	}, edge(coreTo, to), f)
}

// rankBelow counts the positions at holds below i.
func rankBelow(at *roaring.Bitmap, i int) uint64 {
	if i == 0 {
		return 0
	}
	return at.Rank(uint32(i - 1))
}

// count counts the row of k on page when it starts within w and every test allows it, and lists it
// when it falls within f's page.
func (p *projection) count(page *Page, k rowKey, w window, tests [][]members, f *EventFilter) {
	if !w.has(p, k) || !allows(tests, k.id) {
		return
	}
	if page.Total >= f.Offset && page.Total < f.Offset+f.Limit {
		page.IDs = append(page.IDs, k.id)
	}
	page.Total++
}

// candidateShare sets when candidates beat a scan: a candidate costs a map lookup and a binary search
// (a few hundred nanoseconds, more as the projection grows), a scanned row two or three, so past
// 1/96 of the window the scan is cheaper (BenchmarkListEvents with a tag at 100k and 1M: the scan
// takes 150 µs instead of 190 at 100k, 1.3 ms instead of 4.0 at 1M). Tests lower it to 1 to send
// every eligible query through the candidates.
var candidateShare = 96

// candidates returns the IDs of the events that pass every ID-based filter (include, venue,
// organizer, category, tag, and the records text matched) when they are fewer than the window holds
// rows, so that only those are visited; nil means "scan the window". Every other filter is still
// checked on each candidate. The filter with the fewest IDs, or the search, leads: its IDs are tested
// against the others'.
func (p *projection) candidates(f *EventFilter, text *roaring64.Bitmap, window int) []uint64 {
	var filters [][]eventIDs // each allows the union of its sets
	if len(f.Include) > 0 {
		filters = append(filters, []eventIDs{slices.Compact(slices.Sorted(slices.Values(f.Include)))})
	}
	for _, filter := range []struct {
		ids   []uint64
		links map[uint64]eventIDs
	}{{f.Venues, p.venueEvents}, {f.Orgs, p.orgEvents}, {f.Categories, p.termEvents}, {f.Tags, p.termEvents},
		{nonZero(f.Parent), p.seriesEvents}} {
		if len(filter.ids) == 0 {
			continue
		}
		parts := []eventIDs{}
		for _, id := range filter.ids {
			if set := filter.links[id]; len(set) > 0 {
				parts = append(parts, set)
			}
		}
		filters = append(filters, parts)
	}
	if len(filters) == 0 && text == nil {
		return nil
	}
	leader := -1
	for i, parts := range filters {
		if leader < 0 || size(parts) < size(filters[leader]) {
			leader = i
		}
	}
	// atLeast is how many candidates there are surely when nothing tests the lead's IDs: all of a
	// search's matches, or the IDs of a filter's largest set.
	atLeast := 0
	if text != nil && (leader < 0 || int(text.GetCardinality()) < size(filters[leader])) {
		leader, atLeast = -1, int(text.GetCardinality())
	} else {
		for _, set := range filters[leader] {
			atLeast = max(atLeast, len(set))
		}
	}
	untested := leader < 0 && len(filters) == 0 || leader >= 0 && len(filters) == 1 && text == nil
	if untested && atLeast*candidateShare > window {
		return nil // without building the union of a large filter's sets (a category and its children)
	}
	var lead []uint64
	var tests [][]members
	if leader < 0 {
		lead = text.ToArray()
	} else {
		lead = union(filters[leader])
		if text != nil {
			tests = append(tests, []members{text})
		}
	}
	for i, parts := range filters {
		if i != leader {
			tests = append(tests, []members{tester(parts, len(lead))})
		}
	}
	ids := []uint64{}
	for _, id := range lead {
		if allows(tests, id) {
			ids = append(ids, id)
		}
	}
	if len(ids)*candidateShare > window {
		return nil
	}
	return ids
}

// rowsOf finds the rows of ids.
func (p *projection) rowsOf(ids []uint64) []*eventRow {
	out := make([]*eventRow, 0, len(ids))
	for _, id := range ids {
		if r := p.event(id); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// page filters candidate rows and orders them as a scan of the window would (scan.sort).
func (c *scan) page(rows []*eventRow) Page {
	matched := rows[:0]
	for _, r := range rows {
		if c.matches(r) {
			c.tallied(r)
			matched = append(matched, r)
		}
	}
	c.sort(matched, c.Offset+c.Limit)
	matched = slices.DeleteFunc(matched, c.repeats)
	page := Page{Total: len(matched), IDs: []uint64{}, Facets: c.facets()}
	for _, r := range matched[min(c.Offset, len(matched)):min(c.Offset+c.Limit, len(matched))] {
		page.IDs = append(page.IDs, r.id)
	}
	return page
}

// scan is an EventFilter prepared for a scan over every row of a window: the ID filters as sets of
// event IDs and the geo test's bounding box, computed once instead of once per row.
type scan struct {
	*EventFilter
	bounded                                   bool
	start, end                                int64
	include, venues, orgs, cats, tags, series *idSet
	text                                      *idSet
	box                                       *box
	// refs are the projection's, for the series of a row (Collapse) and its modified stamp
	// (OrderModified), and seen the series listed.
	refs *eventRefs
	seen *idSet
	// tally counts the facets of the rows matched, when f asks for them.
	tally *tally
	// rel ranks the rows under OrderRelevance.
	rel *relevance
}

// compile prepares f for the rows of projection p. Without sets the ID filters are left out: the
// caller visits only candidates that pass them.
func compile(f *EventFilter, text *idSet, p *projection, sets bool) *scan {
	c := &scan{EventFilter: f, bounded: len(f.Include) == 0, start: f.Start.Unix(), end: f.End.Unix(), text: text}
	if sets {
		c.include, c.venues = setOf(f.Include), setOf(f.Venues)
		c.orgs, c.cats, c.tags = linked(p.orgEvents, f.Orgs), linked(p.termEvents, f.Categories), linked(p.termEvents, f.Tags)
		c.series = linked(p.seriesEvents, nonZero(f.Parent))
	}
	if f.Collapse {
		c.refs, c.seen = &p.refs, &idSet{}
	}
	if f.Facets != nil {
		c.tally = newTally(f.Facets, p, f.Collapse)
	}
	if f.Order == OrderModified {
		c.refs = &p.refs
	}
	if f.Geo != nil && f.Geo.Point {
		c.box = boxAround(f.Geo.Lat, f.Geo.Lng, f.Geo.RadiusKm)
		c.box.seen = seenTables.Get().(*[1 << seenBits]seenPoint) // a scan meets a venue's position in each of its events
	}
	return c
}

// seenTables holds the tables of positions of scans done (box.seen), cleared, for the next: allocated
// for each scan with a geo filter, they were 4 % of the bytes the 50-client mix allocated at 100k
// events (docs/BENCHMARKS.md, section "Lists, per query").
var seenTables = sync.Pool{New: func() any { return new([1 << seenBits]seenPoint) }}

// done returns what c borrowed (its table of positions); c is not used after.
func (c *scan) done() {
	if c.box != nil && c.box.seen != nil {
		clear(c.box.seen[:])
		seenTables.Put(c.box.seen)
		c.box.seen = nil
	}
}

func (c *scan) matches(r *eventRow) bool {
	switch {
	case r.hidden:
		return false
	case c.bounded && (r.startUTC < c.start || r.startUTC > c.end):
		return false
	case c.include != nil && !c.include.Contains(r.id):
		return false
	case c.Featured != nil && r.featured != *c.Featured:
		return false
	case c.venues != nil && !c.venues.Contains(r.venue):
		return false
	case c.orgs != nil && !c.orgs.Contains(r.id):
		return false
	case c.cats != nil && !c.cats.Contains(r.id):
		return false
	case c.tags != nil && !c.tags.Contains(r.id):
		return false
	case c.series != nil && !c.series.Contains(r.id):
		return false
	case c.Geo != nil && !c.near(r):
		return false
	case c.text != nil && !c.text.Contains(r.id):
		return false
	case c.Statuses == nil && r.status == statePublish:
		return true // the common case, without a call
	}
	return c.allows(r.author, r.status.status(), r.trashed.status(), r.date, c.Now)
}

// repeats reports, with Collapse, whether r belongs to a series already listed, rows being visited in
// list order; it records r's series otherwise. A series is known by its parent's ID.
func (c *scan) repeats(r *eventRow) bool {
	if !c.Collapse {
		return false
	}
	series := r.id
	if ref, _ := c.refs.get(r.id); ref.parent != 0 {
		series = ref.parent
	}
	if c.seen.Contains(series) {
		return true
	}
	c.seen.add(series)
	return false
}

// tallied counts the facets of r, a row matched, when the list asks for them.
func (c *scan) tallied(r *eventRow) {
	if c.tally != nil {
		c.tally.add(r)
	}
}

// facets returns the facet counts of the rows matched, nil when the list asks for none.
func (c *scan) facets() *FacetCounts {
	if c.tally == nil {
		return nil
	}
	return c.tally.done()
}

func nonZero(id uint64) []uint64 {
	if id == 0 {
		return nil
	}
	return []uint64{id}
}

// near applies the geo filter: coordinates required, and with a point, the distance.
func (c *scan) near(r *eventRow) bool {
	return r.hasGeo && (!c.Geo.Point || c.box.near(r.lat, r.lng))
}
