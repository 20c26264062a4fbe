package handlers

import (
	"slices"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
)

// The list parameters here name records, each of which must exist (docs/API.md "Responses" step 7, 5.2–5.4), so
// their parsers read the store. A read that fails is the request's failure (failed, lookupProblem),
// never a 400 that blames the parameter.

// termFilter is a parsed categories/tags filter: the items as sent (for rest_url) and their IDs.
type termFilter struct {
	items []string
	ids   []uint64
}

func parseTermFilter(tax storage.Taxonomy) func(*request, any) (any, *problem) {
	return func(rq *request, v any) (any, *problem) {
		items, prob := listItems(v)
		if prob != nil {
			return nil, prob
		}
		ids, missing, err := rq.db.ResolveTerms(rq.r.Context(), tax, items)
		if err != nil {
			return nil, failed(err)
		}
		if missing != "" {
			return nil, bad("no " + tax.String() + " has the ID or slug " + missing)
		}
		return termFilter{items: items, ids: ids}, nil
	}
}

func parseLinkedFilter(t storage.PostType) func(*request, any) (any, *problem) {
	return func(rq *request, v any) (any, *problem) {
		ids, prob := parseIDs(v)
		if prob != nil {
			return nil, prob
		}
		// Load skips IDs it has no record of the type for, so any error is the store's. An ID named
		// twice is one record (`venue=15,15`).
		unique := uniqueIDs(ids)
		recs, _, err := rq.db.Load(rq.r.Context(), t, unique)
		if err != nil {
			return nil, failed(err)
		}
		if n := len(recs.Venues) + len(recs.Organizers); n != len(unique) {
			return nil, bad("every ID must be the ID of a " + t.String())
		}
		return ids, nil
	}
}

func uniqueIDs(ids []uint64) []uint64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// parseEventRef reads an existing event ID (any status or language).
func parseEventRef(rq *request, v any) (any, *problem) {
	n, err := input.Int(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	const message = "must be the ID of an event"
	if n < 1 {
		return nil, bad(message)
	}
	if _, _, err := rq.db.Event(rq.r.Context(), uint64(n)); err != nil {
		return nil, lookupProblem(err, message)
	}
	return n, nil
}

func parseTermIDs(tax storage.Taxonomy) func(*request, any) (any, *problem) {
	return func(rq *request, v any) (any, *problem) {
		ids, prob := parseIDs(v)
		if prob != nil {
			return nil, prob
		}
		for _, id := range ids {
			if _, _, err := rq.db.Term(rq.r.Context(), tax, id); err != nil {
				return nil, lookupProblem(err, "every ID must be the ID of a "+tax.String())
			}
		}
		return ids, nil
	}
}

func parseParentFilter(rq *request, v any) (any, *problem) {
	n, err := coerceType(tInt, v)
	if err != nil {
		return nil, typeProblem(err)
	}
	id := n.(int64)
	if id < 0 {
		return nil, bad("must be a category ID or 0")
	}
	if id > 0 {
		if _, _, err := rq.db.Term(rq.r.Context(), storage.TaxCategory, uint64(id)); err != nil {
			return nil, lookupProblem(err, "must be a category ID or 0")
		}
	}
	return id, nil
}
