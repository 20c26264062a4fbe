package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// DefaultRecordCacheBytes bounds the decoded records kept when Options.RecordCacheBytes is zero:
// enough for the pages lists serve again and again and the venues and organizers they embed.
const DefaultRecordCacheBytes = 48 << 20

// recordOverhead is what an entry costs beyond its bytes (charge): the map slot, the record's struct
// and its slice headers.
const recordOverhead = 256

// CacheStats describes a cache for the metrics: what it holds, and how its lookups went since the
// process started.
type CacheStats struct {
	// Limit is the bound on Bytes.
	Entries, Bytes, Limit int
	Hits, Misses          uint64
}

// recordCache keeps decoded records of the read paths, keyed by ID (events, venues and organizers
// share one ID sequence). An entry is used only when the bytes the reading transaction sees equal the
// bytes it was decoded from, so a reader can never get another version than its snapshot holds, and
// writes need no invalidation.
type recordCache struct {
	mu           sync.Mutex
	m            map[uint64]cachedRecord
	bytes, limit int
	hits, misses uint64
}

type cachedRecord struct {
	raw []byte
	rec any
}

// charge is what an entry of raw counts against the bound: its encoded bytes, kept to compare, and as
// much again for the decoded record, whose strings hold the same text.
func charge(raw []byte) int { return 2*len(raw) + recordOverhead }

func newRecordCache(limit int) *recordCache {
	return &recordCache{m: map[uint64]cachedRecord{}, limit: limit}
}

func (c *recordCache) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Entries: len(c.m), Bytes: c.bytes, Limit: c.limit, Hits: c.hits, Misses: c.misses}
}

// grow raises the bound to limit; a lower limit leaves it.
func (c *recordCache) grow(limit int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = max(c.limit, limit)
}

// put keeps rec, decoded from raw. Past the bound it first evicts entries down to half of it, in map
// order: cheap, and a record that is read often is back soon.
func (c *recordCache) put(id uint64, raw []byte, rec any) {
	size := charge(raw)
	if size > c.limit/2 {
		return // a record that would evict half the cache is not worth it
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[id]; ok {
		c.bytes -= charge(old.raw)
		delete(c.m, id)
	}
	if c.bytes+size > c.limit {
		for k, old := range c.m {
			if c.bytes+size <= c.limit/2 {
				break
			}
			c.bytes -= charge(old.raw)
			delete(c.m, k)
		}
	}
	c.m[id] = cachedRecord{raw: bytes.Clone(raw), rec: rec}
	c.bytes += size
}

// RecordCacheStats describes the caches of decoded records: events, venues and organizers, and terms.
func (db *DB) RecordCacheStats() (posts, terms CacheStats) {
	return db.cache.stats(), db.terms.stats()
}

// decode returns the record stored as raw, from the cache or freshly decoded. The result is the
// caller's own shallow copy: its fields may be set, but its slices are shared and must not be
// modified in place (no read path does).
func decode[T any](c *recordCache, id uint64, raw []byte) (*T, error) {
	if c != nil {
		c.mu.Lock()
		e, ok := c.m[id]
		r, isT := e.rec.(*T)
		hit := ok && isT && bytes.Equal(e.raw, raw)
		if hit {
			c.hits++
		} else {
			c.misses++
		}
		c.mu.Unlock()
		if hit {
			cp := *r
			return &cp, nil
		}
	}
	r := new(T)
	if err := json.Unmarshal(raw, r); err != nil {
		return nil, fmt.Errorf("storage: decode record %d: %w", id, err)
	}
	if c != nil {
		c.put(id, raw, r)
		cp := *r
		return &cp, nil
	}
	return r, nil
}
