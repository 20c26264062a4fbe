package handlers

import (
	"net/http"
	"strings"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
)

var indexParams = []Param{
	{Name: "namespace", Type: tUntyped, parse: parseText, Default: namespace, Desc: "The namespace to describe."},
	{Name: "context", Type: tUntyped, parse: parseText, Default: "view", Desc: "Scope of the response."},
}

// parseText reads a parameter the seed leaves untyped, so that its description has no type (docs/API.md
// "Namespace index and documentation"), as a string.
func parseText(_ *request, v any) (any, *problem) {
	s, err := input.String(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	return s, nil
}

// describe is a route's description object (docs/API.md "Namespace index and documentation"), also the body of OPTIONS (1.5).
func (h *Handler) describe(rt *route, rq *request) obj {
	var methods []string
	endpoints := []obj{}
	for _, ep := range rt.endpoints {
		methods = append(methods, ep.methods...)
		args := obj{}
		for _, p := range ep.params {
			args = append(args, member{p.Name, p.arg(rq.lang)})
		}
		endpoints = append(endpoints, obj{{"methods", ep.methods}, {"args", args}})
	}
	ns, self := namespace, rq.base()+rt.pattern
	if rt.pattern == "" { // the root belongs to no namespace, as in WordPress
		ns, self = "", rq.base()+"/"
	}
	o := obj{{"namespace", ns}, {"methods", methods}, {"endpoints", endpoints}}
	if rt.kind == pathNone {
		o = append(o, member{"_links", obj{{"self", []obj{{{"href", self}}}}}})
	}
	return o
}

// arg renders a parameter's declaration with the type mapping of docs/API.md "Namespace index and documentation", its description in
// lang.
func (p *Param) arg(lang storage.Lang) obj {
	o := obj{}
	switch p.Type {
	case tInt:
		o = append(o, member{"type", "integer"})
	case tString, tDateTime:
		o = append(o, member{"type", "string"})
	case tBool:
		o = append(o, member{"type", "boolean"})
	case tNumber:
		o = append(o, member{"type", "number"}, member{"format", "double"})
	case tList:
		o = append(o, member{"type", "array"}, member{"items", obj{{"type", jsonType(p.Items)}}})
	}
	if len(p.Enum) > 0 {
		o = append(o, member{"enum", p.Enum})
	}
	switch d := p.Default.(type) {
	case nil:
	case null:
		o = append(o, member{"default", nil})
	default:
		o = append(o, member{"default", d})
	}
	if p.Desc != "" {
		o = append(o, member{"description", describeIn(lang, p.Desc)})
	}
	return append(o, member{"required", p.Required})
}

func jsonType(t ptype) string {
	switch t {
	case tInt:
		return "integer"
	case tNumber:
		return "number"
	case tBool:
		return "boolean"
	}
	return "string"
}

func (h *Handler) routesObject(rq *request) obj {
	routes := obj{}
	for _, rt := range h.table {
		routes = append(routes, member{rt.pattern, h.describe(rt, rq)})
	}
	return routes
}

// namespaceIndex is GET {ns} (docs/API.md "Namespace index and documentation").
func (h *Handler) namespaceIndex(w http.ResponseWriter, rq *request) error {
	if ns := rq.vals.str("namespace"); ns != nil && strings.Trim(*ns, "/") != namespace {
		return errNoNamespace
	}
	h.writeJSON(w, rq, http.StatusOK, obj{{"namespace", namespace}, {"routes", h.routesObject(rq)},
		{"_links", obj{{"up", []obj{{{"href", rq.base() + "/"}}}}}}})
	return nil
}

// rootIndex is GET {base}/ (docs/API.md "Namespace index and documentation").
func (h *Handler) rootIndex(w http.ResponseWriter, rq *request) error {
	h.writeJSON(w, rq, http.StatusOK, obj{
		{"name", h.cfg.SiteName}, {"description", ""}, {"url", rq.base()}, {"home", rq.origin},
		{"timezone_string", rq.site.Name}, {"namespaces", []string{namespace}}, {"routes", h.routesObject(rq)},
		{"_links", obj{{"help", []obj{{{"href", rq.ns() + "/doc"}}}}}},
	})
	return nil
}
