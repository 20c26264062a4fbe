package storage

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestRecordCacheBound decodes more records than the cache's bound holds: it must stay under the bound,
// count what it holds exactly, and still answer hits for what it kept.
func TestRecordCacheBound(t *testing.T) {
	raw := func(id uint64) []byte {
		b, _ := json.Marshal(Post{ID: id, Title: string(bytes.Repeat([]byte("x"), 400))})
		return b
	}
	const limit = 64 << 10
	c := newRecordCache(limit)
	for id := uint64(100); id < 600; id++ { // three digits each: every entry the same size
		if _, err := decode[Post](c, id, raw(id)); err != nil {
			t.Fatal(err)
		}
		st := c.stats()
		if st.Bytes > limit {
			t.Fatalf("after %d records: %d bytes, over the bound %d", id, st.Bytes, limit)
		}
		if want := st.Entries * charge(raw(id)); st.Bytes != want {
			t.Fatalf("after %d records: counts %d bytes for %d entries of %d", id, st.Bytes, st.Entries, charge(raw(id)))
		}
	}
	st := c.stats()
	if st.Misses != 500 || st.Hits != 0 || st.Entries == 0 {
		t.Fatalf("stats %+v, want 500 misses and entries kept", st)
	}
	// The last record decoded is kept (eviction runs before it is added): a hit, and a copy.
	p, err := decode[Post](c, 599, raw(599))
	if err != nil || p.ID != 599 {
		t.Fatalf("decode: %v %+v", err, p)
	}
	// Other bytes under the same ID are another version: a miss, never the cached record.
	changed, _ := json.Marshal(Post{ID: 599, Title: "changed"})
	if p, _ := decode[Post](c, 599, changed); p.Title != "changed" {
		t.Fatalf("a changed record came from the cache: %q", p.Title)
	}
	if st := c.stats(); st.Hits != 1 || st.Misses != 501 {
		t.Fatalf("stats %+v, want 1 hit and 501 misses", st)
	}
}

// TestRecordCacheOptions checks that the store splits Options.RecordCacheBytes between its caches,
// and a grown bound (GrowRecordCache) the same way.
func TestRecordCacheOptions(t *testing.T) {
	for _, tc := range []struct {
		opt, posts, terms int
	}{
		{0, DefaultRecordCacheBytes - DefaultRecordCacheBytes/16, DefaultRecordCacheBytes / 16},
		{16 << 20, 15 << 20, 1 << 20},
	} {
		db, err := Open(filepath.Join(t.TempDir(), "calendar.db"), Options{RecordCacheBytes: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		if db.cache.limit != tc.posts || db.terms.limit != tc.terms {
			t.Errorf("RecordCacheBytes %d: limits %d and %d, want %d and %d", tc.opt, db.cache.limit, db.terms.limit, tc.posts, tc.terms)
		}
		// GrowRecordCache shares a larger bound the same way, and leaves the caches for a smaller one.
		db.GrowRecordCache(tc.opt / 2)
		if db.cache.limit != tc.posts || db.terms.limit != tc.terms {
			t.Errorf("grown to %d from %d: limits %d and %d, want %d and %d", tc.opt/2, tc.opt, db.cache.limit, db.terms.limit, tc.posts, tc.terms)
		}
		db.GrowRecordCache(64 << 20)
		if db.cache.limit != 60<<20 || db.terms.limit != 4<<20 {
			t.Errorf("grown to 64 MiB: limits %d and %d, want 60 and 4 MiB", db.cache.limit, db.terms.limit)
		}
	}
}
