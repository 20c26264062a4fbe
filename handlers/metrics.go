package handlers

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/calendard/calendard/index"
)

// metricsPath is where the metrics are served: outside the REST namespace, like the probes.
const metricsPath = "/metrics"

// noRoute is the route label of a request no route matched, and of one answered before routing (while
// the index loads, or refused by the steps of docs/API.md "Responses" that come first).
const noRoute = "none"

// Metrics is what GET /metrics reports, in Prometheus's text format. The HTTP layer owns the
// registry; storage, index and jobs keep plain figures, which a scrape reads.
//
// The process builds one (NewMetrics) and gives it to Loading, then to New, through Deps.Metrics: the
// request figures carry on across the switch from the loading answers to the API, and the figures read
// when scraped come from the handler built last. It has a registry of its own, never the global one,
// so that two in one process (tests) do not collide.
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// series holds each label set's counter and histogram (seriesOf), so that a request costs no label
	// hashing: the label sets are bounded (routes, methodLabel, the statuses the API answers).
	series sync.Map // seriesKey → *requestSeries
	// page writes the registry's metrics.
	page http.Handler
	// serving is the handler built last, whose parts a scrape reads.
	serving atomic.Pointer[Handler]
}

// JobStat is what the runs of one job add up to (the jobs' Stat, which this package cannot import).
type JobStat struct {
	Name           string
	Runs, Failures uint64
	// Busy is the time the runs took.
	Busy time.Duration
	// LastSuccess is when the last successful run ended; zero if none has.
	LastSuccess time.Time
}

// NewMetrics returns the metrics of one process; log receives the errors of a scrape.
func NewMetrics(log *zap.Logger) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "calendard_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		// No status label: a series per bucket is already routes × methods × buckets. The buckets
		// span a list answered from the cache (well under a millisecond) to a long poll of the change
		// feed (up to the handler timeout).
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "calendard_http_request_duration_seconds",
			Help:    "Time from a request's arrival to the end of its answer, by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route", "method"}),
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.requests, m.duration, newScrape(&m.serving), newWebhookScrape(&m.serving),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// A figure that cannot be read (the store's file gone) leaves the others served.
	m.page = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: zap.NewStdLog(log), ErrorHandling: promhttp.ContinueOnError, Registry: reg})
	return m
}

// ServeHTTP serves the metrics on a listener of their own (CALENDAR_METRICS_ADDR): GET and HEAD
// /metrics, and 404 to any other path.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path != metricsPath:
		http.NotFound(w, r)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
	default:
		m.page.ServeHTTP(w, r)
	}
}

// report makes h the handler whose parts a scrape reads; m may be nil (no metrics).
func (m *Metrics) report(h *Handler) {
	if m != nil {
		m.serving.Store(h)
	}
}

// servesMetrics reports whether /metrics is this handler's to answer.
func (h *Handler) servesMetrics() bool { return h.metrics != nil && h.cfg.ServeMetrics }

func (h *Handler) metricsPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	h.metrics.page.ServeHTTP(w, r)
}

// measure counts the request by route, method and status, and its latency. It comes right after
// observe, which it needs for the request's state and status.
func (h *Handler) measure(next http.Handler) http.Handler {
	if h.metrics == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rq := requestOf(r)
		returned := false
		defer func() {
			status := rq.sw.status
			switch {
			case status == 0 && !returned:
				status = http.StatusInternalServerError // a panic, which observe answers with a 500
			case status == 0:
				status = http.StatusOK // what net/http sends for a handler that wrote nothing
			}
			route := rq.route
			if route == "" {
				route = noRoute
			}
			series := h.metrics.seriesOf(seriesKey{route, methodLabel(rq.method), status})
			series.requests.Inc()
			series.duration.Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(w, r)
		returned = true
	})
}

// seriesKey is a request's labels; requestSeries the series they name.
type seriesKey struct {
	route, method string
	status        int
}

type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func (m *Metrics) seriesOf(k seriesKey) *requestSeries {
	if s, ok := m.series.Load(k); ok {
		return s.(*requestSeries)
	}
	s, _ := m.series.LoadOrStore(k, &requestSeries{requests: m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(k.status)),
		duration: m.duration.WithLabelValues(k.route, k.method)})
	return s.(*requestSeries)
}

// methodLabel bounds the method label: a method the API does not know is "other", rather than a new
// series for every word a client sends.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// routeLabel names a route in the metrics by its pattern, in the OpenAPI form /doc uses
// (/calendar/events/v1/events/{id}), whatever path and language prefix matched it: the label has as
// many values as there are routes.
func routeLabel(rt *route) string {
	if rt.pattern == "" {
		return "/" // the root index
	}
	return "/" + namespace + docPath(rt)
}

// labelled sets the route label of a route outside the route table.
func labelled(path string, fn httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		requestOf(r).route = path
		fn(w, r, ps)
	}
}

// scrape reads the figures the parts keep, when scraped, from the serving handler: caches, the change
// log and the index, the store's file, the jobs and the rejections. It is a collector rather than
// gauges set as things happen (STYLE 5, after client_golang's dbstats_collector): the parts never
// import Prometheus, and nothing runs between scrapes.
type scrape struct {
	serving                                          *atomic.Pointer[Handler]
	cacheEntries, cacheBytes, cacheHits, cacheMisses *prometheus.Desc
	cacheLimit                                       *prometheus.Desc
	changeHead, indexApplied, indexLag               *prometheus.Desc
	storeSize                                        *prometheus.Desc
	jobRuns, jobFailures, jobSeconds, jobLastSuccess *prometheus.Desc
	rejections                                       *prometheus.Desc
}

func newScrape(serving *atomic.Pointer[Handler]) *scrape {
	cache, job := []string{"cache"}, []string{"job"}
	return &scrape{
		serving:      serving,
		cacheEntries: prometheus.NewDesc("calendard_cache_entries", "Entries the cache holds.", cache, nil),
		cacheBytes:   prometheus.NewDesc("calendard_cache_bytes", "Bytes the cache holds, as its bound counts them.", cache, nil),
		cacheLimit: prometheus.NewDesc("calendard_cache_limit_bytes",
			"Bound on the bytes the cache holds: its share of the memory budget (CALENDAR_MEMORY_MB).", cache, nil),
		cacheHits:    prometheus.NewDesc("calendard_cache_hits_total", "Lookups the cache answered.", cache, nil),
		cacheMisses:  prometheus.NewDesc("calendard_cache_misses_total", "Lookups the cache could not answer.", cache, nil),
		changeHead:   prometheus.NewDesc("calendard_changelog_head_seq", "Position of the store's last change-log entry.", nil, nil),
		indexApplied: prometheus.NewDesc("calendard_index_applied_seq", "Change-log position the search index has applied.", nil, nil),
		indexLag:     prometheus.NewDesc("calendard_index_lag_entries", "Change-log entries the search index has not applied yet.", nil, nil),
		storeSize:    prometheus.NewDesc("calendard_store_file_size_bytes", "Size of the store's file on disk.", nil, nil),
		jobRuns:      prometheus.NewDesc("calendard_job_runs_total", "Runs of the job, failed or not.", job, nil),
		jobFailures:  prometheus.NewDesc("calendard_job_failures_total", "Runs of the job that failed.", job, nil),
		jobSeconds:   prometheus.NewDesc("calendard_job_run_seconds_total", "Time the job's runs took.", job, nil),
		jobLastSuccess: prometheus.NewDesc("calendard_job_last_success_timestamp_seconds",
			"When the job's last successful run ended (Unix time); absent until one has.", job, nil),
		rejections: prometheus.NewDesc("calendard_rate_limit_rejections_total",
			"Requests refused with 429: limit=requests by the rate limit (docs/API.md, Limits), limit=auth_failures by the authentication throttle (7.3), limit=feeds by the bound on iCalendar feeds in flight per client.",
			[]string{"limit"}, nil),
	}
}

func (s *scrape) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{s.cacheEntries, s.cacheBytes, s.cacheLimit, s.cacheHits, s.cacheMisses, s.changeHead, s.indexApplied,
		s.indexLag, s.storeSize, s.jobRuns, s.jobFailures, s.jobSeconds, s.jobLastSuccess, s.rejections} {
		ch <- d
	}
}

func (s *scrape) Collect(ch chan<- prometheus.Metric) {
	h := s.serving.Load()
	if h == nil {
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	posts, terms := h.db.RecordCacheStats()
	caches := map[string]index.CacheStats{"lists": h.lists.Stats(), "items": h.items.Stats(), "records": posts, "terms": terms}
	if h.index != nil {
		caches["search_text"] = h.index.TextCacheStats()
	}
	for name, st := range caches {
		gauge(s.cacheEntries, float64(st.Entries), name)
		gauge(s.cacheBytes, float64(st.Bytes), name)
		gauge(s.cacheLimit, float64(st.Limit), name)
		counter(s.cacheHits, float64(st.Hits), name)
		counter(s.cacheMisses, float64(st.Misses), name)
	}
	// The index's position is read before the head: the index applies only what the store already
	// holds, so the head read after it is not behind it.
	var applied uint64
	if h.index != nil {
		applied = h.index.Applied()
		gauge(s.indexApplied, float64(applied))
	}
	if head, err := h.db.ChangeHead(context.Background()); err != nil {
		ch <- prometheus.NewInvalidMetric(s.changeHead, err)
	} else {
		gauge(s.changeHead, float64(head))
		if h.index != nil {
			gauge(s.indexLag, float64(head-min(applied, head)))
		}
	}
	if size, err := h.db.FileSize(); err != nil {
		ch <- prometheus.NewInvalidMetric(s.storeSize, err)
	} else {
		gauge(s.storeSize, float64(size))
	}
	if h.jobs != nil {
		for _, j := range h.jobs() {
			counter(s.jobRuns, float64(j.Runs), j.Name)
			counter(s.jobFailures, float64(j.Failures), j.Name)
			counter(s.jobSeconds, j.Busy.Seconds(), j.Name)
			if !j.LastSuccess.IsZero() {
				gauge(s.jobLastSuccess, float64(j.LastSuccess.UnixNano())/1e9, j.Name)
			}
		}
	}
	var limited, throttled, feeds uint64
	if h.rate != nil {
		limited = h.rate.rejections()
	}
	if h.failures != nil {
		throttled = h.failures.rejections()
	}
	if h.feeds != nil {
		feeds = h.feeds.rejections()
	}
	counter(s.rejections, float64(limited), "requests")
	counter(s.rejections, float64(throttled), "auth_failures")
	counter(s.rejections, float64(feeds), "feeds")
}
