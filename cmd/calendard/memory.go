package main

import (
	"runtime"
	"runtime/debug"

	"go.uber.org/zap"
)

// DefaultMemoryMB is the memory budget (CALENDAR_MEMORY_MB) when none is set, sized for a 1 GB VM: the
// rest is for the kernel's page cache, which holds the store's file and the Bleve indexes that the
// process maps (file-backed memory, outside the budget: 370 MB at 100k events), and for the operating
// system. At 100k events the process then holds 360 MB of anonymous memory under load, where 512
// gave 480 MB and no budget 720–830 MB (docs/BENCHMARKS.md). The default grows with a calendar too
// big for it (memoryBudget.forCalendar).
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
// whatever it caches: the index's projections of every event (about 100 MB per 100 000 events, the
// anonymous memory right after start-up), the pages being computed for the clients being served,
// and room for the garbage collector, which with a soft limit collects earlier rather than grow.
// Among the caches, the list answers and the rendered items get most: a list answered from the
// list cache costs a twentieth of one computed, and one built from cached items a third. Search
// matches come next: at 1M events a set is 30 KB on average, a list answer 40 KB, and both are hit
// about as often, but a set saves a search of Bleve (about 6 ms at 1M) where an answer saves about
// 1 ms; with 4 % the sets of the mix's searches did not fit at 1M and 8 % served 15-25 % more
// requests (docs/BENCHMARKS.md). Items got a third more than the lists once both were kept packed:
// at 100k events the default's items then answered 76 % of the mix's items against 89 % with the
// built-in bounds, and with 16 % 84-86 %, for 10-15 % less CPU a request and the same anonymous
// memory (360 MB; the soft limit holds it there). Decoded records, which save the JSON decoding of a
// page's records and what they embed on an item miss, gave most of theirs to the items: a decoded
// record is dozens of objects for the collector to mark, a packed item a few, and one item hit saves
// what a record hit saves and the rendering. With records at 1 % and items at 19 %, items answered
// 89-90 % at 100k (85-86 % before) and records 22 % (45 %), for 4 % less CPU a request; at 1M, 8 %
// less, with the same throughput within the noise (three alternated pairs each). The items then got
// 24 %: the mix's rendered items fill 92-97 MiB at 100k events, and with 19 % (76 MiB) the cache
// missed in the steady state (rendering and decoding records were 8 % of the default's CPU, and none
// of the unbounded process's), so that the default served 88 % of the unbounded rate over five
// alternated pairs; with 24 %, 97 %, at the same anonymous memory (366-368 MB): the soft limit holds
// it, and the collector ran about as often (docs/BENCHMARKS.md).
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
// (the projections of every event) by one collection, grows b for it (forCalendar), and sets the
// runtime's soft memory limit at fitLimit's. It returns the budget the caches get. Not before the
// load: while the index loads, the projections are nearly all that grows, and under a limit below
// them the collector ran without pause (at 1M events the first answer came after 6.5–7.5 s instead
// of 3.7–4.3 s, docs/BENCHMARKS.md).
func (b memoryBudget) fit(log *zap.Logger) memoryBudget {
	if b.limit == 0 {
		return b // no budget
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	live := int64(m.HeapAlloc)
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
// the default 384 MiB, the budget grows with the calendar. The rest holds the caches (45 %) and the
// room for the pages being computed and for the collector. At 100k events the calendar holds about
// 100 MB, a quarter of the default 384 MiB, which stays. At 1M it held 415 MB: under the default
// budget, raised to twice that for a limit, the caches kept their 138 MB and the mix served 70–78 %
// of what it served with the caches' built-in bounds and no limit; with a budget of 1,200 MiB,
// 90–93 %, at 1.19 GB of anonymous memory against 1.62 GB (docs/BENCHMARKS.md). It holds 367 MB
// since its links hold no pointer; three times that is 1,102 MiB, the budget 8/3 of 415 MB gave, with
// a margin under the 1.2 GB at 1M (1.05–1.06 GB under the mix).
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
// twice those. The projections stay live whatever the caches give back (about 100 MB per 100,000
// events, 430 MB at 1M), and under a limit close to them the collector runs without pause: at 1M
// events with the default 384 MiB the mix served 144 req/s, against 615 without a limit. A calendar
// of up to about 200,000 events fits the default twice over, and keeps it.
func fitLimit(limit, live int64) int64 { return max(limit, 2*live) }
