package handlers

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// family is a group of routes served side by side with the others (New): the REST namespace, the
// probes and /metrics, the explorer. Its handler carries the family's own links and router, so a
// family with rules or methods of its own (a DAV family's PROPFIND and REPORT) is one more mount and
// changes nothing in the others.
type family struct {
	// patterns are where the family is mounted: an exact path ("/healthz"), or a subtree when the
	// pattern ends in a slash ("/explore/").
	patterns []string
	handler  http.Handler
}

// mounts routes each request to the family mounted at its decoded path: an exact pattern first, then
// the longest subtree; the family at "/" takes every other path, so the REST namespace answers its
// 404 to a path no family has. Unlike http.ServeMux it neither cleans the path nor redirects, and
// never looks at the method: each family answers every request it is given its own way.
type mounts struct {
	exact, subtree map[string]http.Handler
}

// mount adds the families; a pattern mounted twice is a programming error, and panics.
func (m *mounts) mount(families ...family) {
	for _, f := range families {
		for _, p := range f.patterns {
			table := &m.exact
			if strings.HasSuffix(p, "/") {
				table = &m.subtree
			}
			if *table == nil {
				*table = map[string]http.Handler{}
			}
			if _, taken := (*table)[p]; taken {
				panic("handlers: " + p + " is mounted twice")
			}
			(*table)[p] = f.handler
		}
	}
}

func (m *mounts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.lookup(r.URL.Path).ServeHTTP(w, r)
}

// lookup returns the family that serves path.
func (m *mounts) lookup(path string) http.Handler {
	if h, ok := m.exact[path]; ok {
		return h
	}
	for i := len(path); i > 0; {
		if i = strings.LastIndexByte(path[:i], '/'); i < 0 {
			break
		}
		if h, ok := m.subtree[path[:i+1]]; ok {
			return h
		}
	}
	return m.subtree["/"] // a path without a slash: OPTIONS *
}

// newRouter returns a router for a family of the API's server: whatever it does not hold, a wrong
// method included, is 404 rest_no_route (docs/API.md, Routes), and it neither redirects nor answers
// OPTIONS by itself.
func (h *Handler) newRouter() *httprouter.Router {
	r := httprouter.New()
	r.RedirectTrailingSlash, r.RedirectFixedPath = false, false
	r.HandleMethodNotAllowed, r.HandleOPTIONS = false, false
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h.writeError(w, requestOf(req), errNoRoute)
	})
	return r
}
