package main

import (
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// TestParseConfigMemory: CALENDAR_MEMORY_MB and --memory-mb: DefaultMemoryMB unless set, 0 for no
// budget, the flag wins, and anything under minMemoryMB or not a number aborts start-up.
func TestParseConfigMemory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     string
		args    []string
		want    int
		wantErr bool
	}{
		{name: "default", want: DefaultMemoryMB},
		{name: "variable", env: "1024", want: 1024},
		{name: "none", env: "0", want: 0},
		{name: "flag over variable", env: "1024", args: []string{"--memory-mb", "256"}, want: 256},
		{name: "smallest", env: "64", want: 64},
		{name: "too small", env: "63", wantErr: true},
		{name: "negative", env: "-1", wantErr: true},
		{name: "not a number", env: "1G", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "CALENDAR_MEMORY_MB" {
					return tc.env
				}
				return ""
			}
			cfg, err := parseConfig("serve", tc.args, getenv, io.Discard)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "memory-mb") {
					t.Fatalf("got error %v, want one naming memory-mb", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.MemoryMB != tc.want {
				t.Errorf("MemoryMB = %d, want %d", cfg.MemoryMB, tc.want)
			}
			hc, b := cfg.handlerConfig(), splitBudget(tc.want)
			if hc.ListCacheBytes != b.lists || hc.ItemCacheBytes != b.items {
				t.Errorf("handler caches %d and %d bytes, want the budget's %d and %d", hc.ListCacheBytes, hc.ItemCacheBytes, b.lists, b.items)
			}
		})
	}
}

// TestSplitBudget checks the split: no budget leaves every bound built in and the runtime without a
// limit; a budget is the runtime's limit, and the caches' shares together stay within 36 % of it.
func TestSplitBudget(t *testing.T) {
	if got := splitBudget(0); got != (memoryBudget{}) {
		t.Errorf("splitBudget(0) = %+v, want no limit and built-in bounds", got)
	}
	for _, mb := range []int{minMemoryMB, DefaultMemoryMB, 1200, 4096} {
		b := splitBudget(mb)
		total := int64(mb) << 20
		if b.limit != total {
			t.Errorf("%d MiB: limit %d, want %d", mb, b.limit, total)
		}
		for name, got := range map[string]int{"lists": b.lists, "items": b.items, "records": b.records, "texts": b.texts} {
			if got <= 0 {
				t.Errorf("%d MiB: %s gets nothing", mb, name)
			}
		}
		if caches := int64(b.lists + b.items + b.records + b.texts); caches > total*36/100 {
			t.Errorf("%d MiB: the caches get %d bytes, over 36 %% of the budget", mb, caches)
		}
	}
}

// TestMemoryBudgetBoundsCaches runs the app on a budget and reads every cache's bound in /metrics: each
// is its share of the budget.
func TestMemoryBudgetBoundsCaches(t *testing.T) {
	const mb = 100
	s := startServer(t, "CALENDAR_MEMORY_MB=100")
	m := scrape(t, s.ts.URL+"/metrics")
	b := splitBudget(mb)
	for cache, want := range map[string]int{
		"lists":       b.lists,
		"items":       b.items,
		"records":     b.records - b.records/16,
		"terms":       b.records / 16,
		"search_text": b.texts,
	} {
		got, ok := m.value("calendard_cache_limit_bytes", "cache", cache)
		if !ok || int(got) != want {
			t.Errorf("cache %s: limit %v (found %v), want %d", cache, got, ok, want)
		}
	}
	// Without a budget the caches keep their built-in bounds.
	s = startServer(t, "CALENDAR_MEMORY_MB=0")
	m = scrape(t, s.ts.URL+"/metrics")
	for cache, want := range map[string]int{
		"records":     storage.DefaultRecordCacheBytes - storage.DefaultRecordCacheBytes/16,
		"search_text": index.DefaultTextCacheBytes,
	} {
		if got, ok := m.value("calendard_cache_limit_bytes", "cache", cache); !ok || int(got) != want {
			t.Errorf("no budget, cache %s: limit %v (found %v), want %d", cache, got, ok, want)
		}
	}
}

// TestFitLimit: the runtime's limit stays the budget's while the loaded calendar fits in it twice,
// and is twice the calendar otherwise.
func TestFitLimit(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct{ limit, live, want int64 }{
		{384 * mb, 108 * mb, 384 * mb}, // 100k events
		{384 * mb, 192 * mb, 384 * mb},
		{384 * mb, 430 * mb, 860 * mb}, // 1M events
		{2048 * mb, 430 * mb, 2048 * mb},
	} {
		if got := fitLimit(tc.limit, tc.live); got != tc.want {
			t.Errorf("fitLimit(%d MiB, %d MiB) = %d MiB, want %d MiB", tc.limit/mb, tc.live/mb, got/mb, tc.want/mb)
		}
	}
}

// TestApplyLimit: without a budget the runtime's soft limit is left alone; with one it becomes
// fitLimit's for the heap the process holds (a budget far below it, so that it is raised).
func TestApplyLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	held := make([]byte, 4*minMemoryMB<<20) // live through the measure: twice it is above the budget
	splitBudget(0).applyLimit(zaptest.NewLogger(t))
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("no budget: limit %d, want it left at %d", got, before)
	}
	b := splitBudget(minMemoryMB)
	b.applyLimit(zaptest.NewLogger(t))
	got := debug.SetMemoryLimit(-1)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	runtime.KeepAlive(held)
	want := fitLimit(b.limit, int64(m.HeapAlloc))
	if got <= b.limit || got < want-4<<20 || got > want+4<<20 {
		t.Errorf("budget of %d MiB: limit %d MiB, want %d MiB (twice the heap)", minMemoryMB, got>>20, want>>20)
	}
}
