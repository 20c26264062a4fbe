// Package replica is the kv.Store of a cluster node (docs/CLUSTER.md): writes go to the cluster's store (a
// kv.Source: etcdkv), and reads are served by a copy of it in a local bbolt file, which the node keeps
// current by following the source's commits. Reads never leave the node, so a node in cluster mode
// serves lists as fast as the embedded store does, and keeps serving them, stale, while the cluster
// is out of reach.
//
// # Basics
//
// The copy is made the way Kubernetes' API servers fill their watch caches: list, then watch. Open
// takes a snapshot of the whole source at one revision (Source.Snapshot) into a new file, unless the
// data directory already holds a copy of the same source (Source.Identity), and follows the
// source's commits from the copy's revision (Source.Follow), applying each commit in one local
// transaction together with its revision, so that a local read sees whole commits only. A copy behind
// the source's compacted history (a node stopped or cut off for longer than the history is kept) is
// made again from a new snapshot, into a new file that replaces the old one between two reads.
//
// The local file has the embedded store's layout (package boltkv: each bucket a bbolt bucket, its
// sequence the bucket's own) plus one bucket of the copy's own, whose name holds a 0x00 byte, which
// no source bucket's may (etcdkv's layout).
//
// An Update commits to the source and returns once the copy has applied that commit: what a node
// wrote, it reads back at once. Watch tells of commits as the copy applies them, the node's own
// and the others'.
//
// # Caveats
//
// A commit the source took but the copy does not receive in time (the follow stalled) is reported as
// kv.ErrUnavailable, like a commit whose answer was lost: the write may have happened.
//
// A read sees the copy, which may be behind the source: another node's write is seen once the copy
// has applied it, a fraction of a second later in a healthy cluster. A read-write transaction reads
// the source itself, so the rules a write checks are checked against the latest commits.
package replica

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.uber.org/zap"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/boltkv"
)

// bState is the copy's own bucket: its revision and the identity of its source.
var (
	bState    = []byte("\x00replica")
	kRevision = []byte("revision")
	kSource   = []byte("source")
)

// Timings.
const (
	// stall bounds a wait for the copy to apply a revision while it applies nothing at all: a copy
	// that is applying a long backlog is waited for, one whose follow has stopped is not.
	stall = 10 * time.Second
	// retry is the wait before a follow that failed is started again.
	retry = time.Second
	// progressEvery is how often a wait for a revision asks the source for its progress.
	progressEvery = 100 * time.Millisecond
	// copyBatch bounds the keys of a snapshot written in one local transaction.
	copyBatch = 10000
	// mmapSize is the address space the copy is mapped with from the start. bbolt grows its map
	// only when no read transaction is open, so a commit that grows it waits for the reads; reads
	// can wait for a commit to be applied (a read transaction open around a write, a write waiting
	// for its commit in the copy), so the copy is mapped with room to grow, as address space only.
	mmapSize = 1 << 30
)

// Options configure Open.
type Options struct {
	// Logger receives the copy's log lines. Defaults to a no-op logger.
	Logger *zap.Logger
	// LockTimeout bounds the wait for another process's lock on the file. Defaults to one second.
	LockTimeout time.Duration
	// Copied, when set, is told each key a snapshot copies, for progress.
	Copied func(n int)
}

// Store is a kv.Store that writes to a source and reads from a local copy of it.
type Store struct {
	src  kv.Source
	path string
	opts Options
	log  *zap.Logger

	// mu is held for reading by every read transaction and for writing while a new copy replaces the
	// file, so that no read sees the file change under it.
	mu    sync.RWMutex
	local *bolt.DB
	kv    *boltkv.Store

	// applied is the source revision the copy holds; advanced is closed (and replaced) each time it
	// moves.
	applied  atomic.Int64
	amu      sync.Mutex
	advanced chan struct{}

	wmu      sync.Mutex
	watchers map[*watcher]struct{}

	cancel context.CancelFunc
	done   chan struct{}
}

type watcher struct {
	bucket  string
	changed func()
}

var (
	_ kv.Store   = (*Store)(nil)
	_ kv.Copy    = (*Store)(nil)
	_ kv.Watcher = (*Store)(nil)
	_ kv.Elector = (*Store)(nil)
)

// Open opens the copy of src at path, making it when the file is missing, unreadable, or a copy of
// another source, and returns once the copy has caught up with src's latest commit. It then follows
// src until Close. The Store owns src once open (Close closes it); when Open fails, the caller still
// does.
func Open(ctx context.Context, path string, src kv.Source, opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.LockTimeout == 0 {
		opts.LockTimeout = time.Second
	}
	s := &Store{src: src, path: path, opts: opts, log: opts.Logger, advanced: make(chan struct{}),
		watchers: map[*watcher]struct{}{}, done: make(chan struct{})}
	if err := s.openLocal(ctx); err != nil {
		return nil, err
	}
	head, err := src.Revision(ctx)
	if err != nil {
		s.local.Close()
		return nil, err
	}
	fctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.follow(fctx)
	if err := s.await(ctx, head); err != nil {
		s.closeLocal()
		return nil, fmt.Errorf("replica: catch up with %s: %w", src.Identity(), err)
	}
	return s, nil
}

// ErrLocked is returned by Open when another process holds the copy: two nodes cannot share a data
// directory.
var ErrLocked = errors.New("replica: the copy is locked by another process")

// openLocal opens the file at path when it holds a copy of the source, else makes a new copy. The
// file stays open, and locked, while the copy is made: another process opening it waits, then fails.
func (s *Store) openLocal(ctx context.Context) error {
	db, err := bolt.Open(s.path, 0o600, s.boltOptions())
	if err != nil && !errors.Is(err, berrors.ErrTimeout) {
		s.log.Warn("local copy unreadable: copying the cluster again", zap.Error(err))
		if err := os.Remove(s.path); err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		db, err = bolt.Open(s.path, 0o600, s.boltOptions())
	}
	if errors.Is(err, berrors.ErrTimeout) {
		return fmt.Errorf("%w: %s", ErrLocked, s.path)
	}
	if err != nil {
		return fmt.Errorf("replica: open %s: %w", s.path, err)
	}
	s.local, s.kv = db, boltkv.New(db)
	var rev int64
	var source string
	_ = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bState); b != nil {
			if v := b.Get(kRevision); len(v) == 8 {
				rev = int64(binary.BigEndian.Uint64(v))
			}
			source = string(b.Get(kSource))
		}
		return nil
	})
	if rev == 0 || source != s.src.Identity() {
		if rev != 0 {
			s.log.Warn("local copy is of another store: copying the cluster again", zap.String("copy_of", source))
		}
		if err := s.copy(ctx); err != nil {
			db.Close()
			return err
		}
		return nil
	}
	s.applied.Store(rev)
	return nil
}

// copy makes a new copy from a snapshot of the source in a new file, which then replaces the file at
// path (and the open one, between two reads). The new file is written without syncing each batch,
// and synced once whole: until it is renamed into place, a crash leaves only a file to remove.
func (s *Store) copy(ctx context.Context) error {
	start := time.Now()
	tmp := s.path + ".copy"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("replica: %w", err)
	}
	db, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: s.opts.LockTimeout, NoSync: true})
	if err != nil {
		return fmt.Errorf("replica: create %s: %w", tmp, err)
	}
	var batch []kv.Op
	flush := func() error {
		err := db.Update(func(tx *bolt.Tx) error { return applyOps(tx, batch) })
		if s.opts.Copied != nil {
			s.opts.Copied(len(batch))
		}
		batch = batch[:0]
		return err
	}
	rev, err := s.src.Snapshot(ctx, func(op kv.Op) error {
		batch = append(batch, op)
		if len(batch) < copyBatch {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = db.Update(func(tx *bolt.Tx) error { return putState(tx, rev, s.src.Identity()) })
	}
	if err == nil {
		err = db.Sync()
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replica: copy %s: %w", s.src.Identity(), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.local.Close()
	// A rename that fails leaves the old copy in place, opened again: it is followed on, or copied
	// again at the next start.
	renamed := os.Rename(tmp, s.path)
	if renamed == nil {
		syncDir(filepath.Dir(s.path))
	} else {
		os.Remove(tmp)
	}
	db, err = bolt.Open(s.path, 0o600, s.boltOptions())
	if err != nil {
		return fmt.Errorf("replica: open %s: %w", s.path, err)
	}
	s.local, s.kv = db, boltkv.New(db)
	if renamed != nil {
		return fmt.Errorf("replica: %w", renamed)
	}
	s.advance(rev)
	s.log.Info("cluster copied", zap.Int64("revision", rev), zap.Duration("duration", time.Since(start)))
	return nil
}

func (s *Store) boltOptions() *bolt.Options {
	return &bolt.Options{Timeout: s.opts.LockTimeout, InitialMmapSize: mmapSize}
}

// syncDir makes a rename in dir durable. A failure only loses the rename on a crash, and the next
// start then copies the cluster again: not worth failing for.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// applyOps applies ops to the local file in tx, creating the buckets they name.
func applyOps(tx *bolt.Tx, ops []kv.Op) error {
	for _, op := range ops {
		b, err := tx.CreateBucketIfNotExists(op.Bucket)
		if err != nil {
			return fmt.Errorf("bucket %q: %w", op.Bucket, err)
		}
		switch {
		case op.Sequence:
			err = b.SetSequence(op.Seq)
		case op.Delete:
			err = b.Delete(op.Key)
		default:
			err = b.Put(op.Key, op.Value)
		}
		if err != nil {
			return fmt.Errorf("bucket %q: %w", op.Bucket, err)
		}
	}
	return nil
}

func putState(tx *bolt.Tx, rev int64, source string) error {
	b, err := tx.CreateBucketIfNotExists(bState)
	if err != nil {
		return err
	}
	if err := b.Put(kRevision, binary.BigEndian.AppendUint64(nil, uint64(rev))); err != nil {
		return err
	}
	return b.Put(kSource, []byte(source))
}

// follow applies the source's commits until ctx ends, copying the source again when the commits
// after the copy's revision are gone, and starting again after a failure.
func (s *Store) follow(ctx context.Context) {
	defer close(s.done)
	for {
		err := s.src.Follow(ctx, s.applied.Load(), s.apply)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, kv.ErrHistoryGone) {
			s.log.Warn("local copy is behind the cluster's history: copying the cluster again", zap.Error(err))
			err = s.copy(ctx)
			if err == nil {
				s.notifyAll()
				continue
			}
		}
		s.log.Warn("following the cluster failed: trying again", zap.Error(err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
	}
}

// apply applies commits of the source in one local transaction, with the last one's revision: a
// local read sees whole commits, and a backlog costs one sync per batch, not per commit.
func (s *Store) apply(commits []kv.Commit) error {
	applied := s.applied.Load()
	rev := commits[len(commits)-1].Rev
	if rev <= applied {
		return nil // commits a new copy already held
	}
	err := s.local.Update(func(tx *bolt.Tx) error {
		for _, c := range commits {
			if c.Rev <= applied {
				continue
			}
			if err := applyOps(tx, c.Ops); err != nil {
				return err
			}
		}
		return putState(tx, rev, s.src.Identity())
	})
	if err != nil {
		return fmt.Errorf("replica: apply up to revision %d: %w", rev, err)
	}
	s.advance(rev)
	s.notify(commits)
	return nil
}

// advance records rev as applied and wakes the waits.
func (s *Store) advance(rev int64) {
	s.amu.Lock()
	defer s.amu.Unlock()
	s.applied.Store(rev)
	close(s.advanced)
	s.advanced = make(chan struct{})
}

// await waits until the copy has applied rev. It fails when ctx ends or when the copy applies
// nothing for a stall. Meanwhile it asks the source for its progress now and then: rev may be
// another store's commit, on a cluster several stores share, which the copy hears of only so.
func (s *Store) await(ctx context.Context, rev int64) error {
	timer := time.NewTimer(stall)
	defer timer.Stop()
	ask := time.NewTicker(progressEvery)
	defer ask.Stop()
	for {
		s.amu.Lock()
		advanced := s.advanced
		s.amu.Unlock()
		if s.applied.Load() >= rev {
			return nil
		}
		select {
		case <-advanced:
			timer.Reset(stall)
		case <-ask.C:
			_ = s.src.Progress(ctx) // a failure is the follow's to report; the stall bounds the wait
		case <-timer.C:
			return fmt.Errorf("%w: revision %d not received within %v (at %d)", kv.ErrUnavailable, rev, stall, s.applied.Load())
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Path is the local file's path.
func (s *Store) Path() string { return s.path }

// Primary implements kv.Copy.
func (s *Store) Primary() kv.Source { return s.src }

// View implements kv.Store on the local copy.
func (s *Store) View(ctx context.Context, fn func(kv.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.kv.View(ctx, fn)
}

// Update implements kv.Store: the source commits, and the copy applies the commit before Update
// returns.
func (s *Store) Update(ctx context.Context, fn func(kv.RwTx) error) error {
	rev, err := s.src.UpdateAt(ctx, fn)
	if err != nil || rev == 0 {
		return err
	}
	return s.await(ctx, rev)
}

// Watch implements kv.Watcher: changed is called after the copy applies a commit that wrote to
// bucket, and after a new copy replaces the file.
func (s *Store) Watch(ctx context.Context, bucket []byte, changed func()) error {
	w := &watcher{bucket: string(bucket), changed: changed}
	s.wmu.Lock()
	s.watchers[w] = struct{}{}
	s.wmu.Unlock()
	<-ctx.Done()
	s.wmu.Lock()
	delete(s.watchers, w)
	s.wmu.Unlock()
	return ctx.Err()
}

// notify tells each watcher whose bucket commits wrote to, once.
func (s *Store) notify(commits []kv.Commit) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for w := range s.watchers {
		if wrote(commits, w.bucket) {
			w.changed()
		}
	}
}

func wrote(commits []kv.Commit, bucket string) bool {
	for _, c := range commits {
		for _, op := range c.Ops {
			if string(op.Bucket) == bucket {
				return true
			}
		}
	}
	return false
}

func (s *Store) notifyAll() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for w := range s.watchers {
		w.changed()
	}
}

// Elect implements kv.Elector through the source, when it can elect.
func (s *Store) Elect(ctx context.Context, name string, lead func(bool)) error {
	if e, ok := s.src.(kv.Elector); ok {
		return e.Elect(ctx, name, lead)
	}
	return errors.New("replica: the source cannot elect")
}

// Close stops following and closes the copy and the source.
func (s *Store) Close() error { return errors.Join(s.closeLocal(), s.src.Close()) }

// closeLocal stops following and closes the copy.
func (s *Store) closeLocal() error {
	s.cancel()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.local.Close()
}
