package storage

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
	"github.com/calendard/calendard/storage/kv/replica"
)

// TestCompactHistory: on a cluster node's store, each CompactHistory compacts etcd's history up to
// the revision the previous call found, so that a follower from before it must copy the store again;
// the first call only records. A store opened on etcd itself is shared too. On an embedded store it
// does nothing.
func TestCompactHistory(t *testing.T) {
	cfg := etcdtest.Shared(t).Config()
	src, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replica.Open(ctx, filepath.Join(t.TempDir(), "replica.db"), src, replica.Options{})
	if err != nil {
		src.Close()
		t.Fatal(err)
	}
	db, err := OpenStore(rep, Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A follower from the revision before the test's writes.
	from, err := src.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	follows := func() error {
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		return src.Follow(fctx, from, func([]kv.Commit) error { cancel(); return nil })
	}

	// Two commits: compaction keeps the revision it is given, so the follower's first one must be
	// before it.
	mustCreateEvent(t, db, admin, newEvent(t, "Before the first call"))
	mustCreateEvent(t, db, admin, newEvent(t, "Just before the first call"))
	if err := db.CompactHistory(ctx); err != nil {
		t.Fatal(err)
	}
	if err := follows(); errors.Is(err, kv.ErrHistoryGone) {
		t.Fatal("the first call compacted")
	}
	mustCreateEvent(t, db, admin, newEvent(t, "Between the calls"))
	if err := db.CompactHistory(ctx); err != nil {
		t.Fatal(err)
	}
	if err := follows(); !errors.Is(err, kv.ErrHistoryGone) {
		t.Errorf("following from before the first call, after the second: %v, want ErrHistoryGone", err)
	}

	// A store opened on etcd itself, as a command opens it, is the cluster's as well.
	direct, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ddb, err := OpenStore(direct, Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer ddb.Close()
	if !ddb.Shared() {
		t.Error("a store opened on etcd itself is not Shared")
	}

	file, err := Open(filepath.Join(t.TempDir(), "calendar.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if err := file.CompactHistory(ctx); err != nil || file.Shared() {
		t.Errorf("an embedded store: CompactHistory = %v, Shared = %v", err, file.Shared())
	}
}
