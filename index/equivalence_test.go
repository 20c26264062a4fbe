package index

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/richtext"
)

// --- the brute-force reading of docs/API.md "Lists", independent of the index's own code ---

func readable(a storage.Actor, p *storage.Post, statuses []storage.Status) bool {
	status := p.Status
	if statuses != nil {
		if !slices.Contains(statuses, status) {
			return false
		}
	} else {
		if status == storage.StatusTrash {
			return false
		}
		if status != storage.StatusPublish && !a.Can(storage.CapEditPosts) {
			return false
		}
	}
	return a.CanRead(p)
}

type token struct {
	term string
	pos  int
}

// fieldTokens analyses each searched field on its own: words, not markup.
func fieldTokens(l *lang, analyzer string, fields []string) [][]token {
	var out [][]token
	for _, f := range fields {
		out = append(out, tokens(l, analyzer, richtext.StripTags(f)))
	}
	return out
}

// tokens analyses text as it is (a search term is plain text, even when it looks like markup).
func tokens(l *lang, analyzer, text string) []token {
	var toks []token
	for _, tk := range l.mapping.AnalyzerNamed(analyzer).Analyze([]byte(text)) {
		toks = append(toks, token{string(tk.Term), tk.Position})
	}
	return toks
}

// textMatch is docs/API.md "Events list parameters"'s search rule read literally; with typos, the typo tolerance: each of
// the first maxTypoTerms words of the search that are not negated nor in a phrase also matches the
// stemmed words within typoEdits of its stem, and the folded words beginning within typoEdits of it.
func textMatch(l *lang, fields []string, search string, typos bool) bool {
	stemmed := fieldTokens(l, analyzerText, fields)
	folded := fieldTokens(l, analyzerPrefix, fields)
	widened := 0
	for _, term := range parseSearch(search) {
		q := tokens(l, analyzerText, term.text)
		if len(q) == 0 {
			continue // stop words only
		}
		found := false
		if len(q) == 1 && !term.phrase {
			p := tokens(l, analyzerPrefix, term.text)
			edits := 0
			if typos && !term.negated && len(p) == 1 && widened < maxTypoTerms {
				edits = typoEdits(p[0].term)
			}
			if edits > 0 {
				widened++
			}
			for _, field := range stemmed {
				for _, tk := range field {
					found = found || tk.term == q[0].term || edits > 0 && osaDistance(tk.term, q[0].term) <= edits
				}
			}
			if len(p) == 1 && len([]rune(p[0].term)) >= 2 {
				// A term longer than maxPrefixRunes stands for its first maxPrefixRunes characters.
				prefix := string([]rune(p[0].term)[:min(len([]rune(p[0].term)), maxPrefixRunes)])
				for _, field := range folded {
					for _, tk := range field {
						found = found || strings.HasPrefix(tk.term, prefix)
						word := []rune(tk.term)
						for n := 2; edits > 0 && n <= min(len(word), maxPrefixRunes); n++ {
							found = found || osaDistance(string(word[:n]), prefix) <= edits
						}
					}
				}
			}
		} else {
			for _, field := range stemmed {
				found = found || phraseIn(field, q)
			}
		}
		if found == term.negated {
			return false
		}
	}
	return true
}

// widens reports whether search has a word that typo tolerance widens: not negated, not in a phrase,
// of one stemmed word, at least 5 letters long.
func widens(l *lang, search string) bool {
	for _, term := range parseSearch(search) {
		p := tokens(l, analyzerPrefix, term.text)
		if !term.negated && !term.phrase && len(tokens(l, analyzerText, term.text)) == 1 && len(p) == 1 && typoEdits(p[0].term) > 0 {
			return true
		}
	}
	return false
}

// bruteRank is the rank of docs/API.md "Ordering" read literally, packed as relevance.rank packs
// it: of the terms of search not negated and not only stop words, how many the title holds, how many
// e holds exactly (a phrase always is), and how many as typed, with typo tolerance when typos (for
// the first maxTypoTerms words that typo tolerance widens, as textMatch reads them).
func bruteRank(l *lang, e *storage.Event, search string, typos bool) int {
	fields := []string{e.Title, e.Excerpt, e.Description}
	title, exact, typed, widened := 0, 0, 0, 0
	for _, term := range parseSearch(search) {
		q := tokens(l, analyzerText, term.text)
		if term.negated || len(q) == 0 {
			continue
		}
		one := term.text
		if term.phrase {
			one = `"` + one + `"`
		}
		widen := typos && widened < maxTypoTerms && widens(l, one)
		if widen {
			widened++
		}
		if textMatch(l, []string{e.Title}, one, widen) {
			title++
		}
		holds := term.phrase || len(q) > 1
		for _, field := range fieldTokens(l, analyzerText, fields) {
			for _, tk := range field {
				holds = holds || tk.term == q[0].term
			}
		}
		if holds {
			exact++
		}
		if !widen || textMatch(l, fields, one, false) {
			typed++
		}
	}
	return title<<(2*rankBits) | exact<<rankBits | typed
}

// osaDistance is the optimal string alignment distance of a and b, in runes: insertions, deletions,
// substitutions and swaps of two neighbours, each one edit.
func osaDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

func phraseIn(field, q []token) bool {
	at := map[int]string{}
	for _, tk := range field {
		at[tk.pos] = tk.term
	}
	for _, start := range field {
		ok := true
		for _, qt := range q {
			if at[start.pos+qt.pos-q[0].pos] != qt.term {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func overlaps(a, b []uint64) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// bruteEvents answers f by reading every event: a search that finds nothing is answered again with
// typo tolerance when it has a word to widen.
func (w *world) bruteEvents(t *testing.T, f *EventFilter) Page {
	return bruteTolerant(w.ix.langs[f.Lang], f.Search, func(typos bool) Page { return w.bruteEventsTyped(t, f, typos) })
}

// bruteTolerant is the typo fallback read literally: list answers a list with or without typo
// tolerance.
func bruteTolerant(l *lang, search string, list func(typos bool) Page) Page {
	page := list(false)
	if page.Total == 0 && search != "" && widens(l, search) {
		page = list(true)
		page.TypoTolerant = true
	}
	return page
}

func (w *world) bruteEventsTyped(t *testing.T, f *EventFilter, typos bool) Page {
	hits := w.bruteHitsTyped(t, f, typos)
	if f.Collapse {
		seen := map[uint64]bool{}
		hits = slices.DeleteFunc(hits, func(e *storage.Event) bool {
			series := cmp.Or(e.Parent, e.ID)
			defer func() { seen[series] = true }()
			return seen[series]
		})
	}
	out := Page{Total: len(hits), IDs: []uint64{}}
	for _, e := range hits[min(f.Offset, len(hits)):min(f.Offset+f.Limit, len(hits))] {
		out.IDs = append(out.IDs, e.ID)
	}
	return out
}

// bruteHitsTyped returns, in list order, every event f matches, a series' occurrences all kept.
func (w *world) bruteHitsTyped(t *testing.T, f *EventFilter, typos bool) []*storage.Event {
	ctx := context.Background()
	page, err := w.db.Scan(ctx, storage.TypeEvent, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	venues, _ := w.db.Scan(ctx, storage.TypeVenue, 0, 1<<20)
	geo := map[uint64]*storage.Geo{}
	for _, v := range venues.Venues {
		geo[v.ID] = v.Geo
	}
	var hits []*storage.Event
	for _, e := range page.Events {
		terms := append(slices.Clone(e.Categories), e.Tags...)
		switch {
		case e.Lang != f.Lang || e.HideFromListings:
		case f.Parent != 0 && e.Parent != f.Parent:
		case len(f.Include) == 0 && (e.StartUTC.Before(f.Start) || e.StartUTC.After(f.End)):
		case len(f.Include) > 0 && !slices.Contains(f.Include, e.ID):
		case f.Featured != nil && e.Featured != *f.Featured:
		case len(f.Venues) > 0 && !slices.Contains(f.Venues, e.VenueID):
		case len(f.Orgs) > 0 && !overlaps(e.OrganizerIDs, f.Orgs):
		case len(f.Categories) > 0 && !overlaps(terms, f.Categories):
		case len(f.Tags) > 0 && !overlaps(terms, f.Tags):
		case f.Geo != nil && (geo[e.VenueID] == nil || e.VenueID == 0 ||
			f.Geo.Point && Distance(f.Geo.Lat, f.Geo.Lng, geo[e.VenueID].Lat, geo[e.VenueID].Lng) > f.Geo.RadiusKm):
		case f.Search != "" && !textMatch(w.ix.langs[e.Lang], []string{e.Title, e.Excerpt, e.Description}, f.Search, typos):
		case !readable(f.Actor, &e.Post, f.Statuses):
		default:
			hits = append(hits, e)
		}
	}
	// The order of docs/API.md "Ordering": the key, reversed with Desc, then the local start and the ID,
	// or for included events in the default order, the publication date and the ID.
	key := func(e *storage.Event) float64 {
		switch f.Order {
		case OrderRelevance:
			return float64(bruteRank(w.ix.langs[f.Lang], e, f.Search, typos))
		case OrderDistance:
			return Distance(f.Geo.Lat, f.Geo.Lng, geo[e.VenueID].Lat, geo[e.VenueID].Lng)
		case OrderModified:
			return float64(e.Modified.Unix())
		}
		return 0
	}
	slices.SortFunc(hits, func(a, b *storage.Event) int {
		dir := 1
		if f.Desc {
			dir = -1
		}
		if f.Order != OrderStart {
			if c := cmp.Compare(key(a), key(b)); c != 0 {
				return dir * c
			}
		} else if len(f.Include) > 0 {
			if c := a.Date.Compare(b.Date); c != 0 {
				return dir * c
			}
			return int(a.ID) - int(b.ID)
		} else if c := strings.Compare(a.Start, b.Start); c != 0 {
			return dir * c
		}
		if c := strings.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return int(a.ID) - int(b.ID)
	})
	return hits
}

func (w *world) randomEventFilter() *EventFilter {
	r := w.rng
	f := &EventFilter{Lang: langs[r.IntN(len(langs))], Now: testNow, Limit: 1 + r.IntN(30)}
	f.Offset = r.IntN(3) * f.Limit
	actors := append([]storage.Actor{{}}, w.users...)
	f.Actor = actors[r.IntN(len(actors))]
	day := func() time.Time { return testNow.Truncate(24*time.Hour).AddDate(0, 0, r.IntN(1000)-100) }
	f.Start, f.End = day(), day().Add(24*time.Hour-time.Second)
	if r.IntN(3) == 0 {
		f.Start, f.End = testNow.Truncate(24*time.Hour), testNow.AddDate(2, 0, 0)
	}
	if r.IntN(3) == 0 {
		parts := []string{}
		for range 1 + r.IntN(3) {
			word := vocabulary[r.IntN(len(vocabulary))]
			switch r.IntN(6) {
			case 0:
				word = "-" + word
			case 1:
				word = `"` + word + " " + vocabulary[r.IntN(len(vocabulary))] + `"`
			case 2:
				if len(word) > 3 {
					word = word[:1+r.IntN(3)]
				}
			case 3: // a typo: two neighbouring letters swapped, or one dropped
				if rs := []rune(word); len(rs) > 2 {
					i := r.IntN(len(rs) - 1)
					if r.IntN(2) == 0 {
						rs[i], rs[i+1] = rs[i+1], rs[i]
					} else {
						rs = append(rs[:i], rs[i+1:]...)
					}
					word = string(rs)
				}
			}
			parts = append(parts, word)
		}
		f.Search = strings.Join(parts, []string{" ", ",", "+"}[r.IntN(3)])
	}
	ids := func(lo, hi int) []uint64 {
		var out []uint64
		for range 1 + r.IntN(3) {
			out = append(out, uint64(lo+r.IntN(hi-lo)))
		}
		return out
	}
	if r.IntN(4) == 0 {
		f.Categories = ids(1, 12)
	}
	if r.IntN(4) == 0 {
		f.Tags = ids(1, 12)
	}
	if r.IntN(5) == 0 {
		f.Venues = ids(1, 40)
	}
	if r.IntN(5) == 0 {
		f.Orgs = ids(1, 40)
	}
	if r.IntN(4) == 0 {
		f.Featured = ptr(r.IntN(2) == 0)
	}
	if r.IntN(5) == 0 {
		f.Geo = &Geo{Point: r.IntN(2) == 0, Lat: 50, Lng: 4, RadiusKm: float64(50 + r.IntN(300))}
	}
	if r.IntN(6) == 0 {
		f.Include = ids(30, 400)
	}
	if r.IntN(8) == 0 {
		f.Parent = uint64(1 + r.IntN(400))
	}
	f.Collapse = r.IntN(4) == 0
	if r.IntN(4) == 0 {
		f.Facets = w.randomFacets()
	}
	switch r.IntN(5) {
	case 0:
		f.Order = OrderModified
	case 1:
		if f.Search != "" {
			f.Order = OrderRelevance
		}
	case 2:
		if f.Geo != nil && f.Geo.Point {
			f.Order = OrderDistance
		}
	}
	f.Desc = r.IntN(4) == 0
	if f.Actor.Can(storage.CapEditPosts) && r.IntN(3) == 0 {
		all := []storage.Status{storage.StatusPublish, storage.StatusFuture, storage.StatusDraft, storage.StatusPending,
			storage.StatusPrivate, storage.StatusTrash}
		f.Statuses = all[r.IntN(3) : 3+r.IntN(4)]
	}
	return f
}

// checkEvents fails the test unless the index answers f as the brute-force reading does.
func (w *world) checkEvents(t *testing.T, i int, f *EventFilter) {
	t.Helper()
	got, err := w.ix.Events(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if got.IDs == nil {
		got.IDs = []uint64{}
	}
	if want := w.bruteEvents(t, f); got.Total != want.Total || !slices.Equal(got.IDs, want.IDs) || got.TypoTolerant != want.TypoTolerant {
		t.Fatalf("query %d %+v\n got %d %v typo-tolerant %v\nwant %d %v typo-tolerant %v", i, *f, got.Total, got.IDs, got.TypoTolerant,
			want.Total, want.IDs, want.TypoTolerant)
	}
}

func TestEventsEqualBruteForce(t *testing.T) {
	for seed := range uint64(*seeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			w := newWorld(t, seed, 300)
			for i := range 150 {
				w.checkEvents(t, i, w.randomEventFilter())
			}
		})
	}
}

// TestCandidatesEqualBruteForce sends every query with an ID filter or a search through the candidate
// path, which the small random stores would otherwise rarely take.
func TestCandidatesEqualBruteForce(t *testing.T) {
	share := candidateShare
	candidateShare = 1
	t.Cleanup(func() { candidateShare = share })
	w := newWorld(t, 77, 300)
	checked := 0
	for i := 0; checked < 150; i++ {
		f := w.randomEventFilter()
		if len(f.Include)+len(f.Venues)+len(f.Orgs)+len(f.Categories)+len(f.Tags)+len(f.Search) == 0 {
			continue
		}
		checked++
		w.checkEvents(t, i, f)
	}
}

// brutePlaces answers f by reading every venue or organizer, with typo tolerance as bruteEvents.
func (w *world) brutePlaces(t *testing.T, f *PlaceFilter) Page {
	return bruteTolerant(w.ix.langs[f.Lang], f.Search, func(typos bool) Page { return w.brutePlacesTyped(t, f, typos) })
}

func (w *world) brutePlacesTyped(t *testing.T, f *PlaceFilter, typos bool) Page {
	ctx := context.Background()
	events, _ := w.db.Scan(ctx, storage.TypeEvent, 0, 1<<20)
	recs, _ := w.db.Scan(ctx, f.Type, 0, 1<<20)
	var posts []*storage.Post
	var texts [][]string
	for _, v := range recs.Venues {
		posts = append(posts, &v.Post)
		texts = append(texts, []string{v.Title, v.Description, v.Address, v.City, v.Province, v.State, v.StateProvince, v.Zip, v.Phone})
	}
	for _, o := range recs.Organizers {
		posts = append(posts, &o.Post)
		texts = append(texts, []string{o.Title, o.Description, o.Phone, o.Email, o.Website})
	}
	linked := func(e *storage.Event, id uint64) bool {
		if f.Type == storage.TypeVenue {
			return e.VenueID == id
		}
		return slices.Contains(e.OrganizerIDs, id)
	}
	var hits []*storage.Post
	for i, p := range posts {
		has, upcoming := false, false
		for _, e := range events.Events {
			if !linked(e, p.ID) {
				continue
			}
			switch e.Status {
			case storage.StatusPublish, storage.StatusFuture, storage.StatusPrivate:
				has = true
			}
			counts := e.Status == storage.StatusPublish ||
				(f.Actor.Can(storage.CapEditPosts) && (e.Status == storage.StatusFuture || e.Status == storage.StatusPrivate))
			if !e.StartUTC.Before(f.Now) && !e.HideFromListings && counts {
				upcoming = true
			}
		}
		switch {
		case p.Lang != f.Lang:
		case f.Linked != nil && !slices.Contains(f.Linked, p.ID):
		case f.HasEvents != nil && has != *f.HasEvents:
		case f.Upcoming && !upcoming:
		case f.Search != "" && !textMatch(w.ix.langs[p.Lang], texts[i], f.Search, typos):
		case !readable(f.Actor, p, f.Statuses):
		default:
			hits = append(hits, p)
		}
	}
	slices.SortFunc(hits, func(a, b *storage.Post) int {
		if c := b.Date.Compare(a.Date); c != 0 {
			return c
		}
		return int(b.ID) - int(a.ID)
	})
	out := Page{Total: len(hits), IDs: []uint64{}}
	for _, p := range hits[min(f.Offset, len(hits)):min(f.Offset+f.Limit, len(hits))] {
		out.IDs = append(out.IDs, p.ID)
	}
	return out
}

func TestPlacesEqualBruteForce(t *testing.T) {
	w := newWorld(t, 1000, 200)
	actors := append([]storage.Actor{{}}, w.users...)
	for i := range 200 {
		r := w.rng
		f := &PlaceFilter{Type: []storage.PostType{storage.TypeVenue, storage.TypeOrganizer}[r.IntN(2)],
			Lang: langs[r.IntN(len(langs))], Now: testNow, Limit: 1 + r.IntN(10)}
		f.Actor = actors[r.IntN(len(actors))]
		f.Offset = r.IntN(2) * f.Limit
		if r.IntN(3) == 0 {
			f.Search = vocabulary[r.IntN(len(vocabulary))]
		}
		if r.IntN(3) == 0 {
			f.HasEvents = ptr(r.IntN(2) == 0)
		}
		f.Upcoming = r.IntN(3) == 0
		if r.IntN(5) == 0 {
			f.Linked = []uint64{uint64(1 + r.IntN(40))}
		}
		if f.Actor.Can(storage.CapEditPosts) && r.IntN(3) == 0 {
			f.Statuses = []storage.Status{storage.StatusDraft, storage.StatusTrash, storage.StatusPublish}[r.IntN(2):]
		}
		got, err := w.ix.Places(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if got.IDs == nil {
			got.IDs = []uint64{}
		}
		if want := w.brutePlaces(t, f); got.Total != want.Total || !slices.Equal(got.IDs, want.IDs) || got.TypoTolerant != want.TypoTolerant {
			t.Fatalf("query %d %+v\n got %d %v typo-tolerant %v\nwant %d %v typo-tolerant %v", i, *f, got.Total, got.IDs, got.TypoTolerant,
				want.Total, want.IDs, want.TypoTolerant)
		}
	}
}

// TestListedPageEqualsScan: an anonymous list without filters or with categories, tags, venues, geo,
// featured and a search (each led by its keys or tested by event ID), answered from the keys of the
// listed rows (listedPage), pages its window as visiting every row does (scanPage), whatever the
// window (a day, months, the default two years, empty, reversed), the page and the caller without
// edit_posts; and still after events are changed, trashed and moved, a few at a time (their keys put
// one by one) and many (built again). The unions of terms come through the index's cache, so one
// kept across those changes would fail it.
func TestListedPageEqualsScan(t *testing.T) {
	defer func(n int) { unionFrom = n }(unionFrom)
	for seed := range uint64(*seeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			w := newWorld(t, seed, 300)
			r := w.rng
			// Before every scheduled row is due, so that the counts answer.
			now := testNow.Add(-1000 * time.Hour)
			callers := []storage.Actor{{}}
			for _, u := range w.users {
				if !u.Can(storage.CapEditPosts) {
					callers = append(callers, u)
				}
			}
			geoLed, nearest := 0, 0
			for round := range 4 {
				for i := range 100 {
					f := &EventFilter{Lang: langs[r.IntN(len(langs))], Now: now, Limit: 1 + r.IntN(30)}
					f.Actor = callers[r.IntN(len(callers))]
					day := func() time.Time { return testNow.Truncate(24*time.Hour).AddDate(0, 0, r.IntN(1000)-100) }
					switch r.IntN(4) {
					case 0:
						f.Start, f.End = day(), day().Add(24*time.Hour-time.Second)
					case 1:
						f.Start, f.End = testNow.Truncate(24*time.Hour), testNow.AddDate(2, 0, 0)
					default:
						f.Start = day()
						f.End = f.Start.AddDate(0, r.IntN(6), r.IntN(40))
					}
					some := func(ids []uint64, most int) []uint64 {
						out := make([]uint64, r.IntN(most+1))
						for i := range out {
							out[i] = ids[r.IntN(len(ids))]
						}
						return out
					}
					// Each filter in about half the lists, so that each also leads alone.
					if r.IntN(2) == 0 {
						f.Categories = some(w.to.cats, 3)
					}
					if r.IntN(2) == 0 {
						f.Tags = some(w.to.tags, 2)
					}
					if r.IntN(2) == 0 {
						f.Venues = some(w.to.venues[f.Lang], 3)
					}
					if r.IntN(4) == 0 {
						f.Featured = ptr(true)
					}
					if r.IntN(3) == 0 {
						f.Geo = &Geo{Point: r.IntN(4) > 0, Lat: 48 + r.Float64()*4, Lng: 2 + r.Float64()*4, RadiusKm: float64(1 + r.IntN(300))}
						if f.Geo.Point && r.IntN(2) == 0 {
							f.Order, f.Desc = OrderDistance, r.IntN(2) == 0
						}
					}
					var text *roaring64.Bitmap
					if r.IntN(3) == 0 {
						// A search's matches: any records, events or not, of any language; a few
						// (the search leads) or many (a term leads, the search tests).
						text = roaring64.New()
						for range r.IntN([]int{5, 50, 400}[r.IntN(3)]) {
							text.Add(1 + r.Uint64N(2000))
						}
					}
					// Terms merged in their windows or taken as their union.
					unionFrom = []int{0, math.MaxInt}[r.IntN(2)]
					p := w.ix.langs[f.Lang].proj
					want := p.scanPage(f, text, nil)
					f.Offset = r.IntN(want.Total + 5)
					want = p.scanPage(f, text, nil)
					got, ok := p.listedPage(f, text, func() *roaring.Bitmap { return p.listedAt(text) }, w.ix.langs[f.Lang].union)
					if !ok && (f.Geo == nil || f.byDistance()) {
						t.Fatalf("round %d query %d: the keys do not answer %+v", round, i, *f)
					}
					if !ok {
						continue // another filter leads the geo filter: the scan answers
					}
					if f.Geo != nil {
						geoLed++
					}
					if f.byDistance() {
						nearest++
					}
					if got.Total != want.Total || !slices.Equal(got.IDs, want.IDs) {
						t.Fatalf("round %d query %d %+v\n got %d %v\nwant %d %v", round, i, *f, got.Total, got.IDs, want.Total, want.IDs)
					}
				}
				for range []int{20, 100, 5, 0}[round] {
					w.mutate(t)
				}
				w.moveVenue(t)
				syncAll(t, w.ix)
			}
			if geoLed == 0 || nearest == 0 {
				t.Errorf("geo filters led %d lists, %d of them nearest first: want some of each", geoLed, nearest)
			}
		})
	}
}

// TestListedKeysOnlyForPublicLists: the keys answer a list only when every row they hold is a match
// and every match is there.
func TestListedKeysOnlyForPublicLists(t *testing.T) {
	p := newProjection()
	p.putEvent(eventRow{id: 1, status: statePublish, startUTC: testNow.Unix(), startLocal: testNow.Unix(),
		venue: 3, hasGeo: true, lat: 50, lng: 4, featured: true}, eventLinks{terms: []uint64{7, 8}})
	p.putEvent(eventRow{id: 2, status: stateFuture, date: testNow.Unix() + 60, startUTC: testNow.Unix(), startLocal: testNow.Unix()}, eventLinks{})
	editor := storage.Actor{UserID: 5, Role: storage.RoleEditor}
	subscriber := storage.Actor{UserID: 6, Role: storage.RoleSubscriber}
	near := &Geo{Point: true, Lat: 50.01, Lng: 4, RadiusKm: 5}
	tests := []struct {
		name string
		edit func(f *EventFilter)
		text bool
		want bool
	}{
		{"anonymous", func(*EventFilter) {}, false, true},
		{"a subscriber", func(f *EventFilter) { f.Actor = subscriber }, false, true},
		{"one category", func(f *EventFilter) { f.Categories = []uint64{7} }, false, true},
		{"one tag", func(f *EventFilter) { f.Tags = []uint64{8} }, false, true},
		{"two categories (a parent and its child)", func(f *EventFilter) { f.Categories = []uint64{7, 9} }, false, true},
		{"a category and a tag", func(f *EventFilter) { f.Categories, f.Tags = []uint64{7}, []uint64{8} }, false, true},
		{"a search", func(*EventFilter) {}, true, true},
		{"a search and a tag", func(f *EventFilter) { f.Tags = []uint64{8} }, true, true},
		{"an editor, who sees drafts", func(f *EventFilter) { f.Actor = editor }, false, false},
		{"a status filter", func(f *EventFilter) { f.Statuses = []storage.Status{storage.StatusPublish} }, false, false},
		{"include", func(f *EventFilter) { f.Include = []uint64{1} }, false, false},
		{"a venue", func(f *EventFilter) { f.Venues = []uint64{3} }, false, true},
		{"a venue named twice", func(f *EventFilter) { f.Venues = []uint64{3, 3} }, false, true},
		{"geo: with coordinates", func(f *EventFilter) { f.Geo = &Geo{} }, false, true},
		{"geo: near a point", func(f *EventFilter) { f.Geo = &Geo{Point: true, Lat: 50.01, Lng: 4, RadiusKm: 5} }, false, true},
		{"geo and a search", func(f *EventFilter) { f.Geo = &Geo{} }, true, true},
		// A geo filter cannot test another's rows: when another leads, the scan answers.
		{"geo and a category, which leads", func(f *EventFilter) { f.Geo, f.Categories = &Geo{}, []uint64{7} }, false, false},
		// Nearest first, the positions lead whatever else filters.
		{"geo: nearest first", func(f *EventFilter) { f.Geo, f.Order = near, OrderDistance }, false, true},
		{"geo: nearest first, and a category", func(f *EventFilter) { f.Geo, f.Order, f.Categories = near, OrderDistance, []uint64{7} }, false, true},
		{"geo: nearest first, with a search", func(f *EventFilter) { f.Geo, f.Order = near, OrderDistance }, true, true},
		{"geo: by modified", func(f *EventFilter) { f.Geo, f.Order = near, OrderModified }, false, false},
		{"an organizer", func(f *EventFilter) { f.Orgs = []uint64{1} }, false, false},
		{"a series", func(f *EventFilter) { f.Parent = 1 }, false, false},
		{"featured", func(f *EventFilter) { f.Featured = ptr(true) }, false, true},
		{"featured and a category", func(f *EventFilter) { f.Featured, f.Categories = ptr(true), []uint64{7} }, false, true},
		{"not featured", func(f *EventFilter) { f.Featured = ptr(false) }, false, false},
		{"collapsed series", func(f *EventFilter) { f.Collapse = true }, false, false},
		{"a scheduled row due", func(f *EventFilter) { f.Now = testNow.Add(time.Minute) }, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &EventFilter{Now: testNow, Start: testNow.Add(-time.Hour), End: testNow.Add(time.Hour), Limit: 10}
			tc.edit(f)
			var text *roaring64.Bitmap
			if tc.text {
				text = roaring64.BitmapOf(1)
			}
			page, ok := p.listedPage(f, text, func() *roaring.Bitmap { return p.listedAt(text) }, p.union)
			if ok != tc.want {
				t.Fatalf("the keys answer: %v, want %v", ok, tc.want)
			}
			if ok && (page.Total != 1 || !slices.Equal(page.IDs, []uint64{1})) {
				t.Errorf("page %+v, want event 1 only", page)
			}
		})
	}
}

// TestNearestMergesTies: positions at the same distance from the point give one run of rows, by
// local start then ID, in either direction, as the scan sorts them.
func TestNearestMergesTies(t *testing.T) {
	p := newProjection()
	// 3.5 and 4.5 are as far from 4 (both differences exact), so the two positions tie; 4.25 is nearer.
	for i, lng := range []float64{3.5, 4.5, 3.5, 4.5, 4.25, 3.5} {
		start := testNow.Unix() + int64(i%3)*60
		p.putEvent(eventRow{id: uint64(10 + i), status: statePublish, startUTC: start, startLocal: start,
			venue: uint64(1 + i%3), hasGeo: true, lat: 50, lng: lng}, eventLinks{})
	}
	for _, desc := range []bool{false, true} {
		for offset := range 6 {
			f := &EventFilter{Now: testNow, Start: testNow.Add(-time.Hour), End: testNow.Add(time.Hour), Offset: offset, Limit: 3,
				Geo: &Geo{Point: true, Lat: 50, Lng: 4, RadiusKm: 100}, Order: OrderDistance, Desc: desc}
			got, ok := p.listedPage(f, nil, nil, p.union)
			want := p.scanPage(f, nil, nil)
			if !ok || got.Total != 6 || got.Total != want.Total || !slices.Equal(got.IDs, want.IDs) {
				t.Errorf("desc %v offset %d: keys %v (%v), scan %v", desc, offset, got, ok, want)
			}
		}
	}
}

// TestListedAtEitherWay: the positions of a search's listed rows are the same whether its matches
// are looked up one by one (few) or probed while visiting every listed row (many).
func TestListedAtEitherWay(t *testing.T) {
	p := newProjection()
	for id := range uint64(400) {
		status := statePublish
		if id%3 == 0 {
			status = stateDraft
		}
		p.putEvent(eventRow{id: id + 1, status: status, hidden: id%7 == 0, startUTC: int64(id % 50), startLocal: int64(id % 50)}, eventLinks{})
	}
	for _, n := range []int{1, 3, 10, 100, 390} {
		set := roaring64.New()
		for i := range uint64(n) {
			set.Add(1 + i*400/uint64(n))
		}
		set.Add(5000) // not an event
		var want []uint32
		for i, k := range p.listed {
			if set.Contains(k.id) {
				want = append(want, uint32(i))
			}
		}
		if got := p.listedAt(set).ToArray(); !slices.Equal(got, want) {
			t.Errorf("%d matches: positions %v, want %v", n, got, want)
		}
	}
}

// TestSearchRemembersPositions: a search's listed rows' positions are found once and remembered
// beside its matches, until a row changes.
func TestSearchRemembersPositions(t *testing.T) {
	p := newProjection()
	for id := range uint64(200) {
		p.putEvent(eventRow{id: id + 1, status: statePublish, startUTC: testNow.Unix(), startLocal: testNow.Unix()}, eventLinks{})
	}
	l := &lang{proj: p, texts: &textCache{limit: 1 << 20}}
	text := roaring64.New()
	text.AddRange(1, 61)
	l.texts.put("many", Version{Applied: 1}, text)
	f := &EventFilter{Now: testNow, Start: testNow.Add(-time.Hour), End: testNow.Add(time.Hour), Limit: 500}
	want := p.scanPage(f, text, nil)
	var first *roaring.Bitmap
	for i := range 2 {
		if got := l.events(f, text, nil); got.Total != want.Total || !slices.Equal(got.IDs, want.IDs) {
			t.Fatalf("list %d: %+v, want %+v", i, got, want)
		}
		at := l.texts.listedAt(text, p.gen)
		if at == nil || i > 0 && at != first {
			t.Fatalf("after list %d: positions %p, want those of the first list (%p)", i, at, first)
		}
		first = at
	}
	p.putEvent(eventRow{id: 500, status: statePublish, startUTC: testNow.Unix(), startLocal: testNow.Unix()}, eventLinks{})
	if at := l.texts.listedAt(text, p.gen); at != nil {
		t.Errorf("after a change: positions %v, want none", at)
	}
	if got := l.events(f, text, nil); got.Total != want.Total || l.texts.listedAt(text, p.gen) == nil {
		t.Errorf("after a change: %+v, and no positions remembered", got)
	}
}
