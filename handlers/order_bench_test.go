package handlers

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listed is the X-TEC-Total of an answer, which the lists spell as the reference does: not in
// Header.Get's canonical form.
func listed(w *httptest.ResponseRecorder) int {
	for k, v := range w.Header() {
		if strings.EqualFold(k, "X-TEC-Total") && len(v) > 0 {
			n, _ := strconv.Atoi(v[0])
			return n
		}
	}
	return 0
}

// orderWords are the candidates for the word of BenchmarkOrderedLists' relevance list: the kinds,
// themes and moods of the English text `calendard seed` writes, and the synthetic calendar's words.
var orderWords = strings.Fields("concert festival market exhibition workshop night tour fair screening lecture " +
	"recital show party gala tasting course reading parade jazz blues folk rock opera ballet theatre comedy poetry " +
	"film photography design craft wine beer cheese food book antiques garden science history family dance choir " +
	"piano orchestra summer winter spring autumn christmas easter midnight weekend sunday annual acoustic children")

// BenchmarkOrderedLists measures the events list's orders end to end through the handler (docs/API.md
// "Ordering"), over the whole calendar (1970 to 2100), each beside the same list in the default
// order: relevance for the word of orderWords held by the share of the events nearest 20 %, and for
// the commonest; distance within 50 km of the first venue with a position; modified, the widest sort
// an anonymous client can ask for. Every request comes from a new origin, so neither the list cache
// nor the item cache answers it, and a search's trailing separators, which it ignores, miss its
// remembered matches (the sets that rank them are kept by term, and are remembered after the first
// request). It reports the p50 and p95 of the requests' durations, and how many events the list
// holds. It builds 10k synthetic events, or serves the data directory named by CALENDARD_BENCH_DIR.
func BenchmarkOrderedLists(b *testing.B) {
	h := benchLists(b)
	get := func(target string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/calendar/events/v1"+target, nil)
		r.Host = "cal" + strconv.FormatInt(benchRequests.Add(1), 10) + ".test"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", target, w.Code, w.Body)
		}
		return w
	}
	total := func(target string) int {
		return listed(get(target))
	}
	// The whole calendar: every event of the language.
	const whole = "start_date=1970-01-01&end_date=2100-12-31"
	all := total("/events?per_page=1&" + whole)
	word, share, common, most := "", 0.0, "", 0.0
	for _, w := range orderWords {
		s := float64(total("/events?per_page=1&"+whole+"&search="+w)) / float64(all)
		if s > 0 && (word == "" || math.Abs(s-0.2) < math.Abs(share-0.2)) {
			word, share = w, s
		}
		if s > most {
			common, most = w, s
		}
	}
	var venues []struct {
		Lat any `json:"geo_lat"`
		Lng any `json:"geo_lng"`
	}
	if err := json.Unmarshal(get("/venues?per_page=100").Body.Bytes(), &struct{ Venues any }{&venues}); err != nil {
		b.Fatal(err)
	}
	circle := ""
	for _, v := range venues {
		if lat, ok := v.Lat.(float64); ok {
			circle = fmt.Sprintf("geoloc=1&geoloc_lat=%v&geoloc_lng=%v&geoloc_radius=50", lat, v.Lng)
			break
		}
	}
	if circle == "" {
		b.Fatal("no venue with a position")
	}
	b.Logf("%d events in all; %q is in %.1f %% of them, %q in %.1f %%; %s", all, word, 100*share, common, 100*most, circle)
	for _, tc := range []struct{ name, query string }{
		{"relevance", "orderby=relevance&search=" + word},
		{"start/search", "search=" + word},
		{"relevance/commonest-word", "orderby=relevance&search=" + common},
		{"distance-50km", circle + "&orderby=distance"},
		{"start/geo-50km", circle},
		{"modified", "orderby=modified"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var took []time.Duration
			n := 0
			for b.Loop() {
				// The search, when there is one, comes last: the separators end it.
				q := "/events?per_page=10&" + whole + "&" + tc.query
				if strings.Contains(q, "search=") {
					q += strings.Repeat(",", int(benchRequests.Load()%4096))
				}
				start := time.Now()
				w := get(q)
				took = append(took, time.Since(start))
				n = listed(w)
			}
			reportPercentiles(b, took, 50, 95)
			b.ReportMetric(float64(n), "listed")
		})
	}
}
