package replica_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
	"github.com/calendard/calendard/storage/kv/kvtest"
	"github.com/calendard/calendard/storage/kv/replica"
)

func TestMain(m *testing.M) { etcdtest.Main(m) }

var (
	ctx  = context.Background()
	recs = []byte("records")
)

// TestContract: the copy answers the kv contract as its source does: every read of the contract's
// tests is served by the local file, every write goes through etcd.
func TestContract(t *testing.T) {
	srv := etcdtest.Shared(t)
	kvtest.Run(t, func(t *testing.T) kv.Store {
		s, err := replica.Open(ctx, filepath.Join(t.TempDir(), "copy.db"), srv.Open(t), replica.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// node is one process's view of a shared prefix: a copy at path, and the config to open more.
type node struct {
	cfg  etcdkv.Config
	path string
	// copied counts the keys snapshots copied, to tell a new copy from a resumed one.
	copied atomic.Int64
}

func newNode(t *testing.T, srv *etcdtest.Server) *node {
	return &node{cfg: srv.Config(), path: filepath.Join(t.TempDir(), "copy.db")}
}

func (n *node) source(t *testing.T) *etcdkv.Store {
	t.Helper()
	src, err := etcdkv.Open(ctx, n.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func (n *node) open(t *testing.T) *replica.Store {
	t.Helper()
	s, err := replica.Open(ctx, n.path, n.source(t), replica.Options{Copied: func(k int) { n.copied.Add(int64(k)) }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stoppedNode is a node that wrote a = 1 into a new prefix of the shared member, and stopped.
func stoppedNode(t *testing.T) *node {
	n := newNode(t, etcdtest.Shared(t))
	s := n.open(t)
	put(t, s, "a", "1")
	s.Close()
	return n
}

func put(t *testing.T, s kv.Store, key, value string) {
	t.Helper()
	err := s.Update(ctx, func(tx kv.RwTx) error {
		if err := tx.CreateBucketIfNotExists(recs); err != nil {
			return err
		}
		if _, err := tx.NextSequence(recs); err != nil {
			return err
		}
		return tx.Put(recs, []byte(key), []byte(value))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// read returns key's value and the bucket's sequence as the store's read transactions see them.
func read(t *testing.T, s kv.Store, key string) (string, uint64) {
	t.Helper()
	var v []byte
	var seq uint64
	if err := s.View(ctx, func(tx kv.Tx) error {
		v, seq = tx.Get(recs, []byte(key)), tx.Sequence(recs)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return string(v), seq
}

// waitFor polls cond until it holds, failing the test after a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestOthersWrites: a commit by another process reaches the copy, with its sequence, and its
// watchers are told; a deletion too.
func TestOthersWrites(t *testing.T) {
	srv := etcdtest.Shared(t)
	n := newNode(t, srv)
	s := n.open(t)
	defer s.Close()
	other := n.source(t)
	defer other.Close()

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var told atomic.Int32
	go s.Watch(wctx, recs, func() { told.Add(1) })
	time.Sleep(50 * time.Millisecond) // the watcher registers
	put(t, other, "a", "1")
	waitFor(t, "the other's write in the copy", func() bool { v, seq := read(t, s, "a"); return v == "1" && seq == 1 })
	waitFor(t, "the watcher told", func() bool { return told.Load() > 0 })

	if err := other.Update(ctx, func(tx kv.RwTx) error { return tx.Delete(recs, []byte("a")) }); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the other's deletion in the copy", func() bool { v, _ := read(t, s, "a"); return v == "" })
}

// TestOwnWriteReadAtOnce: Update returns once the copy holds the commit, so a read right after it
// sees it, every time.
func TestOwnWriteReadAtOnce(t *testing.T) {
	s := newNode(t, etcdtest.Shared(t)).open(t)
	defer s.Close()
	for i := range 50 {
		put(t, s, "k", strconv.Itoa(i))
		if v, seq := read(t, s, "k"); v != strconv.Itoa(i) || seq != uint64(i+1) {
			t.Fatalf("after write %d the copy reads %q, sequence %d", i, v, seq)
		}
	}
}

// TestResume: a node that restarts follows from its copy's revision instead of copying again, and
// applies what was written while it was away.
func TestResume(t *testing.T) {
	n := stoppedNode(t)
	first := n.copied.Load()

	other := n.source(t)
	defer other.Close()
	put(t, other, "b", "2")

	s := n.open(t)
	defer s.Close()
	if got := n.copied.Load(); got != first {
		t.Errorf("the restart copied %d keys again; it should have followed from its revision", got-first)
	}
	if v, _ := read(t, s, "b"); v != "2" {
		t.Errorf("the write made while the node was away reads %q, want 2", v)
	}
}

// TestBehindCompaction: a node whose copy is older than the cluster's compacted history copies the
// cluster again (list, then watch) and serves what was written while it was away.
func TestBehindCompaction(t *testing.T) {
	n := stoppedNode(t)
	first := n.copied.Load()

	other := n.source(t)
	defer other.Close()
	put(t, other, "b", "2")
	put(t, other, "a", "3")
	if err := etcdtest.Shared(t).Compact(ctx); err != nil {
		t.Fatal(err)
	}

	s := n.open(t)
	defer s.Close()
	if n.copied.Load() == first {
		t.Error("the node behind the compacted history did not copy the cluster again")
	}
	for key, want := range map[string]string{"a": "3", "b": "2"} {
		if v, _ := read(t, s, key); v != want {
			t.Errorf("after the new copy %s reads %q, want %q", key, v, want)
		}
	}
	if _, seq := read(t, s, "a"); seq != 3 {
		t.Errorf("the sequence reads %d after the new copy, want 3", seq)
	}
	// And it follows on from the new copy.
	put(t, other, "c", "4")
	waitFor(t, "a write after the new copy", func() bool { v, _ := read(t, s, "c"); return v == "4" })
}

// TestCopyOfAnotherStore: a data directory holding a copy of another prefix (or cluster) is copied
// again, never followed from a revision that is not its source's.
func TestCopyOfAnotherStore(t *testing.T) {
	n := stoppedNode(t)

	m := newNode(t, etcdtest.Shared(t))
	m.path = n.path
	s := m.open(t)
	defer s.Close()
	if m.copied.Load() != 0 {
		t.Errorf("copied %d keys from an empty prefix", m.copied.Load())
	}
	if v, _ := read(t, s, "a"); v != "" {
		t.Errorf("the copy of another prefix still reads a = %q", v)
	}
}

// TestUnreadableCopy: a copy that is not a bbolt file any more is made again.
func TestUnreadableCopy(t *testing.T) {
	n := stoppedNode(t)
	if err := os.WriteFile(n.path, []byte("not a database, but long enough to be read as one's first page"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := n.open(t)
	defer s.Close()
	if v, _ := read(t, s, "a"); v != "1" {
		t.Errorf("after copying again a reads %q, want 1", v)
	}
}

// TestReadsWithoutTheCluster: with the cluster out of reach, reads are served from the copy and
// writes fail with kv.ErrUnavailable within the request timeout.
func TestReadsWithoutTheCluster(t *testing.T) {
	srv, err := etcdtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	n := newNode(t, srv)
	n.cfg.RequestTimeout = 300 * time.Millisecond
	s := n.open(t)
	defer s.Close()
	put(t, s, "a", "1")
	srv.Close() // seconds: the member waits for the copy's watch stream before it gives up on it

	if v, _ := read(t, s, "a"); v != "1" {
		t.Errorf("without the cluster a reads %q, want 1", v)
	}
	start := time.Now()
	err = s.Update(ctx, func(tx kv.RwTx) error { return tx.Put(recs, []byte("b"), []byte("2")) })
	if !errors.Is(err, kv.ErrUnavailable) {
		t.Errorf("a write without the cluster: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 10*n.cfg.RequestTimeout {
		t.Errorf("the failed write took %v", d)
	}
}

// cutOff is a source whose follows the test can cut, as a partition from the cluster would: while
// cut, a follow fails at once.
type cutOff struct {
	kv.Source
	mu  sync.Mutex
	cut bool
	// stop ends the follow in progress.
	stop context.CancelFunc
}

func (c *cutOff) Follow(ctx context.Context, after int64, apply func([]kv.Commit) error) error {
	c.mu.Lock()
	if c.cut {
		c.mu.Unlock()
		return kv.ErrUnavailable
	}
	ctx, c.stop = context.WithCancel(ctx)
	c.mu.Unlock()
	return c.Source.Follow(ctx, after, apply)
}

func (c *cutOff) setCut(cut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = cut
	if cut && c.stop != nil {
		c.stop()
	}
}

// TestCopyAgainWhileServing: a running node cut off from the cluster while its history is compacted
// past the node's revision makes a new copy once it is back, and its reads, which went on from the
// old copy meanwhile, move to the new one.
func TestCopyAgainWhileServing(t *testing.T) {
	srv := etcdtest.Shared(t)
	n := newNode(t, srv)
	src := &cutOff{Source: n.source(t)}
	s, err := replica.Open(ctx, n.path, src, replica.Options{Copied: func(k int) { n.copied.Add(int64(k)) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, "a", "1")
	first := n.copied.Load()

	src.setCut(true)
	other := n.source(t)
	defer other.Close()
	put(t, other, "a", "2")
	put(t, other, "c", "3") // compaction keeps its own revision: the node's next one must go
	if err := srv.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := read(t, s, "a"); v != "1" {
		t.Errorf("cut off, the node reads a = %q, want the 1 it had", v)
	}
	src.setCut(false)
	waitFor(t, "the new copy", func() bool { v, _ := read(t, s, "a"); return v == "2" })
	if n.copied.Load() == first {
		t.Error("the node caught up without a new copy, past a compacted history")
	}
	put(t, other, "b", "3")
	waitFor(t, "a write after the new copy", func() bool { v, _ := read(t, s, "b"); return v == "3" })
}

// heldSnapshot is a source whose Snapshot waits, once started, until release is closed.
type heldSnapshot struct {
	kv.Source
	started, release chan struct{}
}

func (h *heldSnapshot) Snapshot(ctx context.Context, put func(kv.Op) error) (int64, error) {
	close(h.started)
	<-h.release
	return h.Source.Snapshot(ctx, put)
}

// TestOneNodePerCopy: a second process opening a data directory whose copy another holds fails with
// ErrLocked, while the first is still making the copy as afterwards.
func TestOneNodePerCopy(t *testing.T) {
	n := newNode(t, etcdtest.Shared(t))
	held := &heldSnapshot{Source: n.source(t), started: make(chan struct{}), release: make(chan struct{})}
	opened := make(chan *replica.Store)
	go func() {
		s, err := replica.Open(ctx, n.path, held, replica.Options{})
		if err != nil {
			t.Error(err)
		}
		opened <- s
	}()
	<-held.started
	second := func(when string) {
		src := n.source(t)
		defer src.Close()
		if _, err := replica.Open(ctx, n.path, src, replica.Options{LockTimeout: 50 * time.Millisecond}); !errors.Is(err, replica.ErrLocked) {
			t.Errorf("a second node on the same copy %s: %v, want ErrLocked", when, err)
		}
	}
	second("while the first makes it")
	close(held.release)
	s := <-opened
	if s == nil {
		t.FailNow()
	}
	defer s.Close()
	second("once it is made")
}

// TestCatchUpPastOtherPrefixes: a node opening while the cluster's latest commits are another
// prefix's (several stores share one etcd) catches up: the cluster's revision moves with writes its
// watch never sees.
func TestCatchUpPastOtherPrefixes(t *testing.T) {
	n := stoppedNode(t)
	elsewhere := newNode(t, etcdtest.Shared(t)).source(t)
	defer elsewhere.Close()
	put(t, elsewhere, "x", "1")
	s := n.open(t) // fails once the copy has waited a stall for its prefix's next commit
	s.Close()
}
