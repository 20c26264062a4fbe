package main

import (
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/calendard/calendard/jobs"
)

// metrics is a scrape of /metrics read with Prometheus's text parser.
type metrics map[string]*dto.MetricFamily

// scrape reads url's metrics.
func scrape(t *testing.T, url string) metrics {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, res.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return fams
}

// value is the value of the metric name with exactly the labels given as name, value pairs: a
// counter's or a gauge's, a histogram's count. ok is false when there is no such metric.
func (m metrics) value(name string, labels ...string) (v float64, ok bool) {
	fam := m[name]
	if fam == nil {
		return 0, false
	}
	for _, mt := range fam.Metric {
		if len(mt.Label) != len(labels)/2 {
			continue
		}
		match := true
		for _, l := range mt.Label {
			i := 0
			for i < len(labels) && labels[i] != l.GetName() {
				i += 2
			}
			if i >= len(labels) || labels[i+1] != l.GetValue() {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		switch {
		case mt.Counter != nil:
			return mt.Counter.GetValue(), true
		case mt.Gauge != nil:
			return mt.Gauge.GetValue(), true
		case mt.Histogram != nil:
			return float64(mt.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetrics reads /metrics while traffic moves the figures: each request counts for its route
// pattern, method and status, and in the latency histogram; a repeated list is a hit of the list
// cache; the index has no lag once it has applied the writes; requests over the rate limit count as
// rejections; the store's size, the Go runtime and the process are reported.
func TestMetrics(t *testing.T) {
	s := startServer(t, "CALENDAR_RATE_LIMIT_PER_MINUTE=5")
	before := scrape(t, s.ts.URL+"/metrics")
	id := s.create("/calendar/events/v1/events", concert())
	s.settle()
	for range 2 {
		if res := s.do(req{method: "GET", path: "/calendar/events/v1/events", auth: adminAuth}); res.status != http.StatusOK {
			t.Fatalf("list: %d %s", res.status, res.body)
		}
	}
	// Anonymous: the bucket of the remote address, 5 tokens, the sixth request refused.
	for range 6 {
		s.do(req{method: "GET", path: "/fr/calendar/events/v1/events/" + utoa(id)})
	}
	after := scrape(t, s.ts.URL+"/metrics")

	const events, event = "/calendar/events/v1/events", "/calendar/events/v1/events/{id}"
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"calendard_http_requests_total", []string{"route", events, "method", "POST", "status", "201"}, 1},
		{"calendard_http_requests_total", []string{"route", events, "method", "GET", "status", "200"}, 2},
		{"calendard_http_request_duration_seconds", []string{"route", events, "method", "GET"}, 2},
		{"calendard_http_requests_total", []string{"route", event, "method", "GET", "status", "200"}, 5},
		{"calendard_http_requests_total", []string{"route", "none", "method", "GET", "status", "429"}, 1},
		{"calendard_http_requests_total", []string{"route", "/metrics", "method", "GET", "status", "200"}, 1},
		{"calendard_rate_limit_rejections_total", []string{"limit", "requests"}, 1},
		{"calendard_cache_misses_total", []string{"cache", "lists"}, 1},
		{"calendard_cache_hits_total", []string{"cache", "lists"}, 1},
	} {
		was, _ := before.value(tc.name, tc.labels...)
		now, ok := after.value(tc.name, tc.labels...)
		if !ok || now-was != tc.want {
			t.Errorf("%s%v moved from %v to %v (present %v), want by %v", tc.name, tc.labels, was, now, ok, tc.want)
		}
	}
	head, _ := after.value("calendard_changelog_head_seq")
	applied, _ := after.value("calendard_index_applied_seq")
	if lag, ok := after.value("calendard_index_lag_entries"); !ok || lag != 0 || head == 0 || applied != head {
		t.Errorf("index lag %v (present %v), head %v, applied %v; want no lag at a head past 0", lag, ok, head, applied)
	}
	for _, name := range []string{"calendard_store_file_size_bytes", "go_goroutines", "process_cpu_seconds_total"} {
		if v, ok := after.value(name); !ok || v <= 0 {
			t.Errorf("%s = %v (present %v), want a positive figure", name, v, ok)
		}
	}
}

// TestMetricsWhileLoading: /metrics answers while the index loads, when the API answers only
// rest_not_ready, and counts those answers.
func TestMetricsWhileLoading(t *testing.T) {
	dir, _ := loadingDir(t)
	l, h := serveHeld(t, dir)
	defer close(h.release)
	httpDo(t, "GET", l.base+"/calendar/events/v1/events", "")
	m := scrape(t, l.base+"/metrics")
	if n, _ := m.value("calendard_http_requests_total", "route", "none", "method", "GET", "status", "503"); n != 1 {
		t.Errorf("rest_not_ready answers counted: %v, want 1", n)
	}
	if size, _ := m.value("calendard_store_file_size_bytes"); size <= 0 {
		t.Errorf("store size while loading: %v", size)
	}
	if _, ok := m.value("calendard_index_lag_entries"); ok {
		t.Error("an index lag is reported before there is an index")
	}
}

// TestMetricsListener: with CALENDAR_METRICS_ADDR, /metrics is served there and the API's listener
// answers it 404; the jobs' start-up runs show there once done.
func TestMetricsListener(t *testing.T) {
	// Every job's start-up run is the file's: in cluster mode those run once per cluster wait for the
	// election (electJobLeader).
	l := serveLoop(t, t.TempDir(), nil, "CALENDAR_METRICS_ADDR=127.0.0.1:0", fileEnv)
	l.ready(t)
	if code, body := httpDo(t, "GET", l.base+"/metrics", ""); code != http.StatusNotFound || !strings.Contains(string(body), "rest_no_route") {
		t.Errorf("the API's /metrics: %d %s", code, body)
	}
	url := "http://" + l.app.metricsLn.Addr().String() + "/metrics"
	// The jobs run once in the background after the index is loaded, in the table's order: wait for
	// the last of them.
	names := jobs.Names()
	for {
		m := scrape(t, url)
		if runs, _ := m.value("calendard_job_runs_total", "job", names[len(names)-1]); runs > 0 {
			for _, name := range names {
				runs, _ := m.value("calendard_job_runs_total", "job", name)
				failures, ok := m.value("calendard_job_failures_total", "job", name)
				// A scheduled run may have come too (publish-due runs every minute).
				if runs < 1 || failures != 0 || !ok {
					t.Errorf("job %s: %v runs, %v failures (present %v); want a run, no failure", name, runs, failures, ok)
				}
			}
			return
		}
		select {
		case err := <-l.done:
			t.Fatalf("serve stopped: %v", err)
		default:
		}
	}
}
