package index

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/calendard/calendard/storage"
)

// spread is a set of n IDs far apart, whose size grows with n.
func spread(n int) *roaring64.Bitmap {
	set := roaring64.New()
	for i := range uint64(n) {
		set.Add(i * 70000)
	}
	return set
}

func TestTextCache(t *testing.T) {
	big := spread(100)
	limit := 2*setBytes(big) - 1 // big is more than half the budget: two cannot stay together
	one := roaring64.BitmapOf(1)
	two := roaring64.BitmapOf(2)
	type step struct {
		op   string // get, put; keys, keysOf: the positions of set's listed events at generation gen; union, unionOf: a union of terms (keys: how many) for key at generation gen
		key  string
		v    Version
		set  *roaring64.Bitmap
		want bool // get, keysOf: found
		gen  uint64
		keys int // keys: how many positions
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"miss when empty", []step{{op: "get", key: "a", v: Version{Applied: 1}}}},
		{"hit at the same position", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "get", key: "a", v: Version{Applied: 1}, want: true},
			{op: "get", key: "b", v: Version{Applied: 1}},
		}},
		{"miss at another position", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "get", key: "a", v: Version{Applied: 2}},
			{op: "get", key: "a", v: Version{Applied: 0}},
		}},
		{"a newer position drops older entries", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "put", key: "b", v: Version{Applied: 2}, set: one},
			{op: "get", key: "b", v: Version{Applied: 2}, want: true},
			{op: "get", key: "a", v: Version{Applied: 2}},
			{op: "get", key: "a", v: Version{Applied: 1}},
		}},
		{"an older position is not stored", []step{
			{op: "put", key: "b", v: Version{Applied: 2}, set: one},
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "get", key: "a", v: Version{Applied: 1}},
			{op: "get", key: "b", v: Version{Applied: 2}, want: true},
		}},
		{"a repair is a newer version", []step{
			{op: "put", key: "a", v: Version{Applied: 3}, set: one},
			{op: "put", key: "b", v: Version{Applied: 3, Repairs: 1}, set: one},
			{op: "get", key: "a", v: Version{Applied: 3}},
			{op: "get", key: "b", v: Version{Applied: 3, Repairs: 1}, want: true},
			{op: "put", key: "c", v: Version{Applied: 2, Repairs: 2}, set: one},
			{op: "get", key: "c", v: Version{Applied: 2, Repairs: 2}},
		}},
		{"the budget evicts", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: big},
			{op: "put", key: "b", v: Version{Applied: 1}, set: big},
			{op: "get", key: "b", v: Version{Applied: 1}, want: true},
			{op: "get", key: "a", v: Version{Applied: 1}},
		}},
		{"a set stored again replaces the first", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: big},
			{op: "put", key: "a", v: Version{Applied: 1}, set: big},
			{op: "put", key: "b", v: Version{Applied: 1}, set: one},
			{op: "get", key: "a", v: Version{Applied: 1}, want: true},
			{op: "get", key: "b", v: Version{Applied: 1}, want: true},
		}},
		{"a set over the whole budget is not kept", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "put", key: "b", v: Version{Applied: 1}, set: spread(300)},
			{op: "get", key: "b", v: Version{Applied: 1}},
			{op: "get", key: "a", v: Version{Applied: 1}, want: true},
		}},
		{"a set's positions are kept for their generation", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "keysOf", set: one, gen: 1},
			{op: "keys", set: one, gen: 1, keys: 3},
			{op: "keysOf", set: one, gen: 1, want: true},
			{op: "keysOf", set: one, gen: 2},
			{op: "keys", set: one, gen: 2, keys: 2},
			{op: "keysOf", set: one, gen: 2, want: true},
			{op: "keysOf", set: one, gen: 1},
		}},
		{"no positions for a set the cache does not hold", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "keys", set: two, gen: 1, keys: 3},
			{op: "keysOf", set: two, gen: 1},
		}},
		{"positions go with their set", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "keys", set: one, gen: 1, keys: 3},
			{op: "put", key: "a", v: Version{Applied: 1}, set: two},
			{op: "keysOf", set: one, gen: 1},
			{op: "keys", set: two, gen: 1, keys: 3},
			{op: "put", key: "b", v: Version{Applied: 2}, set: one},
			{op: "keysOf", set: two, gen: 1},
		}},
		{"positions over the budget are not kept, the set stays", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: big},
			{op: "keys", set: big, gen: 1, keys: 200},
			{op: "keysOf", set: big, gen: 1},
			{op: "get", key: "a", v: Version{Applied: 1}, want: true},
			{op: "keys", set: big, gen: 1, keys: 1},
			{op: "keysOf", set: big, gen: 1, want: true},
		}},
		{"the budget evicts a set with its positions", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: big},
			{op: "keys", set: big, gen: 1, keys: 8},
			{op: "put", key: "b", v: Version{Applied: 1}, set: spread(100)},
			{op: "keysOf", set: big, gen: 1},
			{op: "get", key: "a", v: Version{Applied: 1}},
		}},
		{"a union is kept for its generation", []step{
			{op: "unionOf", key: "en,1,2", gen: 1},
			{op: "union", key: "en,1,2", gen: 1, keys: 3},
			{op: "unionOf", key: "en,1,2", gen: 1, want: true},
			{op: "unionOf", key: "fr,1,2", gen: 1},
			{op: "unionOf", key: "en,1,2", gen: 2},
			{op: "union", key: "en,1,2", gen: 2, keys: 4},
			{op: "unionOf", key: "en,1,2", gen: 2, want: true},
			{op: "unionOf", key: "en,1,2", gen: 1},
		}},
		{"a newer version drops the unions", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "union", key: "en,1,2", gen: 1, keys: 3},
			{op: "put", key: "b", v: Version{Applied: 2}, set: one},
			{op: "unionOf", key: "en,1,2", gen: 1},
		}},
		{"sets make room for a union", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: big},
			{op: "union", key: "en,1,2", gen: 1, keys: setBytes(big)/16 + 1},
			{op: "unionOf", key: "en,1,2", gen: 1, want: true},
			{op: "get", key: "a", v: Version{Applied: 1}},
		}},
		{"unions make room for a set", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: one},
			{op: "union", key: "en,1,2", gen: 1, keys: setBytes(big)/16 + 1},
			{op: "put", key: "b", v: Version{Applied: 1}, set: big},
			{op: "get", key: "b", v: Version{Applied: 1}, want: true},
			{op: "unionOf", key: "en,1,2", gen: 1},
		}},
		{"a union over the whole budget is not kept", []step{
			{op: "union", key: "en,1,2", gen: 1, keys: 3},
			{op: "union", key: "en,3,4", gen: 1, keys: limit/16 + 1},
			{op: "unionOf", key: "en,3,4", gen: 1},
			{op: "unionOf", key: "en,1,2", gen: 1, want: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := textCache{limit: limit}
			for i, s := range tc.steps {
				switch s.op {
				case "put":
					c.put(s.key, s.v, s.set)
				case "get":
					if _, ok := c.get(s.key, s.v); ok != s.want {
						t.Errorf("step %d: get(%q, %+v) found %v, want %v", i, s.key, s.v, ok, s.want)
					}
				case "keys":
					at := roaring.New()
					for i := range uint32(s.keys) {
						at.Add(i * 70000) // far apart, as spread: the size grows with the count
					}
					c.putListedAt(s.set, s.gen, at)
				case "keysOf":
					if at := c.listedAt(s.set, s.gen); (at != nil) != s.want {
						t.Errorf("step %d: listedAt(%v, %d) found %v, want %v", i, s.set, s.gen, at != nil, s.want)
					}
				case "union":
					c.putUnion(s.key, &termUnion{gen: s.gen, keys: make([]rowKey, s.keys)})
				case "unionOf":
					if u := c.union(s.key, s.gen); (u != nil) != s.want {
						t.Errorf("step %d: union(%q, %d) found %v, want %v", i, s.key, s.gen, u != nil, s.want)
					}
				}
			}
			held := 0
			for _, set := range c.m {
				held += setBytes(set) + c.listed[set].size()
			}
			for _, u := range c.unions {
				held += u.size()
			}
			if c.bytes != held || c.bytes > limit {
				t.Errorf("counts %d bytes, holds %d; the budget is %d", c.bytes, held, limit)
			}
		})
	}
}

// TestTextCacheShared: the languages share one cache of text matches: the same search in two
// languages is two entries, each language's own, and a language may spend more than its share of
// the budget while another spends less.
func TestTextCacheShared(t *testing.T) {
	ctx := context.Background()
	texts := &textCache{}
	en, fr := diskLang(t, "en"), diskLang(t, "fr")
	en.texts, fr.texts = texts, texts
	ix := &Index{langs: map[storage.Lang]*lang{"en": en, "fr": fr}, texts: texts}
	for _, d := range []struct {
		l    *lang
		id   uint64
		text string
	}{{en, 1, "concert jazz"}, {en, 2, "concert rock"}, {fr, 3, "concert"}} {
		b := d.l.bleve.NewBatch()
		doc := document{kind: storage.TypeEvent, id: d.id, text: []string{d.text}}
		if err := doc.index(b); err != nil {
			t.Fatal(err)
		}
		if err := d.l.bleve.Batch(b); err != nil {
			t.Fatal(err)
		}
	}
	v := Version{Applied: 1}
	searches := []struct {
		l      *lang
		search string
		want   []uint64
	}{{en, "concert", []uint64{1, 2}}, {en, "jazz", []uint64{1}}, {fr, "concert", []uint64{3}}}
	// Room for the three sets and no more: half of it would not hold the English two.
	for _, s := range searches {
		texts.limit += setBytes(roaring64.BitmapOf(s.want...))
	}
	for round := range 2 {
		for _, s := range searches {
			got, err := s.l.textMatches(ctx, s.search, v, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.ToArray(), s.want) {
				t.Errorf("round %d: %s %q matched %v, want %v", round, s.l.code, s.search, got.ToArray(), s.want)
			}
		}
	}
	want := CacheStats{Entries: 3, Bytes: texts.limit, Limit: texts.limit, Hits: 3, Misses: 3}
	if got := ix.TextCacheStats(); got != want {
		t.Errorf("TextCacheStats() = %+v, want %+v", got, want)
	}
}

// TestTextCachePositionsMakeRoom: positions too large for the room left evict other sets, never
// their own.
func TestTextCachePositionsMakeRoom(t *testing.T) {
	a, b := spread(100), spread(100)
	at := roaring.New()
	for i := range uint32(50) {
		at.Add(i * 70000)
	}
	c := textCache{limit: setBytes(a) + setBytes(b) + int(at.GetSizeInBytes()) - 1}
	v := Version{Applied: 1}
	c.put("a", v, a)
	c.put("b", v, b)
	c.putListedAt(b, 1, at)
	if got := c.listedAt(b, 1); got != at {
		t.Fatalf("the positions were not kept")
	}
	if _, ok := c.get("b", v); !ok {
		t.Errorf("the positions' own set was evicted")
	}
	if _, ok := c.get("a", v); ok {
		t.Errorf("the other set stayed over the budget")
	}
	if want := setBytes(b) + int(at.GetSizeInBytes()); c.bytes != want {
		t.Errorf("counts %d bytes, holds %d", c.bytes, want)
	}
}

// TestOpenSharesTextCache: Open gives every language the index's one cache, bounded by the option,
// which GrowTextCache raises.
func TestOpenSharesTextCache(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(context.Background(), filepath.Join(dir, "index"), openStore(t, dir), Options{TextCacheBytes: 5 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.texts.limit != 5<<20 {
		t.Errorf("limit %d, want %d", ix.texts.limit, 5<<20)
	}
	for code, l := range ix.langs {
		if l.texts != ix.texts {
			t.Errorf("%s has a text cache of its own", code)
		}
	}
	// GrowTextCache raises the bound, and leaves it for a smaller one.
	for _, tc := range []struct{ grow, want int }{{4 << 20, 5 << 20}, {8 << 20, 8 << 20}} {
		if ix.GrowTextCache(tc.grow); ix.TextCacheStats().Limit != tc.want {
			t.Errorf("grown to %d: limit %d, want %d", tc.grow, ix.TextCacheStats().Limit, tc.want)
		}
	}
}
