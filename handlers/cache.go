package handlers

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/handlers/respcache"
)

// listCacheBytes bounds the memory the list cache holds.
const listCacheBytes = 64 << 20

// The list cache (Handler.lists) keeps recent list responses. Front ends ask the same lists over and
// over, and a list costs far more to compute than to copy. A response is reused only while nothing it
// depends on can have changed: the store's change-log head and the index's version (Index.Version) are
// those it was computed at, and the clock has not reached the next instant at which time alone changes
// an answer (listUntil: Index.StableUntil, a scheduled record's date or an event's start, or the next
// midnight of the site zone, as date windows are whole days and relative dates such as `tomorrow` move
// with them). The key (listKey) holds everything else a body depends on: the route, the query, the
// caller, the origin and the language prefix. Beside an answer, the cache may hold the one prepared
// for the instant it expires at (boundary.go), which takes its place from then on. Package respcache
// decides what the cache keeps, in which form, and what it evicts and admits.

// recorder captures a response so that it can be cached and replayed. Its body is a pooled buffer
// (release): the cache keeps it compressed, never the buffer itself.
type recorder struct {
	header http.Header
	status int
	body   *bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}, body: getBuffer()} }

// release returns the recorder's buffer to the pool.
func (r *recorder) release() { putBuffer(r.body) }

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(status int)      { r.status = status }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

// cached serves a list route through the cache. HEAD requests and errors are not cached.
func (h *Handler) cached(route string, fn handleFunc) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		if rq.method != http.MethodGet {
			return fn(w, rq)
		}
		head, err := h.db.ChangeHead(rq.r.Context())
		if err != nil {
			return err
		}
		version := h.index.Version()
		key := listKey(route, rq)
		if rq.preparing {
			return h.prepare(w, rq, key, head, version, fn)
		}
		rq.listKey, rq.listHead = key, head
		if c, hits := h.lists.Get(key, head, version, rq.now); c != nil {
			return h.replay(w, rq, key, c, hits)
		}
		// Only what the list handler itself sets is recorded and replayed: headers already on w
		// belong to this request alone (CORS echoes its Origin, rate limits its caller). The answer
		// is recorded plain, and compressed here, once: gzip when this client accepts it, else packed.
		rec := newRecorder()
		defer rec.release()
		rq.plain = true
		err = fn(rec, rq)
		rq.plain = false
		if err != nil {
			return err
		}
		body := rec.body.Bytes()
		c := &respcache.Entry{Head: head, Version: version, From: rq.now, Status: rec.status, Header: rec.header}
		encoded := compressible(rec.status, len(body)) && acceptsGzip(rq.r)
		keep(c, body, encoded)
		if encoded {
			body = c.Gz
		}
		send(w, c, body, encoded)
		if rec.status == http.StatusOK && h.lists.Admit(key) {
			c.Until = h.listUntil(rq.r.Context(), rq.now, rq.site.Loc)
			h.lists.Put(key, c)
		}
		return nil
	}
}

// listUntil is the first instant after now at which time alone may change a list answer computed at
// now: the index's next event start or publication, or the next midnight in loc.
//
// The index is asked from a second before now: an event stops being upcoming one second after its
// start (only_with_upcoming compares whole seconds), so an answer computed during the second an event
// starts in is valid only until that start, which is not after now, and is not reused. Asked from
// now, the index would name the next start after this one, and the answer would keep the event
// upcoming until then; an answer prepared for the boundary of that start (boundary.go) is computed in
// exactly that second.
func (h *Handler) listUntil(ctx context.Context, now time.Time, loc *time.Location) time.Time {
	until := h.index.StableUntil(ctx, now.Add(-time.Second))
	if midnight := dayEdge(now, loc, true).Add(time.Second); midnight.Before(until) {
		until = midnight
	}
	return until
}

// promoteHits is how often an entry must have been hit since the last boundary (respcache.Cache.Get)
// for a plain client's hit to keep its plain body unpacked. In the 50-client mix the front pages reach it
// within seconds, a category's first page not in minutes: only the few answers unpacked again and
// again are kept at six times the bytes of one packed (a lower bound cost more hits than unpacking
// saved: docs/BENCHMARKS.md, section "Compression and caching").
const promoteHits = 256

// promoteBytes is the size from which an answer's plain body is kept unpacked from its first plain
// hit, whatever promoteHits says. Unpacking the 3.3 MB feed of 5,000 events took 2.5 ms of a core and
// a 3.3 MB buffer on every hit, more than writing it out: eight clients pulling one cached feed in a
// loop, without Accept-Encoding, cost the server 10 ms of CPU each (docs/BENCHMARKS.md, "The feed
// under hostile clients"). Such answers are few (a page of 100 events is 400 KB) and the plain body
// counts against the cache's bound like any other.
const promoteBytes = 1 << 20

// replay writes the answer c, the list cache's entry of key, to rq: its gzip-encoded body when the
// client accepts it. hits is how often the entry has been hit since the last boundary.
func (h *Handler) replay(w http.ResponseWriter, rq *request, key string, c *respcache.Entry, hits uint64) error {
	var err error
	if acceptsGzip(rq.r) && (c.Gz != nil || compressible(c.Status, respcache.PackedLen(c.Packed))) {
		if c.Gz == nil {
			if c, err = gzOf(h.lists, key, c); err != nil {
				return err
			}
		}
		send(w, c, c.Gz, true)
		return nil
	}
	if c.Plain != nil {
		send(w, c, c.Plain, false)
		return nil
	}
	if c.Packed == nil {
		if c, err = plainOf(h.lists, key, c); err != nil {
			return err
		}
	}
	buf := getBuffer()
	defer putBuffer(buf)
	body, err := respcache.Unpack(buf, c.Packed, nil)
	if err != nil {
		return err
	}
	send(w, c, body, false)
	if hits >= promoteHits || len(body) >= promoteBytes {
		promoted := *c
		promoted.Plain = bytes.Clone(body)
		h.lists.Replace(key, c, &promoted)
	}
	return nil
}

// gzipCoding is Content-Encoding's value for a gzip-encoded answer, shared like c.Header's (send).
var gzipCoding = []string{codingGzip}

// send writes c's status and header, and body: c's plain body, or when encoded its gzip body. The
// values of c's header, already in canonical form, are assigned as they are, shared by every answer
// of c: the response's header is only read from then on, and a link that sets a header after the
// route (the revision, the rate limit) replaces its value, never writes into it.
func send(w http.ResponseWriter, c *respcache.Entry, body []byte, encoded bool) {
	hd := w.Header()
	for k, v := range c.Header {
		if k == "Vary" && len(hd["Vary"]) > 0 {
			// What this request's answer varies by (Origin, set before the route) stays.
			for _, name := range v {
				addVary(hd, name)
			}
			continue
		}
		hd[k] = v
	}
	if encoded {
		hd["Content-Encoding"] = gzipCoding
		hd["Content-Length"] = c.GzLength
		if c.GzETag != "" {
			hd.Set("ETag", c.GzETag)
		}
	}
	w.WriteHeader(c.Status)
	w.Write(body)
}

// listKey is the key of the answer of route to rq in the list cache.
func listKey(route string, rq *request) string {
	return route + "\x00" + cacheQuery(rq) + "\x00" + rq.origin + "\x00" + string(rq.prefix) + "\x00" +
		strconv.FormatUint(rq.actor.UserID, 10) + "\x00" + string(rq.actor.Role)
}

// cacheQuery is rq's query as the list cache keys it: the parameters its route declares, as validated
// (rq.vals), and _fields, in order of name. The others change nothing in the answer, and a client that
// sent a new one each time would miss the cache each time: the feed, whose miss costs a hundred times
// a hit, was every anonymous client's way to make the server render it. A request that
// validate did not see (the boundary's, which the key itself describes), or with a value of another
// shape than a string or a list of strings, keeps its raw query.
func cacheQuery(rq *request) string {
	if rq.vals == nil {
		return rq.r.URL.RawQuery
	}
	q := url.Values{}
	for name, raw := range rq.params {
		if _, declared := rq.vals[name]; !declared && name != "_fields" || name == "highlight" && !highlightsAnswer(rq.vals) {
			continue
		}
		if s, err := input.String(raw); err == nil {
			q.Add(name, s)
			continue
		}
		items, err := input.List(raw)
		if err != nil {
			return rq.r.URL.RawQuery
		}
		for _, item := range items {
			s, err := input.String(item)
			if err != nil {
				return rq.r.URL.RawQuery
			}
			q.Add(name, s)
		}
	}
	return q.Encode()
}

// plainOf returns e, key's entry of the list cache kept with its gzip body only, with its plain body
// too, and keeps that in e's place (respcache.Cache.Replace).
func plainOf(lists *respcache.Cache, key string, e *respcache.Entry) (*respcache.Entry, error) {
	body, err := gunzipped(e.Gz)
	if err != nil {
		return nil, fmt.Errorf("handlers: decompress a cached list: %w", err)
	}
	both := *e
	both.Packed = respcache.Pack(nil, body)
	lists.Replace(key, e, &both)
	return &both, nil
}

// gzOf returns e, key's entry of the list cache kept with its plain body only, with its gzip body
// too, and keeps that: plainOf's counterpart.
func gzOf(lists *respcache.Cache, key string, e *respcache.Entry) (*respcache.Entry, error) {
	buf := getBuffer()
	defer putBuffer(buf)
	body, err := respcache.Unpack(buf, e.Packed, nil)
	if err != nil {
		return nil, err
	}
	both := *e
	keep(&both, body, true)
	lists.Replace(key, e, &both)
	return &both, nil
}

// keep sets e's body from plain, the answer as recorded: its gzip body and that body's ETag when
// encoded, else its packed plain body.
func keep(e *respcache.Entry, plain []byte, encoded bool) {
	if !encoded {
		e.Packed = respcache.Pack(nil, plain)
		return
	}
	e.Gz = gzipped(plain)
	e.GzLength = []string{strconv.Itoa(len(e.Gz))}
	if e.Header.Get("ETag") != "" {
		e.GzETag = etagOf(e.Gz)
	}
}
