package handlers

import (
	"context"
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
	docs, next, more, err := index.ChangedDocs(ctx, h.db, index.FeedRange{Since: uint64(since), Page: MaxChangesLimit}, limit)
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

// renderChanges renders the feed's documents as the caller sees them (index.FeedReader): an upsert
// with the single GET's JSON, or a delete.
func (h *Handler) renderChanges(ctx context.Context, rq *request, docs []index.FeedDoc) ([]any, error) {
	rd := index.FeedReader{Visibility: index.Visibility{Actor: rq.actor}, Langs: []storage.Lang{rq.lang}, Now: rq.now}
	feed, err := rd.Changes(ctx, h.db, docs)
	if err != nil {
		return nil, err
	}
	changes := make([]any, 0, len(feed))
	for _, c := range feed {
		change := obj{{"cursor", cursor(c.Seq).String()}, {"type", c.Doc.Kind.String()}, {"id", c.Doc.ID}}
		var record obj
		switch {
		case c.Delete:
			changes = append(changes, append(change, member{"action", "delete"}))
			continue
		case c.Term != nil:
			changes = append(changes, append(change, member{"action", "upsert"}, member{"record", h.renderTerm(rq, c.Term, c.Rel)}))
			continue
		case c.Event != nil:
			record = h.renderEvent(rq, c.Event, c.Rel, true)
		case c.Venue != nil:
			record = h.renderVenue(rq, c.Venue, c.Rel, true)
		default:
			record = h.renderOrganizer(rq, c.Organizer, c.Rel, true)
		}
		changes = append(changes, append(change, member{"action", "upsert"},
			member{"modified_utc", dbTime(c.Post().Modified, time.UTC)}, member{"record", record}))
	}
	return changes, nil
}
