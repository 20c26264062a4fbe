// Package handlers is calendard's HTTP layer: the route table, request parsing and validation driven by
// parameter tables, permissions, response shaping and the one error envelope (docs/API.md "Routes", "Parameters and bodies", "Responses", "Authentication and permissions", "Errors").
package handlers

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"
	"go.uber.org/zap"

	"github.com/calendard/calendard/handlers/respcache"
	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// Defaults of Config.
const (
	DefaultMaxBodyBytes   = 1 << 20
	DefaultHandlerTimeout = 30 * time.Second
	// DefaultIndexWait bounds how long a write waits for the index before answering: the
	// write is durable either way, and the index catches up by itself.
	DefaultIndexWait = 2 * time.Second
)

// Config holds the site settings the HTTP layer needs (README "Configuration").
type Config struct {
	// BaseURL is the public origin; empty derives it from each request (docs/API.md "Routes").
	BaseURL          string
	DefaultLang      storage.Lang
	SiteName         string
	CurrencySymbol   string
	CurrencyPosition string
	CurrencyCode     string
	MaxBodyBytes     int64
	HandlerTimeout   time.Duration
	IndexWait        time.Duration
	// RevisionWait bounds how long a request's X-Calendar-Min-Revision waits for the index (revision.go).
	RevisionWait time.Duration
	// RateLimitPerMinute is N of docs/API.md "Limits": 0 turns rate limiting off; above
	// MaxRateLimitPerMinute it is clamped.
	RateLimitPerMinute int
	// WriteRateLimitPerMinute is the writes a minute each user below editor may send (writelimits.go):
	// 0 turns the limit off; above MaxRateLimitPerMinute it is clamped.
	WriteRateLimitPerMinute int
	// SeriesPerHour is the new series an hour each user below editor may create (writelimits.go): 0
	// turns the limit off; above MaxRateLimitPerMinute it is clamped.
	SeriesPerHour int
	// FeedsPerClient is how many iCalendar feed answers each client may have in flight
	// (feedlimit.go): 0 turns the bound off.
	FeedsPerClient int
	// TrustedOrigins are the origins of CALENDAR_CORS_TRUSTED_ORIGINS, each in ParseOrigin's form: only
	// they get Access-Control-Allow-Credentials (docs/API.md "Responses").
	TrustedOrigins []string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client (proxies.go).
	TrustedProxies []netip.Prefix
	// AuthFailuresPerMinute is N of docs/API.md "Authentication and permissions"'s failure throttling: 0 turns it off; above
	// MaxAuthFailuresPerMinute it is clamped.
	AuthFailuresPerMinute int
	// ListCacheBytes and ItemCacheBytes bound the list-answer cache and the list-item cache (cache.go,
	// items.go); zero means their built-in bounds.
	ListCacheBytes, ItemCacheBytes int
	// ServeMetrics puts GET /metrics beside the health probes, when Deps.Metrics is set; off when the
	// metrics have a listener of their own (Metrics.ServeHTTP).
	ServeMetrics bool
}

// Handler serves the REST API.
type Handler struct {
	cfg    Config
	db     Store
	index  Index
	log    *zap.Logger
	router *httprouter.Router // the REST namespace's (routes.go)
	table  []*route
	// lists holds list answers (cache.go), items the encoded JSON of list items (items.go).
	lists, items *respcache.Cache
	// hot holds how lately answered list requests were understood, to answer them again (hot.go).
	hot *hotLines
	// itemDicts holds, by post type and language prefix, the dictionaries items are packed with: a
	// few, three types in the site's languages (ParseLang).
	itemDicts respcache.Dicts
	rate      *limiter // nil: no rate limit
	// writes is the write rate limit of users below editor (writelimits.go); nil: none.
	writes *limiter
	// series is the series limit of users below editor, refilled in an hour (writelimits.go); nil:
	// none.
	series *limiter
	// trusted holds Config.TrustedOrigins, proxies Config.TrustedProxies.
	trusted trustedOrigins
	proxies trustedProxies
	// feedSlots holds a token for each feed being rendered (feed.go).
	feedSlots chan struct{}
	// feeds bounds the feed answers in flight per client (feedlimit.go); nil: no bound.
	feeds *inFlight
	// failures counts failed authentications (throttle.go); nil: no throttling.
	failures *failureTable
	// loading is set on the handler of a server whose index is still loading (Loading).
	loading *index.Loading
	// families are the groups of routes mounted side by side (mount.go); chain is what ServeHTTP
	// runs: the links of every request, then the family mounted at its path (chain.go).
	families mounts
	chain    http.Handler
	// revisions stamps the answers (statusWriter); nil while the index loads.
	revisions *revisions
	// stopping is Deps.Stopping.
	stopping context.Context
	// metrics is Deps.Metrics (nil: none); jobs is Deps.Jobs.
	metrics *Metrics
	jobs    func() []JobStat
	// webhooks is Deps.Webhooks.
	webhooks func(context.Context) (WebhookStats, error)
}

// New returns the API's handler: the families of routes, each with its own links, mounted side by
// side under the links every request goes through (chain.go, mount.go).
func New(d Deps) *Handler {
	h := newHandler(d)
	h.index, h.stopping, h.jobs, h.webhooks = d.Index, d.Stopping, d.Jobs, d.Webhooks
	h.revisions = &revisions{applied: d.Index.Applied}
	h.router = h.routes()
	h.families.mount(
		h.rest(),                  // the REST namespace under every language root, and the root index
		h.probes(h.newRouter()),   // /healthz, /readyz and /metrics: no credentials, no rate limit (health.go)
		h.explorer(h.newRouter()), // the page under /explore/ (explore.go)
	)
	h.metrics.report(h)
	return h
}

// NewLoading returns what a server answers while its index is built or caught up, before New's handler
// can serve: the health probes, /readyz with the progress, and 503 rest_not_ready with Retry-After
// to every other request, with the same common headers (docs/API.md "Errors"). A server listens from its start
// with it, so that a load balancer or watchdog sees a live process rather than a dead one.
// d.Index is not used: there is none yet.
func NewLoading(d Deps, loading *index.Loading) http.Handler {
	h := newHandler(d)
	h.loading = loading
	// The probes and the explorer keep httprouter's defaults here: a method they do not have is 405
	// with Allow, and OPTIONS 200 with Allow, where New's answer 404 rest_no_route.
	h.families.mount(
		family{patterns: []string{"/"}, handler: http.HandlerFunc(h.whileLoading)},
		h.probes(httprouter.New()),
		h.explorer(httprouter.New()), // the page loads, and shows the API's rest_not_ready until the index is ready
	)
	h.metrics.report(h)
	return h
}

func newHandler(d Deps) *Handler {
	cfg, db, log := d.Config, d.Store, cmp.Or(d.Log, zap.NewNop())
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.HandlerTimeout == 0 {
		cfg.HandlerTimeout = DefaultHandlerTimeout
	}
	if cfg.IndexWait == 0 {
		cfg.IndexWait = DefaultIndexWait
	}
	if cfg.RevisionWait == 0 {
		cfg.RevisionWait = DefaultRevisionWait
	}
	if cfg.DefaultLang == "" {
		cfg.DefaultLang = "en"
	}
	h := &Handler{cfg: cfg, db: db, log: log, lists: respcache.New(cmp.Or(cfg.ListCacheBytes, listCacheBytes)),
		items: respcache.New(cmp.Or(cfg.ItemCacheBytes, itemCacheBytes)), rate: newLimiter(cfg.RateLimitPerMinute, time.Minute),
		writes: newLimiter(cfg.WriteRateLimitPerMinute, time.Minute), series: newLimiter(cfg.SeriesPerHour, time.Hour), feeds: newInFlight(cfg.FeedsPerClient),
		trusted: newTrustedOrigins(cfg.TrustedOrigins), proxies: cfg.TrustedProxies, failures: newFailureTable(cfg.AuthFailuresPerMinute), metrics: d.Metrics,
		feedSlots: make(chan struct{}, feedRenders()), hot: newHotLines()}
	h.chain = h.root()
	return h
}

// ServeHTTP passes the request through the links of every request (chain.go), then to the family
// mounted at its path.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.chain.ServeHTTP(w, r) }

type ctxKey struct{}

// request is everything a route handler needs about one request, parsed once.
type request struct {
	r *http.Request
	// db is the store, for parameter parsers that check existence (docs/API.md "Responses" step 7).
	db    Store
	id    string
	actor storage.Actor
	// prefix is the language path prefix ("" without one); lang the selected language (docs/API.md "Languages").
	prefix storage.Lang
	lang   storage.Lang
	origin string
	// remote is the client's address (clientAddr), read once for the rate limit and the log line.
	remote string
	method string
	// slug is the decoded {slug} path segment, id the {id} one: path parameters are not mixed with the
	// body's (an event's body `slug` renames it, docs/API.md "Events").
	slug   string
	pathID string
	params map[string]any
	vals   values
	// query is the typed query of a list request (endpoint.query), as its parameters set it.
	query  any
	fields fields
	// highlight is the search whose matches a list marks in its items (highlight.go), or nil.
	highlight *highlight
	// now is the clock reading of the whole request; site the site zone.
	now  time.Time
	site datetime.Zone
	// sw is the writer observe put around the connection's: links that add headers to every answer,
	// the panic's included, go under it (chain.go).
	sw *statusWriter
	// client is done when the client goes away (or the server closes the connection): unlike r's
	// context, it has no handler deadline, which a long poll outlives (changes.go).
	client context.Context
	// lookup is the record the path designates, once looked up (records.go).
	lookup lookup
	// The verdicts of identify, answered by the links of their steps (chain.go): a cross-site write,
	// the wait before the rate limit allows the request, the credentials' failure.
	crossSite bool
	wait      time.Duration
	authErr   error
	// route is the metrics' label of the route that matched (routeLabel); empty when none did.
	route string
	// plain has the answer written uncompressed whatever Accept-Encoding says: set while the list
	// cache records an answer, which it compresses itself (cache.go).
	plain bool
	// listKey is the list cache's key of the answer to a GET of a cached route, and listHead the
	// change-log head it was looked up at (cache.go): the hot path remembers them (hot.go).
	listKey  string
	listHead uint64
	// preparing marks a request the list cache makes itself, ahead of a boundary, to keep the answer
	// it will serve from now on (boundary.go).
	preparing bool
}

// base is {base} of docs/API.md "Routes".
func (rq *request) base() string {
	if rq.prefix == "" {
		return rq.origin
	}
	return rq.origin + "/" + string(rq.prefix)
}

func (rq *request) ns() string { return rq.base() + "/" + namespace }

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// origin is {origin} of docs/API.md "Routes".
func (h *Handler) origin(r *http.Request) string {
	if h.cfg.BaseURL != "" {
		return h.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// normalizePath implements docs/API.md "Routes" before the router sees the path: the language prefix
// is taken off, one trailing slash dropped, and literal segments lower-cased; the {slug} segment keeps
// its case and stays escaped until the handler decodes it.
func (h *Handler) normalizePath(rq *request, escaped string) (string, bool) {
	if isNormalPath(escaped) {
		return escaped, true
	}
	segs := strings.Split(strings.TrimPrefix(escaped, "/"), "/")
	if l, ok := storage.ParseLang(segs[0]); ok {
		rq.prefix = l
		segs = segs[1:]
	}
	if n := len(segs); n > 1 && segs[n-1] == "" {
		segs = segs[:n-1]
	}
	if len(segs) == 0 || len(segs) == 1 && segs[0] == "" {
		return "/", true // the root index, with or without a language prefix and its slash
	}
	for i, s := range segs {
		if i == 5 && strings.EqualFold(segs[4], "by-slug") {
			continue
		}
		if strings.ContainsRune(s, '%') {
			d, err := url.PathUnescape(s)
			if err != nil || strings.Contains(d, "/") {
				return "", false
			}
			s = d
		}
		segs[i] = strings.ToLower(s)
	}
	if !strings.EqualFold(segs[0], "calendar") {
		return "", false
	}
	return "/" + strings.Join(segs, "/"), true
}

// isNormalPath reports whether normalizePath leaves escaped as it is, without its work: a path under
// /calendar/ (so no language prefix) without a trailing slash, an escape or an upper-case letter, which
// is what clients send. An escaped path holds no other letters than ASCII.
func isNormalPath(escaped string) bool {
	return strings.HasPrefix(escaped, "/calendar/") && !strings.HasSuffix(escaped, "/") &&
		!strings.ContainsAny(escaped, "%ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

func requestOf(r *http.Request) *request { return r.Context().Value(ctxKey{}).(*request) }

// statusWriter remembers what was written, for the access log and the panic handler, and stamps the
// answer with the node's revision as its header goes out (revision.go).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
	// revision gives the change-log position the node has applied, read when the header is written.
	revision *revisions
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.stamp()
	}
	w.ResponseWriter.WriteHeader(code)
}

// stamp sets X-Calendar-Revision, once, as the header is about to be written.
func (w *statusWriter) stamp() {
	if w.revision != nil {
		w.Header()[revisionHeader] = w.revision.value()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
		w.stamp()
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// settle waits until the index has applied every write acknowledged so far (read-your-writes): the
// next list request of the client sees its write.
func (h *Handler) settle(rq *request) {
	head, err := h.db.ChangeHead(rq.r.Context())
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(rq.r.Context(), h.cfg.IndexWait)
	defer cancel()
	if err := h.index.WaitApplied(ctx, head); err != nil {
		h.log.Warn("index behind the store after a write", zap.String("request_id", rq.id), zap.Uint64("seq", head))
	}
}
