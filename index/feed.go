package index

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/calendard/calendard/storage"
)

// The change feed as a reader sees it: which documents changed after a cursor, and which of them the
// reader may know of. The REST feed (GET {ns}/changes) and the webhooks (package jobs/webhook) both
// read it here, so that a subscription is told exactly what its user would read from the feed.

// FeedStore is what the change feed reads from the store (*storage.DB).
type FeedStore interface {
	Changes(ctx context.Context, after uint64, limit int) ([]storage.Change, error)
	Load(ctx context.Context, t storage.PostType, ids []uint64) (*storage.Records, *storage.Related, error)
	Term(ctx context.Context, tax storage.Taxonomy, id uint64) (*storage.Term, *storage.Related, error)
}

// feedScanFactor bounds the log entries one read takes, as a multiple of its limit: entries of other
// languages and repeats of one document are read without adding a change, and a reader must not pay
// for a long run of them.
const feedScanFactor = 10

// FeedDoc is one document the feed reports: its newest entry in the range read.
type FeedDoc struct {
	Doc storage.Doc
	Seq uint64
}

// FeedRange is a range of the change log to read: the entries after Since, and no further than UpTo
// when it is set, in pages of at most Page entries.
type FeedRange struct {
	Since, UpTo uint64
	Page        int
}

// ChangedDocs reads the range and returns up to limit documents, each once with its newest entry, the
// cursor after the last entry read, and whether entries remain. Returns storage.ErrCompacted when
// entries after since were trimmed.
func ChangedDocs(ctx context.Context, db FeedStore, r FeedRange, limit int) (docs []FeedDoc, next uint64, more bool, err error) {
	at := map[storage.Doc]int{}
	next = r.Since
	for read := 0; ; {
		n := min(r.Page, limit*feedScanFactor-read)
		if n == 0 {
			rest, err := db.Changes(ctx, next, 1)
			return docs, next, len(rest) > 0 && r.within(rest[0].Seq), err
		}
		page, err := db.Changes(ctx, next, n)
		if err != nil {
			return nil, 0, false, err
		}
		for _, c := range page {
			if !r.within(c.Seq) {
				return docs, next, false, nil
			}
			d := storage.Doc{Kind: c.Kind, ID: c.ID}
			if i, ok := at[d]; ok {
				docs[i].Seq = c.Seq
			} else if len(docs) == limit {
				return docs, next, true, nil
			} else {
				at[d] = len(docs)
				docs = append(docs, FeedDoc{d, c.Seq})
			}
			next = c.Seq
		}
		if read += len(page); len(page) < n {
			return docs, next, false, nil // the end of the log
		}
	}
}

func (r FeedRange) within(seq uint64) bool { return r.UpTo == 0 || seq <= r.UpTo }

// FeedReader is who reads the feed: their visibility, the languages of the records they follow (every
// one when empty), and the instant of the read.
type FeedReader struct {
	Visibility
	Langs []storage.Lang
	Now   time.Time
}

// FeedChange is a document of the feed as its reader sees it: deleted (gone, or hidden from a reader
// who could see it once), or upserted with its current state: Term for a category or tag, one of
// Event, Venue or Organizer otherwise, with Rel what it embeds.
type FeedChange struct {
	FeedDoc
	Delete    bool
	Term      *storage.Term
	Event     *storage.Event
	Venue     *storage.Venue
	Organizer *storage.Organizer
	Rel       *storage.Related
}

// Post is the record an upsert of an event, venue or organizer carries, nil otherwise.
func (c *FeedChange) Post() *storage.Post {
	switch {
	case c.Event != nil:
		return &c.Event.Post
	case c.Venue != nil:
		return &c.Venue.Post
	case c.Organizer != nil:
		return &c.Organizer.Post
	}
	return nil
}

// Changes loads the documents' current state and keeps those the reader may know of, in order:
// records of other languages are left out, and so is the removal of a record the reader never saw.
func (rd *FeedReader) Changes(ctx context.Context, db FeedStore, docs []FeedDoc) ([]FeedChange, error) {
	byType := map[storage.PostType][]uint64{}
	for _, d := range docs {
		if t, ok := d.Doc.Kind.PostType(); ok {
			byType[t] = append(byType[t], d.Doc.ID)
		}
	}
	records := map[storage.Doc]FeedChange{}
	for t, ids := range byType {
		recs, rel, err := db.Load(ctx, t, ids)
		if err != nil {
			return nil, err
		}
		for _, e := range recs.Events {
			records[storage.Doc{Kind: storage.DocEvent, ID: e.ID}] = FeedChange{Event: e, Rel: rel}
		}
		for _, v := range recs.Venues {
			records[storage.Doc{Kind: storage.DocVenue, ID: v.ID}] = FeedChange{Venue: v, Rel: rel}
		}
		for _, o := range recs.Organizers {
			records[storage.Doc{Kind: storage.DocOrganizer, ID: o.ID}] = FeedChange{Organizer: o, Rel: rel}
		}
	}
	changes := make([]FeedChange, 0, len(docs))
	for _, d := range docs {
		if tax, ok := d.Doc.Kind.Taxonomy(); ok {
			t, rel, err := db.Term(ctx, tax, d.Doc.ID)
			switch {
			case err == nil:
				changes = append(changes, FeedChange{FeedDoc: d, Term: t, Rel: rel})
			case errors.Is(err, storage.ErrNotFound):
				changes = append(changes, FeedChange{FeedDoc: d, Delete: true})
			default:
				return nil, err
			}
			continue
		}
		c, ok := records[d.Doc]
		p := c.Post()
		if ok && len(rd.Langs) > 0 && !slices.Contains(rd.Langs, p.Lang) {
			continue
		}
		if !ok || !rd.Allows(p, rd.Now) {
			if ok && p.NeverPublic && !rd.Allows(p.Untrashed(), rd.Now) {
				continue // the reader never saw it: its removal is none of their business
			}
			changes = append(changes, FeedChange{FeedDoc: d, Delete: true})
			continue
		}
		c.FeedDoc = d
		changes = append(changes, c)
	}
	return changes, nil
}
