package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// The change feed, GET {ns}/changes (an extension of the contract, additive): what changed
// since a cursor, for caches, mirrors and front ends that keep a copy, as Google Calendar's sync
// token or CalDAV's sync-collection. The change log is the ordered list, and a cursor is a change-log
// position.
const (
	DefaultChangesLimit = 100
	MaxChangesLimit     = 1000
	// MaxChangesWait bounds a long poll, in seconds.
	MaxChangesWait = 60
	// changesScanFactor bounds the log entries one answer reads, as a multiple of its limit: entries of
	// other languages and repeats of one document are read without adding a change, and a reader must
	// not pay for a long run of them.
	changesScanFactor = 10
)

// changesPattern is the feed's route pattern.
const changesPattern = "/" + namespace + "/changes"

var changesParams = []Param{
	{Name: "since", Type: tString, parse: parseCursor, Desc: "Cursor to follow from: the next of an earlier answer. Without it, the current cursor and no changes."},
	{Name: "limit", Type: tInt, Default: DefaultChangesLimit, parse: parseBounded(1, MaxChangesLimit), Desc: "Changes to return at most (1 to 1000)."},
	{Name: "wait", Type: tInt, Default: 0, parse: parseBounded(0, MaxChangesWait), Desc: "Seconds to wait for a change when there is none yet (long poll, 0 to 60)."},
}

// cursor is a change-log position, written as its decimal number. Clients must treat it as opaque.
type cursor uint64

func (c cursor) String() string { return strconv.FormatUint(uint64(c), 10) }

func parseCursor(_ *request, v any) (any, *problem) {
	s, ok := v.(string)
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if !ok || err != nil {
		return nil, bad("must be a cursor this service returned")
	}
	return cursor(n), nil
}

// feedDoc is one document the feed reports: its newest entry in the answer's range.
type feedDoc struct {
	doc storage.Doc
	seq uint64
}

func (h *Handler) listChanges(w http.ResponseWriter, rq *request) error {
	ctx := rq.r.Context()
	head, err := h.db.ChangeHead(ctx)
	if err != nil {
		return err
	}
	since, ok := rq.vals["since"].(cursor)
	if !ok {
		// A client lists first, then follows from here (list and watch).
		h.writeJSON(w, rq, http.StatusOK, obj{{"changes", []any{}}, {"next", cursor(head).String()}, {"more", false}})
		return nil
	}
	if uint64(since) > head {
		// A cursor from another log (a store restored from a backup older than the cursor): the
		// client must list again, as after a trim.
		return storage.ErrCompacted
	}
	limit := DefaultChangesLimit
	if n, ok := rq.vals["limit"].(int64); ok {
		limit = int(n)
	}
	if wait, ok := rq.vals["wait"].(int64); ok && wait > 0 && uint64(since) == head {
		var done func()
		if ctx, done = h.longPoll(rq, uint64(since), time.Duration(wait)*time.Second); ctx.Err() != nil {
			done()
			return ctx.Err()
		}
		defer done()
		// The credentials are checked again after the wait: a password revoked meanwhile, or a user
		// whose role changed, answers with what they are now, not with the rights of a minute ago.
		if !rq.actor.Anonymous() {
			if err := h.authenticate(rq); err != nil {
				return err
			}
		}
	}
	docs, next, more, err := h.changedDocs(ctx, uint64(since), limit)
	if err != nil {
		return err
	}
	changes, err := h.renderChanges(ctx, rq, docs)
	if err != nil {
		return err
	}
	h.writeJSON(w, rq, http.StatusOK, obj{{"changes", changes}, {"next", cursor(next).String()}, {"more", more}})
	return nil
}

// longPoll holds the request until the index has applied a change after since (the syncer's
// notification), wait has passed, the client has gone or the server shuts down. It returns the
// context the rest of the request runs in: the handler's deadline and the server's write timeout
// start again after the wait, so that a full wait still answers. done releases it.
func (h *Handler) longPoll(rq *request, since uint64, wait time.Duration) (ctx context.Context, done func()) {
	// A writer that cannot move its deadline (a test recorder) keeps the server's.
	_ = http.NewResponseController(rq.sw).SetWriteDeadline(time.Now().Add(wait + h.cfg.HandlerTimeout))
	ctx, cancel := context.WithTimeout(context.WithoutCancel(rq.r.Context()), wait+h.cfg.HandlerTimeout)
	stopClient := context.AfterFunc(rq.client, cancel)
	wctx, stopWait := context.WithTimeout(ctx, wait)
	defer stopWait()
	if h.stopping != nil {
		stopServer := context.AfterFunc(h.stopping, stopWait)
		defer stopServer()
	}
	_ = h.index.WaitApplied(wctx, since+1) // ends with a change, or with wctx: either way, answer
	return ctx, func() { stopClient(); cancel() }
}

// changedDocs reads the change log after since and returns up to limit documents, each once with its
// newest entry, the cursor after the last entry read, and whether entries remain. Returns
// storage.ErrCompacted when entries after since were trimmed.
func (h *Handler) changedDocs(ctx context.Context, since uint64, limit int) (docs []feedDoc, next uint64, more bool, err error) {
	at := map[storage.Doc]int{}
	next = since
	for read := 0; ; {
		n := min(MaxChangesLimit, limit*changesScanFactor-read)
		if n == 0 {
			rest, err := h.db.Changes(ctx, next, 1)
			return docs, next, len(rest) > 0, err
		}
		page, err := h.db.Changes(ctx, next, n)
		if err != nil {
			return nil, 0, false, err
		}
		for _, c := range page {
			d := storage.Doc{Kind: c.Kind, ID: c.ID}
			if i, ok := at[d]; ok {
				docs[i].seq = c.Seq
			} else if len(docs) == limit {
				return docs, next, true, nil
			} else {
				at[d] = len(docs)
				docs = append(docs, feedDoc{d, c.Seq})
			}
			next = c.Seq
		}
		if read += len(page); len(page) < n {
			return docs, next, false, nil // the end of the log
		}
	}
}

// renderChanges loads the documents' current state and renders each as the caller sees it: an
// upsert with the single GET's JSON, or a delete when the record is gone or hidden from the caller
// (as on a list without `status`) and the caller could have seen it once. Records of other languages
// are left out.
func (h *Handler) renderChanges(ctx context.Context, rq *request, docs []feedDoc) ([]any, error) {
	byType := map[storage.PostType][]uint64{}
	for _, d := range docs {
		if t, ok := d.doc.Kind.PostType(); ok {
			byType[t] = append(byType[t], d.doc.ID)
		}
	}
	type loaded struct {
		post   *storage.Post
		render func() obj
	}
	records := map[storage.Doc]loaded{}
	for t, ids := range byType {
		recs, rel, err := h.db.Load(ctx, t, ids)
		if err != nil {
			return nil, err
		}
		for _, e := range recs.Events {
			records[storage.Doc{Kind: storage.DocEvent, ID: e.ID}] = loaded{&e.Post, func() obj { return h.renderEvent(rq, e, rel, true) }}
		}
		for _, v := range recs.Venues {
			records[storage.Doc{Kind: storage.DocVenue, ID: v.ID}] = loaded{&v.Post, func() obj { return h.renderVenue(rq, v, rel, true) }}
		}
		for _, o := range recs.Organizers {
			records[storage.Doc{Kind: storage.DocOrganizer, ID: o.ID}] = loaded{&o.Post, func() obj { return h.renderOrganizer(rq, o, rel, true) }}
		}
	}
	vis := index.Visibility{Actor: rq.actor}
	changes := make([]any, 0, len(docs))
	for _, d := range docs {
		change := obj{{"cursor", cursor(d.seq).String()}, {"type", d.doc.Kind.String()}, {"id", d.doc.ID}}
		if tax, ok := d.doc.Kind.Taxonomy(); ok {
			t, rel, err := h.db.Term(ctx, tax, d.doc.ID)
			switch {
			case err == nil:
				change = append(change, member{"action", "upsert"}, member{"record", h.renderTerm(rq, t, rel)})
			case errors.Is(err, storage.ErrNotFound):
				change = append(change, member{"action", "delete"})
			default:
				return nil, err
			}
			changes = append(changes, change)
			continue
		}
		r, ok := records[d.doc]
		if ok && r.post.Lang != rq.lang {
			continue
		}
		if !ok || !vis.Allows(r.post, rq.now) {
			if ok && r.post.NeverPublic && !vis.Allows(r.post.Untrashed(), rq.now) {
				continue // the caller never saw it: its removal is none of its business
			}
			changes = append(changes, append(change, member{"action", "delete"}))
			continue
		}
		changes = append(changes, append(change, member{"action", "upsert"},
			member{"modified_utc", dbTime(r.post.Modified, time.UTC)}, member{"record", r.render()}))
	}
	return changes, nil
}
