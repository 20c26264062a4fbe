package index

import "sync"

// textCacheBytes bounds the memory each language spends on remembered text matches.
const textCacheBytes = 16 << 20

// textCache remembers the records a search matched, by record type and search string, for one
// applied change-log position: a search word comes back in many lists (other filters, other pages),
// and walking its postings costs more than the rest of a list. Entries of an older position are
// dropped as soon as a newer one is seen. The sets are shared and never modified.
type textCache struct {
	mu      sync.Mutex
	applied uint64
	m       map[string]idSet
	bytes   int
}

func (c *textCache) get(key string, applied uint64) (idSet, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.applied != applied {
		return nil, false
	}
	s, ok := c.m[key]
	return s, ok
}

// put remembers set, computed from an index that had applied at least applied.
func (c *textCache) put(key string, applied uint64, set idSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case applied < c.applied:
		return // computed before the newest position seen: it may be stale already
	case applied > c.applied || c.m == nil:
		c.applied, c.m, c.bytes = applied, map[string]idSet{}, 0
	}
	for k, old := range c.m {
		if c.bytes+8*len(set) <= textCacheBytes {
			break
		}
		c.bytes -= 8 * len(old)
		delete(c.m, k)
	}
	c.m[key] = set
	c.bytes += 8 * len(set)
}

// reset forgets everything, for changes made without moving the applied position (repairs).
func (c *textCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.bytes = nil, 0
}
