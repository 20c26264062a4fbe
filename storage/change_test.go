package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/kv"
)

// TestSubscribe: every follower of the change log wakes for every commit, so that a second follower
// never takes the first one's wake-up; a follower that has unsubscribed is no longer signalled.
func TestSubscribe(t *testing.T) {
	db := mustOpenDB(t)
	first, unsubscribeFirst := db.Subscribe()
	second, unsubscribeSecond := db.Subscribe()
	defer unsubscribeSecond()
	followers := map[string]<-chan struct{}{"first": first, "second": second}
	for i := range 3 {
		mustCreateEvent(t, db, admin, newEvent(t, "Concert"))
		head, err := db.ChangeHead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for name, changed := range followers {
			if seen := follow(t, db, changed); seen != head {
				t.Errorf("write %d: the %s follower woke at position %d, want %d", i, name, seen, head)
			}
		}
	}
	unsubscribeFirst()
	mustCreateEvent(t, db, admin, newEvent(t, "After"))
	follow(t, db, second)
	select {
	case <-first:
		t.Error("a follower that unsubscribed was signalled")
	default:
	}
}

// follow waits, for a few seconds at most, for one signal on changed, as a follower of the log does,
// and returns the change-log position it then reads. It fails the test when no signal comes, or when
// a second one is pending: a commit signals a follower once.
func follow(t *testing.T, db *DB, changed <-chan struct{}) uint64 {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	select {
	case <-changed:
	case <-wctx.Done():
		t.Fatal("a follower was not woken by a commit")
	}
	select {
	case <-changed:
		t.Error("a follower was signalled twice for one commit")
	default:
	}
	head, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return head
}

// TestChangeHeadKeptByTheWriter: on a bbolt file the head is kept in memory as commits return; it
// must be the log's sequence after every write, whatever order concurrent writers' commits return in,
// and read again from the file when the store is opened.
func TestChangeHeadKeptByTheWriter(t *testing.T) {
	db := mustOpenDB(t)
	logged := func() uint64 {
		var seq uint64
		if err := db.kv.View(ctx, func(tx kv.Tx) error { seq = tx.Sequence(bOutbox); return nil }); err != nil {
			t.Fatal(err)
		}
		return seq
	}
	if !db.ownHead {
		t.Fatal("a bbolt file's head is not kept in memory")
	}
	mustCreateEvent(t, db, admin, newEvent(t, "First"))
	if head, _ := db.ChangeHead(ctx); head == 0 || head != logged() {
		t.Fatalf("after a write: head %d, the log's sequence %d", head, logged())
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 5 {
				e := newEvent(t, fmt.Sprintf("Concurrent %d.%d", i, j))
				if _, err := db.CreateEvent(ctx, admin, "en", e); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if head, _ := db.ChangeHead(ctx); head != logged() {
		t.Fatalf("after concurrent writes: head %d, the log's sequence %d", head, logged())
	}
	path := filepath.Join(t.TempDir(), "calendar.db")
	file, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCreateEvent(t, file, admin, newEvent(t, "Saved"))
	want, _ := file.ChangeHead(ctx)
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if head, _ := again.ChangeHead(ctx); head == 0 || head != want {
		t.Fatalf("reopened: head %d, want %d", head, want)
	}
}
