package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
)

// newMeasuredHandler is a test handler with metrics, serving /metrics itself; jobs gives the jobs'
// figures (nil: none).
func newMeasuredHandler(t *testing.T, cfg Config, store func(Store) Store, jobs func() []JobStat) (*Handler, *Metrics) {
	t.Helper()
	base, db := newTestHandler(t, cfg)
	hh := base.(*Handler)
	cfg = hh.cfg
	cfg.ServeMetrics = true
	m := NewMetrics(zap.NewNop())
	var s Store = db
	if store != nil {
		s = store(db)
	}
	return New(Deps{Config: cfg, Store: s, Index: hh.index, Log: zap.NewNop(), Metrics: m, Jobs: jobs}), m
}

// observed is how many requests the histogram holds for route and method.
func observed(t *testing.T, m *Metrics, route, method string) uint64 {
	t.Helper()
	var pb dto.Metric
	if err := m.duration.WithLabelValues(route, method).(prometheus.Histogram).Write(&pb); err != nil {
		t.Fatal(err)
	}
	return pb.GetHistogram().GetSampleCount()
}

// TestMeasure checks each request's labels: the route's pattern whatever path matched it, "none" when
// no route did or the request was answered before routing, the method the API acted on, the status.
func TestMeasure(t *testing.T) {
	h, m := newMeasuredHandler(t, Config{}, nil, nil)
	for _, tc := range []struct {
		method, target, auth string
		route, wantMethod    string
		wantCode             int
	}{
		{"GET", "/calendar/events/v1/events", "", "/calendar/events/v1/events", "GET", 200},
		{"GET", "/fr/calendar/events/v1/events/999", "", "/calendar/events/v1/events/{id}", "GET", 404},
		{"GET", "/calendar/events/v1/Events/by-slug/Nope", "", "/calendar/events/v1/events/by-slug/{slug}", "GET", 400},
		{"HEAD", "/calendar/events/v1/", "", "/calendar/events/v1", "HEAD", 200},
		{"GET", "/", "", "/", "GET", 200},
		{"GET", "/calendar/events/v1/events/abc", "", noRoute, "GET", 404},
		{"GET", "/nowhere", "", noRoute, "GET", 404},
		{"BREW", "/calendar/events/v1/events", "", "/calendar/events/v1/events", "other", 404},
		{"POST", "/calendar/events/v1/events/999?_method=DELETE", "admin:wrong", noRoute, "DELETE", 401},
		{"GET", "/healthz", "", "/healthz", "GET", 200},
		{"GET", "/metrics", "", "/metrics", "GET", 200},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			counter := m.requests.WithLabelValues(tc.route, tc.wantMethod, strconv.Itoa(tc.wantCode))
			before, beforeObserved := testutil.ToFloat64(counter), observed(t, m, tc.route, tc.wantMethod)
			r := httptest.NewRequest(tc.method, tc.target, nil)
			if login, password, ok := strings.Cut(tc.auth, ":"); ok {
				r.SetBasicAuth(login, password)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.wantCode {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.wantCode, w.Body)
			}
			if got := testutil.ToFloat64(counter) - before; got != 1 {
				t.Errorf("requests{route=%q,method=%q,status=\"%d\"} moved by %v, want 1", tc.route, tc.wantMethod, tc.wantCode, got)
			}
			if got := observed(t, m, tc.route, tc.wantMethod) - beforeObserved; got != 1 {
				t.Errorf("duration{route=%q,method=%q} observed %d requests, want 1", tc.route, tc.wantMethod, got)
			}
		})
	}
}

// TestMeasurePanic: a request whose handling panics counts as the 500 observe answers it with.
func TestMeasurePanic(t *testing.T) {
	h, m := newMeasuredHandler(t, Config{}, func(db Store) Store {
		return &failingStore{Store: db, authenticateBasic: func() error { panic("the store broke") }}
	}, nil)
	w := serve(h, "GET", "/calendar/events/v1/events", "", "")
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if got := testutil.ToFloat64(m.requests.WithLabelValues(noRoute, "GET", "500")); got != 1 {
		t.Errorf("requests{route=none,method=GET,status=500} = %v, want 1", got)
	}
}

// TestScrape checks the figures read when scraped: the caches move with repeated lists, the jobs'
// and the rejections' figures are those of their parts.
func TestScrape(t *testing.T) {
	ok := time.Unix(1_795_000_000, 0)
	jobs := func() []JobStat {
		return []JobStat{
			{Name: "publish-due", Runs: 3, Busy: 1500 * time.Millisecond, LastSuccess: ok},
			{Name: "consistency-check", Runs: 1, Failures: 1, Busy: 2 * time.Second},
		}
	}
	var db Store
	h, _ := newMeasuredHandler(t, Config{RateLimitPerMinute: 2, AuthFailuresPerMinute: 1}, func(s Store) Store { db = s; return s }, jobs)
	for _, title := range []string{"Jazz", "Blues"} {
		if w := serve(h, "POST", "/calendar/events/v1/events", "application/json",
			`{"title":"`+title+`","start_date":"2027-01-01 20:00","end_date":"2027-01-01 22:00"}`); w.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
	}
	if _, err := indexOf(h).SyncOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.rate = newLimiter(100, time.Minute) // the creates spent the tokens of the first limiter
	// Lists: a miss, a hit, and a miss whose one item (Jazz) is cached; text matches: a miss, then a
	// hit (the second list never searched). The plain list below adds a list miss, an item hit and an
	// item miss (Blues).
	for _, target := range []string{"?search=jazz", "?search=jazz", "?search=jazz&per_page=1"} {
		if w := serve(h, "GET", "/calendar/events/v1/events"+target, "", ""); w.Code != http.StatusOK {
			t.Fatalf("list: %d %s", w.Code, w.Body)
		}
	}
	for range 2 { // a wrong password, then the throttle refuses the second attempt
		r := httptest.NewRequest("GET", "/calendar/events/v1/events", nil)
		r.RemoteAddr = "198.51.100.7:1234"
		r.SetBasicAuth("admin", "wrong")
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	h.rate = newLimiter(1, time.Minute)
	for range 3 { // one passes, two are refused
		serve(h, "GET", "/calendar/events/v1/events", "", "")
	}
	// The store's caches report what the store counts: the lists above read their records.
	posts, terms := db.RecordCacheStats()
	if posts.Misses == 0 || posts.Bytes == 0 {
		t.Fatalf("the lists read no record through the store's caches: %+v %+v", posts, terms)
	}
	want := fmt.Sprintf(`
# HELP calendard_cache_hits_total Lookups the cache answered.
# TYPE calendard_cache_hits_total counter
calendard_cache_hits_total{cache="items"} 2
calendard_cache_hits_total{cache="lists"} 1
calendard_cache_hits_total{cache="records"} %d
calendard_cache_hits_total{cache="search_text"} 1
calendard_cache_hits_total{cache="terms"} %d
# HELP calendard_cache_misses_total Lookups the cache could not answer.
# TYPE calendard_cache_misses_total counter
calendard_cache_misses_total{cache="items"} 2
calendard_cache_misses_total{cache="lists"} 3
calendard_cache_misses_total{cache="records"} %d
calendard_cache_misses_total{cache="search_text"} 1
calendard_cache_misses_total{cache="terms"} %d
`, posts.Hits, terms.Hits, posts.Misses, terms.Misses) + `# HELP calendard_job_failures_total Runs of the job that failed.
# TYPE calendard_job_failures_total counter
calendard_job_failures_total{job="consistency-check"} 1
calendard_job_failures_total{job="publish-due"} 0
# HELP calendard_job_last_success_timestamp_seconds When the job's last successful run ended (Unix time); absent until one has.
# TYPE calendard_job_last_success_timestamp_seconds gauge
calendard_job_last_success_timestamp_seconds{job="publish-due"} 1.795e+09
# HELP calendard_job_run_seconds_total Time the job's runs took.
# TYPE calendard_job_run_seconds_total counter
calendard_job_run_seconds_total{job="consistency-check"} 2
calendard_job_run_seconds_total{job="publish-due"} 1.5
# HELP calendard_job_runs_total Runs of the job, failed or not.
# TYPE calendard_job_runs_total counter
calendard_job_runs_total{job="consistency-check"} 1
calendard_job_runs_total{job="publish-due"} 3
# HELP calendard_rate_limit_rejections_total Requests refused with 429: limit=requests by the rate limit (docs/API.md, Limits), limit=auth_failures by the authentication throttle (7.3), limit=feeds by the bound on iCalendar feeds in flight per client.
# TYPE calendard_rate_limit_rejections_total counter
calendard_rate_limit_rejections_total{limit="auth_failures"} 1
calendard_rate_limit_rejections_total{limit="feeds"} 0
calendard_rate_limit_rejections_total{limit="requests"} 2
# HELP calendard_index_lag_entries Change-log entries the search index has not applied yet.
# TYPE calendard_index_lag_entries gauge
calendard_index_lag_entries 0
`
	if err := testutil.CollectAndCompare(newScrape(&h.metrics.serving), strings.NewReader(want),
		"calendard_cache_hits_total", "calendard_cache_misses_total", "calendard_job_failures_total",
		"calendard_job_last_success_timestamp_seconds", "calendard_job_run_seconds_total", "calendard_job_runs_total",
		"calendard_rate_limit_rejections_total", "calendard_index_lag_entries"); err != nil {
		t.Error(err)
	}
}

// TestMetricsListener: with a listener of their own, the API's handler answers /metrics as any other
// path outside the namespace (404), and Metrics serves only /metrics.
func TestMetricsListener(t *testing.T) {
	base, db := newTestHandler(t, Config{})
	hh := base.(*Handler)
	m := NewMetrics(zap.NewNop())
	h := New(Deps{Config: hh.cfg, Store: db, Index: hh.index, Log: zap.NewNop(), Metrics: m})
	if w := serve(h, "GET", "/metrics", "", ""); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "rest_no_route") {
		t.Errorf("API's /metrics: %d %s", w.Code, w.Body)
	}
	for _, tc := range []struct {
		method, target string
		want           int
	}{
		{"GET", "/metrics", http.StatusOK},
		{"HEAD", "/metrics", http.StatusOK},
		{"POST", "/metrics", http.StatusMethodNotAllowed},
		{"GET", "/healthz", http.StatusNotFound},
	} {
		w := httptest.NewRecorder()
		m.ServeHTTP(w, httptest.NewRequest(tc.method, tc.target, nil))
		if w.Code != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.target, w.Code, tc.want)
		}
	}
	w := httptest.NewRecorder()
	m.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(w.Body.String(), `calendard_http_requests_total{method="GET",route="none",status="404"} 1`) {
		t.Errorf("the API's request is not counted:\n%s", w.Body)
	}
}
