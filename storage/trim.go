package storage

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// trimBatch bounds the change-log entries one write transaction deletes.
const trimBatch = 10000

// TrimChanges deletes the change-log entries with a sequence number up to upTo and reports how many it
// deleted. Callers pass a position every consumer has durably applied (index.Index.Checkpoint): a
// consumer that restarts replays the log from its checkpoint and must find every entry after it.
// Sequence numbers keep increasing after a trim: the bucket's sequence is not affected by deletes, so
// ChangeHead and new entries continue from where they were.
func (db *DB) TrimChanges(ctx context.Context, upTo uint64) (int, error) {
	total := 0
	for {
		n := 0
		err := db.update(ctx, func(tx *bolt.Tx) error {
			n = 0
			b := tx.Bucket(bOutbox)
			var keys [][]byte
			c := b.Cursor()
			// Deleting while iterating a bbolt cursor skips keys, so collect first.
			for k, _ := c.First(); k != nil && beUint(k) <= upTo && len(keys) < trimBatch; k, _ = c.Next() {
				keys = append(keys, k)
			}
			for _, k := range keys {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
			n = len(keys)
			return nil
		})
		total += n
		if err != nil {
			return total, fmt.Errorf("storage: trim change log: %w", err)
		}
		if n < trimBatch {
			return total, nil
		}
	}
}
