package handlers

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// typoSearches are misspelled words of event listings, each with the language prefix of its list: a
// search that finds nothing as typed, answered again with typo tolerance.
var typoSearches = []struct{ lp, search string }{
	{"", "concret"}, {"", "festvial"}, {"", "workshpo"}, {"", "exhibiton"}, {"", "summmer"},
	{"", "nigth"}, {"", "childern"}, {"", "marekt"}, {"", "theatre concret"}, {"", "jazz festvial"},
	{"/pl", "koncret"}, {"/pl", "festiwla"}, {"/pl", "wystwa"}, {"/de", "Konzret"}, {"/de", "Ausstelung"},
	{"/fr", "exposiiton"}, {"/es", "cocnierto"}, {"/it", "concreto"}, {"/nl", "tentoonstlling"},
	{"", "xylophonists"},
}

// BenchmarkTypoSearch measures the typo-tolerant fallback end to end through the handler: every
// request misses every cache (a new origin, and trailing separators for the remembered matches), and
// its search finds nothing as typed. It reports the share of answers marked typo-tolerant and the
// percentiles of the requests' durations. It builds 10k synthetic events, or serves the data directory
// named by CALENDARD_BENCH_DIR.
func BenchmarkTypoSearch(b *testing.B) {
	h := benchLists(b)
	var took []time.Duration
	tolerant := 0
	for b.Loop() {
		i := benchRequests.Add(1)
		s := typoSearches[int(i)%len(typoSearches)]
		target := s.lp + "/calendar/events/v1/events?per_page=10&search=" + url.QueryEscape(s.search+strings.Repeat(",", int(i%4096)))
		r := httptest.NewRequest("GET", target, nil)
		r.Host = "cal" + strconv.FormatInt(i, 10) + ".test"
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, r)
		took = append(took, time.Since(start))
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
		if w.Header().Get(typoTolerantHeader) != "" {
			tolerant++
		}
	}
	b.ReportMetric(float64(tolerant)/float64(len(took)), "tolerant/op")
	reportPercentiles(b, took, 50, 99)
}

// reportPercentiles reports the given percentiles of took, the durations of a benchmark's requests,
// in milliseconds ("p95-ms").
func reportPercentiles(b *testing.B, took []time.Duration, percentiles ...int) {
	slices.Sort(took)
	for _, p := range percentiles {
		b.ReportMetric(float64(took[p*(len(took)-1)/100])/1e6, "p"+strconv.Itoa(p)+"-ms")
	}
}
