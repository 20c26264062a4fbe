package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// The one-box search, GET {ns}/search (an extension, docs/API.md "One-box search"): what a search box
// that suggests as the visitor types asks for, the best matches of every kind in one answer. Each
// kind's part is the first page of its list for the same search, per_type items long, computed by the
// list's own handler through the list's own parameter table: the items, their order, what the caller
// may see and the totals are the list's, byte for byte, and stay so whatever the lists learn later.
// Reading each list's answer back costs about an eighth of an answer no cache holds
// (docs/BENCHMARKS.md, "The one-box search"), and leaves the lists' code as it is.
//
// The answer goes through the list cache like a list. Unlike a list it carries an ETag, as the
// iCalendar feed does: a browser revalidates every suggestion it asks for again (Cache-Control:
// no-cache), and a 304 spares it the body.
const (
	searchPattern = "/" + namespace + "/search"
	// searchRoute names the answers in the list cache; boundaryRequest makes their path from it.
	searchRoute    = "search"
	defaultPerType = 5
	maxPerType     = 20
)

// searchParams is the one box's table (docs/API.md "One-box search"). Every row but per_type is handed
// to each list as it was sent, so a list parameter the one box takes on is one row here.
var searchParams = []Param{
	{Name: "search", Type: tString, Required: true, NonEmpty: true, Desc: "Words to find in events, venues, organizers, categories and tags, as each list searches them."},
	{Name: "per_type", Type: tInt, Default: defaultPerType, parse: parseBounded(1, maxPerType), Desc: "Items of each kind to return (1 to 20)."},
	oneBoxParam(highlightParam),
}

// oneBoxParam is a list's row as the one box takes it: validated here, and written into each list's
// query by the list's own table when the value is handed on.
func oneBoxParam(p Param) Param {
	p.set = nil
	return p
}

// searchSchema is the OpenAPI schema of the one box's 200 (openapi.go).
var searchSchema = props(
	member{"events", obj{{"type", "array"}, {"items", ref("Event")}}},
	member{"venues", obj{{"type", "array"}, {"items", ref("Venue")}}},
	member{"organizers", obj{{"type", "array"}, {"items", ref("Organizer")}}},
	member{"categories", obj{{"type", "array"}, {"items", ref("Term")}}},
	member{"tags", obj{{"type", "array"}, {"items", ref("Term")}}},
	member{"totals", obj{{"type", "object"}, {"additionalProperties", typed("integer")}}},
)

// searchKind is one kind the one box searches: its list's table, the query the table's rows write
// and the list's handler. key is the list's route, which names the kind's array and total.
type searchKind struct {
	key    string
	params []Param
	query  func(rq *request) any
	list   handleFunc
}

// searchRouteOf is the one box's route, its kinds in the order of the answer.
func (h *Handler) searchRouteOf() *route {
	var kinds []searchKind
	for _, k := range []*recordKind{eventKind, venueKind, organizerKind} {
		kinds = append(kinds, searchKind{k.route, k.listParams, k.listQuery, k.list(h, k)})
	}
	for _, k := range []*termKind{categoryKind, tagKind} {
		kinds = append(kinds, searchKind{k.route, termListParams(k), newTermQuery, h.listTerms(k)})
	}
	return &route{pattern: searchPattern, endpoints: []*endpoint{{methods: []string{"GET"}, params: searchParams,
		handle: conditional(h.cached(searchRoute, h.searchAll(kinds)))}}}
}

// searchAll answers GET {ns}/search: each kind's items under its key, then the totals. The header
// X-Calendar-Search says typo-tolerant when any kind's list was answered with typo tolerance.
func (h *Handler) searchAll(kinds []searchKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		perType := int64(defaultPerType)
		if n, ok := rq.vals["per_type"].(int64); ok {
			perType = n
		}
		src := map[string]any{"per_page": itoa(perType)}
		for _, p := range searchParams {
			if v, ok := rq.params[p.Name]; ok && p.Name != "per_type" {
				src[p.Name] = v
			}
		}
		body, totals := obj{}, obj{}
		typoTolerant := false
		for _, k := range kinds {
			part, err := h.askList(rq, k, src)
			if err != nil {
				return err
			}
			body = append(body, member{k.key, part.items})
			totals = append(totals, member{k.key, part.total})
			typoTolerant = typoTolerant || part.typoTolerant
		}
		body = append(body, member{"totals", totals})
		buf := getBuffer()
		defer putBuffer(buf)
		if err := body.encode(buf); err != nil {
			return err
		}
		w.Header().Set("ETag", etagOf(buf.Bytes()))
		if typoTolerant {
			w.Header().Set(typoTolerantHeader, "typo-tolerant")
		}
		h.send(w, rq, http.StatusOK, buf.Bytes())
		return nil
	}
}

// searchPart is one kind's part of the one box's answer.
type searchPart struct {
	// items is the array of the list's answer, as the list encoded it.
	items        rawJSON
	total        int
	typoTolerant bool
}

// askList asks k's list for the first page of src, the list parameters, on behalf of rq, and takes
// its items and total from the answer, which the list writes as it writes any: the one box renders
// nothing itself. The list is asked with GET (on a shallow copy of rq.r), as the answer of a HEAD
// would have no body, and plain, as the one box encodes its own answer.
func (h *Handler) askList(rq *request, k searchKind, src map[string]any) (searchPart, error) {
	sub := *rq
	sub.r = rq.r.WithContext(rq.r.Context())
	sub.r.Method, sub.method, sub.plain = http.MethodGet, http.MethodGet, true
	sub.params, sub.query = src, k.query(&sub)
	vals, err := validate(&sub, k.params, src, sub.query)
	if err != nil {
		return searchPart{}, err
	}
	sub.vals = vals
	rec := newRecorder()
	defer rec.release()
	if err := k.list(rec, &sub); err != nil {
		return searchPart{}, err
	}
	if rec.status != http.StatusOK {
		return searchPart{}, fmt.Errorf("handlers: the %s list answered %d to the one box", k.key, rec.status)
	}
	var answer map[string]json.RawMessage
	if err := json.Unmarshal(rec.body.Bytes(), &answer); err != nil {
		return searchPart{}, fmt.Errorf("handlers: the %s list's answer to the one box: %w", k.key, err)
	}
	var total int
	if err := json.Unmarshal(answer["total"], &total); err != nil || answer[k.key] == nil {
		return searchPart{}, fmt.Errorf("handlers: the %s list's answer to the one box has no items or total", k.key)
	}
	return searchPart{items: rawJSON(answer[k.key]), total: total, typoTolerant: rec.header.Get(typoTolerantHeader) != ""}, nil
}
