package handlers

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/calendard/calendard/storage"
)

// defaultTermOrderby is orderby when it is not sent.
const defaultTermOrderby = "name"

// termQuery is the categories and tags lists' query as the rows of termListParams write it. A nil
// include, slugs or parent, an empty search and a zero post or event filter nothing.
type termQuery struct {
	paging
	search           string
	include, exclude []uint64
	slugs            []string
	parent           *int64
	// post and event name the same filter; event wins when both are sent.
	post, event uint64
	orderby     string
	desc        bool
	hideEmpty   bool
}

func newTermQuery(*request) any {
	return &termQuery{paging: firstPage, orderby: defaultTermOrderby, hideEmpty: true}
}

func (h *Handler) listTerms(k *termKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		q := rq.query.(*termQuery)
		all, err := h.db.Terms(rq.r.Context(), k.tax)
		if err != nil {
			return err
		}
		terms, err := h.filterTerms(rq.r.Context(), q, all)
		if err != nil {
			return err
		}
		sortTerms(terms, q.orderby, q.desc, q.include, q.slugs)
		total := len(terms)
		terms = terms[min(q.offset(), total):min(q.offset()+q.perPage, total)]
		rel := &storage.Related{Terms: map[uint64]*storage.Term{}}
		for _, t := range all {
			rel.Terms[t.ID] = t
		}
		items := make([]any, len(terms))
		for i, t := range terms {
			items[i] = h.renderTerm(rq, t, rel)
		}
		return h.writeList(w, rq, listing{key: k.route, items: items, total: total, paging: q.paging,
			doc: k.tax.DocKind(), params: termListParams(k)})
	}
}

// filterTerms applies every term-list filter of docs/API.md "Category and tag list parameters".
func (h *Handler) filterTerms(ctx context.Context, q *termQuery, all []*storage.Term) ([]*storage.Term, error) {
	var assigned []uint64
	post := cmp.Or(q.event, q.post)
	if post != 0 {
		// Validation found the event, and events are never removed: any error is the store's.
		e, _, err := h.db.Event(ctx, post)
		if err != nil {
			return nil, err
		}
		assigned = append(slices.Clone(e.Categories), e.Tags...)
	}
	var out []*storage.Term
	for _, t := range all {
		switch {
		case q.include != nil && !slices.Contains(q.include, t.ID),
			slices.Contains(q.exclude, t.ID),
			q.slugs != nil && !slices.Contains(q.slugs, t.Slug),
			q.parent != nil && t.Parent != uint64(*q.parent),
			post != 0 && !slices.Contains(assigned, t.ID),
			q.search != "" && !containsFold(t.Name, q.search) && !containsFold(t.Slug, q.search),
			q.hideEmpty && t.Count == 0 && !hasCountedDescendant(all, t.ID):
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

// sortTerms orders terms for the term lists (docs/API.md "Category and tag list parameters").
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
