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
		if got := ix.StableUntil(ctx, now); !got.Equal(at(c.stable)) {
			t.Errorf("StableUntil(now+%v) = now+%v, want now+%v", c.now, got.Sub(checkNow), c.stable)
		}
		if got := ix.NextPublication(ctx, now); !got.Equal(at(c.publish)) {
			t.Errorf("NextPublication(now+%v) = now+%v, want now+%v", c.now, got.Sub(checkNow), c.publish)
		}
	}
}

// TestNextPublicationOfEveryRecordType: the next publication is that of the first scheduled record of
// any type, read from the store's scheduled records as the dates pass. When the store cannot be
// read, an answer computed now is stable only until now.
func TestNextPublicationOfEveryRecordType(t *testing.T) {
	ctx := context.Background()
	db := openCheckStore(t)
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	at := func(d time.Duration) time.Time { return checkNow.Add(d) }
	scheduled := func(title string, d time.Duration) storage.PostInput {
		date := at(d)
		return storage.PostInput{Title: &title, Status: ptr(storage.StatusFuture), Date: &date}
	}
	if _, _, err := db.CreateOrganizer(ctx, admin, "en", &storage.OrganizerInput{PostInput: scheduled("Org", time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.CreateVenue(ctx, admin, "fr", &storage.VenueInput{PostInput: scheduled("Salle", 2*time.Hour)}); err != nil {
		t.Fatal(err)
	}
	start, err := datetime.Parse(at(24 * time.Hour).UTC().Format(datetime.DB))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateEvent(ctx, admin, "de", &storage.EventInput{PostInput: scheduled("Konzert", 3*time.Hour), Start: &start, End: &start}); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	defer ix.Close()
	for _, c := range []struct{ now, want time.Duration }{
		{0, time.Hour},
		{time.Hour, 2 * time.Hour},
		{2 * time.Hour, 3 * time.Hour},
		{3 * time.Hour, 4 * time.Hour}, // nothing ahead: check again in an hour
	} {
		if got := ix.NextPublication(ctx, at(c.now)); !got.Equal(at(c.want)) {
			t.Errorf("NextPublication(now+%v) = now+%v, want now+%v", c.now, got.Sub(checkNow), c.want)
		}
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if got := ix.StableUntil(gone, at(5*time.Hour)); !got.Equal(at(5 * time.Hour)) {
		t.Errorf("StableUntil without the store = now+%v, want now+5h", got.Sub(checkNow))
	}
}
