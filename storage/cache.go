package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// recordCacheSize bounds the decoded records kept: enough for the pages lists serve again and again
// and the venues and organizers they embed, a few megabytes.
const recordCacheSize = 20000

// recordCache keeps decoded records of the read paths, keyed by ID (events, venues and organizers
// share one ID sequence). An entry is used only when the bytes the reading transaction sees equal the
// bytes it was decoded from, so a reader can never get another version than its snapshot holds, and
// writes need no invalidation.
type recordCache struct {
	mu sync.Mutex
	m  map[uint64]cachedRecord
}

type cachedRecord struct {
	raw []byte
	rec any
}

func newRecordCache() *recordCache { return &recordCache{m: map[uint64]cachedRecord{}} }

// decode returns the record stored as raw, from the cache or freshly decoded. The result is the
// caller's own shallow copy: its fields may be set, but its slices are shared and must not be
// modified in place (no read path does).
func decode[T any](c *recordCache, id uint64, raw []byte) (*T, error) {
	if c != nil {
		c.mu.Lock()
		e, ok := c.m[id]
		c.mu.Unlock()
		if r, isT := e.rec.(*T); ok && isT && bytes.Equal(e.raw, raw) {
			cp := *r
			return &cp, nil
		}
	}
	r := new(T)
	if err := json.Unmarshal(raw, r); err != nil {
		return nil, fmt.Errorf("storage: decode record %d: %w", id, err)
	}
	if c != nil {
		c.mu.Lock()
		if len(c.m) >= recordCacheSize {
			// Evict about half, in map order: cheap, and a record that is read often is back soon.
			n := 0
			for k := range c.m {
				if n++; n > recordCacheSize/2 {
					break
				}
				delete(c.m, k)
			}
		}
		c.m[id] = cachedRecord{raw: bytes.Clone(raw), rec: r}
		c.mu.Unlock()
		cp := *r
		return &cp, nil
	}
	return r, nil
}
