package storage

import (
	"bytes"
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// publishScanPage bounds the records one read transaction of PublishDue looks at, and publishBatch the
// due records one write transaction rewrites: short transactions keep bbolt's page reuse going and
// writers waiting briefly.
const (
	publishScanPage = 2000
	publishBatch    = 500
)

// futureMarker is how a scheduled record's stored JSON shows its status. PublishDue skips every record
// without it before decoding: decoding dominates a scan, and scheduled records are few.
var futureMarker = []byte(`"status":"future"`)

// publishMarker is a published record's: a string value escapes its quotes, so neither marker can
// occur inside one.
var publishMarker = []byte(`"status":"publish"`)

// PublishDue rewrites every scheduled (`future`) event, venue and organizer whose date has passed as
// `publish` (CONTRACT 8.4) and reports how many it rewrote. Reads already report such records as
// published (Post.promote); the rewrite makes the stored status, the term counts (CONTRACT 3.5) and the
// search index agree with them. `modified` is left unchanged: publication at the chosen date is not an
// edit.
//
// Due records are found by a paged scan of the three record buckets, cheap at this service's scale
// because records without the `future` marker are not decoded. Each batch of due records is rewritten
// in one write transaction, which checks the stored status again, so a concurrent edit wins.
func (db *DB) PublishDue(ctx context.Context) (int, error) {
	total := 0
	for _, t := range []PostType{TypeEvent, TypeVenue, TypeOrganizer} {
		var after uint64
		for {
			due, next, done, err := db.findDue(ctx, t, after)
			if err != nil {
				return total, fmt.Errorf("storage: publish due %ss: %w", t, err)
			}
			for len(due) > 0 {
				chunk := due[:min(len(due), publishBatch)]
				due = due[len(chunk):]
				n, err := db.publish(ctx, t, chunk)
				total += n
				if err != nil {
					return total, fmt.Errorf("storage: publish due %ss: %w", t, err)
				}
			}
			if done {
				break
			}
			after = next
		}
	}
	return total, nil
}

// findDue reads up to publishScanPage records of type t after ID after and returns the IDs of the
// due scheduled ones, the last ID read, and whether the bucket is exhausted.
func (db *DB) findDue(ctx context.Context, t PostType, after uint64) (due []uint64, last uint64, done bool, err error) {
	now := db.now()
	err = db.view(ctx, func(tx *bolt.Tx) error {
		c := tx.Bucket(postBucket(t)).Cursor()
		n := 0
		k, v := c.Seek(u64(after + 1))
		for ; k != nil && n < publishScanPage; k, v = c.Next() {
			n++
			last = beUint(k)
			if !bytes.Contains(v, futureMarker) {
				continue
			}
			r, err := decodeRecord(t, v)
			if err != nil {
				return fmt.Errorf("decode %s %d: %w", t, last, err)
			}
			if p := r.post(); p.Status == StatusFuture && !p.Date.After(now) {
				due = append(due, last)
			}
		}
		done = k == nil
		return nil
	})
	return due, last, done, err
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

// publish rewrites the given records of type t that are still scheduled and due, in one transaction.
func (db *DB) publish(ctx context.Context, t PostType, ids []uint64) (int, error) {
	n := 0
	err := db.update(ctx, func(tx *bolt.Tx) error {
		n = 0
		w := db.newWriter(tx, Actor{})
		for _, id := range ids {
			ok, err := w.publishOne(t, id)
			if err != nil {
				return fmt.Errorf("%s %d: %w", t, id, err)
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

// publishOne rewrites record id as published if it is stored as a due scheduled record. It reads the
// stored form directly: loadPost would already report it as published.
func (w *writer) publishOne(t PostType, id uint64) (bool, error) {
	now := w.db.now()
	switch t {
	case TypeEvent:
		e, err := get[Event](w.tx, bEvents, id)
		if err == ErrNotFound {
			return false, nil
		} else if err != nil {
			return false, err
		}
		if e.Status != StatusFuture || e.Date.After(now) {
			return false, nil
		}
		old := *e
		e.Status = StatusPublish
		if err := w.linkEvent(&old, e); err != nil {
			return false, err
		}
		return true, w.write(e, &old.Post)
	default:
		var r rec
		var err error
		if t == TypeVenue {
			r, err = get[Venue](w.tx, bVenues, id)
		} else {
			r, err = get[Organizer](w.tx, bOrganizers, id)
		}
		if err == ErrNotFound {
			return false, nil
		} else if err != nil {
			return false, err
		}
		p := r.post()
		if p.Status != StatusFuture || p.Date.After(now) {
			return false, nil
		}
		old := *p
		p.Status = StatusPublish
		return true, w.write(r, &old)
	}
}
