package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2"
	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// syncBatch bounds the change-log entries one SyncOnce applies.
const syncBatch = 1000

// safetyTick wakes Run even without a notification, so a missed wake-up costs at most this delay.
const safetyTick = time.Second

func utoa(v uint64) string { return strconv.FormatUint(v, 10) }

// Run applies the change log as it grows until ctx is done: it wakes on notify (signalled after every
// commit that logged a change) and on a slow ticker as a safety net.
func (ix *Index) Run(ctx context.Context, notify <-chan struct{}) error {
	tick := time.NewTicker(safetyTick)
	defer tick.Stop()
	for {
		for {
			n, err := ix.SyncOnce(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				ix.log.Error("index sync failed", zap.Error(err))
				break
			}
			if n < syncBatch {
				break
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-notify:
		case <-tick.C:
		}
	}
}

// SyncOnce applies the change-log entries after the applied position, at most syncBatch of them, and
// reports how many it read. Repeated entries for one record are applied once, from the record's
// current state, so applying an entry twice is harmless.
func (ix *Index) SyncOnce(ctx context.Context) (int, error) {
	ix.writing.Lock()
	defer ix.writing.Unlock()
	from := ix.Applied()
	changes, err := ix.store.Changes(ctx, from, syncBatch)
	if err != nil || len(changes) == 0 {
		return 0, err
	}
	last := changes[len(changes)-1].Seq
	ids := map[storage.PostType][]uint64{}
	seen := map[storage.Change]bool{}
	for _, c := range changes {
		t, ok := postTypeOf(c.Kind)
		key := storage.Change{Kind: c.Kind, ID: c.ID}
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		ids[t] = append(ids[t], c.ID)
	}
	page := &storage.Records{}
	for t, list := range ids {
		recs, _, err := ix.store.Load(ctx, t, list)
		if err != nil {
			return 0, err
		}
		page.Events = append(page.Events, recs.Events...)
		page.Venues = append(page.Venues, recs.Venues...)
		page.Organizers = append(page.Organizers, recs.Organizers...)
	}
	venues, err := ix.venuesOf(ctx, page.Events)
	if err != nil {
		return 0, err
	}
	batches := map[storage.Lang]*bleve.Batch{}
	for _, d := range documents(page, venues) {
		l := ix.langs[d.lang]
		if l == nil {
			continue
		}
		l.apply(d)
		if d.id > 0 && last > l.checkpoint {
			b := batches[d.lang]
			if b == nil {
				b = l.bleve.NewBatch()
				batches[d.lang] = b
			}
			if err := d.index(b); err != nil {
				return 0, err
			}
		}
	}
	for code, b := range batches {
		l := ix.langs[code]
		b.SetInternal(keyCheckpoint, binary.BigEndian.AppendUint64(nil, last))
		if err := l.bleve.Batch(b); err != nil {
			return 0, fmt.Errorf("index: apply changes to %s: %w", code, err)
		}
		l.checkpoint = last
	}
	ix.advance(last)
	return len(changes), nil
}

func postTypeOf(k storage.DocKind) (storage.PostType, bool) {
	switch k {
	case storage.DocEvent:
		return storage.TypeEvent, true
	case storage.DocVenue:
		return storage.TypeVenue, true
	case storage.DocOrganizer:
		return storage.TypeOrganizer, true
	}
	return 0, false
}
