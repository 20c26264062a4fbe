package handlers

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/julienschmidt/httprouter"
	"go.uber.org/zap"
)

// named is a family that answers with its name.
type named string

func (n named) ServeHTTP(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, string(n)) }

func TestMountsLookup(t *testing.T) {
	var m mounts
	m.mount(
		family{patterns: []string{"/"}, handler: named("rest")},
		family{patterns: []string{"/healthz"}, handler: named("probes")},
		family{patterns: []string{"/explore", "/explore/"}, handler: named("explorer")},
		family{patterns: []string{"/dav/"}, handler: named("dav")},
		family{patterns: []string{"/dav/admin/"}, handler: named("dav admin")},
	)
	for _, tc := range []struct{ path, want string }{
		{"/healthz", "probes"},
		{"/healthz/", "rest"}, // an exact pattern is not a subtree
		{"/healthz/x", "rest"},
		{"/en/healthz", "rest"},
		{"/explore", "explorer"},
		{"/explore/", "explorer"},
		{"/explore/a/b.js", "explorer"},
		{"/explore//x", "explorer"},
		{"/explorer", "rest"},
		{"/Explore/", "rest"}, // patterns are case-sensitive
		{"/dav", "rest"},
		{"/dav/x", "dav"},
		{"/dav/admin", "dav"},
		{"/dav/admin/", "dav admin"}, // the longest subtree wins
		{"/dav/admin/x/y", "dav admin"},
		{"/", "rest"},
		{"/calendar//events/v1/../x", "rest"}, // not cleaned
		{"/fr/calendar/events/v1/events", "rest"},
		{"*", "rest"}, // OPTIONS *
		{"", "rest"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := m.lookup(tc.path); got != named(tc.want) {
				t.Errorf("lookup(%q) = %v, want %s", tc.path, got, tc.want)
			}
		})
	}
}

func TestMountTwice(t *testing.T) {
	for _, tc := range []struct {
		name      string
		patterns  []string
		wantPanic bool
	}{
		{"an exact path twice", []string{"/healthz", "/healthz"}, true},
		{"a subtree twice", []string{"/dav/", "/dav/"}, true},
		{"a path and its subtree", []string{"/dav", "/dav/"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if p := recover(); (p != nil) != tc.wantPanic {
					t.Errorf("panic %v, want a panic: %v", p, tc.wantPanic)
				}
			}()
			var m mounts
			for _, p := range tc.patterns {
				m.mount(family{patterns: []string{p}, handler: named(p)})
			}
		})
	}
}

// TestFamilyMountedBeside: a family with a method and a link of its own (a DAV family's PROPFIND) is
// one mount. It answers its paths under the links of every request only (bad credentials are no 401
// to it), and every answer of the other families stays byte for byte what it is without it: the
// REST namespace's wrong methods, OPTIONS, method override and 404s, the probes and the explorer.
func TestFamilyMountedBeside(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	plain := h.(*Handler)
	mounted := New(Deps{Config: plain.cfg, Store: plain.db, Index: plain.index, Log: zap.NewNop()})
	dav := mounted.newRouter()
	dav.Handle("PROPFIND", "/dav/*path", labelled("/dav/", func(w http.ResponseWriter, _ *http.Request, ps httprouter.Params) {
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.WriteHeader(http.StatusMultiStatus)
		io.WriteString(w, `<multistatus xmlns="DAV:"><href>`+ps.ByName("path")+`</href></multistatus>`)
	}))
	davHeader := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("DAV", "1")
			next.ServeHTTP(w, r)
		})
	}
	mounted.families.mount(family{patterns: []string{"/dav/"}, handler: chain([]middleware{davHeader}, dav)})

	ask := func(h http.Handler, method, target string, badAuth bool) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, nil)
		r.Header.Set("Origin", "https://app.example")
		if badAuth {
			r.SetBasicAuth("admin", "wrong")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	t.Run("the family", func(t *testing.T) {
		for _, tc := range []struct {
			method, target string
			wantStatus     int
			wantBody       string
		}{
			{"PROPFIND", "/dav/calendars/", http.StatusMultiStatus, `<multistatus xmlns="DAV:"><href>/calendars/</href></multistatus>`},
			{"GET", "/dav/calendars/", http.StatusNotFound, ""}, // its router's 404 rest_no_route
		} {
			t.Run(tc.method+" "+tc.target, func(t *testing.T) {
				w := ask(mounted, tc.method, tc.target, true)
				if w.Code != tc.wantStatus || tc.wantBody != "" && w.Body.String() != tc.wantBody {
					t.Fatalf("%d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
				}
				if tc.wantBody == "" {
					checkEnvelope(t, w)
				}
				hd := w.Header()
				if hd.Get("DAV") != "1" {
					t.Error("the family's own link did not run")
				}
				// The links of every request: the common headers and the node's revision.
				if hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Access-Control-Allow-Origin") != "https://app.example" || hd.Get("X-Calendar-Revision") == "" {
					t.Errorf("the common headers are missing: %v", hd)
				}
			})
		}
	})

	for _, tc := range []struct {
		method, target string
		badAuth        bool
	}{
		{"PROPFIND", "/calendar/events/v1/events", false}, // a method no route has: 404 with Allow
		{"REPORT", "/fr/calendar/events/v1/venues/1", false},
		{"OPTIONS", "/calendar/events/v1/events", false},
		{"OPTIONS", "/en/calendar/events/v1/categories", false},
		{"POST", "/calendar/events/v1/tags/999?_method=DELETE", false},
		{"GET", "/calendar/events/v1/events", true}, // 401
		{"GET", "/calendar/events/v1", false},
		{"GET", "/", false},
		{"GET", "/nowhere", false},
		{"PROPFIND", "/dav", false}, // not under the family's subtree
		{"PROPFIND", "/Dav/x", false},
		{"PROPFIND", "/en/dav/x", false},
		{"GET", "/calendar//events/v1", false},
		{"GET", "/healthz", true},
		{"HEAD", "/readyz", false},
		{"PROPFIND", "/healthz", false},
		{"GET", "/explore", false},
		{"GET", "/explore/", false},
		{"PROPFIND", "/explore/", false},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			want, got := ask(plain, tc.method, tc.target, tc.badAuth), ask(mounted, tc.method, tc.target, tc.badAuth)
			if got.Code != want.Code {
				t.Errorf("status %d, want %d", got.Code, want.Code)
			}
			if diff := cmp.Diff(want.Header(), got.Header()); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.Body.String(), got.Body.String()); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}
