package storage

import (
	"context"
	"testing"
	"time"
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
