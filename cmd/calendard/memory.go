package main

import (
	"runtime"
	"runtime/debug"

	"go.uber.org/zap"
)

// DefaultMemoryMB is the memory budget (CALENDAR_MEMORY_MB) when none is set, sized for a 1 GB VM: the
// rest is for the kernel's page cache, which holds the store's file and the Bleve indexes that the
// process maps (outside the budget), and for the operating system. The default grows with a calendar
// too big for it (memoryBudget.forCalendar). Figures: docs/BENCHMARKS.md, section "Memory budget".
const DefaultMemoryMB = 384

// minMemoryMB is the smallest budget accepted: below it the caches are too small to hold one page
// of list answers, and the runtime would collect garbage without pause.
const minMemoryMB = 64

// memoryBudget is how a budget is spent: the Go runtime's soft limit on everything the process
// allocates (debug.SetMemoryLimit), and within it the bound of each cache. Zero values leave a cache
// at its built-in bound and the runtime without a limit.
type memoryBudget struct {
	limit                        int64
	lists, items, records, texts int
	// grows is set on the default budget (CALENDAR_MEMORY_MB unset), which grows with the calendar
	// (forCalendar); a budget the user set stays as set.
	grows bool
}

// The caches' shares of the budget, in per cent: 45 % together. The rest is what the process needs
// whatever it caches: the index's projections of every event, the pages being computed, and room for
// the garbage collector, which with a soft limit collects earlier rather than grow. Rendered items get
// most (an item hit saves the rendering and the records' decoding), search matches save a Bleve
// search each, and decoded records get least (each is dozens of objects for the collector to mark).
// The measurements behind each share: docs/BENCHMARKS.md, section "Memory budget".
const (
	listsShare   = 12
	itemsShare   = 24
	recordsShare = 1
	textsShare   = 8
)

// splitBudget spends a budget of mb MiB; 0 is no budget.
func splitBudget(mb int) memoryBudget {
	if mb == 0 {
		return memoryBudget{}
	}
	b := mb << 20
	return memoryBudget{
		limit:   int64(b),
		lists:   b / 100 * listsShare,
		items:   b / 100 * itemsShare,
		records: b / 100 * recordsShare,
		texts:   b / 100 * textsShare,
	}
}

// fit spends b on the loaded calendar, once the index has loaded: it measures what the calendar holds
// (the projections of every event: on the heap, measured by one collection, and mapped, the bytes of
// the saved projections a restart holds in place), grows b for it (forCalendar), and sets the
// runtime's soft memory limit at fitLimit's. It returns the budget the caches get. Not before the
// load: while the index loads, the projections are nearly all that grows, and under a limit below
// them the collector ran without pause (docs/BENCHMARKS.md, section "Start-up and index load").
func (b memoryBudget) fit(log *zap.Logger, mapped int64) memoryBudget {
	if b.limit == 0 {
		return b // no budget
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	live := int64(m.HeapAlloc) + mapped
	grown := b.forCalendar(live)
	if grown.limit != b.limit {
		log.Info("memory budget grown with the calendar", zap.Int64("calendar_mb", live>>20),
			zap.Int64("default_mb", b.limit>>20), zap.Int64("budget_mb", grown.limit>>20))
	}
	limit := fitLimit(grown.limit, live)
	debug.SetMemoryLimit(limit)
	if limit != grown.limit {
		log.Info("memory limit raised above the calendar", zap.Int64("calendar_mb", live>>20),
			zap.Int64("budget_mb", grown.limit>>20), zap.Int64("limit_mb", limit>>20))
	}
	return grown
}

// A default budget is at least calendarParts times what the loaded calendar holds: past a third of
// the default 384 MiB, the budget grows with the calendar, so that both the caches and the collector's
// room grow with it (either alone did not help at 1M events). At 1M events the calendar holds 367 MB
// and the budget becomes 1,102 MiB (docs/BENCHMARKS.md, section "Memory budget").
const calendarParts = 3

// forCalendar is b for a loaded calendar holding live bytes: b itself, unless b grows and live is
// more than a calendarParts-th of it; then the budget that is calendarParts times live, split as b is.
func (b memoryBudget) forCalendar(live int64) memoryBudget {
	if !b.grows || live*calendarParts <= b.limit {
		return b
	}
	grown := splitBudget(int((live*calendarParts + 1<<20 - 1) >> 20))
	grown.grows = true
	return grown
}

// fitLimit is the soft limit for a budget's limit when the loaded calendar holds live bytes: at least
// twice those. The projections stay live whatever the caches give back, and under a limit close to
// them the collector runs without pause (docs/BENCHMARKS.md, section "Memory budget"). A calendar of
// up to about 200,000 events fits the default twice over, and keeps it.
func fitLimit(limit, live int64) int64 { return max(limit, 2*live) }
