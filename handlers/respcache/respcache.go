// Package respcache keeps encoded answers in memory under a bound of bytes: the list answers of the
// handlers, and the list items they are built from. It decides what is kept, in which form, and
// what is evicted or turned away; what a key holds, until when an answer holds and how it is written
// out are the handlers'.
//
// # Basics
//
// An Entry is an answer with what it was computed at: the store's change-log head, the index's
// version and the instants between which it holds (Entry.ValidAt). Its body is kept in up to three
// forms: packed with s2 (Pack), as it is (Entry.Plain), and gzip-encoded (Entry.Gz). A Cache maps keys
// to entries; past its bound it evicts the entry used least recently among a few it samples, and
// when nearly full it admits a new key only the second time it is offered (Cache.Admit). Beside an
// entry, a Cache may hold the one prepared for the instant it expires at, under NextKey: a lookup
// from that instant on finds it there (Cache.Get). An entry that embeds documents (a list item) names
// them in Deps, and stays current while the change log names none of them (Cache.Current).
//
// # Caveats
//
// An entry is never modified once put, since readers hold it without the lock: a new form of its
// body is kept by putting a copy in its place (Cache.Replace).
package respcache

import (
	"cmp"
	"hash/maphash"
	"math"
	"math/bits"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/klauspost/compress/s2"
)

// Cache keeps entries by key under a bound of bytes. Its methods are safe for concurrent use.
type Cache struct {
	mu           sync.Mutex
	m            map[string]*slot
	bytes, limit int
	// clock counts the lookups and puts, to date each slot's last use.
	clock uint64
	// hits and misses count the lookups, for the metrics (Stats).
	hits, misses uint64
	// heat counts, per key of an entry kept, the hits since the last boundary prepared for (Cool);
	// evicting an entry forgets its count, so the map never outgrows m.
	heat map[string]uint64
	// turned holds a hash of each key Admit turned away lately, in the slot its low bits name: a key
	// that comes back while its hash's high half is still there is admitted.
	turned []uint32
	seed   maphash.Seed
}

// Entry is an answer kept, with what it was computed at.
type Entry struct {
	Head        uint64
	Version     index.Version
	From, Until time.Time
	Status      int
	Header      http.Header
	// Packed is the plain body, the one a client without gzip gets, s2-compressed (Pack); Gz is the
	// body gzip-compressed, for the clients that accept it, and GzETag its ETag when the answer has
	// one; Gz is nil when the answer is not compressible.
	//
	// An entry keeps the body its first client wanted, and the other once a client wants it: Gz only
	// when the answer was recorded for a client that accepts gzip, Packed then only once a client
	// without Accept-Encoding has asked; Packed only when recorded for such a client, Gz then only
	// once a client that accepts gzip has asked. Under a memory budget, keeping both bodies took most
	// of the cache for the few clients that want the plain one; converting costs more than a hit, so
	// it is done once per entry. The plain body is kept packed with s2, so that the cache holds about
	// six times the answers, each unpacked in microseconds (docs/BENCHMARKS.md, section "Compression
	// and caching").
	Packed []byte
	// Plain is the plain body as sent, kept beside Packed for the answers plain clients ask for often:
	// unpacking answers was an eighth of the server's CPU in the mix at 100k events, most of it for
	// the most requested, the pages of 100 (400 KB, 90 µs to unpack).
	Plain []byte
	Gz    []byte
	// GzLength is Content-Length's value for Gz, ready for a response's header: formatted once, and
	// shared by the answers, which never write into it.
	GzLength []string
	GzETag   string
	// Deps are, for a list item, the documents it embeds, and Dict the dictionary it is packed with
	// (Dicts).
	Deps []storage.Doc
	Dict *s2.Dict
}

// entryOverhead is what an entry costs the cache beyond its key, bodies, header and deps (size): the
// Entry, its slot, and the map's slot (the key's string header and the slot's pointer).
const entryOverhead = int(unsafe.Sizeof(Entry{}) + unsafe.Sizeof(slot{}) + unsafe.Sizeof("") + unsafe.Sizeof(&slot{}))

// slot holds an entry of the cache and the clock's count when it was last used. The entry itself is
// never modified, as readers hold it without the lock; the slot is, under the lock.
type slot struct {
	e    *Entry
	used uint64
	// size is what the entry counts against the bound: its key and Entry.size.
	size int
}

// New returns a cache that holds up to limit bytes.
func New(limit int) *Cache {
	slots := 1 << bits.Len(uint(limit/turnedBytes))
	return &Cache{m: map[string]*slot{}, limit: limit, heat: map[string]uint64{},
		turned: make([]uint32, slots), seed: maphash.MakeSeed()}
}

// turnedBytes is how many bytes of its bound a cache has for each key Admit remembers: about five
// slots for each entry of the item cache (a packed item and its entry are about 1.3 KB), many more
// for the list cache's larger entries, so that a key asked for again while the cache turns over is
// still remembered; a fixed number of slots held fewer keys than a large cache's entries
// (docs/BENCHMARKS.md, section "Compression and caching"). At 4 bytes a slot the table is 1.6 % of
// the cache's bound, not counted in it.
const turnedBytes = 256

// Admit reports whether the answer of key, about to be computed or just computed, should be put in
// the cache. A full cache admits a key only the second time it is offered, or when it holds the key
// already (an answer that expired): an answer asked for once (a deep page, a combination of filters,
// a point on a map, and their items) would otherwise evict one asked for again and again
// (docs/BENCHMARKS.md, section "Compression and caching").
// Until the cache is nearly full, every key is admitted.
func (c *Cache) Admit(key string) bool {
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

// NextKey is the key of the answer prepared for the next boundary in place of key's; no handler's
// key begins with a control character.
func NextKey(key string) string { return "\x01" + key }

// Get returns the entry of key valid at now, with the store at head and the index at version, and
// how often it has been hit since the last boundary, this hit included. An entry under NextKey(key)
// valid at now takes key's place.
func (c *Cache) Get(key string, head uint64, version index.Version, now time.Time) (*Entry, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.useLocked(key)
	if !e.ValidAt(head, version, now) {
		// An answer prepared for the boundary now is past takes over from the one that expired.
		if e = c.useLocked(NextKey(key)); !e.ValidAt(head, version, now) {
			c.misses++
			return nil, 0
		}
		c.removeLocked(NextKey(key))
		c.putLocked(key, e)
	}
	c.hits++
	c.heat[key]++
	return e, c.heat[key]
}

// useLocked returns the entry of key, if any, and dates its use now.
func (c *Cache) useLocked(key string) *Entry {
	s := c.m[key]
	if s == nil {
		return nil
	}
	c.clock++
	s.used = c.clock
	return s.e
}

// ValidAt reports whether e answers a request at now, with the store at head and the index at
// version. A nil e answers none.
func (e *Entry) ValidAt(head uint64, version index.Version, now time.Time) bool {
	return e != nil && e.Head == head && e.Version == version && !now.Before(e.From) && now.Before(e.Until)
}

// Peek returns the entry of key as it is, for callers that judge its validity themselves; they count
// their hits and misses with Tally.
func (c *Cache) Peek(key string) *Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.useLocked(key)
}

// Tally counts hits and misses of lookups made with Peek.
func (c *Cache) Tally(hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hits += uint64(hits)
	c.misses += uint64(misses)
}

// Stats returns the cache's size, bound and lookups, for the metrics.
func (c *Cache) Stats() index.CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return index.CacheStats{Entries: len(c.m), Bytes: c.bytes, Limit: c.limit, Hits: c.hits, Misses: c.misses}
}

// Put keeps e as key's entry, evicting others as the bound requires.
func (c *Cache) Put(key string, e *Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, e)
}

func (c *Cache) putLocked(key string, e *Entry) {
	c.removeLocked(key)
	size := len(key) + e.size()
	for c.bytes+size > c.limit && len(c.m) > 0 {
		c.evictLocked()
	}
	c.clock++
	c.m[key] = &slot{e: e, used: c.clock, size: size}
	c.bytes += size
}

// evictionSample is how many entries evictLocked compares. Five find an entry among the least
// recently used fifth or so (the approximation Redis makes of LRU), at the cost of five steps of a
// map iteration rather than a list to keep in order on every hit.
const evictionSample = 5

// evictLocked drops, of a few entries taken at random (a map's iteration starts at a random place),
// the one used least recently. Random eviction alone let the one-off lists of a mix (deep pages,
// combined filters), and their items, push out the front pages and the items every page shows.
func (c *Cache) evictLocked() {
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
func (c *Cache) removeLocked(key string) {
	if old := c.m[key]; old != nil {
		c.bytes -= old.size
		delete(c.m, key)
	}
}

// Replace puts e2 in e's place while e is key's entry: how an entry gets another form of its body.
func (c *Cache) Replace(key string, e, e2 *Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.m[key]; s != nil && s.e == e {
		c.putLocked(key, e2)
	}
}

// size is what an entry counts against the cache's bound beside its key: its bodies, its header,
// its deps and entryOverhead. Small entries are mostly overhead: a packed item is about a kilobyte.
func (e *Entry) size() int {
	n := len(e.Packed) + len(e.Plain) + len(e.Gz) + len(e.GzETag) + len(e.Deps)*int(unsafe.Sizeof(storage.Doc{})) + entryOverhead
	for k, vs := range e.Header {
		n += len(k) + 48 // the map's slot and the slice's header
		for _, v := range vs {
			n += len(v) + 16
		}
	}
	return n
}

// Hottest returns up to n keys that keep accepts with hits since the last boundary (Cool), the most
// hit first.
func (c *Cache) Hottest(n int, keep func(key string) bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []string
	for k := range c.heat {
		if keep(k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(c.heat[b], c.heat[a]), strings.Compare(a, b)) })
	return keys[:min(n, len(keys))]
}

// Cool forgets the hits counted so far: the next boundary is prepared for the lists requested after
// this one.
func (c *Cache) Cool() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.heat)
}
