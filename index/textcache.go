package index

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/calendard/calendard/storage"
)

// DefaultTextCacheBytes bounds the memory the languages together spend on remembered text matches
// when Options.TextCacheBytes is zero.
const DefaultTextCacheBytes = 112 << 20

// textCache remembers the records a search matched, by language and search string, for one version
// of the index: a search word comes back in many lists (other filters, other pages), and
// walking its postings costs more than the rest of a list. Entries of an older version are dropped as
// soon as a newer one is seen. The sets are shared and never modified.
//
// Beside a set, the cache may keep the positions of the publicly listed events it holds in the
// projection's listed keys, which an anonymous search pages from (projection.listedPage): they were
// found for one generation of the projection (projection.gen) and are good for no other. So are
// the unions of terms it keeps (termUnion), by language and term IDs, which anonymous lists of a
// category with subcategories count from. Sets and unions share the limit, and a newer version
// empties both.
type textCache struct {
	mu      sync.Mutex
	version Version
	m       map[string]*roaring64.Bitmap
	listed  map[*roaring64.Bitmap]listedAt
	unions  map[string]*termUnion
	bytes   int
	// limit bounds bytes (Options.TextCacheBytes). It is the languages' together: an equal share
	// each left the languages searched most evicting their matches while others' shares sat empty
	// (at 1M events, 2.2 MB each of 15 MB: 1,778 misses in two runs of the mix; 1,283–1,416 with the
	// 15 MB shared).
	limit int
	// hits and misses count the lookups, for CacheStats.
	hits, misses uint64
}

// CacheStats describes a cache for the metrics: what it holds, and how its lookups went since the
// process started.
type CacheStats = storage.CacheStats

// TextCacheStats describes the cache of text matches.
func (ix *Index) TextCacheStats() CacheStats {
	c := ix.texts
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Entries: len(c.m) + len(c.unions), Bytes: c.bytes, Limit: c.limit, Hits: c.hits, Misses: c.misses}
}

// GrowTextCache raises the bound of the remembered search matches to n bytes; a smaller n leaves it.
func (ix *Index) GrowTextCache(n int) {
	c := ix.texts
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = max(c.limit, n)
}

func (c *textCache) get(key string, v Version) (*roaring64.Bitmap, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[key]; ok && c.version == v {
		c.hits++
		return s, true
	}
	c.misses++
	return nil, false
}

// listedAt are the positions of a set's listed events (projection.listedAt), at a generation of the
// projection; gen 0 means none yet (generations start at 1).
type listedAt struct {
	gen uint64
	at  *roaring.Bitmap
}

// listedAt returns the positions kept for set at generation gen, or nil.
func (c *textCache) listedAt(set *roaring64.Bitmap, gen uint64) *roaring.Bitmap {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.listed[set]; l.gen == gen {
		return l.at
	}
	return nil
}

// putListedAt keeps the positions of set's listed events at generation gen, while set is one of the
// cache's; other sets make room for them as for a set.
func (c *textCache) putListedAt(set *roaring64.Bitmap, gen uint64, at *roaring.Bitmap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.listed[set]
	if !ok {
		return
	}
	c.bytes -= old.size()
	c.listed[set] = listedAt{}
	if l := (listedAt{gen, at}); c.makeRoom(l.size(), set) {
		c.listed[set] = l
		c.bytes += l.size()
	}
}

// union returns the union kept for key at generation gen, or nil.
func (c *textCache) union(key string, gen uint64) *termUnion {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := c.unions[key]; u != nil && u.gen == gen {
		c.hits++
		return u
	}
	c.misses++
	return nil
}

// putUnion keeps u for key, in place of any union kept for it (of an older generation).
func (c *textCache) putUnion(key string, u *termUnion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.unions[key]; ok {
		c.bytes -= old.size()
		delete(c.unions, key)
	}
	if size := u.size(); size <= c.limit && c.makeRoom(size, nil) {
		if c.unions == nil {
			c.unions = map[string]*termUnion{}
		}
		c.unions[key] = u
		c.bytes += size
	}
}

// makeRoom drops sets other than keep, with their positions, then unions, until size more bytes fit
// the limit, and reports whether they do.
func (c *textCache) makeRoom(size int, keep *roaring64.Bitmap) bool {
	for k, s := range c.m {
		if c.bytes+size <= c.limit {
			break
		}
		if s != keep {
			c.drop(k, s)
		}
	}
	for k, u := range c.unions {
		if c.bytes+size <= c.limit {
			break
		}
		c.bytes -= u.size()
		delete(c.unions, k)
	}
	return c.bytes+size <= c.limit
}

// size is what the positions count against the cache's limit.
func (l listedAt) size() int {
	if l.at == nil {
		return 0
	}
	return int(l.at.GetSizeInBytes())
}

// put remembers set, computed from an index at version v or newer.
func (c *textCache) put(key string, v Version, set *roaring64.Bitmap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case v.Less(c.version):
		return // computed before the newest version seen: it may be stale already
	case c.version.Less(v) || c.m == nil:
		c.version, c.m, c.listed, c.unions, c.bytes = v, map[string]*roaring64.Bitmap{}, map[*roaring64.Bitmap]listedAt{}, nil, 0
	}
	size := setBytes(set)
	if size > c.limit {
		return // a set larger than the whole cache would only empty it
	}
	if old, ok := c.m[key]; ok {
		c.drop(key, old)
	}
	c.makeRoom(size, nil) // always room in the end: size is within the limit
	c.m[key] = set
	c.listed[set] = listedAt{}
	c.bytes += size
}

// drop forgets the set of key and its listed events' positions.
func (c *textCache) drop(key string, set *roaring64.Bitmap) {
	c.bytes -= setBytes(set) + c.listed[set].size()
	delete(c.m, key)
	delete(c.listed, set)
}

// setBytes is what a remembered set counts against the cache's limit.
func setBytes(set *roaring64.Bitmap) int { return int(set.GetSizeInBytes()) }
