package handlers

import (
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/calendard/calendard/storage"
)

func (h *Handler) listTerms(k *termKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		page, perPage := pageOf(rq)
		all, err := h.db.Terms(rq.r.Context(), k.tax)
		if err != nil {
			return err
		}
		terms, err := h.filterTerms(rq, all)
		if err != nil {
			return err
		}
		orderby, order := "name", "asc"
		if s := rq.vals.str("orderby"); s != nil {
			orderby = *s
		}
		if s := rq.vals.str("order"); s != nil {
			order = strings.ToLower(*s)
		}
		include, _ := rq.vals["include"].(idList)
		slugs, _ := rq.vals["slug"].(slugFilter)
		sortTerms(terms, orderby, order == "desc", include, slugs.slugs)
		total := len(terms)
		terms = terms[min((page-1)*perPage, total):min(page*perPage, total)]
		rel := &storage.Related{Terms: map[uint64]*storage.Term{}}
		for _, t := range all {
			rel.Terms[t.ID] = t
		}
		items := make([]any, len(terms))
		for i, t := range terms {
			items[i] = h.renderTerm(rq, t, rel)
		}
		return h.writeList(w, rq, listing{key: k.route, items: items, total: total, page: page, perPage: perPage,
			doc: k.tax.DocKind(), params: termListParams(k)})
	}
}

// filterTerms applies every term-list filter of CONTRACT 5.4.
func (h *Handler) filterTerms(rq *request, all []*storage.Term) ([]*storage.Term, error) {
	var assigned []uint64
	postID, hasPost := rq.vals["post"].(int64)
	if id, ok := rq.vals["event"].(int64); ok {
		postID, hasPost = id, true // event wins over post
	}
	if hasPost {
		// Validation found the event, and events are never removed: any error is the store's.
		e, _, err := h.db.Event(rq.r.Context(), uint64(postID))
		if err != nil {
			return nil, err
		}
		assigned = append(slices.Clone(e.Categories), e.Tags...)
	}
	search := rq.vals.str("search")
	include, hasInclude := rq.vals["include"].(idList)
	exclude, _ := rq.vals["exclude"].(idList)
	slugs, hasSlugs := rq.vals["slug"].(slugFilter)
	parent, hasParent := rq.vals["parent"].(int64)
	hideEmpty := true
	if b := rq.vals.boolean("hide_empty"); b != nil {
		hideEmpty = *b
	}
	var out []*storage.Term
	for _, t := range all {
		switch {
		case hasInclude && !slices.Contains(include, t.ID),
			slices.Contains(exclude, t.ID),
			hasSlugs && !slices.Contains(slugs.slugs, t.Slug),
			hasParent && t.Parent != uint64(parent),
			hasPost && !slices.Contains(assigned, t.ID),
			search != nil && !containsFold(t.Name, *search) && !containsFold(t.Slug, *search),
			hideEmpty && t.Count == 0 && !hasCountedDescendant(all, t.ID):
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// hasCountedDescendant reports whether a category below id has published events: such an empty parent
// is still listed with hide_empty (WordPress hierarchical behaviour).
func hasCountedDescendant(all []*storage.Term, id uint64) bool {
	for _, t := range all {
		if t.Parent == id && t.ID != id && (t.Count > 0 || hasCountedDescendant(all, t.ID)) {
			return true
		}
	}
	return false
}

// sortTerms orders terms for the term lists (CONTRACT 5.4).
func sortTerms(terms []*storage.Term, orderby string, desc bool, include []uint64, slugs []string) {
	position := func(t *storage.Term) int {
		switch {
		case orderby == "include" && include != nil:
			return slices.Index(include, t.ID)
		case orderby == "include_slugs" && slugs != nil:
			return slices.Index(slugs, t.Slug)
		}
		return 0
	}
	slices.SortStableFunc(terms, func(a, b *storage.Term) int {
		var c int
		switch orderby {
		case "name":
			c = cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case "slug":
			c = cmp.Compare(strings.ToLower(a.Slug), strings.ToLower(b.Slug))
		case "description":
			c = cmp.Compare(a.Description, b.Description)
		case "count":
			c = cmp.Compare(a.Count, b.Count)
		case "id", "term_group":
			c = cmp.Compare(a.ID, b.ID)
			if orderby == "term_group" {
				c = 0
			}
		case "include", "include_slugs":
			if (orderby == "include" && include == nil) || (orderby == "include_slugs" && slugs == nil) {
				c = cmp.Compare(a.ID, b.ID)
			} else {
				c = cmp.Compare(position(a), position(b))
			}
		}
		if desc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.ID, b.ID))
	})
}
