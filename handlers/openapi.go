package handlers

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/calendard/calendard/storage"
)

// docPath is the path of a route relative to {ns} in OpenAPI form: /events/{id}.
func docPath(rt *route) string {
	p := strings.TrimPrefix(rt.pattern, "/"+namespace)
	p = strings.Replace(p, `(?P<id>\d+)`, "{id}", 1)
	p = strings.Replace(p, `(?P<slug>[^/]+)`, "{slug}", 1)
	return p
}

// docResource names the component schema a route's objects follow, from its first path segment.
func docResource(rt *route) (schema string, ok bool) {
	seg, _, _ := strings.Cut(strings.TrimPrefix(docPath(rt), "/"), "/")
	switch seg {
	case "events":
		return "Event", true
	case "venues":
		return "Venue", true
	case "organizers":
		return "Organizer", true
	case "categories", "tags":
		return "Term", true
	}
	return "", false
}

// docResponses lists the status codes docs/API.md "Routes" gives an operation; docOperation adds those of
// docErrors.
func docResponses(rt *route, method string) []int {
	schema, ok := docResource(rt)
	switch {
	case rt.pattern == changesPattern:
		return []int{200, 400, 410}
	case rt.pattern == feedPattern, rt.pattern == searchPattern:
		return []int{200, 304, 400}
	case !ok:
		return []int{http.StatusOK}
	}
	record := schema != "Term"
	switch {
	case rt.kind == pathNone && method == http.MethodGet:
		return []int{200, 400, 404}
	case rt.kind == pathNone:
		if record {
			return []int{201, 400, 401, 403, 409}
		}
		return []int{201, 400, 401, 403}
	case method == http.MethodGet && schema == "Event":
		return []int{200, 400, 403, 404}
	case method == http.MethodGet && record:
		return []int{200, 400, 403}
	case method == http.MethodGet:
		return []int{200, 400}
	case method == http.MethodDelete && schema == "Event":
		return []int{200, 400, 401, 403, 404, 410, 500}
	case method == http.MethodDelete && record:
		return []int{200, 400, 401, 403, 410, 500}
	case schema == "Event":
		return []int{200, 400, 401, 403, 404, 500}
	case record:
		return []int{200, 400, 401, 403, 500}
	}
	return []int{200, 400, 401, 403}
}

// docError is an error of docs/API.md "Errors" that /doc names in the description of its status; the status and
// the code are those answers gives its kind.
type docError struct {
	kind error
	when string
	// anywhere: every operation may answer it, whatever its route (writes only, with writes), so every
	// operation lists its status; otherwise it is named only where docs/API.md "Routes" lists its status.
	anywhere, writes bool
	retryAfter       bool // the answer carries Retry-After
	// route, when set, is the only route (its pattern) that answers it.
	route string
}

// docErrors are the errors /doc names: those of the Extension codes of docs/API.md "Errors", and the other
// answers of the steps of 1.6 that come before routing (the 401 of credentials that fail), which
// docs/API.md "Routes" leaves out of its per-route lists.
var docErrors = []docError{
	{kind: &storage.AuthError{Code: storage.AuthInvalidUsername}, when: "Basic credentials that cannot be decoded, or name no user", anywhere: true},
	{kind: &storage.AuthError{Code: storage.AuthInvalidEmail}, when: "Basic credentials whose e-mail address no user has", anywhere: true},
	{kind: &storage.AuthError{Code: storage.AuthIncorrectPassword}, when: "Basic credentials whose password is none of the user's application passwords", anywhere: true},
	{kind: &storage.AuthError{Code: storage.AuthInvalidToken}, when: "a Bearer token that is no application password", anywhere: true},
	{kind: errCrossSite, when: "a browser sent this write from a page of another site in a form that needs no CORS " +
		"preflight (a form, a beacon, a simple fetch); send a JSON body", anywhere: true, writes: true},
	{kind: storage.ErrConflict, when: "the translation group of translation_of already has a record in this language"},
	{kind: errTooLarge, when: "the request body is over the size limit", anywhere: true},
	{kind: errTooManyRequests, when: "the rate limit is exhausted, this client failed to authenticate too often, " +
		"or a user below editor sent too many writes or new recurring series (the message names the limit)",
		anywhere: true, retryAfter: true},
	{kind: storage.ErrNoSpace, when: "the server's disk is full: nothing of the write was kept; retry once space has been freed",
		anywhere: true, writes: true},
	{kind: storage.ErrMirrored, when: "the record or term is mirrored from another site, its source of truth (CALENDAR_MIRROR_FROM): " +
		"change it there", anywhere: true, writes: true},
	{kind: storage.ErrUnavailable, when: "in cluster mode, the etcd cluster holding the records did not answer in time: " +
		"a write may or may not have been saved (its commit may have been applied though its answer was lost): " +
		"read the record back before sending it again, after the delay given", anywhere: true, retryAfter: true},
	{kind: storage.ErrTooLarge, when: "in cluster mode, the write changes more records than one etcd transaction takes " +
		"(a long series with the cluster's default limits): nothing was written; make it smaller", anywhere: true, writes: true},
	{kind: errRevisionPending, when: "the request's X-Calendar-Min-Revision is a revision this server has not applied " +
		"within 5 s (cluster mode: another node took the write); retry, here or on another node", anywhere: true, retryAfter: true},
	{kind: context.DeadlineExceeded, when: "the request exceeded its deadline", anywhere: true},
	{kind: storage.ErrCompacted, when: "the cursor is outside the changes this service keeps (older, or from before a restore): " +
		"list the records again, then follow from the new cursor", route: changesPattern},
	{kind: errNotReady, when: "the server is still building or catching up its search index", anywhere: true, retryAfter: true},
}

// answers reports whether an operation with method may answer e, as far as its method tells: the
// errors of writes are those of POST, PUT, PATCH and DELETE (docs/API.md "Authentication and permissions").
func (e docError) answers(rt *route, method string) bool {
	return (!e.writes || method != http.MethodGet) && (e.route == "" || e.route == rt.pattern)
}

// docStatuses are the status codes of an operation: docs/API.md "Routes"'s and those of docErrors, in order.
func docStatuses(rt *route, method string) []int {
	statuses := docResponses(rt, method)
	for _, e := range docErrors {
		if a, _ := answerFor(e.kind); e.anywhere && e.answers(rt, method) && !slices.Contains(statuses, a.status) {
			statuses = append(statuses, a.status)
		}
	}
	slices.Sort(statuses)
	return statuses
}

// docResponse describes one status of an operation: its text, then each code of docErrors it carries
// there, and Retry-After when one of them sends it.
func docResponse(rt *route, status int, method string) obj {
	desc := http.StatusText(status)
	var retry []string
	for _, e := range docErrors {
		// An error of its routes only is named where docs/API.md "Routes" lists its status, not where another
		// error brought that status in.
		if a, _ := answerFor(e.kind); a.status == status && e.answers(rt, method) && (e.anywhere || slices.Contains(docResponses(rt, method), status)) {
			desc += ". " + a.code + ": " + e.when
			if e.retryAfter {
				retry = append(retry, a.code)
			}
		}
	}
	if desc != http.StatusText(status) {
		desc += "."
	}
	r := obj{{"description", desc}}
	if len(retry) > 0 {
		r = append(r, member{"headers", obj{{"Retry-After", obj{
			{"description", "With " + strings.Join(retry, ", ") + ": the whole seconds to wait before retrying, at least 1."},
			{"schema", obj{{"type", "integer"}, {"minimum", 1}}},
		}}}})
	}
	return r
}

// schemaOf is the OpenAPI schema of a parameter, with the type mapping of the namespace index.
func (p *Param) schemaOf() obj {
	o := obj{}
	for _, m := range p.arg("") {
		switch m.key {
		case "type", "items", "enum", "default", "format":
			o = append(o, m)
		}
	}
	return o
}

func (h *Handler) docOperation(rt *route, ep *endpoint, method string, rq *request) obj {
	write := method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
	params := []obj{}
	props, required := obj{}, []string{}
	for _, p := range ep.params {
		desc := describeIn(rq.lang, p.Desc)
		if write && p.In == "" && p.Name != langParam.Name {
			s := p.schemaOf()
			if desc != "" {
				s = append(s, member{"description", desc})
			}
			props = append(props, member{p.Name, s})
			if p.Required {
				required = append(required, p.Name)
			}
			continue
		}
		in := "query"
		if p.In == "path" {
			in = "path"
		}
		param := obj{{"name", p.Name}, {"in", in}, {"description", desc}, {"required", p.Required || in == "path"},
			{"schema", p.schemaOf()}}
		if p.Type == tList {
			param = append(param, member{"style", "form"}, member{"explode", false})
		}
		params = append(params, param)
	}
	op := obj{{"summary", strings.ToUpper(method) + " " + docPath(rt)}, {"parameters", params}}
	if write {
		body := obj{{"type", "object"}, {"properties", props}}
		if len(required) > 0 {
			body = append(body, member{"required", required})
		}
		op = append(op, member{"requestBody", obj{{"content", obj{
			{"application/json", obj{{"schema", body}}},
			{"application/x-www-form-urlencoded", obj{{"schema", body}}},
		}}}})
	}
	responses := obj{}
	for _, code := range docStatuses(rt, method) {
		r := docResponse(rt, code, method)
		if schema, ok := docResource(rt); ok && (code == 200 || code == 201) {
			ref := obj{{"$ref", "#/components/schemas/" + schema}}
			var s obj = ref
			if rt.kind == pathNone && method == http.MethodGet {
				key := strings.TrimPrefix(docPath(rt), "/")
				props := obj{
					{key, obj{{"type", "array"}, {"items", ref}}},
					{"rest_url", obj{{"type", "string"}}},
					{"total", obj{{"type", "integer"}}},
					{"total_pages", obj{{"type", "integer"}}},
				}
				if key == "events" {
					props = append(props, member{"facets", facetsSchema()})
				}
				s = obj{{"type", "object"}, {"properties", props}}
			}
			r = append(r, member{"content", obj{{"application/json", obj{{"schema", s}}}}})
		}
		if rt.pattern == searchPattern && code == http.StatusOK {
			r = append(r, member{"content", obj{{"application/json", obj{{"schema", searchSchema}}}}})
		}
		if rt.media != "" && code == http.StatusOK {
			r = append(r, member{"content", obj{{rt.media, obj{{"schema", typed("string")}}}}})
		}
		responses = append(responses, member{strconv.Itoa(code), r})
	}
	return append(op, member{"responses", responses})
}

// document is the OpenAPI 3.0.0 description of the API (docs/API.md "Namespace index and documentation"), generated from the route table
// and the parameter tables that validate requests, so it cannot drift from the behaviour.
func (h *Handler) document(rq *request) obj {
	paths := obj{}
	for _, rt := range h.table {
		if rt.pattern == "/"+namespace {
			continue // the namespace index describes itself; /doc starts the document's paths
		}
		item := obj{}
		for _, ep := range rt.endpoints {
			for _, m := range ep.methods {
				item = append(item, member{strings.ToLower(m), h.docOperation(rt, ep, m, rq)})
			}
		}
		paths = append(paths, member{docPath(rt), item})
	}
	return obj{
		{"openapi", "3.0.0"},
		{"info", obj{{"version", "1.0.0"}, {"title", h.cfg.SiteName + " REST API"},
			{"description", "Events, venues, organizers, categories and tags of " + h.cfg.SiteName + "."}}},
		{"components", obj{{"schemas", docSchemas}}},
		{"servers", []obj{{{"url", rq.ns() + "/"}}}},
		{"paths", paths},
		{"x-webhooks", webhookDoc},
	}
}

func (h *Handler) getDoc(w http.ResponseWriter, rq *request) error {
	h.writeJSON(w, rq, http.StatusOK, h.document(rq))
	return nil
}

func typed(name string) obj { return obj{{"type", name}} }

func ref(name string) obj { return obj{{"$ref", "#/components/schemas/" + name}} }

func props(members ...member) obj { return obj{{"type", "object"}, {"properties", obj(members)}} }

// docSchemas are the response objects of docs/API.md "Responses", in the order 6.2 names them.
var docSchemas = func() obj {
	str, integer, boolean, number := typed("string"), typed("integer"), typed("boolean"), typed("number")
	strings := obj{{"type", "array"}, {"items", str}}
	empty := obj{{"type", "array"}, {"items", obj{}}, {"maxItems", 0}} // custom_fields, meta, a missing venue
	dates := []member{{"date", str}, {"date_utc", str}, {"modified", str}, {"modified_utc", str}}
	head := append([]member{{"id", integer}, {"author", str}, {"status", obj{{"type", "string"}, {"enum", statusEnum}}}}, dates...)
	tail := []member{{"global_id", str}, {"global_id_lineage", strings}, {"language", obj{{"type", "string"},
		{"enum", langCodes()}}}, {"translations", obj{{"type", "object"}, {"additionalProperties", integer}}}}
	event := append(append([]member{}, head...), member{"url", str}, member{"rest_url", str}, member{"title", str},
		member{"description", str}, member{"excerpt", str}, member{"slug", str},
		member{"image", obj{{"oneOf", []obj{ref("Image"), boolean}}}}, member{"all_day", boolean},
		member{"start_date", str}, member{"start_date_details", ref("DateDetails")},
		member{"end_date", str}, member{"end_date_details", ref("DateDetails")},
		member{"utc_start_date", str}, member{"utc_start_date_details", ref("DateDetails")},
		member{"utc_end_date", str}, member{"utc_end_date_details", ref("DateDetails")},
		member{"timezone", str}, member{"timezone_abbr", str}, member{"cost", str},
		member{"cost_details", ref("CostDetails")}, member{"website", str}, member{"show_map", boolean},
		member{"show_map_link", boolean}, member{"hide_from_listings", boolean}, member{"sticky", boolean},
		member{"featured", boolean}, member{"categories", obj{{"type", "array"}, {"items", ref("Term")}}},
		member{"tags", obj{{"type", "array"}, {"items", ref("Term")}}},
		member{"venue", obj{{"oneOf", []obj{ref("Venue"), empty}}}},
		member{"organizer", obj{{"type", "array"}, {"items", ref("Organizer")}}},
		member{"custom_fields", empty}, member{"recurrence", strings}, member{"post_parent", integer},
		member{"json_ld", typed("object")})
	// search_highlight is in a searching list's items with highlight=true only (docs/API.md "Highlighted matches").
	marks := member{"search_highlight", obj{{"type", "object"}, {"additionalProperties", str}}}
	event = append(event, tail...)
	// Only the events list has it, and only with a geo centre (docs/API.md "Ordering").
	event = append(event, member{"distance_km", obj{{"type", "number"},
		{"description", "Distance of the venue from geoloc_lat and geoloc_lng, in kilometres to a tenth: only in the events list with geoloc and a centre."}}})
	event = append(event, marks)
	venue := append(append([]member{}, head...), member{"url", str}, member{"venue", str}, member{"description", str},
		member{"slug", str}, member{"image", ref("Image")})
	for _, f := range []string{"address", "city", "country", "province", "state", "zip", "phone", "website", "stateprovince"} {
		venue = append(venue, member{f, str})
	}
	venue = append(venue, member{"geo_lat", number}, member{"geo_lng", number}, member{"json_ld", typed("object")},
		member{"show_map", boolean}, member{"show_map_link", boolean})
	venue = append(venue, tail...)
	venue = append(venue, marks)
	organizer := append(append([]member{}, head...), member{"url", str}, member{"organizer", str},
		member{"description", str}, member{"slug", str}, member{"image", ref("Image")}, member{"phone", str},
		member{"website", str}, member{"email", str}, member{"json_ld", typed("object")})
	organizer = append(organizer, tail...)
	organizer = append(organizer, marks)
	return obj{
		{"ImageSize", props(member{"width", integer}, member{"height", integer}, member{"mime-type", str}, member{"url", str})},
		{"CostDetails", props(member{"currency_symbol", str}, member{"currency_code", str},
			member{"currency_position", str}, member{"values", strings})},
		{"Term", props(member{"id", integer}, member{"count", integer}, member{"description", str}, member{"name", str},
			member{"slug", str}, member{"taxonomy", str}, member{"parent", integer}, member{"meta", empty},
			member{"url", str}, member{"urls", obj{{"type", "object"}, {"additionalProperties", str}}})},
		{"Image", props(member{"url", str}, member{"id", integer}, member{"extension", str})},
		{"DateDetails", props(member{"year", str}, member{"month", str}, member{"day", str}, member{"hour", str},
			member{"minutes", str}, member{"seconds", str})},
		{"Event", props(event...)},
		{"Venue", props(venue...)},
		{"Organizer", props(organizer...)},
	}
}()

// OpenAPI returns the document GET {ns}/doc answers, for a service whose public origin is origin, in
// the default language, without a request: what `calendard doc` prints and docs/openapi.json holds.
func OpenAPI(cfg Config, origin string) ([]byte, error) {
	h := newHandler(Deps{Config: cfg})
	h.router = h.routes()
	var buf bytes.Buffer
	err := encodeValue(&buf, h.document(&request{origin: origin, lang: h.cfg.DefaultLang}))
	return buf.Bytes(), err
}
