package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/calendard/calendard/index"
)

func TestExploreServesItsFiles(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	tests := []struct {
		method, target string
		status         int
		contentType    string
		location       string
	}{
		{"GET", "/explore/", 200, "text/html; charset=utf-8", ""},
		{"HEAD", "/explore/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/explore/explore.js", 200, "text/javascript; charset=utf-8", ""},
		{"GET", "/explore/explore.css", 200, "text/css; charset=utf-8", ""},
		{"GET", "/explore", 301, "", "/explore/"},
		{"HEAD", "/explore?q=jazz", 301, "", "/explore/?q=jazz"},
		{"GET", "/explore/index.html", 404, "application/json; charset=UTF-8", ""},
		{"GET", "/explore/missing.js", 404, "application/json; charset=UTF-8", ""},
		{"GET", "/explore/sub/explore.js", 404, "application/json; charset=UTF-8", ""},
		{"POST", "/explore/", 404, "application/json; charset=UTF-8", ""},
		// The explorer's paths skip the API's credentials and rate limit: none of them reaches the API.
		{"GET", "/explore/../calendar/events/v1/events", 404, "application/json; charset=UTF-8", ""},
		{"POST", "/explore/%2e%2e/calendar/events/v1/events", 404, "application/json; charset=UTF-8", ""},
		// Under a language prefix it is not a root of the API, and not the explorer either.
		{"GET", "/fr/explore/", 404, "application/json; charset=UTF-8", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.target, nil)
			if strings.HasPrefix(tt.target, "/explore") {
				// Credentials that fail do not matter to a page that needs none, as to a probe.
				r.SetBasicAuth("nobody", "wrong")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if tt.contentType != "" && w.Header().Get("Content-Type") != tt.contentType {
				t.Errorf("Content-Type %q, want %q", w.Header().Get("Content-Type"), tt.contentType)
			}
			if got := w.Header().Get("Location"); got != tt.location {
				t.Errorf("Location %q, want %q", got, tt.location)
			}
			if tt.status == 404 {
				checkEnvelope(t, w)
				return
			}
			if tt.status != 200 {
				return
			}
			for k, want := range map[string]string{
				"Cache-Control":           "no-cache",
				"Content-Security-Policy": exploreCSP,
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "no-referrer",
			} {
				if got := w.Header().Get(k); got != want {
					t.Errorf("%s %q, want %q", k, got, want)
				}
			}
			if tt.method == "HEAD" && w.Body.Len() != 0 {
				t.Errorf("HEAD answered a body of %d bytes", w.Body.Len())
			}
		})
	}
}

func TestExploreRevalidatesByContentHash(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	get := func(target, etag string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", target, nil)
		if etag != "" {
			r.Header.Set("If-None-Match", etag)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	etags := map[string]string{}
	for _, target := range []string{"/explore/", "/explore/explore.js", "/explore/explore.css"} {
		first := get(target, "")
		etag := first.Header().Get("ETag")
		if !regexp.MustCompile(`^"[0-9a-f]{24}"$`).MatchString(etag) {
			t.Fatalf("%s: ETag %q is not a quoted content hash", target, etag)
		}
		if other, seen := etags[etag]; seen {
			t.Errorf("%s and %s share the ETag %s", target, other, etag)
		}
		etags[etag] = target
		if w := get(target, etag); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
			t.Errorf("%s with its ETag: %d and %d bytes, want 304 and none", target, w.Code, w.Body.Len())
		}
		if w := get(target, `"stale"`); w.Code != http.StatusOK || w.Body.String() != first.Body.String() {
			t.Errorf("%s with a stale ETag: %d, want 200 and the file", target, w.Code)
		}
	}
}

// TestExploreCallsExistingRoutes reads the routes the page's script calls and finds each in the
// route table, so that renaming a route the page uses breaks this test rather than the page.
func TestExploreCallsExistingRoutes(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	js := string(exploreAssets["explore.js"].body)
	ns := regexp.MustCompile(`const NAMESPACE = "([^"]*)";`).FindStringSubmatch(js)
	if ns == nil || ns[1] != "/"+namespace {
		t.Fatalf("explore.js: NAMESPACE %q, want %q", ns, "/"+namespace)
	}
	block := regexp.MustCompile(`(?s)const ROUTES = \{(.*?)\};`).FindStringSubmatch(js)
	if block == nil {
		t.Fatal("explore.js declares no ROUTES")
	}
	paths := regexp.MustCompile(`"(/[^"]*)"`).FindAllStringSubmatch(block[1], -1)
	if len(paths) == 0 {
		t.Fatal("explore.js: ROUTES names no path")
	}
	var table []string
	for _, rt := range h.(*Handler).routeTable() {
		for _, ep := range rt.endpoints {
			if slices.Contains(ep.methods, "GET") {
				table = append(table, docPath(rt))
			}
		}
	}
	for _, p := range paths {
		if !slices.Contains(table, p[1]) {
			t.Errorf("explore.js calls GET %s%s, which is no route of the API (routes: %v)", ns[1], p[1], table)
		}
	}
	// Every call goes through ROUTES: the namespace is written once.
	if n := strings.Count(js, `"/`+namespace); n != 1 {
		t.Errorf("explore.js spells the namespace %d times, want once (in NAMESPACE)", n)
	}
}

// TestExploreIsSelfContained checks that the page loads nothing from elsewhere: each file it links is
// one of the embedded files, and no file names another site.
func TestExploreIsSelfContained(t *testing.T) {
	html := string(exploreAssets[""].body)
	links := regexp.MustCompile(`(?:src|href)="([^"#]+)"`).FindAllStringSubmatch(html, -1)
	if len(links) == 0 {
		t.Fatal("index.html links no file")
	}
	for _, l := range links {
		if _, ok := exploreAssets[l[1]]; !ok || l[1] == "" {
			t.Errorf("index.html links %q, which is not one of the embedded files", l[1])
		}
	}
	for name, a := range exploreAssets {
		if m := regexp.MustCompile(`(?i)(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}`).FindString(string(a.body)); m != "" {
			t.Errorf("%q names another site: %s", name, m)
		}
	}
}

// The page is served while the index loads, so that it can show the API's rest_not_ready.
func TestExploreWhileLoading(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	loading := NewLoading(Deps{Store: h.(*Handler).db, Log: h.(*Handler).log}, new(index.Loading))
	r := httptest.NewRequest("GET", "/explore/", nil)
	w := httptest.NewRecorder()
	loading.ServeHTTP(w, r)
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("explorer while loading: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	var env map[string]any
	r = httptest.NewRequest("GET", "/calendar/events/v1/events", nil)
	w = httptest.NewRecorder()
	loading.ServeHTTP(w, r)
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || w.Code != 503 || env["code"] != "rest_not_ready" {
		t.Fatalf("the API while loading: %d %s", w.Code, w.Body)
	}
}
