package storage

import (
	"context"

	"github.com/calendard/calendard/storage/kv"
)

// Doc names one document of the change log: a record or a term.
type Doc struct {
	Kind DocKind
	ID   uint64
}

// The documents a record's response embeds, and the writes that log them, are two sides of one rule:
// a rendering of a record stays current while no change-log entry after it names one of its
// documents. Each write logs every document whose response it changes (writer.touch): a record and
// its translation group (touchGroup), the venue and organizers whose flags follow an event
// (linkEvent), a term whose name, slug, parent or count changed with every event that embeds it or a
// descendant (touchTermEvents, addCount). PostDocs and EventDocs are the other side; change one side
// and the other changes with it (TestDocsFollowWrites).

// PostDocs are the documents a venue's or organizer's response embeds: the record and the members of
// its translation group (its `translations`). rel is what Load returned with the record.
func PostDocs(p *Post, rel *Related) []Doc {
	docs := []Doc{{p.Type.DocKind(), p.ID}}
	for _, m := range rel.Groups[p.Group] {
		docs = append(docs, Doc{m.Type.DocKind(), m.ID})
	}
	return docs
}

// EventDocs are the documents an event's response embeds: the event, its venue and organizers, each
// with its translation group, its tags, and its categories with their ancestors (whose slugs are in
// the category URLs). rel is what Load returned with the event.
func EventDocs(e *Event, rel *Related) []Doc {
	docs := PostDocs(&e.Post, rel)
	if v := rel.Venues[e.VenueID]; v != nil {
		docs = append(docs, PostDocs(&v.Post, rel)...)
	}
	for _, id := range e.OrganizerIDs {
		if o := rel.Organizers[id]; o != nil {
			docs = append(docs, PostDocs(&o.Post, rel)...)
		}
	}
	for _, id := range e.Categories {
		// n bounds the walk: a corrupt tree with a cycle must not loop.
		for t, n := rel.Terms[id], 0; t != nil && n <= len(rel.Terms); t, n = rel.Terms[t.Parent], n+1 {
			docs = append(docs, Doc{DocCategory, t.ID})
		}
	}
	for _, id := range e.Tags {
		docs = append(docs, Doc{DocTag, id})
	}
	return docs
}

// ChangedSince returns, for every document a change-log entry after `after` names, the newest such
// entry, reading at most limit entries. complete reports whether they are all the entries after
// `after` up to the head of the same snapshot: it is false when entries after `after` were trimmed
// or more than limit remain, and a caller then knows only that anything may have changed.
func (db *DB) ChangedSince(ctx context.Context, after uint64, limit int) (changed map[Doc]uint64, complete bool, err error) {
	changed = map[Doc]uint64{}
	err = db.kv.View(ctx, func(tx kv.Tx) error {
		if after < changeFloor(tx) {
			return nil
		}
		complete, err = eachChange(tx, after, limit, func(c Change) { changed[Doc{c.Kind, c.ID}] = c.Seq })
		return err
	})
	return changed, complete, err
}
