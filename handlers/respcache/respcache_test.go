package respcache

import (
	"fmt"
	"testing"
)

// TestListCacheKeepsWhatIsUsed: past its bound the cache evicts, of the entries it samples, the one
// used least recently, so an entry used between every put outlives a stream of entries used once.
// Random eviction would drop it within a few dozen puts of a cache of twenty entries. The bytes the
// cache counts stay within its bound and equal what its entries count.
func TestListCacheKeepsWhatIsUsed(t *testing.T) {
	e := &Entry{Packed: make([]byte, 1000)}
	c := New(20 * (len("once-000") + e.size()))
	c.Put("hot", e)
	for i := range 1000 {
		if c.Peek("hot") == nil {
			t.Fatalf("the entry used between every put was evicted after %d puts", i)
		}
		c.Put(fmt.Sprintf("once-%03d", i), e)
		c.mu.Lock()
		sum := 0
		for k, s := range c.m {
			sum += len(k) + s.e.size()
		}
		if c.bytes != sum || c.bytes > c.limit {
			t.Fatalf("after %d puts the cache counts %d bytes, its entries %d, its bound %d", i+1, c.bytes, sum, c.limit)
		}
		c.mu.Unlock()
	}
	if st := c.Stats(); st.Entries < 15 {
		t.Errorf("%d entries left in a cache for 20", st.Entries)
	}
}

// TestListCacheAdmitsWhatComesBack: a cache with room admits every key; a nearly full one a new key
// only the second time it is offered, and a key it holds (an answer that expired) at once.
func TestListCacheAdmitsWhatComesBack(t *testing.T) {
	e := &Entry{Packed: make([]byte, 1000)}
	c := New(20 * (len("key-00") + e.size()))
	for i := range 18 {
		key := fmt.Sprintf("key-%02d", i)
		if !c.Admit(key) {
			t.Fatalf("with %d of 20 entries, %s was turned away", i, key)
		}
		c.Put(key, e)
	}
	c.Put("key-18", e) // full but for a sixteenth
	for _, step := range []struct {
		key  string
		want bool
	}{
		// One key at a time: two keys may share a slot of the table, the later one taking it.
		{"new-00", false},
		{"new-00", true},
		{"key-03", true},
		{"new-01", false},
		{"new-01", true},
		{"new-01", false}, // admitted once and not put: a third offer is a first again
	} {
		if got := c.Admit(step.key); got != step.want {
			t.Errorf("admit(%s) = %v, want %v", step.key, got, step.want)
		}
	}
}
