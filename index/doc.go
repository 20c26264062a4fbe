package index

import (
	"strings"

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
	event eventRow
	links eventLinks
	place *placeRow
}

// docID is the Bleve document ID; IDs are shared by all post types, so the prefix only helps reading.
func docID(kind storage.PostType, id uint64) string {
	return kind.String()[:1] + utoa(id)
}

// documents turns a page of records into documents; events read their venue's position from venues.
func documents(page *storage.Records, venues map[uint64]*storage.Venue) []document {
	var out []document
	for _, e := range page.Events {
		row, links := eventRowOf(e, venues[e.VenueID])
		out = append(out, document{lang: e.Lang, kind: storage.TypeEvent, id: e.ID,
			text: plain(e.Title, e.Excerpt, e.Description), event: row, links: links})
	}
	for _, v := range page.Venues {
		out = append(out, document{lang: v.Lang, kind: storage.TypeVenue, id: v.ID, place: placeRowOf(&v.Post),
			text: plain(v.Title, v.Description, v.Address, v.City, v.Province, v.State, v.StateProvince, v.Zip, v.Phone)})
	}
	for _, o := range page.Organizers {
		out = append(out, document{lang: o.Lang, kind: storage.TypeOrganizer, id: o.ID, place: placeRowOf(&o.Post),
			text: plain(o.Title, o.Description, o.Phone, o.Email, o.Website)})
	}
	return out
}

// plain is the searched text of fields: words, not markup (CONTRACT 5.2).
func plain(fields ...string) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		if f != "" {
			out = append(out, richtext.StripTags(f))
		}
	}
	return out
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
		fieldType:   d.kind.String(),
		fieldText:   d.text,
		fieldPrefix: strings.Join(d.text, "\n"),
	})
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
