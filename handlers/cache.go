package handlers

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// listCacheBytes bounds the memory the list cache holds.
const listCacheBytes = 64 << 20

// listCache keeps recent list responses. Front ends ask the same lists over and over, and a list
// costs far more to compute than to copy. A response is reused only while nothing it depends on can
// have changed: the store's change-log head and the index's version (Index.Version) are those it was
// computed at, and the clock has not reached the next instant at which time alone changes an answer
// (Index.StableUntil: a scheduled record's date, an event's start) or the next midnight of the site
// zone (date windows are whole days, and relative dates such as `tomorrow` move with them). The key
// holds everything else a body depends on: the route, the query, the caller, the origin and the
// language prefix. Beside an answer, the cache may hold the one prepared for the instant it expires
// at (boundary.go), which takes its place from then on.
type listCache struct {
	mu           sync.Mutex
	m            map[string]*cachedList
	bytes, limit int
	// hits and misses count the lookups, for the metrics (stats).
	hits, misses uint64
	// heat counts, per key of an entry kept, the hits since the last boundary prepared for
	// (boundary.go); evicting an entry forgets its count, so the map never outgrows m.
	heat map[string]uint64
}

type cachedList struct {
	head        uint64
	version     index.Version
	from, until time.Time
	status      int
	header      http.Header
	body        []byte
	// gz is body gzip-compressed, for the clients that accept it (compress.go), and gzETag its ETag
	// when the answer has one; gz is nil when the answer is not compressible.
	//
	// An entry keeps the body its first client wanted, and the other once a client wants it: gz only
	// when the answer was recorded for a client that accepts gzip, body then only once a client without
	// Accept-Encoding has asked (plainOf); body only when recorded for such a client, gz then only once a
	// client that accepts gzip has asked (gzOf). The plain body is ten times gz, and under a memory
	// budget it took nine tenths of the cache for the few clients that want it (at 100k events, the
	// 50-client mix, whose clients all accept gzip, found 39–43 % of its lists in a cache keeping both,
	// and 73–78 % in one keeping gz); compressing every answer recorded for a plain client took 14–17 %
	// of the server's CPU where no client asked for gzip. Converting costs more than a hit (28 µs to
	// decompress a per_page=10 page, whose hit takes 15 µs), so it is done once per entry.
	gz     []byte
	gzETag string
	// deps are, for a list item, the documents its body embeds (renderItems).
	deps []storage.Doc
}

func newListCache(limit int) *listCache {
	return &listCache{m: map[string]*cachedList{}, limit: limit, heat: map[string]uint64{}}
}

// recorder captures a response so that it can be cached and replayed.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

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
		if c := h.lists.get(key, head, version, rq.now); c != nil {
			return h.replay(w, rq, key, c)
		}
		// Only what the list handler itself sets is recorded and replayed: headers already on w
		// belong to this request alone (CORS echoes its Origin, rate limits its caller). The answer
		// is recorded plain, and compressed here, once, when this client accepts gzip.
		rec := &recorder{header: http.Header{}}
		rq.plain = true
		err = fn(rec, rq)
		rq.plain = false
		if err != nil {
			return err
		}
		c := &cachedList{head: head, version: version, from: rq.now, status: rec.status, header: rec.header,
			body: rec.body.Bytes()} // the recorder's own copy, not a pooled buffer
		if compressible(rec.status, rec.body.Len()) && acceptsGzip(rq.r) {
			c.withGzip()
		}
		if err := h.replay(w, rq, key, c); err != nil {
			return err
		}
		if c.gz != nil {
			c.body = nil
		}
		if rec.status == http.StatusOK {
			c.until = h.listUntil(rq.r.Context(), rq.now, rq.site.Loc)
			h.lists.put(key, c)
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

// replay writes the answer c, the list cache's entry of key, to rq: its gzip-encoded body when the
// client accepts it.
func (h *Handler) replay(w http.ResponseWriter, rq *request, key string, c *cachedList) error {
	encoded := (c.gz != nil || compressible(c.status, len(c.body))) && acceptsGzip(rq.r)
	if encoded && c.gz == nil {
		c = h.lists.gzOf(key, c)
	}
	body := c.body
	switch {
	case encoded:
		body = c.gz
	case body == nil:
		var err error
		if body, err = h.lists.plainOf(key, c); err != nil {
			return err
		}
	}
	hd := w.Header()
	for k, v := range c.header {
		hd[k] = v
	}
	if encoded {
		// Set replaces the shared header's slices, never writes into them.
		hd.Set("Content-Encoding", codingGzip)
		hd.Set("Content-Length", strconv.Itoa(len(body)))
		if c.gzETag != "" {
			hd.Set("ETag", c.gzETag)
		}
	}
	w.WriteHeader(c.status)
	w.Write(body)
	return nil
}

// listKey is the key of the answer of route to rq in the list cache.
func listKey(route string, rq *request) string {
	return route + "\x00" + rq.r.URL.RawQuery + "\x00" + rq.origin + "\x00" + string(rq.prefix) + "\x00" +
		strconv.FormatUint(rq.actor.UserID, 10) + "\x00" + string(rq.actor.Role)
}

func (c *listCache) get(key string, head uint64, version index.Version, now time.Time) *cachedList {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[key]
	if !e.validAt(head, version, now) {
		// An answer prepared for the boundary now is past takes over from the one that expired.
		if e = c.m[nextKey(key)]; !e.validAt(head, version, now) {
			c.misses++
			return nil
		}
		c.removeLocked(nextKey(key))
		c.putLocked(key, e)
	}
	c.hits++
	c.heat[key]++
	return e
}

// validAt reports whether e answers a request at now, with the store at head and the index at version.
func (e *cachedList) validAt(head uint64, version index.Version, now time.Time) bool {
	return e != nil && e.head == head && e.version == version && !now.Before(e.from) && now.Before(e.until)
}

// peek returns the entry of key as it is, for callers that judge its validity themselves; they count
// their hits and misses with tally.
func (c *listCache) peek(key string) *cachedList {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *listCache) tally(hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hits += uint64(hits)
	c.misses += uint64(misses)
}

func (c *listCache) stats() index.CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return index.CacheStats{Entries: len(c.m), Bytes: c.bytes, Limit: c.limit, Hits: c.hits, Misses: c.misses}
}

func (c *listCache) put(key string, e *cachedList) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, e)
}

func (c *listCache) putLocked(key string, e *cachedList) {
	if old := c.m[key]; old != nil {
		c.bytes -= old.size()
	}
	for k, old := range c.m {
		if c.bytes+e.size() <= c.limit {
			break
		}
		c.bytes -= old.size()
		delete(c.m, k)
		delete(c.heat, k)
	}
	c.m[key] = e
	c.bytes += e.size()
}

// removeLocked drops the entry of key, if any; its heat stays with the key.
func (c *listCache) removeLocked(key string) {
	if old := c.m[key]; old != nil {
		c.bytes -= old.size()
		delete(c.m, key)
	}
}

// plainOf returns the plain body of c, an entry kept with its gzip body only, decompressed, and keeps
// it: an entry is never modified (readers hold it without the lock), so a copy with both bodies
// replaces it while it is still key's entry.
func (c *listCache) plainOf(key string, e *cachedList) ([]byte, error) {
	body, err := gunzipped(e.gz)
	if err != nil {
		return nil, fmt.Errorf("handlers: decompress a cached list: %w", err)
	}
	both := *e
	both.body = body
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[key] == e {
		c.putLocked(key, &both)
	}
	return body, nil
}

// gzOf returns c, an entry kept with its plain body only, with its gzip body too, and keeps that:
// plainOf's counterpart.
func (c *listCache) gzOf(key string, e *cachedList) *cachedList {
	both := *e
	both.withGzip()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[key] == e {
		c.putLocked(key, &both)
	}
	return &both
}

// withGzip sets e's gzip body and its ETag from its plain body.
func (e *cachedList) withGzip() {
	e.gz = gzipped(e.body)
	if e.header.Get("ETag") != "" {
		e.gzETag = etagOf(e.gz)
	}
}

// size is what an entry counts against the cache's bound: its bodies.
func (e *cachedList) size() int { return len(e.body) + len(e.gz) }
