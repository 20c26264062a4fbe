package index

import (
	"testing"

	"github.com/calendard/calendard/storage"
)

func TestTextCache(t *testing.T) {
	const limit = 1 << 20
	big := make(idSet, limit/8/2+1) // more than half the budget: two cannot stay together
	type step struct {
		op   string // get, put
		key  string
		v    Version
		set  idSet
		want bool // get: found
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"miss when empty", []step{{op: "get", key: "a", v: Version{Applied: 1}}}},
		{"hit at the same position", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: idSet{1}},
			{op: "get", key: "a", v: Version{Applied: 1}, want: true},
			{op: "get", key: "b", v: Version{Applied: 1}},
		}},
		{"miss at another position", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: idSet{1}},
			{op: "get", key: "a", v: Version{Applied: 2}},
			{op: "get", key: "a", v: Version{Applied: 0}},
		}},
		{"a newer position drops older entries", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: idSet{1}},
			{op: "put", key: "b", v: Version{Applied: 2}, set: idSet{1}},
			{op: "get", key: "b", v: Version{Applied: 2}, want: true},
			{op: "get", key: "a", v: Version{Applied: 2}},
			{op: "get", key: "a", v: Version{Applied: 1}},
		}},
		{"an older position is not stored", []step{
			{op: "put", key: "b", v: Version{Applied: 2}, set: idSet{1}},
			{op: "put", key: "a", v: Version{Applied: 1}, set: idSet{1}},
			{op: "get", key: "a", v: Version{Applied: 1}},
			{op: "get", key: "b", v: Version{Applied: 2}, want: true},
		}},
		{"a repair is a newer version", []step{
			{op: "put", key: "a", v: Version{Applied: 3}, set: idSet{1}},
			{op: "put", key: "b", v: Version{Applied: 3, Repairs: 1}, set: idSet{1}},
			{op: "get", key: "a", v: Version{Applied: 3}},
			{op: "get", key: "b", v: Version{Applied: 3, Repairs: 1}, want: true},
			{op: "put", key: "c", v: Version{Applied: 2, Repairs: 2}, set: idSet{1}},
			{op: "get", key: "c", v: Version{Applied: 2, Repairs: 2}},
		}},
		{"the budget evicts", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: big},
			{op: "put", key: "b", v: Version{Applied: 1}, set: big},
			{op: "get", key: "b", v: Version{Applied: 1}, want: true},
			{op: "get", key: "a", v: Version{Applied: 1}},
		}},
		{"a set over the whole budget is not kept", []step{
			{op: "put", key: "a", v: Version{Applied: 1}, set: idSet{1}},
			{op: "put", key: "b", v: Version{Applied: 1}, set: make(idSet, limit/8+1)},
			{op: "get", key: "b", v: Version{Applied: 1}},
			{op: "get", key: "a", v: Version{Applied: 1}, want: true},
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
				}
			}
			if c.bytes > limit {
				t.Errorf("holds %d bytes, over the budget", c.bytes)
			}
		})
	}
}

func TestTextCacheStats(t *testing.T) {
	en, fr := &lang{code: "en", texts: textCache{limit: 1 << 20}}, &lang{code: "fr", texts: textCache{limit: 1 << 20}}
	ix := &Index{langs: map[storage.Lang]*lang{"en": en, "fr": fr}}
	v := Version{Applied: 1}
	en.texts.get("a", v) // miss
	en.texts.put("a", v, idSet{1, 2})
	en.texts.get("a", v)                   // hit
	en.texts.get("a", Version{Applied: 2}) // miss: another version
	fr.texts.put("b", v, idSet{3})
	fr.texts.get("b", v) // hit
	want := CacheStats{Entries: 2, Bytes: 8 * 3, Limit: 2 << 20, Hits: 2, Misses: 2}
	if got := ix.TextCacheStats(); got != want {
		t.Errorf("TextCacheStats() = %+v, want %+v", got, want)
	}
}
