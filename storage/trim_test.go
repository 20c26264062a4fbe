package storage

import (
	"testing"
	"time"
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
