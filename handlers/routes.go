package handlers

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
)

const namespace = "calendar/events/v1"

// handleFunc serves one endpoint after its parameters were validated; a returned error is written as
// the contract's envelope.
type handleFunc func(w http.ResponseWriter, rq *request) error

// endpoint is one entry of a route: the methods it answers and its parameter table.
type endpoint struct {
	methods []string
	params  []Param
	// query, on a list's GET, makes the query the rows of its table write (Param.set); the handler
	// reads it from the request.
	query  func(rq *request) any
	handle handleFunc
	// hot lets the hot path answer the endpoint's GETs the list cache answered lately (hot.go): set
	// where handle is the list cache's (cached) and nothing around it.
	hot bool
	// allowed is the route-level permission check (docs/API.md "Authentication and permissions") as the Allow header reports it; nil
	// means public. A check on the record the path designates asks the route (route.record). Handlers
	// apply the check themselves, at the point of docs/API.md "Responses" their route requires (venue and
	// term routes validate the ID first).
	allowed func(rq *request, rt *route) bool
}

// pathKind says what a route's variable path segment is.
type pathKind int

const (
	pathNone pathKind = iota
	pathID
	pathSlug
)

// route is one path pattern of docs/API.md "Routes".
type route struct {
	pattern   string // as the namespace index names it
	kind      pathKind
	endpoints []*endpoint
	// record finds the record a single-record route's path designates, or nil, looking it up once per
	// request; the permission checks on writes are checks on it.
	record func(rq *request) *storage.Post
	// allows is the Allow header's value for each set of the endpoints a caller passes the check of
	// (bit i: endpoints[i]), made once (allowValues).
	allows [][]string
	// media is the media type of the route's 200 when it is not JSON (the iCalendar feed).
	media string
}

// routeTable is the route table of docs/API.md "Routes", in the order of the namespace index (6.1).
func (h *Handler) routeTable() []*route {
	ns := "/" + namespace
	get := []string{"GET"}
	return []*route{
		{pattern: ns, endpoints: []*endpoint{{methods: get, params: indexParams, handle: h.namespaceIndex}}},
		{pattern: ns + "/doc", endpoints: []*endpoint{{methods: get, handle: h.getDoc}}},
		h.recordCollection(eventKind),
		h.recordSingle(eventKind, pathID),
		h.recordSingle(eventKind, pathSlug),
		h.recordCollection(venueKind),
		h.recordSingle(venueKind, pathID),
		h.recordSingle(venueKind, pathSlug),
		h.recordCollection(organizerKind),
		h.recordSingle(organizerKind, pathID),
		h.recordSingle(organizerKind, pathSlug),
		h.termCollection(categoryKind),
		h.termSingle(categoryKind),
		h.termCollection(tagKind),
		h.termSingle(tagKind),
		{pattern: changesPattern, endpoints: []*endpoint{{methods: get, params: changesParams, handle: h.listChanges}}},
		{pattern: feedPattern, media: feedMedia, endpoints: []*endpoint{{methods: get, params: eventFilterParams, query: newEventQuery, handle: h.limitFeeds(conditional(h.cached(feedRoute, h.eventFeed)))}}},
		h.searchRouteOf(),
	}
}

// routes builds the router. httprouter cannot hold /events/:id beside /events/by-slug/:slug (a static
// segment and a parameter may not share a position), so both register as /events/:ref and
// /events/:ref/:slug, and dispatch checks :ref.
func (h *Handler) routes() *httprouter.Router {
	r := h.newRouter()
	table := h.routeTable()
	// The root index (docs/API.md "Namespace index and documentation") is a route like the others, though the namespace index omits it.
	root := &route{endpoints: []*endpoint{{methods: []string{"GET"}, handle: h.rootIndex}}}
	for _, rt := range append(slices.Clone(table), root) {
		path := routerPath(rt)
		served := map[string]bool{http.MethodOptions: true}
		for _, ep := range rt.endpoints {
			// Clipped: the tables are shared package-level slices, and appending into their spare capacity
			// would race between two handlers built at once (and give every route the last one's row).
			ep.params = append(slices.Clip(ep.params), langParam)
			for _, m := range ep.methods {
				r.Handle(m, path, h.dispatch(rt, ep))
				served[m] = true
			}
		}
		rt.allows = allowValues(rt.endpoints)
		r.Handle(http.MethodOptions, path, h.dispatch(rt, nil))
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if !served[m] {
				r.Handle(m, path, h.wrongMethod(rt))
			}
		}
	}
	h.table = table
	return r
}

func routerPath(rt *route) string {
	p := rt.pattern
	if p == "" {
		return "/"
	}
	if i := strings.Index(p, "/(?P<id>"); i >= 0 {
		return p[:i] + "/:ref"
	}
	if i := strings.Index(p, "/by-slug/"); i >= 0 {
		return p[:i] + "/:ref/:slug"
	}
	return p
}

// wrongMethod answers a method the route does not have: 404 rest_no_route, as WordPress does, with
// the route's methods in Allow (docs/API.md "Routes").
func (h *Handler) wrongMethod(rt *route) httprouter.Handle {
	label := routeLabel(rt)
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		rq := requestOf(r)
		if matchRef(rt, rq, ps) {
			rq.route = label
			h.writeWrongMethod(w, rt, rq)
			return
		}
		h.writeError(w, rq, errNoRoute)
	}
}

func (h *Handler) writeWrongMethod(w http.ResponseWriter, rt *route, rq *request) {
	var methods []string
	for _, ep := range rt.endpoints {
		methods = append(methods, ep.methods...)
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	h.writeError(w, rq, errNoRoute)
}

// dispatch runs steps 4 to 9 of docs/API.md "Responses" for one endpoint (ep nil: OPTIONS).
func (h *Handler) dispatch(rt *route, ep *endpoint) httprouter.Handle {
	label := routeLabel(rt)
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		rq := requestOf(r)
		if !matchRef(rt, rq, ps) {
			h.writeError(w, rq, errNoRoute)
			return
		}
		rq.route = label
		if ep == nil && rq.method != http.MethodOptions { // a method no route has, routed as OPTIONS
			h.writeWrongMethod(w, rt, rq)
			return
		}
		// The language as far as it is known before the parameters are validated: the Allow header
		// looks up by-slug records in it.
		rq.lang = h.cfg.DefaultLang
		if rq.prefix != "" {
			rq.lang = rq.prefix
		}
		if l, ok := storage.ParseLang(queryValue(rq.r.URL.RawQuery, "translation_language")); ok {
			rq.lang = l
		}
		allowed := allow(rt, rq)
		w.Header()["Allow"] = allowed
		if ep == nil {
			h.writeJSON(w, rq, http.StatusOK, h.describe(rt, rq))
			return
		}
		if err := h.serveEndpoint(w, rq, ep); err != nil {
			h.writeError(w, rq, err)
		} else if ep.hot {
			h.hot.remember(rq, label, allowed)
		}
	}
}

// queryValue is url.Values.Get of the raw query's parameter name, which must need no escaping: the
// query is parsed only when it can hold the name, spelled out or escaped, so that a request without it
// (most lists) costs no parse.
func queryValue(raw, name string) string {
	if !strings.Contains(raw, name) && !strings.Contains(raw, "%") {
		return ""
	}
	q, _ := url.ParseQuery(raw)
	return q.Get(name)
}

func (h *Handler) serveEndpoint(w http.ResponseWriter, rq *request, ep *endpoint) error {
	params, err := h.readParams(rq)
	if err != nil {
		return err
	}
	rq.params = params
	if ep.query != nil {
		rq.query = ep.query(rq)
	}
	if rq.vals, err = validate(rq, ep.params, params, rq.query); err != nil {
		return err
	}
	if l := rq.vals.str("translation_language"); l != nil {
		rq.lang = storage.Lang(*l)
	}
	if f, ok := params["_fields"]; ok {
		if list, err := input.List(f); err == nil {
			var names []string
			for _, item := range list {
				if s, err := input.String(item); err == nil {
					names = append(names, s)
				}
			}
			rq.fields = parseFields(names)
		}
	}
	return ep.handle(w, rq)
}

// matchRef checks the variable segment the router matched loosely (docs/API.md "Routes").
func matchRef(rt *route, rq *request, ps httprouter.Params) bool {
	ref := ps.ByName("ref")
	switch rt.kind {
	case pathID:
		if ref == "" || strings.Trim(ref, "0123456789") != "" {
			return false
		}
		rq.pathID = ref
	case pathSlug:
		if ref != "by-slug" {
			return false
		}
		s, err := url.PathUnescape(ps.ByName("slug"))
		if err != nil || s == "" {
			return false
		}
		rq.slug = s
	}
	return true
}

// allow lists the route's methods that pass the route-level permission check for the caller, as the
// Allow header's value: one of rt.allows, shared by the answers and never written into.
func allow(rt *route, rq *request) []string {
	var passed int
	for i, ep := range rt.endpoints {
		if ep.allowed == nil || ep.allowed(rq, rt) {
			passed |= 1 << i
		}
	}
	return rt.allows[passed]
}

// allowValues makes route.allows for a route's endpoints: a few, so every set is made.
func allowValues(endpoints []*endpoint) [][]string {
	values := make([][]string, 1<<len(endpoints))
	for set := range values {
		var methods []string
		for i, ep := range endpoints {
			if set&(1<<i) != 0 {
				methods = append(methods, ep.methods...)
			}
		}
		values[set] = []string{strings.Join(methods, ", ")}
	}
	return values
}

// readParams decodes the request's parameter sources and merges them (docs/API.md "Parameters and bodies").
func (h *Handler) readParams(rq *request) (map[string]any, error) {
	r := rq.r
	query := input.Form(r.URL.RawQuery)
	if rq.method == http.MethodGet || rq.method == http.MethodHead || rq.method == http.MethodOptions || r.Body == nil {
		return input.Merge(query), nil
	}
	ct, ctParams, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body := http.MaxBytesReader(nil, r.Body, h.cfg.MaxBodyBytes)
	switch {
	case ct == "application/json" || strings.HasSuffix(ct, "+json"):
		data, err := io.ReadAll(body)
		if err != nil {
			return nil, bodyError(err)
		}
		decoded, err := input.JSON(data)
		if err != nil {
			return nil, invalidJSON("Invalid JSON body passed.", err.(*input.JSONError))
		}
		return input.Merge(decoded, query), nil
	case ct == "application/x-www-form-urlencoded":
		data, err := io.ReadAll(body)
		if err != nil {
			return nil, bodyError(err)
		}
		return input.Merge(input.Form(string(data)), query), nil
	case ct == "multipart/form-data":
		form, err := input.Multipart(body, ctParams["boundary"], h.cfg.MaxBodyBytes)
		if err != nil {
			return nil, bodyError(err)
		}
		return input.Merge(form, query), nil
	}
	return input.Merge(query), nil
}

func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errTooLarge
	}
	// No code of the catalog (docs/API.md "Errors") fits a body that cannot be read or a malformed multipart
	// form; rest_invalid_json does, with the data every rest_invalid_json carries (2.2).
	return invalidJSON("The request body could not be read.", &input.JSONError{Code: input.JSONErrorSyntax, Message: "Syntax error"})
}

// invalidJSON is 400 rest_invalid_json with the json_error_code and json_error_message of docs/API.md "Parameters and bodies".
func invalidJSON(message string, je *input.JSONError) error {
	return &detailed{kind: errInvalidJSON, message: message, data: obj{{"json_error_code", je.Code}, {"json_error_message", je.Message}}}
}
