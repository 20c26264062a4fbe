package storage

import (
	"context"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/kv"
)

// TestTrimKeepsTheHorizon: with a horizon, trimming keeps every entry younger than it, whatever the
// caller allows, and goes as far as the caller allows once entries are that old.
func TestTrimKeepsTheHorizon(t *testing.T) {
	now := testNow
	db := openClockDB(t, &now)
	db.horizon = time.Hour
	write := func(n int) uint64 {
		t.Helper()
		for range n {
			mustCreateEvent(t, db, admin, newEvent(t, "Concert"))
		}
		head, err := db.ChangeHead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return head
	}
	trim := func(upTo uint64) int {
		t.Helper()
		n, err := db.TrimChanges(ctx, upTo)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	first := write(3)
	if n := trim(first); n != 0 {
		t.Errorf("entries a moment old: trimmed %d, want 0", n)
	}
	now = now.Add(30 * time.Minute)
	second := write(2)
	if n := trim(second); n != 0 {
		t.Errorf("entries half a horizon old: trimmed %d, want 0", n)
	}
	now = now.Add(31 * time.Minute)
	third := write(1)
	if n := trim(third); n != int(first) {
		t.Errorf("a horizon after the first mark: trimmed %d, want the %d entries it marked", n, first)
	}
	if _, err := db.Changes(ctx, first, 10); err != nil {
		t.Errorf("entries younger than the horizon must stay: %v", err)
	}
	// The caller's bound still holds: the index's checkpoint may be further behind than the horizon.
	now = now.Add(2 * time.Hour)
	if n := trim(second - 1); n != int(second-1-first) {
		t.Errorf("with the caller's bound behind the horizon: trimmed %d, want %d", n, second-1-first)
	}
}

// opLimit is a key-value store that refuses, as etcd does past --max-txn-ops, a transaction that puts
// or deletes more than max keys.
type opLimit struct {
	kv.Store
	max int
}

func (s *opLimit) Update(ctx context.Context, fn func(kv.RwTx) error) error {
	return s.Store.Update(ctx, func(tx kv.RwTx) error {
		counted := &countingTx{RwTx: tx}
		if err := fn(counted); err != nil {
			return err
		}
		if counted.ops > s.max {
			return kv.ErrTooLarge
		}
		return nil
	})
}

// TestTrimPastTheTransactionLimit: a backlog larger than one transaction of the backend takes is
// trimmed whole, in transactions it takes, and the count says what was deleted.
func TestTrimPastTheTransactionLimit(t *testing.T) {
	limit := &opLimit{max: 128} // etcd's default
	db, err := openTestDB(t, Options{Now: func() time.Time { return testNow }, Wrap: func(s kv.Store) kv.Store { limit.Store = s; return limit }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 150 { // 300 entries: an event and its venue each
		in := newEvent(t, "Concert")
		in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Hall")}}}
		mustCreateEvent(t, db, admin, in)
	}
	head, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head <= 2*128 {
		t.Fatalf("%d entries: not past two transactions", head)
	}
	n, err := db.TrimChanges(ctx, head)
	if err != nil || uint64(n) != head {
		t.Errorf("trim of %d entries: %d, %v", head, n, err)
	}
	if left, err := db.Changes(ctx, 0, 10); err == nil || len(left) != 0 {
		t.Errorf("after the trim: %d entries, %v; want none, the log trimmed", len(left), err)
	}
}
