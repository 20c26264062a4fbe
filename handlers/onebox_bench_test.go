package handlers

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// oneBoxTyping is what visitors type into the one box, a letter at a time: every beginning of two
// letters or more of a few searches, each a request as a search box sends them.
var oneBoxTyping = func() []string {
	var out []string
	for _, s := range []string{"jazz", "concert", "london", "shakespeare", "summer festival", "wine tasting", "market"} {
		for n := 2; n <= len(s); n++ {
			out = append(out, s[:n])
		}
	}
	return out
}()

// serveTimed sends GET target for a client of host and returns how long the whole answer took.
func serveTimed(b *testing.B, h http.Handler, host, target string) time.Duration {
	r := httptest.NewRequest("GET", target, nil)
	r.Host = host
	w := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(w, r)
	took := time.Since(start)
	if w.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", target, w.Code, w.Body)
	}
	return took
}

// BenchmarkSearchAll measures the one box's whole answer through the handler as a search box asks for
// it while one types (oneBoxTyping, in turn), and reports the percentiles of the requests' durations;
// beside it, the one box's events list alone for the same searches (per_page=5), most of its cost.
// uncached: every request misses every cache (a new origin for the list and item caches, trailing
// separators, which searches ignore, for the remembered search matches); cached: every answer was
// asked for before the timing starts. It builds 10k synthetic events, or serves the data directory
// named by CALENDARD_BENCH_DIR.
func BenchmarkSearchAll(b *testing.B) {
	h := benchLists(b)
	for _, route := range []string{"search", "events"} {
		for _, mode := range []string{"uncached", "cached"} {
			target := func(search string) string {
				t := "/calendar/events/v1/" + route + "?search=" + url.QueryEscape(search)
				if route == "events" {
					t += "&per_page=5"
				}
				return t
			}
			b.Run(route+"/"+mode, func(b *testing.B) {
				if mode == "cached" {
					for _, s := range oneBoxTyping {
						serveTimed(b, h, "cal.test", target(s))
					}
				}
				var took []time.Duration
				for b.Loop() {
					i := benchRequests.Add(1)
					search, host := oneBoxTyping[len(took)%len(oneBoxTyping)], "cal.test"
					if mode == "uncached" {
						search += strings.Repeat(",", int(i%4096))
						host = "cal" + strconv.FormatInt(i, 10) + ".test"
					}
					took = append(took, serveTimed(b, h, host, target(search)))
				}
				reportPercentiles(b, took, 50, 95, 99)
			})
		}
	}
}

// BenchmarkHostileSearchAll measures the one box's answer to the strings of BenchmarkHostileSearch,
// against the same poisoned index, every request missing every cache: an anonymous client's worst
// one-box request (docs/SECURITY.md).
func BenchmarkHostileSearchAll(b *testing.B) {
	h := benchLists(b)
	poison(b, h.(*Handler))
	for _, tc := range hostileSearches() {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				i := benchRequests.Add(1)
				search := url.QueryEscape(tc.search + strings.Repeat(",", int(i%4096)))
				serveTimed(b, h, "cal"+strconv.FormatInt(i, 10)+".test", "/calendar/events/v1/search?search="+search)
			}
		})
	}
}
