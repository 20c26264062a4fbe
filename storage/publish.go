package storage

import (
	"bytes"
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage/kv"
)

// publishBatch bounds the due records one write transaction of PublishDue rewrites: short
// transactions keep writers waiting briefly and bbolt's page reuse going.
const publishBatch = 500

// PublishDue rewrites every scheduled (`future`) event, venue and organizer whose date has passed as
// `publish` (docs/API.md "Statuses") and reports how many it rewrote. Reads already report such records as
// published (Post.promote); the rewrite makes the stored status, the term counts (docs/API.md "The term object") and the
// search index agree with them. `modified` is left unchanged: publication at the chosen date is not an
// edit.
//
// The due records are the first entries of the scheduled bucket, found with one seek however many
// records the store holds, in a read transaction: most minutes nothing is due, and a write
// transaction would cost a commit. They are rewritten in batches of one write transaction each, which
// reads each entry again by key rather than walking the bucket: an optimistic backend checks a key
// read for conflicts by itself, and a range only when guarded (storage/kv). Each rewrite removes its
// entry, so every batch starts at the bucket's first entry.
func (db *DB) PublishDue(ctx context.Context) (int, error) {
	total := 0
	for {
		keys, err := db.dueEntries(ctx)
		if err != nil {
			return total, fmt.Errorf("storage: publish due records: %w", err)
		}
		if len(keys) == 0 {
			return total, nil
		}
		n, err := db.publishDue(ctx, keys)
		total += n
		if err != nil {
			return total, fmt.Errorf("storage: publish due records: %w", err)
		}
	}
}

// dueEntries returns the keys of the first due entries of the scheduled bucket, up to publishBatch.
func (db *DB) dueEntries(ctx context.Context) ([][]byte, error) {
	var keys [][]byte
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		now := db.now()
		c := tx.Cursor(bScheduled)
		for k, _ := c.First(); k != nil && entryDue(k, now) && len(keys) < publishBatch; k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k)) // the key is invalid once the transaction ends
		}
		return nil
	})
	return keys, err
}

// publishDue rewrites the records that the scheduled entries keys name, in one transaction. An entry
// gone since it was read, its record rescheduled or published by another write, is skipped.
func (db *DB) publishDue(ctx context.Context, keys [][]byte) (int, error) {
	n := 0
	err := db.update(ctx, func(tx kv.RwTx) error {
		n = 0
		w := db.newWriter(tx, Actor{})
		for _, k := range keys {
			if tx.Get(bScheduled, k) == nil {
				continue
			}
			ok, err := w.publishOne(k)
			if err != nil {
				return err
			}
			if ok {
				n++
			}
		}
		return w.flush()
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// publishOne rewrites as published the record that scheduled entry k names. It reads the stored form
// directly: loadPost would already report it as published. An entry that names no record stored as
// scheduled at its date is a bug elsewhere; it is dropped, so that it cannot hold up the entries
// behind it, and reported.
func (w *writer) publishOne(k []byte) (bool, error) {
	id := beUint(k[8:])
	var r rec
	if t, err := postTypeOf(w.tx, id); err == nil {
		if r, err = decodeRecord(t, w.tx.Get(postBucket(t), u64(id))); err != nil {
			return false, fmt.Errorf("decode %s %d: %w", t, id, err)
		}
	}
	if r == nil || r.post().Status != StatusFuture || !bytes.Equal(scheduledKey(r.post().Date, id), k) {
		w.db.log.Warn("scheduled entry names no scheduled record, dropped", zap.Uint64("id", id))
		return false, w.tx.Delete(bScheduled, k)
	}
	if e, ok := r.(*Event); ok {
		old := *e
		e.Status = StatusPublish
		if err := w.linkEvent(&old, e); err != nil {
			return false, err
		}
		return true, w.write(e, &old.Post)
	}
	p := r.post()
	old := *p
	p.Status = StatusPublish
	return true, w.write(r, &old)
}

// decodeRecord decodes a stored record of type t.
func decodeRecord(t PostType, v []byte) (rec, error) {
	switch t {
	case TypeEvent:
		return decode[Event](nil, 0, v)
	case TypeVenue:
		return decode[Venue](nil, 0, v)
	default:
		return decode[Organizer](nil, 0, v)
	}
}
