package index

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// checkWait bounds how long Check waits for the syncer to apply the change log up to a page it read,
// before it compares anyway: a row repaired needlessly is only re-applied from the store.
const checkWait = 10 * time.Second

// checkRest is how many times as long as a page took Check rests before the next one. Check reads and
// decodes every record of the store (at 1M events 22 s of a core), which it took from the requests
// every hour. Resting three times as long spreads the work over four times the time, at about a
// quarter of a core (docs/BENCHMARKS.md, section "The consistency check").
// Resync, which runs when the index cannot follow the log, does not rest.
const checkRest = 3

// Check compares every record of the store with the projections (each record present in its
// language with the same start, status, dates, flags and links; no row without a record) and repairs
// drift by applying the store's current record again, to the projection and to Bleve, as the syncer
// does. It logs each repair and returns how many records it repaired. The store is read in pages, and
// each page is compared once the index has applied the change log up to the page's read.
func (ix *Index) Check(ctx context.Context) (int, error) {
	repaired, err := ix.reconcile(ctx, false)
	if err == nil {
		ix.log.Info("index consistency checked", zap.Int("repaired", repaired))
	}
	return repaired, err
}

// Resync brings the index back in line with the store when the change log no longer holds the
// entries after its position (storage.ErrCompacted): in cluster mode, when the node fell further
// behind than the log's horizon, or its copy of the cluster was made again (package replica). It
// keeps serving meanwhile: it reads the log's head, applies every record of the store again, to the
// projections and to Bleve, removes the rows of records gone, and then carries on from that head, so
// that the entries after it are applied as usual (applying one twice is harmless). Run calls it.
func (ix *Index) Resync(ctx context.Context) error {
	start := time.Now()
	head, err := ix.store.ChangeHead(ctx)
	if err != nil {
		return err
	}
	n, err := ix.reconcile(ctx, true)
	if err != nil {
		return fmt.Errorf("index: resync: %w", err)
	}
	ix.writing.Lock()
	for _, l := range ix.langs {
		l.checkpoint = max(l.checkpoint, head)
	}
	ix.advance(head)
	ix.writing.Unlock()
	ix.log.Info("index resynced with the store", zap.Int("records", n), zap.Uint64("position", head),
		zap.Duration("duration", time.Since(start)))
	return nil
}

// reconcile reads every record of the store and applies again those the projections do not match
// (all: every one), then removes the rows of records gone; it returns how many records it applied
// or removed. Comparing waits, page by page, for the syncer to apply what the page's read saw;
// applying all does not, for it runs when the syncer cannot (Resync).
func (ix *Index) reconcile(ctx context.Context, all bool) (int, error) {
	repaired := 0
	seen := map[storage.Lang]map[uint64]bool{}
	for code := range ix.langs {
		seen[code] = map[uint64]bool{}
	}
	// Venues come first, and events read their positions from what the venue pass saw instead of
	// loading their venues again (a fifth of a check's CPU at 1M events). A venue moved since is
	// harmless: its events look drifted, and reapply loads them and their venues afresh before it
	// calls anything drift.
	positions := map[uint64]*storage.Venue{}
	parents := newParentTexts()
	for _, t := range []storage.PostType{storage.TypeVenue, storage.TypeOrganizer, storage.TypeEvent} {
		var after uint64
		for {
			page, err := ix.store.Scan(ctx, t, after, scanPage)
			if err != nil {
				return repaired, err
			}
			n := len(page.Events) + len(page.Venues) + len(page.Organizers)
			if n == 0 {
				break
			}
			if !all {
				ix.waitFor(ctx, page.Head)
			}
			worked := time.Now()
			for _, v := range page.Venues {
				positions[v.ID] = &storage.Venue{Geo: v.Geo}
			}
			if err := parents.learn(ctx, ix.store, page.Events); err != nil {
				return repaired, err
			}
			var drift []uint64
			for _, d := range documents(page, positions, parents) {
				l := ix.langs[d.lang]
				if l == nil {
					continue
				}
				seen[d.lang][d.id] = true
				if all || !l.matches(d) {
					drift = append(drift, d.id)
				}
			}
			if len(drift) > 0 {
				fixed, err := ix.reapply(ctx, t, drift, all)
				if err != nil {
					return repaired, err
				}
				repaired += len(fixed)
				if len(fixed) > 0 && !all {
					ix.log.Warn("index drift repaired", zap.Stringer("type", t), zap.Uint64s("ids", fixed))
				}
			}
			after = lastID(page, after)
			if !page.More {
				break
			}
			if !all {
				if err := ix.rest(ctx, checkRest*time.Since(worked)); err != nil {
					return repaired, err
				}
			}
		}
	}
	n, err := ix.removeExtra(ctx, seen)
	return repaired + n, err
}

// waitFor waits, at most checkWait, for the index to apply the change log up to seq.
func (ix *Index) waitFor(ctx context.Context, seq uint64) {
	wctx, cancel := context.WithTimeout(ctx, checkWait)
	defer cancel()
	_ = ix.WaitApplied(wctx, seq)
}

// matches reports whether the projection holds d's row as built from the store.
func (l *lang) matches(d document) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	switch d.kind {
	case storage.TypeEvent:
		r := l.proj.event(d.id)
		links := l.proj.linksOf(d.id)
		return r != nil && sameEvent(r, &d.event) && slices.Equal(links.orgs, d.links.orgs) &&
			slices.Equal(links.terms, d.links.terms) && links.modified == d.links.modified
	case storage.TypeVenue:
		r := l.proj.venues[d.id]
		return r != nil && samePlace(r, d.place)
	default:
		r := l.proj.orgs[d.id]
		return r != nil && samePlace(r, d.place)
	}
}

// sameStatus treats a row still `future` as matching the store's `publish` for the same date: reads
// promote a due record without a write (storage.Post.promote), and the projection does the same at
// query time (effective).
func sameStatus(got, want storage.Status, gotDate, wantDate int64) bool {
	return got == want || (got == storage.StatusFuture && want == storage.StatusPublish && gotDate == wantDate)
}

func sameEvent(got, want *eventRow) bool {
	g, w := *got, *want
	if !sameStatus(g.status.status(), w.status.status(), g.date, w.date) {
		return false
	}
	g.status = w.status
	return g == w
}

func samePlace(got, want *placeRow) bool {
	return got.id == want.id && got.author == want.author && sameStatus(got.status, want.status, got.date, want.date) &&
		got.trashed == want.trashed && got.date == want.date
}

// reapply loads records of type t from the store again and applies those the projections still do not
// match (all: every one) to them and to Bleve, without moving the checkpoint; it returns their IDs. A
// record the scan saw differ may have been written since, and applied by the syncer: it is not drift.
// The records are loaded and indexed as the syncer does, a bounded amount of text at a time.
func (ix *Index) reapply(ctx context.Context, t storage.PostType, ids []uint64, all bool) ([]uint64, error) {
	ix.writing.Lock()
	defer ix.writing.Unlock()
	refs := make([]docRef, len(ids))
	for i, id := range ids {
		refs[i] = docRef{t, id}
	}
	var fixed []uint64
	for len(refs) > 0 {
		docs, n, err := ix.loadDocuments(ctx, refs)
		if err != nil {
			return nil, err
		}
		refs = refs[n:]
		batches := map[storage.Lang]*bleve.Batch{}
		for _, d := range docs {
			l := ix.langs[d.lang]
			if l == nil || (!all && l.matches(d)) {
				continue
			}
			fixed = append(fixed, d.id)
			l.apply(d)
			b := batches[d.lang]
			if b == nil {
				b = l.bleve.NewBatch()
				batches[d.lang] = b
			}
			if err := d.update(b); err != nil {
				return nil, err
			}
		}
		for code, b := range batches {
			if err := ix.langs[code].bleve.Batch(b); err != nil {
				return nil, fmt.Errorf("index: repair %s: %w", code, err)
			}
		}
	}
	if len(fixed) > 0 {
		ix.repaired()
	}
	return fixed, nil
}

// removeExtra removes the projection rows and Bleve documents of records the scan did not find in
// their language. A record written after the scan is kept: it is loaded again before removal.
func (ix *Index) removeExtra(ctx context.Context, seen map[storage.Lang]map[uint64]bool) (int, error) {
	removed := 0
	for code, l := range ix.langs {
		extra := map[storage.PostType][]uint64{}
		l.mu.RLock()
		for i := range l.proj.events {
			if id := l.proj.events[i].id; !seen[code][id] {
				extra[storage.TypeEvent] = append(extra[storage.TypeEvent], id)
			}
		}
		for id := range l.proj.venues {
			if !seen[code][id] {
				extra[storage.TypeVenue] = append(extra[storage.TypeVenue], id)
			}
		}
		for id := range l.proj.orgs {
			if !seen[code][id] {
				extra[storage.TypeOrganizer] = append(extra[storage.TypeOrganizer], id)
			}
		}
		l.mu.RUnlock()
		for t, ids := range extra {
			ids, err := ix.removeRows(ctx, l, t, ids)
			if err != nil {
				return removed, err
			}
			if len(ids) > 0 {
				removed += len(ids)
				ix.log.Warn("index rows without a record removed", zap.String("lang", string(l.code)), zap.Stringer("type", t), zap.Uint64s("ids", ids))
			}
		}
	}
	return removed, nil
}

// removeRows removes from l the rows of type t among ids whose records the store does not hold in
// l's language, as loaded again now, and returns their IDs.
func (ix *Index) removeRows(ctx context.Context, l *lang, t storage.PostType, ids []uint64) ([]uint64, error) {
	ix.writing.Lock()
	defer ix.writing.Unlock()
	recs, _, err := ix.store.Load(ctx, t, ids)
	if err != nil {
		return nil, err
	}
	for _, d := range documents(recs, nil, nil) {
		if d.lang == l.code {
			ids = slices.DeleteFunc(ids, func(id uint64) bool { return id == d.id })
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	b := l.bleve.NewBatch()
	l.mu.Lock()
	for _, id := range ids {
		switch t {
		case storage.TypeEvent:
			l.proj.removeEvent(id)
		case storage.TypeVenue:
			delete(l.proj.venues, id)
		case storage.TypeOrganizer:
			delete(l.proj.orgs, id)
		}
		b.Delete(docID(t, id))
	}
	l.mu.Unlock()
	if err := l.bleve.Batch(b); err != nil {
		return nil, fmt.Errorf("index: repair %s: %w", l.code, err)
	}
	ix.repaired()
	return ids, nil
}
