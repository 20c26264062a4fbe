package handlers

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"
)

// TestHotPathAnswersAsTheFullPath asks each list twice: the second answer comes by the hot path,
// which the test makes sure of by taking the router away, and must be the first one byte for byte,
// headers included, with this request's own CORS and rate-limit headers.
func TestHotPathAnswersAsTheFullPath(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	h, _ := newClockedHandler(t, Config{RateLimitPerMinute: 1000}, func() time.Time { return now })
	hh := h.(*Handler)
	writeSynced(t, hh, "POST", "/calendar/events/v1/events", `{"title":"Jazz concert","start_date":"2026-12-01 20:00",`+
		`"end_date":"2026-12-01 22:00","venue":{"venue":"Hall"},"categories":"Music"}`)
	router := hh.router
	for _, target := range []string{
		"/calendar/events/v1/events",
		"/calendar/events/v1/events?per_page=1&search=jazz",
		"/calendar/events/v1/events?_fields=id,title",
		"/fr/calendar/events/v1/events",
		"/calendar/events/v1/venues?only_with_upcoming=1",
		"/calendar/events/v1/categories",
	} {
		for _, gzip := range []bool{false, true} {
			for _, admin := range []bool{false, true} {
				ask := func(origin string) *httptest.ResponseRecorder {
					r := httptest.NewRequest("GET", target, nil)
					if gzip {
						r.Header.Set("Accept-Encoding", "gzip")
					}
					if admin {
						r.SetBasicAuth("admin", adminPassword)
					}
					r.Header.Set("Origin", origin)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					return w
				}
				hh.router = router
				full := ask("https://a.example")
				hh.router = httprouter.New() // every request the full path answers is now a 404
				hot := ask("https://b.example")
				name := target
				if gzip {
					name += " gzip"
				}
				if admin {
					name += " admin"
				}
				if hot.Code != http.StatusOK || full.Code != http.StatusOK {
					t.Errorf("%s: full path %d, hot path %d %s", name, full.Code, hot.Code, hot.Body)
					continue
				}
				if hot.Body.String() != full.Body.String() {
					t.Errorf("%s: bodies differ", name)
				}
				if got := hot.Header().Get("Access-Control-Allow-Origin"); got != "https://b.example" {
					t.Errorf("%s: Access-Control-Allow-Origin %q", name, got)
				}
				remaining := func(w *httptest.ResponseRecorder) string { return w.Header().Get("X-RateLimit-Remaining") }
				if remaining(full) == "" || remaining(hot) == remaining(full) {
					t.Errorf("%s: X-RateLimit-Remaining %q then %q", name, remaining(full), remaining(hot))
				}
				for _, hd := range []http.Header{full.Header(), hot.Header()} {
					hd.Del("Access-Control-Allow-Origin")
					hd.Del("X-RateLimit-Remaining")
				}
				if got, want := headerLines(hot.Header()), headerLines(full.Header()); got != want {
					t.Errorf("%s: headers differ:\nhot  %s\nfull %s", name, got, want)
				}
			}
		}
	}
}

// TestHotPathDeclines: what the hot path does not know to be the same request goes the full path,
// here a router that answers 404 to everything.
func TestHotPathDeclines(t *testing.T) {
	const events = "/calendar/events/v1/events?per_page=5"
	for _, tc := range []struct {
		name string
		// change changes the request, or the world, after the first request was answered.
		change func(r *http.Request, now *time.Time, write func())
	}{
		{"another query", func(r *http.Request, _ *time.Time, _ func()) {
			r.RequestURI, r.URL.RawQuery = "/calendar/events/v1/events?per_page=6", "per_page=6"
		}},
		{"another host", func(r *http.Request, _ *time.Time, _ func()) { r.Host = "other.example" }},
		{"another caller", func(r *http.Request, _ *time.Time, _ func()) { r.SetBasicAuth("admin", adminPassword) }},
		{"the next second", func(_ *http.Request, now *time.Time, _ func()) { *now = now.Add(time.Second) }},
		{"a write", func(_ *http.Request, _ *time.Time, write func()) { write() }},
		{"a body", func(r *http.Request, _ *time.Time, _ func()) {
			r.Body, r.ContentLength = http.NoBody, 2
		}},
		{"HEAD", func(r *http.Request, _ *time.Time, _ func()) { r.Method = http.MethodHead }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
			h, _ := newClockedHandler(t, Config{}, func() time.Time { return now })
			hh := h.(*Handler)
			router := hh.router
			write := func() {
				hh.router = router
				writeSynced(t, hh, "POST", "/calendar/events/v1/events", `{"title":"Later","start_date":"2026-12-02 20:00","end_date":"2026-12-02 22:00"}`)
				hh.router = httprouter.New()
			}
			ask := func(change bool) int {
				r := httptest.NewRequest("GET", events, nil)
				if change {
					tc.change(r, &now, write)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w.Code
			}
			if code := ask(false); code != http.StatusOK {
				t.Fatalf("first request: %d", code)
			}
			hh.router = httprouter.New()
			if code := ask(false); code != http.StatusOK {
				t.Fatalf("the same request again: %d, want the hot path's 200", code)
			}
			if code := ask(true); code != http.StatusNotFound {
				t.Errorf("%s: %d, want the full path's 404", tc.name, code)
			}
		})
	}
}

// headerLines is a header as sorted "Name: value" lines, without Date.
func headerLines(hd http.Header) string {
	var lines []string
	for k, vs := range hd {
		if k != "Date" {
			lines = append(lines, k+": "+strings.Join(vs, ", "))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestHotPathForgetsLongLines: a request whose line, origin and key pass hotLineMax is not
// remembered, so that a client sending long ones cannot fill the table with them.
func TestHotPathForgetsLongLines(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	hh := h.(*Handler)
	ask := func(host string) int {
		r := httptest.NewRequest("GET", "/calendar/events/v1/events", nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	long := strings.Repeat("a", hotLineMax) + ".example"
	for _, host := range []string{"cal.example", long} {
		if code := ask(host); code != http.StatusOK {
			t.Fatalf("host of %d bytes: %d", len(host), code)
		}
	}
	hh.router = httprouter.New()
	if code := ask("cal.example"); code != http.StatusOK {
		t.Errorf("a short line again: %d, want the hot path's 200", code)
	}
	if code := ask(long); code != http.StatusNotFound {
		t.Errorf("a long line again: %d, want the full path's 404", code)
	}
}
