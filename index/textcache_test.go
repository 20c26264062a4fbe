package index

import "testing"

func TestTextCache(t *testing.T) {
	big := make(idSet, textCacheBytes/8/2+1) // more than half the budget: two cannot stay together
	type step struct {
		op      string // get, put, reset
		key     string
		applied uint64
		set     idSet
		want    bool // get: found
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"miss when empty", []step{{op: "get", key: "a", applied: 1}}},
		{"hit at the same position", []step{
			{op: "put", key: "a", applied: 1, set: idSet{1}},
			{op: "get", key: "a", applied: 1, want: true},
			{op: "get", key: "b", applied: 1},
		}},
		{"miss at another position", []step{
			{op: "put", key: "a", applied: 1, set: idSet{1}},
			{op: "get", key: "a", applied: 2},
			{op: "get", key: "a", applied: 0},
		}},
		{"a newer position drops older entries", []step{
			{op: "put", key: "a", applied: 1, set: idSet{1}},
			{op: "put", key: "b", applied: 2, set: idSet{1}},
			{op: "get", key: "b", applied: 2, want: true},
			{op: "get", key: "a", applied: 2},
			{op: "get", key: "a", applied: 1},
		}},
		{"an older position is not stored", []step{
			{op: "put", key: "b", applied: 2, set: idSet{1}},
			{op: "put", key: "a", applied: 1, set: idSet{1}},
			{op: "get", key: "a", applied: 1},
			{op: "get", key: "b", applied: 2, want: true},
		}},
		{"reset forgets", []step{
			{op: "put", key: "a", applied: 1, set: idSet{1}},
			{op: "reset"},
			{op: "get", key: "a", applied: 1},
		}},
		{"the budget evicts", []step{
			{op: "put", key: "a", applied: 1, set: big},
			{op: "put", key: "b", applied: 1, set: big},
			{op: "get", key: "b", applied: 1, want: true},
			{op: "get", key: "a", applied: 1},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c textCache
			for i, s := range tc.steps {
				switch s.op {
				case "put":
					c.put(s.key, s.applied, s.set)
				case "reset":
					c.reset()
				case "get":
					if _, ok := c.get(s.key, s.applied); ok != s.want {
						t.Errorf("step %d: get(%q, %d) found %v, want %v", i, s.key, s.applied, ok, s.want)
					}
				}
			}
			if c.bytes > textCacheBytes {
				t.Errorf("holds %d bytes, over the budget", c.bytes)
			}
		})
	}
}
