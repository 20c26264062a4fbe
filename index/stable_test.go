package index

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// TestStableUntil: lists change when an event starts or a scheduled record is published; rendered
// records change only at a publication. Nothing ahead means "check again in an hour".
func TestStableUntil(t *testing.T) {
	ctx := context.Background()
	db := openCheckStore(t)
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	at := func(d time.Duration) time.Time { return checkNow.Add(d) }
	add := func(title string, start time.Time, status storage.Status, date time.Time) {
		t.Helper()
		s, err := datetime.Parse(start.UTC().Format(datetime.DB))
		if err != nil {
			t.Fatal(err)
		}
		in := &storage.EventInput{PostInput: storage.PostInput{Title: &title, Status: &status, Date: &date}, Start: &s, End: &s}
		if _, err := db.CreateEvent(ctx, admin, "en", in); err != nil {
			t.Fatal(err)
		}
	}
	add("Started", at(-time.Hour), storage.StatusPublish, checkNow)
	add("Soon", at(time.Hour), storage.StatusPublish, checkNow)
	add("Scheduled", at(3*time.Hour), storage.StatusFuture, at(2*time.Hour))
	ix := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	defer ix.Close()

	for _, c := range []struct {
		now             time.Duration
		stable, publish time.Duration
	}{
		{0, time.Hour, 2 * time.Hour},
		{30 * time.Minute, time.Hour, 2 * time.Hour}, // the same answer, reused
		{90 * time.Minute, 2 * time.Hour, 2 * time.Hour},
		{150 * time.Minute, 3 * time.Hour, 150*time.Minute + time.Hour},
		{4 * time.Hour, 5 * time.Hour, 5 * time.Hour},
		{time.Hour, 2 * time.Hour, 2 * time.Hour}, // the clock went back
	} {
		now := at(c.now)
		if got := ix.StableUntil(now); !got.Equal(at(c.stable)) {
			t.Errorf("StableUntil(now+%v) = now+%v, want now+%v", c.now, got.Sub(checkNow), c.stable)
		}
		if got := ix.NextPublication(now); !got.Equal(at(c.publish)) {
			t.Errorf("NextPublication(now+%v) = now+%v, want now+%v", c.now, got.Sub(checkNow), c.publish)
		}
	}
}
