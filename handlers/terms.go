package handlers

import (
	"net/http"
	"strconv"

	"github.com/calendard/calendard/storage"
)

// termParams is the category and tag field table (SEED 2.5, 2.6, docs/API.md "Category and tag fields").
func termParams(k *termKind) []Param {
	params := []Param{
		{Name: "name", Type: tString, Required: true, NonEmpty: true, MaxLen: maxTermName, Desc: "Name."},
		{Name: "description", Type: tString, NonEmpty: true, MaxLen: maxRichText, Desc: "Description."},
		{Name: "slug", Type: tString, NonEmpty: true, Desc: "Slug."},
	}
	if k.tax == storage.TaxCategory {
		params = append(params, Param{Name: "parent", Type: tInt, parse: parseParent, Desc: "Parent category ID (0: top level)."})
	}
	return params
}

func parseParent(_ *request, v any) (any, *problem) {
	n, err := coerceType(tInt, v)
	if err != nil {
		return nil, typeProblem(err)
	}
	if n.(int64) < 0 {
		return nil, bad("must be a category ID or 0")
	}
	return n, nil
}

func termInput(rq *request) *storage.TermInput {
	return &storage.TermInput{Name: rq.vals.str("name"), Description: rq.vals.str("description"),
		Slug: rq.vals.str("slug"), Parent: rq.vals.id("parent")}
}

func (h *Handler) termCollection(k *termKind) *route {
	return &route{pattern: "/" + namespace + "/" + k.route, endpoints: []*endpoint{
		{methods: []string{"GET"}, params: termListParams(k), query: newTermQuery, handle: h.cached(k.route, h.listTerms(k)), hot: true},
		{methods: []string{"POST"}, params: termParams(k), handle: h.createTerm(k), allowed: need(storage.CapEditPosts, k.manage)},
	}}
}

func (h *Handler) termSingle(k *termKind) *route {
	manage := need(storage.CapEditPosts, k.manage)
	return &route{pattern: "/" + namespace + "/" + k.route + `/(?P<id>\d+)`, kind: pathID, endpoints: []*endpoint{
		{methods: []string{"GET"}, params: idParams, handle: h.getTerm(k)},
		{methods: []string{"POST", "PUT", "PATCH"}, params: append(idParams, optional(termParams(k))...), handle: h.updateTerm(k), allowed: manage},
		{methods: []string{"DELETE"}, params: idParams, handle: h.deleteTerm(k), allowed: manage},
	}}
}

// findTerm loads the term of the route's taxonomy (a term of the other one is not found, docs/API.md "Categories and tags").
func (h *Handler) findTerm(rq *request, k *termKind) (*storage.Term, *storage.Related, error) {
	id, err := strconv.ParseUint(rq.pathID, 10, 64)
	if err != nil { // beyond 2^64-1: matches the route, designates nothing
		return nil, nil, &storage.Error{Op: storage.OpGet, Resource: k.tax.DocKind(), Err: storage.ErrNotFound}
	}
	return h.db.Term(rq.r.Context(), k.tax, id)
}

func (h *Handler) respondTerm(w http.ResponseWriter, rq *request, k *termKind, id uint64, status int) error {
	h.settle(rq)
	t, rel, err := h.db.Term(rq.r.Context(), k.tax, id)
	if err != nil {
		return err
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", h.termRESTURL(rq, k, id))
	}
	h.writeJSON(w, rq, status, h.renderTerm(rq, t, rel).pick(rq.fields))
	return nil
}

func (h *Handler) createTerm(k *termKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		if err := rq.require(storage.CapEditPosts, k.manage); err != nil {
			return err
		}
		t, err := h.db.CreateTerm(rq.r.Context(), rq.actor, k.tax, termInput(rq))
		if err != nil {
			return err
		}
		return h.respondTerm(w, rq, k, t.ID, http.StatusCreated)
	}
}

func (h *Handler) getTerm(k *termKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		t, rel, err := h.findTerm(rq, k)
		if err != nil {
			return err
		}
		h.writeSingle(w, rq, h.renderTerm(rq, t, rel))
		return nil
	}
}

func (h *Handler) updateTerm(k *termKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		t, _, err := h.findTerm(rq, k)
		if err != nil {
			return err
		}
		if err := rq.require(storage.CapEditPosts, k.manage); err != nil {
			return err
		}
		if _, err := h.db.UpdateTerm(rq.r.Context(), rq.actor, k.tax, t.ID, termInput(rq)); err != nil {
			return err
		}
		return h.respondTerm(w, rq, k, t.ID, http.StatusOK)
	}
}

func (h *Handler) deleteTerm(k *termKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		t, rel, err := h.findTerm(rq, k)
		if err != nil {
			return err
		}
		if err := rq.require(storage.CapEditPosts, k.manage); err != nil {
			return err
		}
		body := h.renderTerm(rq, t, rel)
		if _, err := h.db.DeleteTerm(rq.r.Context(), k.tax, t.ID); err != nil {
			return err
		}
		h.settle(rq)
		h.writeJSON(w, rq, http.StatusOK, body.pick(rq.fields))
		return nil
	}
}
