package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/calendard/calendard/storage/kv"
)

// Records is one page of a scan: records of every type by ID, and the change-log head at the time of
// the read, so a consumer that rebuilds from a full scan knows where to continue in the change log.
type Records struct {
	Events     []*Event
	Venues     []*Venue
	Organizers []*Organizer
	// Head is the change-log head of the snapshot the records were read from.
	Head uint64
	// LastID is the highest ID the post sequence has handed out, for splitting a scan into ranges.
	LastID uint64
	// NextScheduled is the earliest publication date after now of a record stored as scheduled (zero
	// if none), read with the records by Load: that record and term counts change then.
	NextScheduled time.Time
	// More says that Scan stopped at its limit, of records or of bytes, with records left after the
	// page: a scan goes on from the page's last ID until a page says no more.
	More bool
}

// ScanBytes bounds the stored bytes one Scan decodes, beside its limit of records: a thousand events
// whose descriptions fill the body limit would be a gigabyte decoded, where a thousand ordinary ones
// are about 3 MB.
const ScanBytes = 4 << 20

// Scan reads up to limit records of type t with an ID above after, in ID order, and stops after the
// record that brings the bytes it decoded to ScanBytes. Scanning in pages keeps each read transaction
// short (a long one blocks bbolt's page reuse).
func (db *DB) Scan(ctx context.Context, t PostType, after uint64, limit int) (*Records, error) {
	out := &Records{}
	now := db.now()
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		out.Head = tx.Sequence(bOutbox)
		out.LastID = tx.Sequence(bSeqPosts)
		c := tx.Cursor(postBucket(t))
		n, size := 0, 0
		for k, v := c.Seek(u64(after + 1)); k != nil; k, v = c.Next() {
			if n == limit || size >= ScanBytes {
				out.More = true
				break
			}
			n++
			size += len(v)
			var err error
			switch t {
			case TypeEvent:
				err = decodeInto(v, now, &out.Events)
			case TypeVenue:
				err = decodeInto(v, now, &out.Venues)
			case TypeOrganizer:
				err = decodeInto(v, now, &out.Organizers)
			}
			if err != nil {
				return fmt.Errorf("storage: decode %s %x: %w", t, k, err)
			}
		}
		return nil
	})
	return out, err
}

// Count returns how many records of type t the store holds. It walks the bucket's pages without
// decoding a record, so it costs a fraction of a scan: it gives a scan's progress its total.
func (db *DB) Count(ctx context.Context, t PostType) (int, error) {
	var n int
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		n = tx.Count(postBucket(t))
		return nil
	})
	return n, err
}

func decodeInto[T any, P record[T]](v []byte, now time.Time, out *[]P) error {
	r := P(new(T))
	if err := json.Unmarshal(v, r); err != nil {
		return err
	}
	r.post().promote(now)
	*out = append(*out, r)
	return nil
}

// Load reads the given records of type t with everything their responses embed, in one transaction.
// IDs that no longer designate a record of that type are skipped.
func (db *DB) Load(ctx context.Context, t PostType, ids []uint64) (*Records, *Related, error) {
	out := &Records{}
	rel := db.newRelated()
	now := db.now()
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		out.Head = tx.Sequence(bOutbox)
		out.NextScheduled = nextScheduled(tx, now)
		for _, id := range ids {
			var err error
			switch t {
			case TypeEvent:
				var e *Event
				if e, err = readPost[Event](db.cache, tx, t, id, now); err == nil {
					out.Events = append(out.Events, e)
					err = rel.addEvent(tx, e, now)
				}
			case TypeVenue:
				var v *Venue
				if v, err = readPost[Venue](db.cache, tx, t, id, now); err == nil {
					out.Venues = append(out.Venues, v)
					err = rel.addPost(tx, &v.Post, now)
				}
			case TypeOrganizer:
				var o *Organizer
				if o, err = readPost[Organizer](db.cache, tx, t, id, now); err == nil {
					out.Organizers = append(out.Organizers, o)
					err = rel.addPost(tx, &o.Post, now)
				}
			}
			if err != nil && err != ErrNotFound && err != ErrWrongType {
				return err
			}
		}
		return nil
	})
	return out, rel, err
}
