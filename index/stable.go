package index

import (
	"context"
	"math"
	"time"
)

// StableUntil returns the first instant after now at which a list answer can change without a write:
// a scheduled record's date passing (it becomes published) or an event starting (it stops being
// upcoming).
func (ix *Index) StableUntil(ctx context.Context, now time.Time) time.Time {
	s := ix.stability(ctx, now)
	if s.start.Before(s.publish) {
		return s.start
	}
	return s.publish
}

// NextPublication returns the first instant after now at which a scheduled record becomes published,
// the only change time alone makes to a record as it is rendered.
func (ix *Index) NextPublication(ctx context.Context, now time.Time) time.Time {
	return ix.stability(ctx, now).publish
}

// stability holds the next event start and the next publication after from, for one version of the
// index; both are computed together, once per version, and reused until one of them passes.
type stability struct {
	version        Version
	from           time.Time
	start, publish time.Time
}

// stability finds the next event start in the projections, and the next publication in the store's
// scheduled records (storage.DB.NextScheduled, one seek), which PublishDue works from too. The store
// is never behind the index: a record it has scheduled by a write not applied yet only brings the
// instant forward, and one it has unscheduled meanwhile is the write that moves the version on.
func (ix *Index) stability(ctx context.Context, now time.Time) stability {
	ix.mu.Lock()
	v, s := Version{ix.applied, ix.repairs}, ix.stable
	ix.mu.Unlock()
	if s.version == v && !now.Before(s.from) && now.Before(s.start) && now.Before(s.publish) {
		return s
	}
	publish, err := ix.store.NextScheduled(ctx, now)
	if err != nil {
		// Without the date, nothing computed now may be reused: it expires at once.
		return stability{version: v, from: now, start: now, publish: now}
	}
	start := int64(math.MaxInt64)
	t := now.Unix()
	for _, l := range ix.langs {
		l.mu.RLock()
		for i := range l.proj.events {
			if r := &l.proj.events[i]; r.startUTC > t {
				start = min(start, r.startUTC)
			}
		}
		l.mu.RUnlock()
	}
	// With nothing ahead, check again now and then anyway.
	s = stability{version: v, from: now, start: now.Add(time.Hour), publish: now.Add(time.Hour)}
	if start != math.MaxInt64 {
		s.start = time.Unix(start, 0)
	}
	if !publish.IsZero() {
		s.publish = publish
	}
	ix.mu.Lock()
	ix.stable = s
	ix.mu.Unlock()
	return s
}
