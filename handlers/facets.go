package handlers

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// Facet counts of the events list (docs/API.md "Facets").
const (
	DefaultFacetLimit = 100
	MaxFacetLimit     = 1000
)

// facetKinds are the values of the facets parameter, in the order the facets object lists them.
var facetKinds = []string{"categories", "tags", "venue", "organizer", "month"}

// facetParams follow the events list's filters in its table: they ask for counts beside the page,
// and choose no event.
var facetParams = []Param{
	{Name: "facets", Type: tList, Items: tString, parse: parseFacets,
		Desc: "Count the listed events by these values: categories, tags, venue, organizer, month.",
		set:  into(func(q *eventQuery, s string) { q.facets = strings.Split(s, ",") })},
	{Name: "facet_limit", Type: tInt, Default: DefaultFacetLimit, parse: parseBounded(1, MaxFacetLimit),
		Desc: "Values listed at most in each facet (1 to 1000).",
		set:  into(func(q *eventQuery, n int64) { q.facetLimit = int(n) })},
}

// facetQuery is what facetParams write into the events list's query.
type facetQuery struct {
	// facets are the kinds asked for; nil when the parameter is not sent.
	facets []string
	// facetLimit is facet_limit; 0 when it is not sent, for DefaultFacetLimit.
	facetLimit int
}

// parseFacets reads the facets parameter, CSV or array. Its value is the kinds as sent, joined by
// commas, which is how rest_url echoes it.
func parseFacets(_ *request, v any) (any, *problem) {
	items, prob := listItems(v)
	if prob != nil {
		return nil, prob
	}
	for _, item := range items {
		if !slices.Contains(facetKinds, item) {
			return nil, &problem{code: "rest_not_in_enum", message: "must be one of " + strings.Join(facetKinds, ", ")}
		}
	}
	return strings.Join(items, ","), nil
}

// eventFacets is the index's request for the facets q asks for: each category counted for itself and
// its ancestors, as a category filter takes its descendants, and months in the site zone. It returns
// nil when q asks for none.
func (h *Handler) eventFacets(rq *request, q *facetQuery) (*index.Facets, error) {
	if q.facets == nil {
		return nil, nil
	}
	f := &index.Facets{Terms: map[uint64][]uint64{}, Venues: slices.Contains(q.facets, "venue"),
		Orgs: slices.Contains(q.facets, "organizer"), Limit: cmp.Or(q.facetLimit, DefaultFacetLimit)}
	if slices.Contains(q.facets, "categories") {
		cats, err := h.db.Terms(rq.r.Context(), storage.TaxCategory)
		if err != nil {
			return nil, err
		}
		parent := map[uint64]uint64{}
		for _, c := range cats {
			parent[c.ID] = c.Parent
		}
		for _, c := range cats {
			// The store keeps the tree acyclic; the bound only guards the loop against a broken one.
			for id := c.ID; id != 0 && len(f.Terms[c.ID]) <= len(cats); id = parent[id] {
				f.Terms[c.ID] = append(f.Terms[c.ID], id)
			}
		}
	}
	if slices.Contains(q.facets, "tags") {
		tags, err := h.db.Terms(rq.r.Context(), storage.TaxTag)
		if err != nil {
			return nil, err
		}
		for _, t := range tags {
			f.Terms[t.ID] = []uint64{t.ID}
		}
	}
	if slices.Contains(q.facets, "month") {
		f.Months = rq.site.Loc
	}
	return f, nil
}

// facetsObj renders the counts of the facets q asks for (docs/API.md "Facets"): each kind in the
// order of facetKinds, whatever the order asked; terms, venues and organizers by count descending
// then ID, months in calendar order; at most facet_limit values each. A value whose record is gone
// since the index counted it is left out. A venue or organizer is named whatever its status, as the
// events list embeds it in each of its events.
func (h *Handler) facetsObj(ctx context.Context, q *facetQuery, counts *index.FacetCounts) (obj, error) {
	limit := cmp.Or(q.facetLimit, DefaultFacetLimit)
	out := obj{}
	for _, kind := range facetKinds {
		if !slices.Contains(q.facets, kind) {
			continue
		}
		items := []obj{}
		switch kind {
		case "categories", "tags":
			tax := storage.TaxCategory
			if kind == "tags" {
				tax = storage.TaxTag
			}
			terms, err := h.db.Terms(ctx, tax)
			if err != nil {
				return nil, err
			}
			byID := map[uint64]*storage.Term{}
			for _, t := range terms {
				byID[t.ID] = t
			}
			ofKind := slices.DeleteFunc(slices.Clone(counts.Terms), func(c index.ValueCount) bool { return byID[c.ID] == nil })
			for _, b := range index.TopCounts(ofKind, limit) {
				t := byID[b.ID]
				items = append(items, obj{{"id", t.ID}, {"slug", t.Slug}, {"name", t.Name}, {"count", b.N}})
			}
		case "venue", "organizer":
			t, of := storage.TypeVenue, counts.Venues
			if kind == "organizer" {
				t, of = storage.TypeOrganizer, counts.Orgs
			}
			buckets := of // the index kept the first facet_limit, in order (eventFacets sets Facets.Limit)
			ids := make([]uint64, len(buckets))
			for i, b := range buckets {
				ids[i] = b.ID
			}
			recs, _, err := h.db.Load(ctx, t, ids)
			if err != nil {
				return nil, err
			}
			posts := map[uint64]*storage.Post{}
			for _, v := range recs.Venues {
				posts[v.ID] = &v.Post
			}
			for _, o := range recs.Organizers {
				posts[o.ID] = &o.Post
			}
			for _, b := range buckets {
				if p := posts[b.ID]; p != nil {
					items = append(items, obj{{"id", p.ID}, {"slug", p.Slug}, {"name", p.Title}, {"count", b.N}})
				}
			}
		case "month":
			months := slices.SortedFunc(maps.Keys(counts.Months), func(a, b index.Month) int {
				return cmp.Or(cmp.Compare(a.Year, b.Year), cmp.Compare(a.Month, b.Month))
			})
			for _, m := range months[:min(limit, len(months))] {
				items = append(items, obj{{"value", fmt.Sprintf("%04d-%02d", m.Year, int(m.Month))}, {"count", counts.Months[m]}})
			}
		}
		out = append(out, member{kind, items})
	}
	return out, nil
}

// facetsSchema describes the facets object in /doc: present only when the facets parameter is sent.
func facetsSchema() obj {
	integer := obj{{"type", "integer"}}
	record := obj{{"type", "array"}, {"items", obj{{"type", "object"}, {"properties", obj{
		{"id", integer}, {"slug", obj{{"type", "string"}}}, {"name", obj{{"type", "string"}}}, {"count", integer}}}}}}
	props := obj{}
	for _, kind := range facetKinds {
		if kind == "month" {
			props = append(props, member{kind, obj{{"type", "array"}, {"items", obj{{"type", "object"}, {"properties", obj{
				{"value", obj{{"type", "string"}, {"pattern", "^[0-9]{4}-[0-9]{2}$"}}}, {"count", integer}}}}}}})
		} else {
			props = append(props, member{kind, record})
		}
	}
	return obj{{"type", "object"}, {"description", "Only with the facets parameter: the listed events counted by value."}, {"properties", props}}
}
