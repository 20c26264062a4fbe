package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/calendard/calendard/storage/kv"
)

// Copying a store from one backend to another: `calendard migrate --to-etcd` copies a calendar.db
// file into an etcd prefix, and `calendard backup` in cluster mode copies the etcd prefix into a
// standalone calendar.db file, so that any backup restores into either mode (docs/CLUSTER.md).

// CopyLimits bound what one write transaction of a copy holds: a backend such as etcd refuses larger
// ones (kv.ErrTooLarge). A zero field takes its default.
type CopyLimits struct {
	// Ops bounds the keys (and sequences) one transaction writes.
	Ops int
	// Bytes bounds the keys and values one transaction writes.
	Bytes int
}

// Defaults of CopyLimits: under etcd's defaults (128 operations, 1.5 MiB a request), with room for a
// bucket's creation and sequence.
const (
	DefaultCopyOps   = 100
	DefaultCopyBytes = 1 << 20
)

// kCopying marks a store a copy is writing: written first and deleted last, so that a copy cut short
// is never opened as a store (Open returns ErrIncomplete).
var kCopying = []byte("copy_incomplete")

// ErrIncomplete is returned by Open and OpenStore for a store that a copy (CopyTo) began and did not
// finish: it holds part of another store. Delete it (the file, or the etcd prefix) and copy again.
var ErrIncomplete = errors.New("storage: the store is an unfinished copy")

// ErrNotEmpty is returned by CopyTo when the destination holds keys already.
var ErrNotEmpty = errors.New("storage: the copy's destination is not empty")

// CopyTo copies every bucket of the store, with its keys and sequence, into dst, which must be empty,
// as of one read transaction: the store as of one commit (for etcd, one revision), while writers go
// on. The copy is written in transactions within limits; the destination is marked unfinished until
// the last one, so that a copy cut short is refused by Open instead of read as a store. progress, when
// not nil, is told after each transaction of the keys copied so far and of their and their values'
// bytes.
func (db *DB) CopyTo(ctx context.Context, dst kv.Store, limits CopyLimits, progress func(keys int, bytes int64)) error {
	if limits.Ops <= 0 {
		limits.Ops = DefaultCopyOps
	}
	if limits.Bytes <= 0 {
		limits.Bytes = DefaultCopyBytes
	}
	// The buckets first (harmless on any store), so that the check reads them all.
	if err := dst.Update(ctx, func(tx kv.RwTx) error {
		for _, name := range topBuckets {
			if err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("storage: copy: %w", err)
	}
	if err := checkEmpty(ctx, dst); err != nil {
		return err
	}
	if err := dst.Update(ctx, func(tx kv.RwTx) error { return tx.Put(bMeta, kCopying, []byte{1}) }); err != nil {
		return fmt.Errorf("storage: copy: %w", err)
	}
	type put struct{ bucket, key, value []byte }
	var batch []put
	size, copied, copiedBytes := 0, 0, int64(0)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := dst.Update(ctx, func(tx kv.RwTx) error {
			for _, p := range batch {
				if err := tx.Put(p.bucket, p.key, p.value); err != nil {
					return err
				}
			}
			return nil
		})
		copied += len(batch)
		copiedBytes += int64(size)
		batch, size = batch[:0], 0
		if err == nil && progress != nil {
			progress(copied, copiedBytes)
		}
		return err
	}
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		for _, name := range topBuckets {
			bucket := []byte(name)
			if seq := tx.Sequence(bucket); seq != 0 {
				if err := dst.Update(ctx, func(w kv.RwTx) error { return w.SetSequence(bucket, seq) }); err != nil {
					return err
				}
			}
			c := tx.Cursor(bucket)
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if bytes.Equal(bucket, bMeta) && bytes.Equal(k, kCopying) {
					continue // a store is never copied from an unfinished copy (Open refuses one)
				}
				if len(batch) == limits.Ops || size+len(k)+len(v) > limits.Bytes {
					if err := flush(); err != nil {
						return err
					}
				}
				// The transaction's slices are valid only inside it, and flush runs in another.
				batch = append(batch, put{bucket, bytes.Clone(k), bytes.Clone(v)})
				size += len(k) + len(v)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return flush()
	})
	if err == nil {
		err = dst.Update(ctx, func(tx kv.RwTx) error { return tx.Delete(bMeta, kCopying) })
	}
	if err != nil {
		return fmt.Errorf("storage: copy: %w", err)
	}
	return nil
}

// checkEmpty returns ErrNotEmpty when any bucket of the store's layout holds a key in dst (whose
// buckets exist).
func checkEmpty(ctx context.Context, dst kv.Store) error {
	return dst.View(ctx, func(tx kv.Tx) error {
		for _, name := range topBuckets {
			if k, _ := tx.Cursor([]byte(name)).First(); k != nil {
				return fmt.Errorf("%w: bucket %s has keys", ErrNotEmpty, name)
			}
		}
		return nil
	})
}
