package handlers

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/calendard/calendard/storage"
)

// recordKind is what differs between the routes of the three record types, events, venues and
// organizers, which otherwise behave alike (docs/API.md "Events", "Venues and organizers"): one descriptor per type, and the
// routes below built from it. A new kind of record route (a series, its occurrences) is a new
// descriptor, not a new set of handlers.
type recordKind struct {
	postType storage.PostType
	route    string // events, venues, organizers
	params   []Param
	// listParams, listQuery and list are the collection's GET: its table, the query the table's rows
	// write and its handler.
	listParams []Param
	listQuery  func(rq *request) any
	list       func(h *Handler, k *recordKind) handleFunc
	// check, when set, validates the fields of a write beyond their table (step 8 of docs/API.md "Responses").
	check func(vals values) error
	// makesSeries, when set, reports whether a write of vals makes a new series, which the series
	// limit counts (writelimits.go): old is the record an update changes, nil on a create.
	makesSeries func(vals values, old *record) bool
	// lookupIsParam: a path that designates no record fails validation (400, step 8), before the
	// permission check; otherwise the record is looked for in the handler (404, step 10), after it,
	// whose check then falls back on the capability (docs/API.md "Events" against 4.3, 4.4).
	lookupIsParam bool
	// trashGone: a trashed record is gone for readers (403 on GET, docs/API.md "Events") rather than shown to
	// those who may read it.
	trashGone bool
	// load finds the record by ID (slug == "") or by slug in lang.
	load   func(ctx context.Context, db Store, id uint64, lang storage.Lang, slug string) (record, error)
	create func(ctx context.Context, db Store, rq *request) (*storage.Post, error)
	update func(ctx context.Context, db Store, rq *request, id uint64) error
	// trash moves record id to the trash, or what of it the request names (deleteParams), and returns
	// the ID of the record the answer shows.
	trash func(ctx context.Context, db Store, rq *request, id uint64) (uint64, error)
	// deleteParams are DELETE's parameters beyond the path.
	deleteParams []Param
}

// record is a loaded event, venue or organizer, ready to render.
type record struct {
	post   *storage.Post
	render func(h *Handler, rq *request, withLD bool) obj
	// series marks a series' parent: an event with a recurrence rule.
	series bool
}

// loadBy reads a record by slug in lang when slug is set, by ID otherwise, with one of the store's
// pairs of readers (Event and EventBySlug, …).
func loadBy[T any](ctx context.Context, id uint64, lang storage.Lang, slug string,
	byID func(context.Context, uint64) (T, *storage.Related, error),
	bySlug func(context.Context, storage.Lang, string) (T, *storage.Related, error)) (T, *storage.Related, error) {
	if slug != "" {
		return bySlug(ctx, lang, slug)
	}
	return byID(ctx, id)
}

// lookup is the record a single-record route's path designates, looked up once per request: the
// permission check of the Allow header and the handler share it (a write loads its record once
// before it writes). It is looked up again only if the language changed in between, as a by-slug
// lookup depends on it (translation_language in a body, docs/API.md "Languages").
type lookup struct {
	done bool
	lang storage.Lang
	rec  record
	err  error
}

func (h *Handler) recordCollection(k *recordKind) *route {
	return &route{pattern: "/" + namespace + "/" + k.route, endpoints: []*endpoint{
		{methods: []string{"GET"}, params: k.listParams, query: k.listQuery, handle: h.cached(k.route, k.list(h, k)), hot: true},
		{methods: []string{"POST"}, params: creating(k.params), handle: h.createRecord(k), allowed: need(storage.CapEditPosts)},
	}}
}

func (h *Handler) recordSingle(k *recordKind, kind pathKind) *route {
	rt := &route{pattern: "/" + namespace + "/" + k.route + `/(?P<id>\d+)`, kind: kind, record: func(rq *request) *storage.Post {
		if rec, err := h.findRecord(rq, k); err == nil {
			return rec.post
		}
		return nil
	}}
	path := idParams
	if kind == pathSlug {
		rt.pattern = "/" + namespace + "/" + k.route + "/by-slug/(?P<slug>[^/]+)"
		path = slugParams
	}
	rt.endpoints = []*endpoint{
		{methods: []string{"GET"}, params: path, handle: h.getRecord(k)},
		{methods: []string{"DELETE"}, params: append(slices.Clip(path), k.deleteParams...), handle: h.deleteRecord(k), allowed: onRecord(storage.Actor.CanDelete, storage.CapDeletePosts)},
		{methods: []string{"POST", "PUT", "PATCH"}, params: append(path, optional(k.params)...), handle: h.updateRecord(k), allowed: onRecord(storage.Actor.CanEdit, storage.CapEditPosts)},
	}
	return rt
}

// findRecord returns the record the route's path designates: by ID, or by slug in the selected
// language.
func (h *Handler) findRecord(rq *request, k *recordKind) (record, error) {
	if l := &rq.lookup; !l.done || l.lang != rq.lang {
		*l = lookup{done: true, lang: rq.lang}
		id, err := strconv.ParseUint(rq.pathID, 10, 64)
		if rq.slug == "" && err != nil { // beyond 2^64-1: matches the route, designates nothing
			l.err = &storage.Error{Op: storage.OpGet, Resource: k.postType.DocKind(), Err: storage.ErrNotFound}
		} else {
			l.rec, l.err = k.load(rq.r.Context(), h.db, id, rq.lang, rq.slug)
		}
	}
	return rq.lookup.rec, rq.lookup.err
}

// checkRecord applies the record-level permission of a write route (docs/API.md "Authentication and permissions") and returns the
// record: may, the caller's right on the record when there is one; where the lookup is not a
// parameter, the capability when there is none, and only then the lookup's own error.
func (h *Handler) checkRecord(rq *request, k *recordKind, may func(storage.Actor, *storage.Post) bool, fallback storage.Cap) (record, error) {
	rec, err := h.findRecord(rq, k)
	if (err != nil || !may(rq.actor, rec.post)) && h.catchUp(rq) {
		// The write's own transaction checks again on what it commits against; a refusal here must
		// not come from another node's write this node's copy had not received yet.
		rq.lookup = lookup{}
		rec, err = h.findRecord(rq, k)
	}
	if err != nil {
		if !k.lookupIsParam && rq.slug == "" {
			if ferr := rq.require(fallback); ferr != nil {
				return record{}, ferr
			}
		}
		return record{}, err
	}
	if !may(rq.actor, rec.post) {
		return record{}, storage.ErrForbidden
	}
	return rec, nil
}

func (h *Handler) createRecord(k *recordKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		if k.check != nil {
			if err := k.check(rq.vals); err != nil {
				return err
			}
		}
		if err := rq.require(storage.CapEditPosts); err != nil {
			return err
		}
		if err := h.limitSeries(rq, k, nil); err != nil {
			return err
		}
		p, err := k.create(rq.r.Context(), h.db, rq)
		if err != nil {
			return err
		}
		return h.respondRecord(w, rq, k, p.ID, http.StatusCreated)
	}
}

func (h *Handler) getRecord(k *recordKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		rec, err := h.findRecord(rq, k)
		if err != nil {
			return err
		}
		switch {
		case k.trashGone && rec.post.Status == storage.StatusTrash:
			return &storage.Error{Op: storage.OpGet, Resource: k.postType.DocKind(), ID: rec.post.ID, Err: storage.ErrTrashed}
		case !rq.actor.CanRead(rec.post):
			return &storage.Error{Op: storage.OpGet, Resource: k.postType.DocKind(), ID: rec.post.ID, Err: storage.ErrForbidden}
		}
		h.writeSingle(w, rq, rec.render(h, rq, true))
		return nil
	}
}

func (h *Handler) updateRecord(k *recordKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		if k.check != nil {
			if err := k.check(rq.vals); err != nil {
				return err
			}
		}
		rec, err := h.checkRecord(rq, k, storage.Actor.CanEdit, storage.CapEditPosts)
		if err != nil {
			return err
		}
		if err := h.limitSeries(rq, k, &rec); err != nil {
			return err
		}
		if err := k.update(rq.r.Context(), h.db, rq, rec.post.ID); err != nil {
			return err
		}
		return h.respondRecord(w, rq, k, rec.post.ID, http.StatusOK)
	}
}

func (h *Handler) deleteRecord(k *recordKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		rec, err := h.checkRecord(rq, k, storage.Actor.CanDelete, storage.CapDeletePosts)
		if err != nil {
			return err
		}
		id, err := k.trash(rq.r.Context(), h.db, rq, rec.post.ID)
		if err != nil {
			return err
		}
		return h.respondRecord(w, rq, k, id, http.StatusOK)
	}
}

// respondRecord answers a write with the record as it is now, read again after the write (no
// json_ld, docs/API.md "The event object"), and the Location of a created one.
func (h *Handler) respondRecord(w http.ResponseWriter, rq *request, k *recordKind, id uint64, status int) error {
	h.settle(rq)
	rec, err := k.load(rq.r.Context(), h.db, id, "", "")
	if err != nil {
		return err
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", h.restURL(rq, rec.post))
	}
	h.writeJSON(w, rq, status, rec.render(h, rq, false).pick(rq.fields))
	return nil
}
