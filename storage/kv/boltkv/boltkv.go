// Package boltkv is the kv.Store on a bbolt file: calendard's embedded store, and its default.
//
// A kv bucket is the top-level bbolt bucket of the same name, keys and values are stored as given,
// and a bucket's sequence is the bbolt bucket's own (bolt.Bucket.NextSequence). Files written
// through this package are the files calendard wrote before the kv seam, byte for byte.
//
// bbolt runs one read-write transaction at a time, so a guarded cursor needs no guard here: it is
// a plain cursor.
package boltkv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/calendard/calendard/storage/kv"
)

// Store is a kv.Store on an open bbolt database, which it owns: Close closes it.
type Store struct{ db *bolt.DB }

// New returns the kv.Store on db, which the caller opened with bbolt's options of its choice.
func New(db *bolt.DB) *Store { return &Store{db: db} }

// Options configure Open.
type Options struct {
	// Timeout bounds the wait for another process's lock on the file; zero waits as long as it takes.
	Timeout time.Duration
	// ReadOnly opens an existing file for reading, under a lock that other readers share.
	ReadOnly bool
}

// Open opens the bbolt file at path, creating it unless opts.ReadOnly. It returns an error wrapping
// kv.ErrLocked when another process holds the file past opts.Timeout, and bbolt's own error, as it
// is, when the file cannot be opened or is not a bbolt file.
func Open(path string, opts Options) (*Store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.Timeout, ReadOnly: opts.ReadOnly})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s", kv.ErrLocked, path)
	}
	if err != nil {
		return nil, err
	}
	return New(db), nil
}

var (
	_ kv.Store    = (*Store)(nil)
	_ kv.File     = (*Store)(nil)
	_ kv.Backuper = (*Store)(nil)
)

// View implements kv.Store. bbolt takes no context, so ctx is checked once, before the transaction.
func (s *Store) View(ctx context.Context, fn func(kv.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.View(func(tx *bolt.Tx) error { return fn(&readTx{tx: tx}) })
}

// Update implements kv.Store. bbolt takes no context, so ctx is checked once, before the
// transaction.
func (s *Store) Update(ctx context.Context, fn func(kv.RwTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return noSpace(s.db.Update(func(tx *bolt.Tx) error { return fn(writeTx{tx}) }))
}

// noSpace marks a commit that the file system had no room for (ENOSPC, or EDQUOT for a quota) as
// kv.ErrNoSpace; its message stays the file system's. Other errors are returned as they are.
func noSpace(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return noSpaceError{err}
	}
	return err
}

// noSpaceError is a write's failure for want of disk space: errors.Is finds both kv.ErrNoSpace and
// the file system's error in it.
type noSpaceError struct{ err error }

func (e noSpaceError) Error() string   { return e.err.Error() }
func (e noSpaceError) Unwrap() []error { return []error{kv.ErrNoSpace, e.err} }

// Close closes the bbolt database.
func (s *Store) Close() error { return s.db.Close() }

// Path implements kv.File.
func (s *Store) Path() string { return s.db.Path() }

// Backup implements kv.Backuper: it writes the file's pages as one read transaction sees them
// (bbolt's Tx.WriteTo), so the copy is a bbolt file as of one commit. ctx is checked before the
// transaction and before each write.
func (s *Store) Backup(ctx context.Context, w io.Writer) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(ctxWriter{ctx: ctx, w: w})
		return err
	})
	return n, err
}

// ctxWriter fails a write once ctx is done, which ends the copy that makes it.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// Buckets returns the names of the file's buckets, in order. A read transaction reads a missing
// bucket as an empty one; a check of a file's format asks here which buckets it has.
func (s *Store) Buckets() ([]string, error) {
	var names []string
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, string(name))
			return nil
		})
	})
	return names, err
}

// Check verifies the file's pages and free list (bbolt's Tx.Check) and returns the first
// inconsistency found: the consistency check tests run on a store they wrote.
func (s *Store) Check() error {
	return s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
}

// readCacheSize bounds the buckets a read transaction keeps open: more than a list page reads.
const readCacheSize = 12

// readTx keeps the buckets it opens. bbolt keeps a write transaction's, but opens a read
// transaction's again on every lookup, at three allocations each, and a list page reads a few
// buckets hundreds of times: the cache costs one allocation per transaction instead. It holds the
// callers' bucket names, which do not change (kv: Caveats).
type readTx struct {
	tx      *bolt.Tx
	n       int
	names   [readCacheSize][]byte
	buckets [readCacheSize]*bolt.Bucket
}

func (t *readTx) bucket(name []byte) *bolt.Bucket {
	for i := range t.n {
		if bytes.Equal(t.names[i], name) {
			return t.buckets[i]
		}
	}
	b := t.tx.Bucket(name)
	if t.n < readCacheSize {
		t.names[t.n], t.buckets[t.n] = name, b
		t.n++
	}
	return b
}

// A read transaction reads a missing bucket as an empty one: a copy of another store (package
// replica) holds only the buckets something was written to, while the store it copies may have
// named more.

func (t *readTx) Get(bucket, key []byte) []byte {
	if b := t.bucket(bucket); b != nil {
		return b.Get(key)
	}
	return nil
}

func (t *readTx) Sequence(bucket []byte) uint64 {
	if b := t.bucket(bucket); b != nil {
		return b.Sequence()
	}
	return 0
}

// Cursor returns bbolt's own cursor, which is a kv.Cursor as it is.
func (t *readTx) Cursor(bucket []byte) kv.Cursor {
	if b := t.bucket(bucket); b != nil {
		return b.Cursor()
	}
	return emptyCursor{}
}

// Count walks the bucket's pages, without a key-by-key cursor.
func (t *readTx) Count(bucket []byte) int {
	if b := t.bucket(bucket); b != nil {
		return b.Stats().KeyN
	}
	return 0
}

// emptyCursor walks a missing bucket.
type emptyCursor struct{}

func (emptyCursor) First() (key, value []byte)      { return nil, nil }
func (emptyCursor) Seek([]byte) (key, value []byte) { return nil, nil }
func (emptyCursor) Next() (key, value []byte)       { return nil, nil }

// writeTx holds only the *bolt.Tx, so that an interface value holds it without an allocation.
type writeTx struct{ tx *bolt.Tx }

func (t writeTx) Get(bucket, key []byte) []byte { return t.tx.Bucket(bucket).Get(key) }
func (t writeTx) Sequence(bucket []byte) uint64 { return t.tx.Bucket(bucket).Sequence() }

// Put stores a nil value as an empty one: bbolt's Get in the same transaction would report a nil
// value as an absent key, and the stored bytes are the same.
func (t writeTx) Put(bucket, key, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	return t.tx.Bucket(bucket).Put(key, value)
}

func (t writeTx) Delete(bucket, key []byte) error { return t.tx.Bucket(bucket).Delete(key) }

func (t writeTx) NextSequence(bucket []byte) (uint64, error) {
	return t.tx.Bucket(bucket).NextSequence()
}

func (t writeTx) SetSequence(bucket []byte, n uint64) error {
	return t.tx.Bucket(bucket).SetSequence(n)
}

func (t writeTx) GuardedCursor(bucket []byte) kv.Cursor { return t.tx.Bucket(bucket).Cursor() }

func (t writeTx) CreateBucketIfNotExists(bucket []byte) error {
	_, err := t.tx.CreateBucketIfNotExists(bucket)
	return err
}

func (t writeTx) DeleteBucket(bucket []byte) error { return t.tx.DeleteBucket(bucket) }
