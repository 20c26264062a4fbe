package handlers

import (
	"bytes"
	"context"

	"github.com/calendard/calendard/storage"
)

// itemCacheBytes bounds the memory the list-item cache holds: about 30 000 events as the lists
// embed them, which covers the pages near today that front ends ask for most.
const itemCacheBytes = 128 << 20

// rawJSON is an already encoded JSON value, written as it is.
type rawJSON []byte

// listRecord is a record loaded for a list page, ready to render.
type listRecord struct {
	id     uint64
	render func() obj
}

// loadPage loads the records ids of type t for a list page, in order; head is the change-log head of
// the snapshot they were read from.
func (h *Handler) loadPage(ctx context.Context, rq *request, t storage.PostType, ids []uint64) (recs []listRecord, head uint64, err error) {
	loaded, rel, err := h.db.Load(ctx, t, ids)
	if err != nil {
		return nil, 0, err
	}
	for _, e := range loaded.Events {
		recs = append(recs, listRecord{e.ID, func() obj { return h.renderEvent(rq, e, rel, false) }})
	}
	for _, v := range loaded.Venues {
		recs = append(recs, listRecord{v.ID, func() obj { return h.renderVenue(rq, v, rel, false) }})
	}
	for _, o := range loaded.Organizers {
		recs = append(recs, listRecord{o.ID, func() obj { return h.renderOrganizer(rq, o, rel, false) }})
	}
	return recs, loaded.Head, nil
}

// renderItems renders the records ids of type t as the items of a list page, in order, skipping IDs
// whose record is gone.
//
// An item's JSON is the same in every list that shows it, and rendering it (loading what it embeds,
// building and encoding it) is most of what a list page costs, so encoded items are kept and reused.
// An item depends on the store, not only on its own record: it embeds its venue, organizers, terms
// with their counts, and the translations the caller may read. Rather than track those links, an
// item is reused only while the change log has not moved since the snapshot it was rendered from,
// the index is at the same version, and the clock has not reached the next instant at which time
// alone changes a record (Index.NextPublication). Its key holds what the rendering takes from the
// request: the origin and language prefix of its URLs, and the caller, whose rights decide the
// translations shown.
//
// One page never mixes snapshots: when a write lands between looking items up and loading the
// missing ones, the whole page is rendered again from the newer snapshot.
func (h *Handler) renderItems(rq *request, t storage.PostType, ids []uint64) ([]any, error) {
	ctx := rq.r.Context()
	if len(rq.fields) > 0 {
		// _fields cuts each item down to its own shape: nothing to share.
		recs, _, err := h.loadPage(ctx, rq, t, ids)
		items := make([]any, len(recs))
		for i, r := range recs {
			items[i] = r.render()
		}
		return items, err
	}
	head, err := h.db.ChangeHead(ctx)
	if err != nil {
		return nil, err
	}
	version := h.index.Version()
	suffix := "\x00" + rq.origin + "\x00" + string(rq.prefix) + "\x00" + utoa(rq.actor.UserID) + "\x00" + string(rq.actor.Role)
	found := make(map[uint64][]byte, len(ids))
	var missing []uint64
	for _, id := range ids {
		if c := h.items.get(utoa(id)+suffix, head, version, rq.now); c != nil {
			found[id] = c.body
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		recs, snapshot, err := h.loadPage(ctx, rq, t, missing)
		if err == nil && snapshot != head && len(found) > 0 {
			clear(found)
			recs, snapshot, err = h.loadPage(ctx, rq, t, ids)
		}
		if err != nil {
			return nil, err
		}
		until := h.index.NextPublication(rq.now)
		buf := getBuffer()
		defer putBuffer(buf)
		for _, r := range recs {
			buf.Reset()
			if err := r.render().encode(buf); err != nil {
				return nil, err
			}
			body := bytes.Clone(buf.Bytes())
			found[r.id] = body
			h.items.put(utoa(r.id)+suffix, &cachedList{head: snapshot, version: version, from: rq.now, until: until, body: body})
		}
	}
	items := make([]any, 0, len(ids))
	for _, id := range ids {
		if b, ok := found[id]; ok {
			items = append(items, rawJSON(b))
		}
	}
	return items, nil
}
