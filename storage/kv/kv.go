// Package kv is the transactional key-value interface the store keeps its records in: named buckets
// of ordered keys, read in read transactions and changed in read-write ones. Package storage keeps
// every rule that spans records; a backend only keeps bytes. This is the seam cluster mode plugs into (docs/CLUSTER.md):
// boltkv is the embedded backend, the default, and etcdkv the cluster's, on etcd (in the shape of
// clientv3/concurrency's STM), so that the store's logic does not fork.
//
// # Basics
//
// A transaction is a function. Store.View runs one in a read transaction, which sees one consistent
// snapshot. Store.Update runs one in a read-write transaction, committed when the function returns
// nil and rolled back when it returns an error. Both types of transaction read single keys
// through Getter; a read transaction also walks a bucket's keys in order with a Cursor. A bucket's
// keys are ordered bytewise. Every bucket has a sequence, a counter that NextSequence advances in
// the transaction and that commits with it: the store takes its IDs from these.
//
// A bucket is named before it is used: a read-write transaction creates it once
// (CreateBucketIfNotExists), and every method given the name of a missing bucket may panic.
//
// # Caveats
//
// Keys and values handed out are valid only until the transaction ends, and must not be modified:
// bbolt's point into its memory map. Copy what must outlive the transaction. In the other direction,
// a bucket name must not change until the transaction ends: a backend may keep it (boltkv keeps a
// read transaction's buckets by name).
//
// A write to a bucket while a cursor walks it leaves the cursor's position undefined: collect the
// keys first, then write.
//
// Reads return no error. A backend whose reads can fail (over a network) aborts the transaction
// and returns the error from View or Update, as etcd's STM does.
//
// A read-write transaction reads by key (Getter). A range read in it goes through GuardedCursor
// alone, so that every one is found by name. A backend with optimistic transactions re-runs a
// transaction when what it read has changed before its commit: etcd's STM tracks the keys read by
// Get, but not a range, so such a backend must add the whole range to its conflict check (for
// instance by comparing the range's highest modification revision at commit). bbolt runs one
// writer at a time, so there a guarded cursor is a plain one. A key designed to be read by key is
// better than a guarded range; package storage lists the guarded ranges it keeps, and why.
//
// A backend that retries may run an Update function more than once. The function must leave the
// same results outside the transaction on every run: it assigns its results, never appends to
// what a previous run left.
package kv

import (
	"context"
	"errors"
	"io"
)

// ErrUnavailable is returned by a backend over a network when it could not reach its servers in time,
// or they could not serve, and the same call can succeed later. A write that failed before its commit
// was sent wrote nothing; one whose commit was sent and whose answer was lost (a timeout, a leader
// lost meanwhile) may have been applied, and the caller cannot tell which. A bbolt file is never
// unavailable.
var ErrUnavailable = errors.New("kv: store unavailable")

// ErrTooLarge is returned by an Update whose commit exceeds what the backend takes in one transaction
// (etcd's operations and bytes per request): nothing of it was written, and the same write fails
// again until it is smaller or the limits are raised. A bbolt file has no such limit.
var ErrTooLarge = errors.New("kv: write too large for one transaction")

// ErrNoSpace is returned by an Update whose commit found no room on the disk (a full file system, or
// a quota reached): nothing of it was written, and the same write can succeed once space returns.
var ErrNoSpace = errors.New("kv: no space left on the device")

// ErrLocked is returned by a backend kept in a file when another process holds the file's lock past
// the wait it was given.
var ErrLocked = errors.New("kv: the file is locked by another process")

// Store is a transactional store of buckets of ordered keys.
type Store interface {
	// View runs fn in a read transaction. It returns fn's error, the backend's, or ctx's error when ctx
	// is done before the transaction starts.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction, committed when fn returns nil and rolled back
	// otherwise. It returns fn's error, the backend's (a commit that failed: ErrNoSpace when the disk
	// had no room for it), or ctx's error when ctx is done before the transaction starts. A nil error
	// means the writes are durable.
	Update(ctx context.Context, fn func(RwTx) error) error
	// Close releases the store; transactions must have ended.
	Close() error
}

// Watcher is a Store that other processes write too: etcdkv, whose cluster every node of calendard
// writes. A process learns of its own commits when they return; Watch tells it of everyone's.
type Watcher interface {
	// Watch calls changed after each commit, by any writer, that wrote to bucket (a burst of commits
	// may be told once), until ctx is done. It returns ctx's error then, or the backend's when it can
	// no longer watch. changed must not block.
	Watch(ctx context.Context, bucket []byte, changed func()) error
}

// Elector is a Store that several processes share and that can choose one of them: etcdkv, whose
// nodes run the cluster-wide jobs on one node (docs/CLUSTER.md).
type Elector interface {
	// Elect campaigns for the leadership called name among the store's processes until ctx is done:
	// lead(true) when this process becomes the leader, lead(false) when it stops being it (it can no
	// longer reach the cluster to keep it, or ctx ended). A leader that ends stops leading, then
	// resigns, so that another takes over at once and never while it still leads; one that dies is
	// replaced within the leadership's lease. It returns ctx's error.
	Elect(ctx context.Context, name string, lead func(bool)) error
}

// File is a Store kept in one file on this machine: boltkv's file, and a cluster node's copy of etcd
// (package replica). The store's disk usage is the file's size.
type File interface {
	// Path is the file's path.
	Path() string
}

// Backuper is a Store that copies itself whole into a file that the same backend opens, as of one
// commit: boltkv, whose backup is a bbolt file. A store without it is backed up through its keys.
type Backuper interface {
	// Backup writes a consistent copy of the whole store to w from one read transaction, so writers
	// go on meanwhile, and returns the number of bytes written. Cancelling ctx aborts it.
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// ErrHistoryGone is returned by Source.Follow when the commits after the revision asked for are no
// longer kept (etcd compacted them): a copy that far behind must be made again from a snapshot.
var ErrHistoryGone = errors.New("kv: history compacted past the revision asked for")

// Source is a Store that other processes write and that a process can keep a copy of: etcdkv,
// whose cluster every node of calendard writes and which every node copies into a local file, so
// that reads never leave the node (package replica, docs/CLUSTER.md). Each commit has a revision, and
// revisions increase in commit order.
type Source interface {
	Store
	// UpdateAt is Update that also returns the revision of its commit, 0 when fn wrote nothing.
	UpdateAt(ctx context.Context, fn func(RwTx) error) (int64, error)
	// Snapshot calls put with every key and every sequence of the store as of one revision, bucket by
	// bucket and each bucket's keys in order, and returns that revision.
	Snapshot(ctx context.Context, put func(Op) error) (int64, error)
	// Follow calls apply with the commits after revision after, in commit order and a few at a time
	// (those that arrived together), until ctx is done or apply fails. A commit without operations
	// tells that nothing this store holds changed up to its revision: revisions the store shares with
	// others (etcd's are the cluster's) move on without it (Progress). It returns ErrHistoryGone when
	// those commits are no longer kept, apply's error, ctx's, or the backend's when it can no longer
	// follow (then the same call can be made again from the last revision applied).
	Follow(ctx context.Context, after int64, apply func([]Commit) error) error
	// Progress asks the Follow in progress to tell, as a commit without operations, the store's
	// revision once it has caught up with it. It may not be told (the follow was not caught up
	// then): a caller waiting for a revision asks again.
	Progress(ctx context.Context) error
	// Revision returns the revision of the store's latest commit.
	Revision(ctx context.Context) (int64, error)
	// Compact discards the history of commits up to revision rev: Follow from before it then
	// returns ErrHistoryGone.
	Compact(ctx context.Context, rev int64) error
	// Identity names the store: a copy made of another store is not followed from this one.
	Identity() string
}

// Copy is a Store whose reads are served by a local copy of a Source, and whose writes go to the
// Source: package replica.
type Copy interface {
	Store
	// Primary is the store copied.
	Primary() Source
}

// Commit is what one commit of a Source did: its revision and its operations, in order.
type Commit struct {
	Rev int64
	Ops []Op
}

// Op is one operation of a commit, or one key of a snapshot: Value stored at Key in Bucket, the
// key deleted (Delete), or, when Sequence is set, the bucket's sequence set to Seq (0 when deleted).
type Op struct {
	Bucket, Key, Value []byte
	Delete             bool
	Sequence           bool
	Seq                uint64
}

// Getter reads single keys, in both types of transaction: code that reads by key serves reads and
// writes alike.
type Getter interface {
	// Get returns the value of key in bucket, or nil if the key is absent. A key present with an
	// empty value returns a non-nil empty slice.
	Get(bucket, key []byte) []byte
	// Sequence returns the bucket's sequence: the last number NextSequence handed out, 0 if none.
	Sequence(bucket []byte) uint64
}

// Tx is a read transaction.
type Tx interface {
	Getter
	// Cursor walks the keys of bucket in order.
	Cursor(bucket []byte) Cursor
	// Count returns the number of keys in bucket.
	Count(bucket []byte) int
}

// RwTx is a read-write transaction. It reads what it wrote.
type RwTx interface {
	Getter
	// Put sets the value of key in bucket. The key must not be empty.
	Put(bucket, key, value []byte) error
	// Delete removes key from bucket; deleting an absent key is not an error.
	Delete(bucket, key []byte) error
	// NextSequence advances the bucket's sequence and returns the new value, 1 the first time.
	NextSequence(bucket []byte) (uint64, error)
	// SetSequence sets the bucket's sequence, so that NextSequence continues after n: an importer
	// that keeps a source's IDs moves the sequence past them in one step.
	SetSequence(bucket []byte, n uint64) error
	// GuardedCursor walks the keys of bucket in order, inside a write: the one range read a
	// read-write transaction has, which an optimistic backend must add to its conflict check (see
	// the package doc).
	GuardedCursor(bucket []byte) Cursor
	// CreateBucketIfNotExists creates bucket, empty and with sequence 0, unless it exists.
	CreateBucketIfNotExists(bucket []byte) error
	// DeleteBucket deletes bucket with its keys and sequence; it must be created again before use.
	DeleteBucket(bucket []byte) error
}

// Cursor walks the keys of one bucket in order. Each method returns the key and value it moved to,
// or a nil key past the last one.
type Cursor interface {
	// First moves to the first key.
	First() (key, value []byte)
	// Seek moves to the first key at or after seek.
	Seek(seek []byte) (key, value []byte)
	// Next moves to the key after the current one.
	Next() (key, value []byte)
}
