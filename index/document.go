package index

import (
	"context"
	"hash/maphash"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/richtext"
)

// document is what one record contributes to its language: a Bleve document (the searched text) and
// a projection row.
type document struct {
	lang  storage.Lang
	kind  storage.PostType
	id    uint64
	text  []string
	title string // the title as text holds it, for the title fields
	event eventRow
	links eventLinks
	place *placeRow
}

// docID is the Bleve document ID; IDs are shared by all post types, so the prefix only helps reading.
func docID(kind storage.PostType, id uint64) string {
	return kind.String()[:1] + utoa(id)
}

// documents turns a page of records into documents; events read their venue's position from venues,
// and whether they share their series parent's text from parents, which has learnt the page's (nil:
// none does, which only the removal of rows, reading no text, may assume).
func documents(page *storage.Records, venues map[uint64]*storage.Venue, parents *parentTexts) []document {
	var out []document
	for _, e := range page.Events {
		row, links := eventRowOf(e, venues[e.VenueID])
		text := plain(e.Title, e.Excerpt, e.Description)
		if row.sharesText = parents.shares(e, text); row.sharesText {
			text = nil
		}
		out = append(out, document{lang: e.Lang, kind: storage.TypeEvent, id: e.ID, text: text, title: titleOf(e.Title, text),
			event: row, links: links})
	}
	for _, v := range page.Venues {
		text := plain(v.Title, v.Description, v.Address, v.City, v.Province, v.State, v.StateProvince, v.Zip, v.Phone)
		out = append(out, document{lang: v.Lang, kind: storage.TypeVenue, id: v.ID, place: placeRowOf(&v.Post), text: text,
			title: titleOf(v.Title, text)})
	}
	for _, o := range page.Organizers {
		text := plain(o.Title, o.Description, o.Phone, o.Email, o.Website)
		out = append(out, document{lang: o.Lang, kind: storage.TypeOrganizer, id: o.ID, place: placeRowOf(&o.Post), text: text,
			title: titleOf(o.Title, text)})
	}
	return out
}

// titleOf is the title among the searched text plain made of a record's fields, title first: plain
// leaves out empty fields, so a record without a title has none there.
func titleOf(title string, text []string) string {
	if title == "" || len(text) == 0 {
		return ""
	}
	return text[0]
}

// maxSearchedText bounds the searched text of one record, in bytes: the words past it are not
// found by search. Analysing text costs Bleve up to 375 times its bytes (syncTextBytes), and the
// longest description the store takes, 65,535 characters, can be 256 KB: without the bound one
// record could take Bleve a hundred megabytes. Descriptions of real events are a few kilobytes.
const maxSearchedText = 64 << 10

// plain is the searched text of fields: words, not markup (docs/API.md "Events list parameters"), maxSearchedText of it at
// most, cut at a space.
func plain(fields ...string) []string {
	out := make([]string, 0, len(fields))
	room := maxSearchedText
	for _, f := range fields {
		if f == "" || room == 0 {
			continue
		}
		t := richtext.StripTags(f)
		if len(t) > room {
			t, room = CutText(t, room), 0 // and nothing after a cut
		} else {
			room -= len(t)
		}
		out = append(out, t)
	}
	return out
}

// CutText returns the longest beginning of t of at most n bytes that ends before a space, or at a
// character's end when those n bytes hold no space.
func CutText(t string, n int) string {
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	if i := strings.LastIndexAny(t[:n], " \t\n"); i > 0 {
		n = i
	}
	return t[:n]
}

// textBytes is how much text d has Bleve analyse.
func (d *document) textBytes() int {
	n := 0
	for _, t := range d.text {
		n += len(t)
	}
	return n
}

// indexer is what documents are indexed into: a live index's batch, or a build's offline builder.
type indexer interface {
	Index(id string, data any) error
}

// index adds d to b. The prefix field takes the text as one string: it is searched by term only,
// never by phrase, so keeping the fields apart buys nothing there, and merging the terms of an array's
// elements was a tenth of an index build's CPU.
func (d *document) index(b indexer) error {
	return b.Index(docID(d.kind, d.id), map[string]any{
		fieldType:        d.kind.String(),
		fieldText:        d.text,
		fieldPrefix:      strings.Join(d.text, "\n"),
		fieldTitle:       d.title,
		fieldTitlePrefix: d.title,
	})
}

// update brings d's Bleve document in b up to date: an event that shares its parent's text has none,
// and one it had before (it was edited on its own, or was indexed before texts were shared) is deleted.
func (d *document) update(b *bleve.Batch) error {
	if d.event.sharesText {
		b.Delete(docID(d.kind, d.id))
		return nil
	}
	return d.index(b)
}

// parentTexts tells which occurrences share the text of their series' parent (eventRow.sharesText).
// An occurrence not edited on its own holds a copy of its parent's title, excerpt and description;
// indexing every copy made a daily series with a 65 KB description cost the index 1,400 times that
// text, and a node gigabytes of memory. Such an occurrence has no Bleve document of its own: a search
// that matches its parent matches it (lang.withSharers). Whether it shares is decided from the text,
// not from the store's Detached flag: an occurrence the series no longer refreshes (in the past, or
// trashed) keeps the text it had, and the store logs every occurrence when the parent's text changes,
// so that each is decided again.
type parentTexts struct {
	seed maphash.Seed
	// sums maps a parent's ID to textSum of its language and text, or to 0 for an event that is not
	// a series' parent (its rule was removed): an occurrence shares only the text of a series.
	sums map[uint64]uint64
}

func newParentTexts() *parentTexts {
	return &parentTexts{seed: maphash.MakeSeed(), sums: map[uint64]uint64{}}
}

// textSum hashes an event's language and searched text. The seed is random, so no one can write an
// occurrence whose text collides with its parent's on purpose; a sum that happens to be 0 only
// leaves an occurrence a document of its own.
func (p *parentTexts) textSum(lang storage.Lang, text []string) uint64 {
	var h maphash.Hash
	h.SetSeed(p.seed)
	h.WriteString(string(lang))
	for _, t := range text {
		h.WriteByte(0)
		h.WriteString(t)
	}
	return h.Sum64()
}

// note records the sums of the events that are a series' parent, and of those that were and no
// longer are.
func (p *parentTexts) note(events []*storage.Event) {
	for _, e := range events {
		switch {
		case len(e.Recurrence) > 0:
			p.sums[e.ID] = p.textSum(e.Lang, plain(e.Title, e.Excerpt, e.Description))
		case p.sums[e.ID] != 0:
			p.sums[e.ID] = 0
		}
	}
}

// learn records the sums of the parents among events, and of the parents of events that p does not
// know yet, loading those from store.
func (p *parentTexts) learn(ctx context.Context, store Store, events []*storage.Event) error {
	p.note(events)
	var ids []uint64
	for _, e := range events {
		if _, ok := p.sums[e.Parent]; e.Parent != 0 && !ok {
			ids = append(ids, e.Parent)
			p.sums[e.Parent] = 0 // not found, or not a parent, unless note says otherwise
		}
	}
	if len(ids) == 0 {
		return nil
	}
	recs, _, err := store.Load(ctx, storage.TypeEvent, ids)
	if err != nil {
		return err
	}
	p.note(recs.Events)
	return nil
}

// shares reports whether event e, whose searched text is text, shares it with its series' parent.
func (p *parentTexts) shares(e *storage.Event, text []string) bool {
	if p == nil || e.Parent == 0 {
		return false
	}
	sum := p.sums[e.Parent]
	return sum != 0 && sum == p.textSum(e.Lang, text)
}

// load adds d's row to a projection being built from a full scan: rows are appended and sorted once
// at the end (projection.sort), not inserted in order one by one.
func (l *lang) load(d document) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d.kind == storage.TypeEvent {
		l.proj.appendLoaded(d.event, d.links)
		return
	}
	l.applyLocked(d)
}

// apply puts d's row into the projection.
func (l *lang) apply(d document) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.applyLocked(d)
}

func (l *lang) applyLocked(d document) {
	switch d.kind {
	case storage.TypeEvent:
		l.proj.putEvent(d.event, d.links)
	case storage.TypeVenue:
		l.proj.venues[d.id] = d.place
	case storage.TypeOrganizer:
		l.proj.orgs[d.id] = d.place
	}
}
