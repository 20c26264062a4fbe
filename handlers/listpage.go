package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// List limits (docs/API.md "Lists", "Limits").
const (
	DefaultPerPage = 100
	MaxPerPage     = 100
	maxPage        = 2147483647
)

// pageParams begin every list table (docs/API.md "Lists"); each list's query embeds the paging they write.
var pageParams = []Param{
	{Name: "page", Type: tInt, Default: 1, parse: parseBounded(1, maxPage), Desc: "Page of the list to return.",
		set: into(func(q paged, n int64) { q.pages().page = int(n) })},
	{Name: "per_page", Type: tInt, Default: DefaultPerPage, parse: parsePerPage, Desc: "Items per page (at most 100).",
		set: into(func(q paged, n int64) { q.pages().perPage = int(n) })},
}

// paging is the page of a list a request asks for (page, per_page).
type paging struct{ page, perPage int }

// firstPage is the paging of a request that sends neither parameter.
var firstPage = paging{page: 1, perPage: DefaultPerPage}

// paged is a list's query, which embeds its paging.
type paged interface{ pages() *paging }

func (p *paging) pages() *paging { return p }

// offset is the position in the list of the page's first item.
func (p paging) offset() int { return (p.page - 1) * p.perPage }

func parseBounded(lo, hi int64) func(*request, any) (any, *problem) {
	return func(_ *request, v any) (any, *problem) {
		n, err := input.Int(v)
		if err != nil {
			return nil, typeProblem(err)
		}
		if n < lo || n > hi {
			return nil, bad("must be between " + itoa(lo) + " and " + itoa(hi))
		}
		return n, nil
	}
}

// parsePerPage clamps any larger integer to MaxPerPage (docs/API.md "Lists"), however large.
func parsePerPage(_ *request, v any) (any, *problem) {
	n, err := input.Int(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	if n < 1 {
		return nil, bad("must be at least 1")
	}
	return min(n, MaxPerPage), nil
}

// listing is the envelope of one list response.
type listing struct {
	key string // events, venues, organizers, categories, tags
	// items are objs, or rawJSON when no _fields parameter asks to cut them down.
	items []any
	total int
	paging
	// doc is the kind of the listed documents, which names the error of a page past the end.
	doc    storage.DocKind
	params []Param
	// extra are members the list adds after the envelope's (the events list's facets).
	extra obj
}

// writeList writes a list page (docs/API.md "Lists"), or 404 for a page past the end.
func (h *Handler) writeList(w http.ResponseWriter, rq *request, l listing) error {
	if len(l.items) == 0 && l.page > 1 {
		return &storage.Error{Op: storage.OpList, Resource: l.doc, Err: storage.ErrNotFound}
	}
	pages := (l.total + l.perPage - 1) / l.perPage
	self := h.listURL(rq, l.key, l.params)
	var prev, next string
	base := strings.TrimSuffix(strings.TrimSuffix(self, "&page="+strconv.Itoa(l.page)), "?page="+strconv.Itoa(l.page))
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	if l.page < pages {
		next = base + sep + "page=" + strconv.Itoa(l.page+1)
	}
	if l.page > 1 {
		prev = base
		if l.page-1 > 1 {
			prev = base + sep + "page=" + strconv.Itoa(l.page-1)
		}
	}
	items := make([]any, len(l.items))
	for i, it := range l.items {
		switch v := it.(type) {
		case obj:
			it = v.pick(rq.fields)
		case rawJSON, packedJSON, withMembers:
			if len(rq.fields) > 0 {
				it = pickedJSON{v, rq.fields}
			}
		}
		items[i] = it
	}
	var body obj
	if l.key == "categories" || l.key == "tags" {
		body = obj{{"rest_url", self}, {"total", l.total}, {"total_pages", pages}, {l.key, items}}
		body = appendLinks(body, next, prev)
	} else {
		body = obj{{l.key, items}, {"rest_url", self}}
		body = appendLinks(body, next, prev)
		body = append(body, member{"total", l.total}, member{"total_pages", pages})
	}
	body = append(body, l.extra...)
	// Set as the reference spells them; Header.Set would canonicalise to X-Tec-Total.
	w.Header()["X-TEC-Total"] = []string{strconv.Itoa(l.total)}
	w.Header()["X-TEC-TotalPages"] = []string{strconv.Itoa(pages)}
	h.writeJSON(w, rq, http.StatusOK, body)
	return nil
}

func appendLinks(body obj, next, prev string) obj {
	if next != "" {
		body = append(body, member{"next_rest_url", next})
	}
	if prev != "" {
		body = append(body, member{"previous_rest_url", prev})
	}
	return body
}

// listURL is rest_url of docs/API.md "Lists": the supplied parameters, in table order, with their effective
// values; translation_language after them when sent, and page last.
func (h *Handler) listURL(rq *request, key string, params []Param) string {
	var parts []string
	add := func(name, value string) {
		parts = append(parts, url.QueryEscape(name)+"="+url.QueryEscape(value))
	}
	for _, p := range params {
		v, ok := rq.vals[p.Name]
		if !ok || p.Name == "page" || p.Name == "translation_language" || p.Name == "highlight" && !highlightsAnswer(rq.vals) {
			continue
		}
		add(p.Name, effectiveValue(rq, v))
	}
	if l := rq.vals.str("translation_language"); l != nil {
		add("translation_language", *l)
	}
	if p, ok := rq.vals["page"]; ok {
		add("page", effectiveValue(rq, p))
	}
	u := rq.ns() + "/" + key + "/"
	if len(parts) > 0 {
		u += "?" + strings.Join(parts, "&")
	}
	return u
}

func effectiveValue(rq *request, v any) string {
	switch v := v.(type) {
	case int64:
		return itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		if v {
			return "1"
		}
		return "0"
	case string:
		return v
	case dayBound:
		return v.t.In(rq.site.Loc).Format(datetime.DB)
	case termFilter:
		return strings.Join(v.items, ",")
	case slugFilter:
		return strings.Join(v.items, ",")
	case idList:
		parts := make([]string, len(v))
		for i, id := range v {
			parts[i] = utoa(id)
		}
		return strings.Join(parts, ",")
	case []storage.Status:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = string(s)
		}
		return strings.Join(parts, ",")
	}
	return ""
}
