package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"

	"github.com/calendard/calendard/storage/kv"
)

// DocKind is the kind of a document named by a change-log entry, and of the resource an *Error is about.
type DocKind uint8

// Document kinds. Stored in the change log: never renumber.
const (
	DocEvent DocKind = iota + 1
	DocVenue
	DocOrganizer
	DocCategory
	DocTag
)

func (k DocKind) String() string {
	switch k {
	case DocEvent:
		return "event"
	case DocVenue:
		return "venue"
	case DocOrganizer:
		return "organizer"
	case DocCategory:
		return "category"
	case DocTag:
		return "tag"
	}
	return "document kind " + strconv.Itoa(int(k))
}

// Change is one change-log entry: document (Kind, ID) may have changed in the commit that wrote it.
// Consumers re-read the current record, so replaying an entry is harmless.
type Change struct {
	Seq  uint64
	Kind DocKind
	ID   uint64
}

// DocKind is the kind of the documents of records of type t.
func (t PostType) DocKind() DocKind { return docKind(t) }

func docKind(t PostType) DocKind {
	switch t {
	case TypeVenue:
		return DocVenue
	case TypeOrganizer:
		return DocOrganizer
	}
	return DocEvent
}

// DocKind is the kind of the documents of terms of taxonomy t.
func (t Taxonomy) DocKind() DocKind { return termDocKind(t) }

// PostType is the record type of documents of kind k; false for terms.
func (k DocKind) PostType() (PostType, bool) {
	switch k {
	case DocEvent:
		return TypeEvent, true
	case DocVenue:
		return TypeVenue, true
	case DocOrganizer:
		return TypeOrganizer, true
	}
	return 0, false
}

// Taxonomy is the taxonomy of documents of kind k; false for records.
func (k DocKind) Taxonomy() (Taxonomy, bool) {
	switch k {
	case DocCategory:
		return TaxCategory, true
	case DocTag:
		return TaxTag, true
	}
	return 0, false
}

func termDocKind(tax Taxonomy) DocKind {
	if tax == TaxCategory {
		return DocCategory
	}
	return DocTag
}

// logChange appends one entry to the change log inside the writing transaction.
func logChange(tx kv.RwTx, kind DocKind, id uint64) error {
	seq, err := tx.NextSequence(bOutbox)
	if err != nil {
		return err
	}
	return tx.Put(bOutbox, u64(seq), binary.BigEndian.AppendUint64([]byte{byte(kind)}, id))
}

// Changes returns up to limit change-log entries with a sequence number above after, oldest first.
// Returns ErrCompacted if entries above after were trimmed: an empty answer always means "nothing
// newer", never "something missed".
func (db *DB) Changes(ctx context.Context, after uint64, limit int) ([]Change, error) {
	var out []Change
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		if after < changeFloor(tx) {
			return ErrCompacted
		}
		_, err := eachChange(tx, after, limit, func(c Change) { out = append(out, c) })
		return err
	})
	return out, err
}

// eachChange calls fn with up to limit entries of the change log after `after`, oldest first, and
// reports whether it reached the last entry.
func eachChange(tx kv.Tx, after uint64, limit int, fn func(Change)) (end bool, err error) {
	c, n := tx.Cursor(bOutbox), 0
	k, v := c.Seek(u64(after + 1))
	for ; k != nil && n < limit; k, v = c.Next() {
		if len(v) != 9 {
			return false, fmt.Errorf("storage: corrupt change-log entry %x", k)
		}
		fn(Change{Seq: binary.BigEndian.Uint64(k), Kind: DocKind(v[0]), ID: binary.BigEndian.Uint64(v[1:])})
		n++
	}
	return k == nil, nil
}

// changeFloor is the highest trimmed sequence number: the log holds exactly the entries after it up
// to the head, because every sequence number is taken by the entry that commits with it and only
// trimming deletes entries, from the front.
func changeFloor(tx kv.Tx) uint64 {
	if k, _ := tx.Cursor(bOutbox).First(); k != nil {
		return beUint(k) - 1
	}
	return tx.Sequence(bOutbox)
}

// ChangeHead returns the sequence number of the newest change-log entry ever written (0 if none).
func (db *DB) ChangeHead(ctx context.Context) (uint64, error) {
	if db.ownHead {
		return db.head.Load(), nil
	}
	var seq uint64
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		seq = tx.Sequence(bOutbox)
		return nil
	})
	return seq, err
}

// Subscribe returns a channel signalled after every commit that may have appended to the change log,
// and the function that ends the subscription. The signal never blocks the writer and coalesces: a
// follower that is busy when commits arrive finds one signal when it next waits, and reads the log
// from its own position (Changes). Every subscriber has its own channel, so each one wakes for every
// commit: the index's syncer, and any other follower of the log, never take each other's wake-ups.
func (db *DB) Subscribe() (changed <-chan struct{}, unsubscribe func()) {
	return db.followers.add()
}

// followers are the channels Subscribe handed out, each with room for one signal.
type followers struct {
	mu    sync.Mutex
	chans map[chan struct{}]struct{}
}

func (f *followers) add() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.chans == nil {
		f.chans = map[chan struct{}]struct{}{}
	}
	f.chans[ch] = struct{}{}
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.chans, ch)
	}
}

// signal fills every channel's slot that is empty, without waiting for any follower.
func (f *followers) signal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.chans {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
