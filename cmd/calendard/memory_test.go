package main

import (
	"context"
	"io"
	"math"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strconv"
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
		{name: "flag at the default", args: []string{"--memory-mb", strconv.Itoa(DefaultMemoryMB)}, want: DefaultMemoryMB},
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
			// Only the budget nobody set grows with the calendar.
			if grows := cfg.budget().grows; grows != (tc.name == "default") {
				t.Errorf("budget grows: %v, want %v", grows, !grows)
			}
			hc, b := cfg.handlerConfig(cfg.budget()), splitBudget(tc.want)
			if hc.ListCacheBytes != b.lists || hc.ItemCacheBytes != b.items {
				t.Errorf("handler caches %d and %d bytes, want the budget's %d and %d", hc.ListCacheBytes, hc.ItemCacheBytes, b.lists, b.items)
			}
		})
	}
}

// TestSplitBudget checks the split: no budget leaves every bound built in and the runtime without a
// limit; a budget is the runtime's limit, and the caches' shares together stay within 45 % of it.
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
		if caches := int64(b.lists + b.items + b.records + b.texts); caches > total*45/100 {
			t.Errorf("%d MiB: the caches get %d bytes, over 45 %% of the budget", mb, caches)
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

// TestForCalendar: the default budget grows with a calendar holding more than a third of it, to three
// times the calendar, split the same way; a budget the user set, and no budget, stay.
func TestForCalendar(t *testing.T) {
	const mb = 1 << 20
	def := splitBudget(DefaultMemoryMB)
	def.grows = true
	grown := splitBudget(1100) // 366.5 MiB × 3, rounded up
	grown.grows = true
	for _, tc := range []struct {
		name string
		b    memoryBudget
		live int64
		want memoryBudget
	}{
		{"100k events", def, 108 * mb, def},
		{"a third of the default", def, DefaultMemoryMB * mb / 3, def},
		{"1M events", def, 366*mb + mb/2, grown},
		{"set by the user", splitBudget(DefaultMemoryMB), 430 * mb, splitBudget(DefaultMemoryMB)},
		{"none", memoryBudget{}, 430 * mb, memoryBudget{}},
	} {
		if got := tc.b.forCalendar(tc.live); got != tc.want {
			t.Errorf("%s: %+v for %d MiB, want %+v", tc.name, got, tc.live/mb, tc.want)
		}
	}
}

// TestFitBudget: without a budget the runtime's soft limit is left alone; with one it becomes
// fitLimit's for the heap the process holds (a budget far below it, so that it is raised), and a
// default budget first grows to three times the heap and the projections mapped.
func TestFitBudget(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	held := make([]byte, 4*minMemoryMB<<20) // live through the measure: twice it is above the budget
	if got := splitBudget(0).fit(zaptest.NewLogger(t), 0); got != (memoryBudget{}) {
		t.Errorf("no budget: %+v, want none", got)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("no budget: limit %d, want it left at %d", got, before)
	}
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	// fit measures the heap at some moment of its call, which the parallel tests of the package move:
	// the heap measured before and after the call bound what it saw.
	measured := func(fit func()) (lo, hi int64) {
		before := heap()
		fit()
		after := heap()
		return min(before, after) - 4<<20, max(before, after) + 4<<20
	}
	b := splitBudget(minMemoryMB)
	var kept memoryBudget
	lo, hi := measured(func() { kept = b.fit(zaptest.NewLogger(t), 0) })
	if kept != b {
		t.Errorf("a budget set: %+v, want it kept: %+v", kept, b)
	}
	got := debug.SetMemoryLimit(-1)
	if got <= b.limit || got < fitLimit(b.limit, lo) || got > fitLimit(b.limit, hi) {
		t.Errorf("budget of %d MiB: limit %d MiB, want twice the heap: %d to %d MiB", minMemoryMB, got>>20, fitLimit(b.limit, lo)>>20, fitLimit(b.limit, hi)>>20)
	}
	// The calendar also holds projections where their files are mapped, outside the heap.
	b.grows = true
	mapped := int64(minMemoryMB << 20)
	var grown memoryBudget
	lo, hi = measured(func() { grown = b.fit(zaptest.NewLogger(t), mapped) })
	lo, hi = lo+mapped, hi+mapped
	got = debug.SetMemoryLimit(-1)
	runtime.KeepAlive(held)
	if grown.limit < lo*calendarParts || grown.limit > hi*calendarParts || !grown.grows || grown.items <= b.items {
		t.Errorf("default budget of %d MiB: %+v, want it grown to %d to %d MiB", minMemoryMB, grown, lo*calendarParts>>20, hi*calendarParts>>20)
	}
	if got != grown.limit {
		t.Errorf("default budget grown to %d MiB: limit %d MiB, want the budget's", grown.limit>>20, got>>20)
	}
}

// TestLoadGrowsCaches: a server whose default budget grows with the calendar gives every cache its
// share of the grown budget; one whose budget is set keeps the set budget's shares.
func TestLoadGrowsCaches(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	// Held through the loads: more than a third of the default budget, as a big calendar's projections.
	held := make([]byte, DefaultMemoryMB<<20/2)
	for _, tc := range []struct {
		name  string
		env   []string
		grows bool
	}{
		{"default", nil, true},
		{"set", []string{"CALENDAR_MEMORY_MB=" + strconv.Itoa(DefaultMemoryMB)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			keepOnFile(t, dir)
			cfg, err := parseConfig("serve", nil, lookup(map[string]string{"CALENDAR_DATA_DIR": dir,
				"CALENDAR_ADMIN_APP_PASSWORD": adminPass}, tc.env...), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			a, err := open(context.Background(), cfg, zaptest.NewLogger(t), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer a.close()
			a.limitMemory = true
			if err := a.load(context.Background()); err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(&a.handler)
			defer ts.Close()
			m := scrape(t, ts.URL+"/metrics")
			set := splitBudget(DefaultMemoryMB)
			// Each cache's bound over its share of the set budget: 1 when the budget stays, and the
			// same ratio above 1 for every cache when it grows.
			var ratios []float64
			for cache, share := range map[string]int{"lists": set.lists, "items": set.items,
				"records": set.records - set.records/16, "terms": set.records / 16, "search_text": set.texts} {
				got, ok := m.value("calendard_cache_limit_bytes", "cache", cache)
				if !ok {
					t.Fatalf("no limit for cache %s", cache)
				}
				ratios = append(ratios, got/float64(share))
			}
			for _, r := range ratios {
				if math.Abs(r-ratios[0]) > 0.01 || (r > 1.01) != tc.grows || r < 0.99 {
					t.Errorf("caches' bounds over the set budget's shares: %v, want the same for all, above 1 %v", ratios, tc.grows)
					break
				}
			}
		})
	}
	runtime.KeepAlive(held)
}
