package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/calendard/calendard/storage/kv"
)

// trimBatch bounds the change-log entries one write transaction deletes. A backend that takes fewer
// operations in one transaction (etcd: 128 by default) refuses it with kv.ErrTooLarge, and TrimChanges
// halves the batch until it passes: one call finds the size the backend takes, and a backlog larger
// than that is trimmed all the same.
const trimBatch = 10000

// TrimChanges deletes the change-log entries with a sequence number up to upTo and reports how many it
// deleted. Callers pass a position every consumer has durably applied (index.Index.Checkpoint): a
// consumer that restarts replays the log from its checkpoint and must find every entry after it.
// Sequence numbers keep increasing after a trim: the bucket's sequence is not affected by deletes, so
// ChangeHead and new entries continue from where they were.
//
// With Options.ChangesHorizon, entries younger than the horizon are kept whatever upTo says, so a
// change-feed cursor stays valid that long: each call marks the current head with the time (bucket
// outbox_marks, key: Unix seconds, value: the head), and trims no further than the head of the newest
// mark at least a horizon old; older marks go. Until a mark is that old, nothing is trimmed. Without
// the horizon, nothing after the cursor of an enabled webhook is trimmed.
func (db *DB) TrimChanges(ctx context.Context, upTo uint64) (int, error) {
	if db.horizon > 0 {
		keep, err := db.markChanges(ctx)
		if err != nil {
			return 0, fmt.Errorf("storage: trim change log: %w", err)
		}
		upTo = min(upTo, keep)
	} else {
		// Without a horizon the log would go as soon as the index has it: an enabled webhook keeps
		// what it has not delivered yet. With one, the horizon keeps at least that much, and a
		// webhook further behind resyncs (README "Webhooks").
		floor, err := db.webhookFloor(ctx)
		if err != nil {
			return 0, fmt.Errorf("storage: trim change log: %w", err)
		}
		upTo = min(upTo, floor)
	}
	total, batch := 0, trimBatch
	for {
		n := 0
		err := db.update(ctx, func(tx kv.RwTx) error {
			var keys [][]byte
			// Deleting while a cursor walks the bucket moves the cursor, so collect first.
			c := tx.GuardedCursor(bOutbox)
			for k, _ := c.First(); k != nil && beUint(k) <= upTo && len(keys) < batch; k, _ = c.Next() {
				keys = append(keys, k)
			}
			for _, k := range keys {
				if err := tx.Delete(bOutbox, k); err != nil {
					return err
				}
			}
			n = len(keys)
			return nil
		})
		switch {
		case errors.Is(err, kv.ErrTooLarge) && batch > 1:
			batch /= 2
			continue
		case err != nil:
			// What the transactions before it deleted stays deleted: total says how much.
			return total, fmt.Errorf("storage: trim change log: %w", err)
		}
		total += n
		if n < batch {
			return total, nil
		}
	}
}

// markChanges records the change-log head at the store's now and returns the head of the newest mark
// at least a horizon old (0 when there is none), deleting the marks before it.
func (db *DB) markChanges(ctx context.Context) (keep uint64, err error) {
	now := db.now()
	err = db.update(ctx, func(tx kv.RwTx) error {
		keep = 0
		if err := tx.Put(bOutboxMarks, u64(uint64(now.Unix())), u64(tx.Sequence(bOutbox))); err != nil {
			return err
		}
		// The marks at least a horizon old come first (the one just written is younger): the newest
		// of them gives keep, and the ones before it go.
		cutoff := uint64(now.Add(-db.horizon).Unix())
		var old [][]byte
		var newest []byte
		c := tx.GuardedCursor(bOutboxMarks)
		for k, v := c.First(); k != nil && beUint(k) <= cutoff; k, v = c.Next() {
			if newest != nil {
				old = append(old, newest)
			}
			newest, keep = k, beUint(v)
		}
		for _, k := range old {
			if err := tx.Delete(bOutboxMarks, k); err != nil {
				return err
			}
		}
		return nil
	})
	return keep, err
}
