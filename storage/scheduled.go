package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/calendard/calendard/storage/kv"
)

// The scheduled bucket indexes every record stored as `future` (events, venues and organizers) by
// publication date; writer.write, through which every such record is stored, keeps it exact.
//
// An event's entry holds its terms. Every read reports a scheduled record as published once its date
// has passed (Post.promote), before PublishDue stores it so, and a term's count must include such an
// event from that instant (docs/API.md "The term object", "Statuses"): reads add the due entries to the stored counts. Due
// entries are few (PublishDue clears them every minute), so a read usually finds none after one seek.

// due is the rule of docs/API.md "Statuses", kept in this one place: a record stored as scheduled is published
// from its date on. Every read applies it (Post.promote), so that responses follow it to the second
// although PublishDue runs once a minute, and so do the status rules of writes (applyStatus) and
// PublishDue. It compares whole seconds, as the bucket's keys hold them; publication dates are whole
// seconds anyway.
func due(date, now time.Time) bool { return date.Unix() <= now.Unix() }

// Effective is the status a record stored with status and date has at now: published once a
// scheduled record is due. The index applies it to the rows it keeps, as reads do to records.
func Effective(status Status, date, now time.Time) Status {
	if status == StatusFuture && due(date, now) {
		return StatusPublish
	}
	return status
}

// entryDue applies due to the date of scheduled entry k.
func entryDue(k []byte, now time.Time) bool { return due(time.Unix(int64(beUint(k)), 0), now) }

// scheduledKey orders entries by date, in whole seconds; dates before 1970 sort first.
func scheduledKey(date time.Time, id uint64) []byte {
	k := make([]byte, 16)
	binary.BigEndian.PutUint64(k, uint64(max(date.Unix(), 0)))
	binary.BigEndian.PutUint64(k[8:], id)
	return k
}

// schedule keeps r's entry in step with a write of r: old is r as loaded before (nil on create).
func schedule(tx kv.RwTx, old *Post, r rec) error {
	if old != nil && old.storedStatus() == StatusFuture {
		if err := tx.Delete(bScheduled, scheduledKey(old.Date, old.ID)); err != nil {
			return err
		}
	}
	p := r.post()
	if p.Status != StatusFuture {
		return nil
	}
	var v []byte
	if e, ok := r.(*Event); ok {
		for _, id := range e.termIDs() {
			v = binary.BigEndian.AppendUint64(v, id)
		}
	}
	return tx.Put(bScheduled, scheduledKey(p.Date, p.ID), v)
}

// dueTermCounts counts, per term, the events stored as scheduled whose date has passed at now; nil
// when no such event has a term.
func dueTermCounts(tx kv.Tx, now time.Time) map[uint64]int {
	var counts map[uint64]int
	c := tx.Cursor(bScheduled)
	for k, v := c.First(); k != nil && entryDue(k, now); k, v = c.Next() {
		for ; len(v) >= 8; v = v[8:] {
			if counts == nil {
				counts = map[uint64]int{}
			}
			counts[binary.BigEndian.Uint64(v)]++
		}
	}
	return counts
}

// NextScheduled returns the earliest publication date after now of a record stored as scheduled, or
// zero if there is none: the next instant at which time alone changes a record (docs/API.md "Statuses").
func (db *DB) NextScheduled(ctx context.Context, now time.Time) (time.Time, error) {
	var next time.Time
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		next = nextScheduled(tx, now)
		return nil
	})
	return next, err
}

// nextScheduled is the earliest date after now of a record stored as scheduled, or zero.
func nextScheduled(tx kv.Tx, now time.Time) time.Time {
	// The first entry not due at now is the first dated at least a second after it.
	k, _ := tx.Cursor(bScheduled).Seek(scheduledKey(now.Add(time.Second), 0))
	if k == nil {
		return time.Time{}
	}
	return time.Unix(int64(binary.BigEndian.Uint64(k)), 0)
}

// futureMarker and publishMarker are how the JSON of schemas 1 and 2 showed a record's status, which
// migrateScheduled reads: a string value escapes its quotes, so neither marker can occur inside one.
var (
	futureMarker  = []byte(`"status":"future"`)
	publishMarker = []byte(`"status":"publish"`)
)

// migrateScheduled builds the scheduled bucket afresh from the stored records and recounts every term
// from the stored statuses. Schema 1 had no bucket. Schema 2 held events only, and could miss a due
// event left scheduled by an update that changed nothing, which had counted it (PublishDue then
// counted it again). Earlier versions counted an update to a due, not yet rewritten scheduled event
// as a change from published to published, so counts could also be one short.
//
// Only scheduled records are decoded. Published events are told by their status marker, scheduled
// records by theirs, and their terms read from the term links: at 1M events decoding each took 50 s.
//
// Its range reads are guarded, as every range read inside a write is, but it migrates files of
// older calendards only: a store in another backend starts at the current schema.
func migrateScheduled(tx kv.RwTx) error {
	if err := tx.DeleteBucket(bScheduled); err != nil {
		return err
	}
	if err := tx.CreateBucketIfNotExists(bScheduled); err != nil {
		return err
	}
	var published []uint64 // ascending, as the bucket's keys are
	for _, t := range []PostType{TypeEvent, TypeVenue, TypeOrganizer} {
		c := tx.GuardedCursor(postBucket(t))
		for k, v := c.First(); k != nil; k, v = c.Next() {
			switch {
			case t == TypeEvent && bytes.Contains(v, publishMarker):
				published = append(published, beUint(k))
			case bytes.Contains(v, futureMarker):
				r, err := decodeRecord(t, v)
				if err != nil {
					return fmt.Errorf("decode %s %d: %w", t, beUint(k), err)
				}
				if r.post().Status == StatusFuture {
					if err := schedule(tx, nil, r); err != nil {
						return err
					}
				}
			}
		}
	}
	counts := map[uint64]int{}
	c := tx.GuardedCursor(bLinkTerm)
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if _, ok := slices.BinarySearch(published, beUint(k[8:])); ok {
			counts[beUint(k[:8])]++
		}
	}
	for _, tax := range []Taxonomy{TaxCategory, TaxTag} {
		var terms []*Term
		c := tx.GuardedCursor(termBucket(tax))
		for k, v := c.First(); k != nil; k, v = c.Next() {
			t, err := decode[Term](nil, 0, v)
			if err != nil {
				return err
			}
			if t.Count != counts[t.ID] {
				t.Count = counts[t.ID]
				terms = append(terms, t)
			}
		}
		for _, t := range terms {
			if err := put(tx, termBucket(tax), t.ID, t); err != nil {
				return err
			}
		}
	}
	return nil
}
