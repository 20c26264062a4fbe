package handlers

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/handlers/respcache"
	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/klauspost/compress/s2"
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
//
// Past its bound the cache evicts the entry used least recently among a few it samples (evictLocked),
// and admits a new key only the second time it is offered (admit).
type listCache struct {
	mu           sync.Mutex
	m            map[string]*cacheSlot
	bytes, limit int
	// clock counts the lookups and puts, to date each slot's last use.
	clock uint64
	// hits and misses count the lookups, for the metrics (stats).
	hits, misses uint64
	// heat counts, per key of an entry kept, the hits since the last boundary prepared for
	// (boundary.go); evicting an entry forgets its count, so the map never outgrows m.
	heat map[string]uint64
	// turned holds a hash of each key admit turned away lately, in the slot its low bits name: a key
	// that comes back while its hash's high half is still there is admitted.
	turned []uint32
	seed   maphash.Seed
}

type cachedList struct {
	head        uint64
	version     index.Version
	from, until time.Time
	status      int
	header      http.Header
	// packed is the plain body, the one a client without gzip gets, s2-compressed (respcache.Pack); gz is the
	// body gzip-compressed, for the clients that accept it (compress.go), and gzETag its ETag when the
	// answer has one; gz is nil when the answer is not compressible.
	//
	// An entry keeps the body its first client wanted, and the other once a client wants it: gz only
	// when the answer was recorded for a client that accepts gzip, packed then only once a client
	// without Accept-Encoding has asked (plainOf); packed only when recorded for such a client, gz then
	// only once a client that accepts gzip has asked (gzOf). Under a memory budget, keeping both
	// bodies took most of the cache for the few clients that want the plain one; converting costs more
	// than a hit, so it is done once per entry. The plain body is kept packed with s2, so that the cache
	// holds about six times the answers, each unpacked in microseconds (docs/BENCHMARKS.md, section
	// "Compression and caching").
	packed []byte
	// plain is the plain body as sent, kept beside packed once plain clients have asked for the
	// answer often (promoteHits): unpacking answers was an eighth of the server's CPU in the mix at
	// 100k events, most of it for the most requested, the pages of 100 (400 KB, 90 µs to unpack).
	plain  []byte
	gz     []byte
	gzETag string
	// deps are, for a list item, the documents it embeds (renderItems), and dict the dictionary it
	// is packed with (respcache.Dicts).
	deps []storage.Doc
	dict *s2.Dict
}

// entryOverhead is what an entry costs the cache beyond its key, bodies, header and deps (size): the
// cachedList, its cacheSlot, and the map's slot (the key's string header and the slot's pointer).
const entryOverhead = int(unsafe.Sizeof(cachedList{}) + unsafe.Sizeof(cacheSlot{}) + unsafe.Sizeof("") + unsafe.Sizeof(&cacheSlot{}))

// cacheSlot holds an entry of the cache and the clock's count when it was last used. The entry itself
// is never modified, as readers hold it without the lock; the slot is, under the lock.
type cacheSlot struct {
	e    *cachedList
	used uint64
	// size is what the entry counts against the bound: its key and cachedList.size.
	size int
}

func newListCache(limit int) *listCache {
	slots := 1 << bits.Len(uint(limit/turnedBytes))
	return &listCache{m: map[string]*cacheSlot{}, limit: limit, heat: map[string]uint64{},
		turned: make([]uint32, slots), seed: maphash.MakeSeed()}
}

// turnedBytes is how many bytes of its bound a cache has for each key admit remembers: about five
// slots for each entry of the item cache (a packed item and its entry are about 1.3 KB), many more
// for the list cache's larger entries, so that a key asked for again while the cache turns over is
// still remembered; a fixed number of slots held fewer keys than a large cache's entries
// (docs/BENCHMARKS.md, section "Compression and caching"). At 4 bytes a slot the table is 1.6 % of
// the cache's bound, not counted in it.
const turnedBytes = 256

// admit reports whether the answer of key, about to be computed or just computed, should be put in
// the cache. A full cache admits a key only the second time it is offered, or when it holds the key
// already (an answer that expired): an answer asked for once (a deep page, a combination of filters,
// a point on a map, and their items) would otherwise evict one asked for again and again
// (docs/BENCHMARKS.md, section "Compression and caching").
// Until the cache is nearly full, every key is admitted.
func (c *listCache) admit(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes < c.limit-c.limit/16 || c.m[key] != nil {
		return true
	}
	h := maphash.String(c.seed, key)
	slot, fp := &c.turned[h&uint64(len(c.turned)-1)], uint32(h>>32)|1 // never the zero of an empty slot
	if *slot == fp {
		*slot = 0
		return true
	}
	*slot = fp
	return false
}

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
		if c, hits := h.lists.get(key, head, version, rq.now); c != nil {
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
		c := &cachedList{head: head, version: version, from: rq.now, status: rec.status, header: rec.header}
		encoded := compressible(rec.status, len(body)) && acceptsGzip(rq.r)
		c.keep(body, encoded)
		if encoded {
			body = c.gz
		}
		send(w, c, body, encoded)
		if rec.status == http.StatusOK && h.lists.admit(key) {
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

// promoteHits is how often an entry must have been hit since the last boundary (listCache.heat) for a
// plain client's hit to keep its plain body unpacked. In the 50-client mix the front pages reach it
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
func (h *Handler) replay(w http.ResponseWriter, rq *request, key string, c *cachedList, hits uint64) error {
	var err error
	if acceptsGzip(rq.r) && (c.gz != nil || compressible(c.status, respcache.PackedLen(c.packed))) {
		if c.gz == nil {
			if c, err = h.lists.gzOf(key, c); err != nil {
				return err
			}
		}
		send(w, c, c.gz, true)
		return nil
	}
	if c.plain != nil {
		send(w, c, c.plain, false)
		return nil
	}
	if c.packed == nil {
		if c, err = h.lists.plainOf(key, c); err != nil {
			return err
		}
	}
	buf := getBuffer()
	defer putBuffer(buf)
	body, err := respcache.Unpack(buf, c.packed, nil)
	if err != nil {
		return err
	}
	send(w, c, body, false)
	if hits >= promoteHits || len(body) >= promoteBytes {
		promoted := *c
		promoted.plain = bytes.Clone(body)
		h.lists.replace(key, c, &promoted)
	}
	return nil
}

// send writes c's status and header, and body: c's plain body, or when encoded its gzip body.
func send(w http.ResponseWriter, c *cachedList, body []byte, encoded bool) {
	hd := w.Header()
	for k, v := range c.header {
		if k != "Vary" {
			hd[k] = v
			continue
		}
		// What this request's answer varies by (Origin, set before the route) stays.
		for _, name := range v {
			addVary(hd, name)
		}
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
}

// listKey is the key of the answer of route to rq in the list cache.
func listKey(route string, rq *request) string {
	return route + "\x00" + cacheQuery(rq) + "\x00" + rq.origin + "\x00" + string(rq.prefix) + "\x00" +
		strconv.FormatUint(rq.actor.UserID, 10) + "\x00" + string(rq.actor.Role)
}

// cacheQuery is rq's query as the list cache keys it: the parameters its route declares, as validated
// (rq.vals), and _fields, in order of name. The others change nothing in the answer, and a client that
// sent a new one each time would miss the cache each time: the feed, whose miss costs a hundred times
// a hit, was every anonymous client's way to make the server render it (issue 40). A request that
// validate did not see (the boundary's, which the key itself describes), or with a value of another
// shape than a string or a list of strings, keeps its raw query.
func cacheQuery(rq *request) string {
	if rq.vals == nil {
		return rq.r.URL.RawQuery
	}
	q := url.Values{}
	for name, raw := range rq.params {
		if _, declared := rq.vals[name]; !declared && name != "_fields" {
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

// get returns the entry of key valid at now, with the store at head and the index at version, and
// how often it has been hit since the last boundary, this hit included.
func (c *listCache) get(key string, head uint64, version index.Version, now time.Time) (*cachedList, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.useLocked(key)
	if !e.validAt(head, version, now) {
		// An answer prepared for the boundary now is past takes over from the one that expired.
		if e = c.useLocked(nextKey(key)); !e.validAt(head, version, now) {
			c.misses++
			return nil, 0
		}
		c.removeLocked(nextKey(key))
		c.putLocked(key, e)
	}
	c.hits++
	c.heat[key]++
	return e, c.heat[key]
}

// useLocked returns the entry of key, if any, and dates its use now.
func (c *listCache) useLocked(key string) *cachedList {
	s := c.m[key]
	if s == nil {
		return nil
	}
	c.clock++
	s.used = c.clock
	return s.e
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
	return c.useLocked(key)
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
	c.removeLocked(key)
	size := len(key) + e.size()
	for c.bytes+size > c.limit && len(c.m) > 0 {
		c.evictLocked()
	}
	c.clock++
	c.m[key] = &cacheSlot{e: e, used: c.clock, size: size}
	c.bytes += size
}

// evictionSample is how many entries evictLocked compares. Five find an entry among the least
// recently used fifth or so (the approximation Redis makes of LRU), at the cost of five steps of a
// map iteration rather than a list to keep in order on every hit.
const evictionSample = 5

// evictLocked drops, of a few entries taken at random (a map's iteration starts at a random place),
// the one used least recently. Random eviction alone let the one-off lists of a mix (deep pages,
// combined filters), and their items, push out the front pages and the items every page shows.
func (c *listCache) evictLocked() {
	var victim string
	oldest, n := uint64(math.MaxUint64), 0
	for k, s := range c.m {
		if s.used < oldest {
			victim, oldest = k, s.used
		}
		if n++; n == evictionSample {
			break
		}
	}
	c.removeLocked(victim)
	delete(c.heat, victim)
}

// removeLocked drops the entry of key, if any; its heat stays with the key.
func (c *listCache) removeLocked(key string) {
	if old := c.m[key]; old != nil {
		c.bytes -= old.size
		delete(c.m, key)
	}
}

// plainOf returns e, an entry kept with its gzip body only, with its plain body too, and keeps that:
// an entry is never modified (readers hold it without the lock), so a copy with both bodies replaces
// it while it is still key's entry.
func (c *listCache) plainOf(key string, e *cachedList) (*cachedList, error) {
	body, err := gunzipped(e.gz)
	if err != nil {
		return nil, fmt.Errorf("handlers: decompress a cached list: %w", err)
	}
	both := *e
	both.packed = respcache.Pack(nil, body)
	c.replace(key, e, &both)
	return &both, nil
}

// gzOf returns e, an entry kept with its plain body only, with its gzip body too, and keeps that:
// plainOf's counterpart.
func (c *listCache) gzOf(key string, e *cachedList) (*cachedList, error) {
	buf := getBuffer()
	defer putBuffer(buf)
	body, err := respcache.Unpack(buf, e.packed, nil)
	if err != nil {
		return nil, err
	}
	both := *e
	both.keep(body, true)
	c.replace(key, e, &both)
	return &both, nil
}

// replace puts e2 in e's place while e is key's entry.
func (c *listCache) replace(key string, e, e2 *cachedList) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.m[key]; s != nil && s.e == e {
		c.putLocked(key, e2)
	}
}

// keep sets e's body from plain, the answer as recorded: its gzip body and that body's ETag when
// encoded, else its packed plain body.
func (e *cachedList) keep(plain []byte, encoded bool) {
	if !encoded {
		e.packed = respcache.Pack(nil, plain)
		return
	}
	e.gz = gzipped(plain)
	if e.header.Get("ETag") != "" {
		e.gzETag = etagOf(e.gz)
	}
}

// size is what an entry counts against the cache's bound beside its key: its bodies, its header,
// its deps and entryOverhead. Small entries are mostly overhead: a packed item is about a kilobyte.
func (e *cachedList) size() int {
	n := len(e.packed) + len(e.plain) + len(e.gz) + len(e.gzETag) + len(e.deps)*int(unsafe.Sizeof(storage.Doc{})) + entryOverhead
	for k, vs := range e.header {
		n += len(k) + 48 // the map's slot and the slice's header
		for _, v := range vs {
			n += len(v) + 16
		}
	}
	return n
}
