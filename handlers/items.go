package handlers

import (
	"bytes"
	"context"

	"github.com/calendard/calendard/handlers/respcache"
	"github.com/calendard/calendard/storage"
	"github.com/klauspost/compress/s2"
)

// itemCacheBytes bounds the memory the list-item cache holds: about 30 000 events as the lists
// embed them, which covers the pages near today that front ends ask for most.
const itemCacheBytes = 128 << 20

// rawJSON is an already encoded JSON value, written as it is.
type rawJSON []byte

// packedJSON is an already encoded JSON value kept packed (respcache.Pack), with dictionary dict when
// not nil: a cached item, which is unpacked straight into the page written (encodeValue): unpacking the
// page's items into a slice of their own first was a fifth of the bytes the server allocated, and so
// of the collector's work (docs/BENCHMARKS.md, section "Compression and caching").
type packedJSON struct {
	packed []byte
	dict   *s2.Dict
}

// listRecord is a record loaded for a list page, ready to render, with the documents its item embeds.
type listRecord struct {
	id     uint64
	render func() obj
	deps   []storage.Doc
}

// loadPage loads the records ids of type t for a list page, in order, and returns with them the
// store's Records (their snapshot's change-log head, its next scheduled date).
func (h *Handler) loadPage(ctx context.Context, rq *request, t storage.PostType, ids []uint64) ([]listRecord, *storage.Records, error) {
	loaded, rel, err := h.db.Load(ctx, t, ids)
	if err != nil {
		return nil, nil, err
	}
	var recs []listRecord
	for _, e := range loaded.Events {
		recs = append(recs, listRecord{e.ID, func() obj { return h.renderEvent(rq, e, rel, false) }, storage.EventDocs(e, rel)})
	}
	for _, v := range loaded.Venues {
		recs = append(recs, listRecord{v.ID, func() obj { return h.renderVenue(rq, v, rel, false) }, storage.PostDocs(&v.Post, rel)})
	}
	for _, o := range loaded.Organizers {
		recs = append(recs, listRecord{o.ID, func() obj { return h.renderOrganizer(rq, o, rel, false) }, storage.PostDocs(&o.Post, rel)})
	}
	return recs, loaded, nil
}

// renderItems renders the records ids of type t as the items of a list page, in order, skipping IDs
// whose record is gone.
//
// An item's JSON is the same in every list that shows it, and rendering it (loading what it embeds,
// building and encoding it) is most of what a list page costs, so encoded items are kept and reused,
// each rendered once per version of what it embeds. An item records the documents it embeds (its
// record, venue, organizers, terms with their counts, translation groups) and the change-log head of
// the snapshot it was rendered from. It is reused while no change-log entry since then names one of
// those documents (every write logs the documents whose responses it changes), and until the clock
// reaches the next instant at which time alone changes a record (a scheduled record's date). Its key
// holds what the rendering takes from the request: the origin and language prefix of its URLs, and
// the caller, whose rights decide the translations shown.
//
// Items are kept whole and plain: what one page adds to them (a distance, a search's highlight) is
// written after them (withMembers), and _fields cuts them down as the page is written (pickedJSON).
//
// One page never mixes snapshots: every item reused is valid at the head read first, and when a
// write lands before the missing ones are loaded, the whole page is rendered again from the newer
// snapshot.
func (h *Handler) renderItems(rq *request, t storage.PostType, ids []uint64) ([]any, error) {
	return h.renderItemsWith(rq, t, ids, nil)
}

// renderItemsWith renders as renderItems does, then passes each item with its record's ID through
// extend, when not nil: what one list adds to the items every list shows (distance_km).
func (h *Handler) renderItemsWith(rq *request, t storage.PostType, ids []uint64, extend func(id uint64, item any) any) ([]any, error) {
	if extend == nil {
		extend = func(_ uint64, item any) any { return item }
	}
	ctx := rq.r.Context()
	marks, err := h.highlights(ctx, rq, t, ids)
	if err != nil {
		return nil, err
	}
	head, err := h.db.ChangeHead(ctx)
	if err != nil {
		return nil, err
	}
	suffix := itemSuffix(rq)
	found, err := h.cachedItems(ctx, rq, ids, suffix, head)
	if err != nil {
		return nil, err
	}
	var missing []uint64
	for _, id := range ids {
		if _, ok := found[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		recs, snapshot, err := h.loadPage(ctx, rq, t, missing)
		if err == nil && snapshot.Head != head && len(found) > 0 {
			clear(found)
			recs, snapshot, err = h.loadPage(ctx, rq, t, ids)
		}
		if err != nil {
			return nil, err
		}
		// A scheduled record's date changes the items that embed it and the term counts items embed:
		// the snapshot the items are rendered from says when the first comes, whatever the index has
		// applied; the index's next publication, an hour ahead when none is scheduled, bounds them too.
		until := h.index.NextPublication(ctx, rq.now)
		if next := snapshot.NextScheduled; !next.IsZero() && next.Before(until) {
			until = next
		}
		buf := getBuffer()
		defer putBuffer(buf)
		for _, r := range recs {
			buf.Reset()
			if err := r.render().encode(buf); err != nil {
				return nil, err
			}
			key := utoa(r.id) + suffix
			if !h.items.Admit(key) {
				found[r.id] = rawJSON(bytes.Clone(buf.Bytes()))
				continue
			}
			// The answer unpacks the item kept rather than a copy of its own: a fifth of the bytes.
			packed, dict := h.itemDicts.Pack(t.String()+"\x00"+string(rq.prefix), buf.Bytes())
			found[r.id] = packedJSON{packed, dict}
			h.items.Put(key, &respcache.Entry{Head: snapshot.Head, From: rq.now, Until: until, Packed: packed, Dict: dict, Deps: r.deps})
		}
	}
	items := make([]any, 0, len(ids))
	for _, id := range ids {
		if item, ok := found[id]; ok {
			items = append(items, withHighlight(extend(id, item), marks[id]))
		}
	}
	return items, nil
}

// itemSuffix is what follows an item's ID in its key in the item cache: what the rendering takes
// from rq.
func itemSuffix(rq *request) string {
	return "\x00" + rq.origin + "\x00" + string(rq.prefix) + "\x00" + utoa(rq.actor.UserID) + "\x00" + string(rq.actor.Role)
}

// cachedItems returns the items of ids cached and still current at head (respcache.Cache.Current),
// as packedJSON. The cache keeps items packed with a dictionary of their type and language
// (respcache.Dicts), about a fifth of their bytes, so that a budget holds about three times the
// items (what an entry costs besides is the same); unpacking one takes a microsecond, rendering it
// again tens.
func (h *Handler) cachedItems(ctx context.Context, rq *request, ids []uint64, suffix string, head uint64) (map[uint64]any, error) {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = utoa(id) + suffix
	}
	entries, err := h.items.Current(ctx, h.db, keys, head, rq.now)
	if err != nil {
		return nil, err
	}
	found := make(map[uint64]any, len(entries))
	for i, id := range ids {
		if e := entries[keys[i]]; e != nil {
			found[id] = packedJSON{e.Packed, e.Dict}
		}
	}
	return found, nil
}
