package index

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/calendard/calendard/storage"
)

// DefaultTextCacheBytes bounds the memory the languages together spend on remembered text matches
// when Options.TextCacheBytes is zero: 16 MiB each.
const DefaultTextCacheBytes = 16 << 20 * 7

// textCache remembers the records a search matched, by record type and search string, for one
// version of the index: a search word comes back in many lists (other filters, other pages), and
// walking its postings costs more than the rest of a list. Entries of an older version are dropped as
// soon as a newer one is seen. The sets are shared and never modified.
type textCache struct {
	mu      sync.Mutex
	version Version
	m       map[string]*roaring64.Bitmap
	bytes   int
	// limit bounds bytes: the language's share of Options.TextCacheBytes.
	limit int
	// hits and misses count the lookups, for CacheStats.
	hits, misses uint64
}

// CacheStats describes a cache for the metrics: what it holds, and how its lookups went since the
// process started.
type CacheStats = storage.CacheStats

// TextCacheStats adds up the text-match caches of every language.
func (ix *Index) TextCacheStats() CacheStats {
	var st CacheStats
	for _, l := range ix.langs {
		l.texts.mu.Lock()
		st.Entries += len(l.texts.m)
		st.Bytes += l.texts.bytes
		st.Limit += l.texts.limit
		st.Hits += l.texts.hits
		st.Misses += l.texts.misses
		l.texts.mu.Unlock()
	}
	return st
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

// put remembers set, computed from an index at version v or newer.
func (c *textCache) put(key string, v Version, set *roaring64.Bitmap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case v.Less(c.version):
		return // computed before the newest version seen: it may be stale already
	case c.version.Less(v) || c.m == nil:
		c.version, c.m, c.bytes = v, map[string]*roaring64.Bitmap{}, 0
	}
	size := setBytes(set)
	if size > c.limit {
		return // a set larger than the whole cache would only empty it
	}
	if old, ok := c.m[key]; ok {
		c.bytes -= setBytes(old)
		delete(c.m, key)
	}
	for k, old := range c.m {
		if c.bytes+size <= c.limit {
			break
		}
		c.bytes -= setBytes(old)
		delete(c.m, k)
	}
	c.m[key] = set
	c.bytes += size
}

// setBytes is what a remembered set counts against the cache's limit.
func setBytes(set *roaring64.Bitmap) int { return int(set.GetSizeInBytes()) }
