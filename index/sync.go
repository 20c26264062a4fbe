package index

import (
	"context"
	"encoding/binary"
	"errors"
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

// Run applies the change log as it grows until ctx is done: it wakes on notify (a channel of
// storage.DB.Subscribe, signalled after every commit that logged a change) and on a slow ticker as a
// safety net. When the log no longer holds the entries after the index's position, it resyncs the
// index from the store (Resync).
func (ix *Index) Run(ctx context.Context, notify <-chan struct{}) error {
	tick := time.NewTicker(safetyTick)
	defer tick.Stop()
	for {
		err := ix.catchUp(ctx, nil)
		if errors.Is(err, storage.ErrCompacted) {
			ix.log.Warn("the change log was trimmed past the index: resyncing it with the store", zap.Uint64("position", ix.Applied()))
			err = ix.Resync(ctx)
		}
		if err != nil && ctx.Err() == nil {
			ix.log.Error("index sync failed", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-notify:
		case <-tick.C:
		}
	}
}

// SyncOnce applies the change-log entries after the applied position, at most syncBatch of them and
// no more than syncTextBytes of searched text to index (a run of entries at a time, syncChunk), and
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
	// The records the entries name, once each, and the entry each is first named by: documents
	// covering refs[:k] cover the entries before first[k].
	var refs []docRef
	var first []int
	seen := map[storage.Change]bool{}
	for i, c := range changes {
		t, ok := c.Kind.PostType()
		key := storage.Change{Kind: c.Kind, ID: c.ID}
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		refs, first = append(refs, docRef{t, c.ID}), append(first, i)
	}
	docs, k, err := ix.loadDocuments(ctx, refs)
	if err != nil {
		return 0, err
	}
	n := len(changes)
	if k < len(refs) {
		n = first[k]
	}
	last := changes[n-1].Seq
	batches := map[storage.Lang]*bleve.Batch{}
	byLang := map[*lang][]document{}
	for _, d := range docs {
		l := ix.langs[d.lang]
		if l == nil {
			continue
		}
		byLang[l] = append(byLang[l], d)
		if d.id > 0 && last > l.checkpoint {
			b := batches[d.lang]
			if b == nil {
				b = l.bleve.NewBatch()
				batches[d.lang] = b
			}
			if err := d.update(b); err != nil {
				return 0, err
			}
		}
	}
	for l, ds := range byLang {
		l.applyAll(ds)
	}
	for code, b := range batches {
		b.SetInternal(keyCheckpoint, binary.BigEndian.AppendUint64(nil, last))
		if err := ix.langs[code].bleve.Batch(b); err != nil {
			return 0, fmt.Errorf("index: apply changes to %s: %w", code, err)
		}
	}
	// A language no entry concerned has applied them too. Its stored checkpoint stays behind until
	// the next Checkpoint: replaying from there after a restart is harmless, and the entries are kept
	// until then because trimming goes no further than Checkpoint's answer.
	for _, l := range ix.langs {
		l.checkpoint = max(l.checkpoint, last)
	}
	ix.advance(last)
	return n, nil
}

// syncTextBytes bounds the searched text one SyncOnce indexes, and syncChunk is how many records it
// loads at a time until it has that much. Analysing text costs Bleve 200 to 375 times its bytes
// while it builds a batch's segment (random words, whose every prefix is a new term: the worst case),
// so a batch of 1,000 entries for events with 65 KB descriptions took gigabytes; with this bound a
// batch takes at most about 200 MB more than one of ordinary events, whose text is about a kilobyte.
const (
	syncTextBytes = 1 << 20
	syncChunk     = 16
)

// docRef names a record.
type docRef struct {
	t  storage.PostType
	id uint64
}

// loadDocuments loads the records of refs, syncChunk at a time, until their documents hold
// syncTextBytes of text to index or refs are all loaded, and returns the documents and how many of
// refs they cover.
func (ix *Index) loadDocuments(ctx context.Context, refs []docRef) ([]document, int, error) {
	var docs []document
	parents := newParentTexts()
	n, text := 0, 0
	for n < len(refs) && text < syncTextBytes {
		chunk := refs[n:min(n+syncChunk, len(refs))]
		n += len(chunk)
		ids := map[storage.PostType][]uint64{}
		for _, r := range chunk {
			ids[r.t] = append(ids[r.t], r.id)
		}
		page := &storage.Records{}
		for t, list := range ids {
			recs, _, err := ix.store.Load(ctx, t, list)
			if err != nil {
				return nil, 0, err
			}
			page.Events = append(page.Events, recs.Events...)
			page.Venues = append(page.Venues, recs.Venues...)
			page.Organizers = append(page.Organizers, recs.Organizers...)
		}
		venues, err := ix.venuesOf(ctx, page.Events)
		if err != nil {
			return nil, 0, err
		}
		if err := parents.learn(ctx, ix.store, page.Events); err != nil {
			return nil, 0, err
		}
		for _, d := range documents(page, venues, parents) {
			docs = append(docs, d)
			text += d.textBytes()
		}
	}
	return docs, n, nil
}

// applyAll puts the rows of docs into the projection under one lock, the events in one pass
// (projection.putEvents).
func (l *lang) applyAll(docs []document) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var events []eventPut
	for _, d := range docs {
		if d.kind == storage.TypeEvent {
			events = append(events, eventPut{d.event, d.links})
		} else {
			l.applyLocked(d)
		}
	}
	l.proj.putEvents(events)
}

// replayCheck tells, for one start at change-log position head, which checkpoints the log can bring
// up to the store (unreplayable). A start asks for each language twice, its Bleve index's checkpoint
// and its saved projection's, and one check reads what it needs of the store for all of them, once.
type replayCheck struct {
	store Store
	head  uint64
	// events is how many events the store is known to hold at least, from a page of them read.
	events uint64
	// records is the store's record count once counted, and countErr why it could not be.
	counted  bool
	records  uint64
	countErr error
}

// unreplayable tells why the change log cannot bring a structure checkpointed at checkpoint up to the
// store at head, or "" when it can: the checkpoint is ahead of the store (a restored backup), further
// behind than a rebuild costs, or behind what is left of the log (the entries after it were trimmed).
// A failure to read the log is returned as an error.
func (c *replayCheck) unreplayable(ctx context.Context, checkpoint uint64) (string, error) {
	switch {
	case checkpoint > c.head:
		return "ahead of the store", nil
	case c.replayCostsMore(ctx, checkpoint):
		return "further behind than a rebuild costs", nil
	}
	_, err := c.store.Changes(ctx, checkpoint, 1)
	if errors.Is(err, storage.ErrCompacted) {
		return "behind the trimmed change log", nil
	}
	return "", err
}

// replayCostsMore reports whether an index checkpointed at checkpoint is so far behind head that
// replaying the change log would take longer than rebuilding it from a scan. Replaying an entry loads
// and decodes its record again and replaces its Bleve document: 1.2 to 1.4 times the CPU a rebuild
// spends on a record (BenchmarkStartUp at 100k events), so the two break even between 0.7 and 0.85
// entries per record. An index more than two thirds of the store's record count behind is rebuilt,
// and a start-up never takes longer than a rebuild would. The records are counted, not read as the
// highest ID handed out: a store that mirrors a site takes its own records' IDs from 2^40. It reports
// false when the entries cannot be read at all (trimmed, or a store error), which unreplayable's next
// read of the change log tells apart, or the records cannot be counted. bbolt counts by walking every
// page of a bucket, which on a store not in the page cache reads it all from the disk: the records are
// counted once, and not at all when every checkpoint is at the head, which has nothing to replay, or
// behind by so few entries that a page of the store's events outnumbers them by half.
func (c *replayCheck) replayCostsMore(ctx context.Context, checkpoint uint64) bool {
	if checkpoint == c.head {
		return false
	}
	if _, err := c.store.Changes(ctx, checkpoint, 1); err != nil {
		return false
	}
	behind := c.head - checkpoint
	if enough := behind + behind/2 + 1; enough <= scanPage {
		if c.events < enough {
			if page, err := c.store.Scan(ctx, storage.TypeEvent, 0, int(enough)); err == nil {
				c.events = max(c.events, uint64(len(page.Events)))
			}
		}
		if c.events >= enough {
			return false
		}
	}
	if !c.counted {
		c.counted = true
		c.records, c.countErr = countRecords(ctx, c.store)
	}
	return c.countErr == nil && 3*behind > 2*c.records
}

// catchUp applies the change log until a read finds fewer entries than a full batch: the index has
// then applied everything that was committed when that read began. progress counts the entries.
func (ix *Index) catchUp(ctx context.Context, progress *Loading) error {
	for {
		n, err := ix.SyncOnce(ctx)
		progress.add(n)
		if err != nil || n < syncBatch {
			return err
		}
	}
}

// persistWait bounds how long Checkpoint waits for Bleve to write its batches to disk.
const persistWait = 30 * time.Second

// Checkpoint stores the applied position as every language's checkpoint, waits until Bleve has
// written it and everything before it to disk, saves the projections as of the same position (save),
// and returns it: a position every language would restart from, so the change log may be trimmed up
// to it and no further. With unsafe_batch Bleve
// persists in the background; its persisted callback fires once a batch and all earlier ones are on
// disk. Returns an error, and no position, when ctx ends or the disk does not take them in time.
func (ix *Index) Checkpoint(ctx context.Context) (uint64, error) {
	ix.writing.Lock()
	applied := ix.Applied()
	persisted := make(chan error, len(ix.langs))
	for code, l := range ix.langs {
		b := l.bleve.NewBatch()
		b.SetInternal(keyCheckpoint, binary.BigEndian.AppendUint64(nil, applied))
		b.SetPersistedCallback(func(err error) { persisted <- err })
		if err := l.bleve.Batch(b); err != nil {
			ix.writing.Unlock()
			return 0, fmt.Errorf("index: checkpoint %s: %w", code, err)
		}
	}
	ix.writing.Unlock()
	timeout := time.NewTimer(persistWait)
	defer timeout.Stop()
	for range ix.langs {
		select {
		case err := <-persisted:
			if err != nil {
				return 0, fmt.Errorf("index: persist checkpoint: %w", err)
			}
		case <-timeout.C:
			return 0, errors.New("index: checkpoint not persisted in time")
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if err := ix.save(applied); err != nil {
		return 0, err
	}
	return applied, nil
}
