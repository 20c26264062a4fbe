package storage

import (
	"bytes"
	"encoding/binary"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The scheduled bucket indexes the events stored as `future` by publication date, with their terms.
// Every read reports such an event as published once its date has passed (Post.promote), before
// PublishDue stores it so, and a term's count must include it from that instant (CONTRACT 3.5, 8.4):
// reads add the due entries to the stored counts. Due entries are few (PublishDue clears them every
// minute), so a read usually finds none after one seek.

// scheduledKey orders entries by date. Publication dates are whole seconds, so a date is due exactly
// when its seconds are at most the current time's (Post.promote's !date.After(now)).
func scheduledKey(date time.Time, id uint64) []byte {
	k := make([]byte, 16)
	binary.BigEndian.PutUint64(k, uint64(max(date.Unix(), 0)))
	binary.BigEndian.PutUint64(k[8:], id)
	return k
}

// schedule keeps e's entry in step with a write: old is the event as stored before (nil on create).
func schedule(tx *bolt.Tx, old, e *Event) error {
	b := tx.Bucket(bScheduled)
	if old != nil && old.storedStatus() == StatusFuture {
		if err := b.Delete(scheduledKey(old.Date, old.ID)); err != nil {
			return err
		}
	}
	if e.Status != StatusFuture {
		return nil
	}
	terms := e.termIDs()
	v := make([]byte, 0, 8*len(terms))
	for _, id := range terms {
		v = binary.BigEndian.AppendUint64(v, id)
	}
	return b.Put(scheduledKey(e.Date, e.ID), v)
}

// dueTermCounts counts, per term, the events stored as scheduled whose date has passed at now; nil
// when there are none.
func dueTermCounts(tx *bolt.Tx, now time.Time) map[uint64]int {
	var due map[uint64]int
	limit := uint64(max(now.Unix(), 0))
	c := tx.Bucket(bScheduled).Cursor()
	for k, v := c.First(); k != nil && binary.BigEndian.Uint64(k) <= limit; k, v = c.Next() {
		if due == nil {
			due = map[uint64]int{}
		}
		for ; len(v) >= 8; v = v[8:] {
			due[binary.BigEndian.Uint64(v)]++
		}
	}
	return due
}

// nextScheduled is the earliest date after now of an event stored as scheduled, or zero.
func nextScheduled(tx *bolt.Tx, now time.Time) time.Time {
	k, _ := tx.Bucket(bScheduled).Cursor().Seek(scheduledKey(now.Add(time.Second), 0))
	if k == nil {
		return time.Time{}
	}
	return time.Unix(int64(binary.BigEndian.Uint64(k)), 0)
}

// migrateScheduled builds the scheduled bucket of a store written before it existed, and recounts
// every term from the stored statuses: earlier versions counted an update to a due, not yet rewritten
// scheduled event as a change from published to published, so their counts could be one short.
//
// Only scheduled events are decoded. Published ones are told by their status marker, as PublishDue
// tells scheduled ones, and their terms read from the term links: at 1M events decoding each took 50 s.
func migrateScheduled(tx *bolt.Tx) error {
	var published []uint64 // ascending, as the bucket's keys are
	err := tx.Bucket(bEvents).ForEach(func(k, v []byte) error {
		switch {
		case bytes.Contains(v, publishMarker):
			published = append(published, beUint(k))
		case bytes.Contains(v, futureMarker):
			e, err := decode[Event](nil, 0, v)
			if err != nil {
				return err
			}
			if e.Status == StatusFuture {
				return schedule(tx, nil, e)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	counts := map[uint64]int{}
	err = tx.Bucket(bLinkTerm).ForEach(func(k, _ []byte) error {
		if _, ok := slices.BinarySearch(published, beUint(k[8:])); ok {
			counts[beUint(k[:8])]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, tax := range []Taxonomy{TaxCategory, TaxTag} {
		var terms []*Term
		if err := tx.Bucket(termBucket(tax)).ForEach(func(k, v []byte) error {
			t, err := decode[Term](nil, 0, v)
			if err == nil && t.Count != counts[t.ID] {
				t.Count = counts[t.ID]
				terms = append(terms, t)
			}
			return err
		}); err != nil {
			return err
		}
		for _, t := range terms {
			if err := put(tx, termBucket(tax), t.ID, t); err != nil {
				return err
			}
		}
	}
	return nil
}
