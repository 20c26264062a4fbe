package index

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

var checkNow = time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)

func openCheckStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{
		Now: func() time.Time { return checkNow }, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func createEvent(t *testing.T, db *storage.DB, title string) *storage.Event {
	t.Helper()
	start, err := datetime.Parse("2030-05-01 20:00:00")
	if err != nil {
		t.Fatal(err)
	}
	in := &storage.EventInput{PostInput: storage.PostInput{Title: &title}, Start: &start, End: &start}
	e, err := db.CreateEvent(context.Background(), storage.Actor{UserID: 1, Role: storage.RoleAdministrator}, "en", in)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestCheckRepairsDrift(t *testing.T) {
	ctx := context.Background()
	db := openCheckStore(t)
	a, b, c := createEvent(t, db, "Concert"), createEvent(t, db, "Play"), createEvent(t, db, "Talk")
	venue, _, err := db.CreateVenue(ctx, storage.Actor{UserID: 1, Role: storage.RoleAdministrator}, "en",
		&storage.VenueInput{PostInput: storage.PostInput{Title: new("Hall")}})
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	defer ix.Close()
	if n, err := ix.Check(ctx); err != nil || n != 0 {
		t.Fatalf("clean index: Check = %d, %v; want 0, nil", n, err)
	}

	en := ix.langs["en"]
	en.mu.Lock()
	en.proj.event(a.ID).status = stateDraft                                                  // a changed row
	en.proj.setRef(c.ID, en.proj.event(c.ID).startLocal, eventLinks{terms: []uint64{12345}}) // changed links
	en.proj.removeEvent(b.ID)                                                                // a missing row
	delete(en.proj.venues, venue.ID)                                                         // a missing venue
	en.proj.putEvent(eventRow{id: 9999, status: statePublish}, eventLinks{})                 // a row without a record
	en.mu.Unlock()

	n, err := ix.Check(ctx)
	if err != nil || n != 5 {
		t.Fatalf("Check = %d, %v; want 5, nil", n, err)
	}
	en.mu.RLock()
	if r := en.proj.event(a.ID); r == nil || r.status != statePublish {
		t.Errorf("event %d not repaired: %+v", a.ID, r)
	}
	if l := en.proj.linksOf(c.ID); len(l.terms) != 0 {
		t.Errorf("links of event %d not repaired: %+v", c.ID, l)
	}
	if en.proj.event(b.ID) == nil {
		t.Errorf("event %d not restored", b.ID)
	}
	if en.proj.venues[venue.ID] == nil {
		t.Errorf("venue %d not restored", venue.ID)
	}
	if en.proj.event(9999) != nil {
		t.Errorf("row without a record not removed")
	}
	en.mu.RUnlock()
	if n, err := ix.Check(ctx); err != nil || n != 0 {
		t.Errorf("after repair: Check = %d, %v; want 0, nil", n, err)
	}
}

// The check reads an event's position from the venue pass, not from its venue loaded again: a clean
// index must still check clean, and a row whose position drifted must still be repaired.
func TestCheckComparesVenuePositions(t *testing.T) {
	ctx := context.Background()
	db := openCheckStore(t)
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	venue, _, err := db.CreateVenue(ctx, admin, "en", &storage.VenueInput{
		PostInput: storage.PostInput{Title: new("Hall")}, Geo: &storage.Geo{Lat: 52.37, Lng: 4.89}})
	if err != nil {
		t.Fatal(err)
	}
	start, err := datetime.Parse("2030-05-01 20:00:00")
	if err != nil {
		t.Fatal(err)
	}
	e, err := db.CreateEvent(ctx, admin, "en", &storage.EventInput{PostInput: storage.PostInput{Title: new("Concert")},
		Start: &start, End: &start, Venue: &storage.VenueRef{ID: venue.ID}})
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	defer ix.Close()
	counted := &loadCounter{Store: db}
	ix.store = counted
	if n, err := ix.Check(ctx); err != nil || n != 0 {
		t.Fatalf("clean index: Check = %d, %v; want 0, nil", n, err)
	}
	if n := counted.loads.Load(); n != 0 {
		t.Errorf("a clean check loaded records %d times besides its scan", n)
	}
	en := ix.langs["en"]
	en.mu.Lock()
	en.proj.event(e.ID).lat = 0
	en.mu.Unlock()
	if n, err := ix.Check(ctx); err != nil || n != 1 {
		t.Fatalf("Check = %d, %v; want 1, nil", n, err)
	}
	en.mu.RLock()
	defer en.mu.RUnlock()
	if r := en.proj.event(e.ID); !r.hasGeo || r.lat != 52.37 || r.lng != 4.89 {
		t.Errorf("position of event %d not repaired: %+v", e.ID, r)
	}
}

// indexOneConcert is a store holding one event and an index built over it, closed at cleanup.
func indexOneConcert(t *testing.T) (*storage.DB, *storage.Event, *Index) {
	t.Helper()
	db := openCheckStore(t)
	a := createEvent(t, db, "Concert")
	ix := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	t.Cleanup(func() { ix.Close() })
	return db, a, ix
}

// loadCounter counts the Loads, which a check makes only for what it finds drifted.
type loadCounter struct {
	Store
	loads atomic.Int64
}

func (s *loadCounter) Load(ctx context.Context, t storage.PostType, ids []uint64) (*storage.Records, *storage.Related, error) {
	s.loads.Add(1)
	return s.Store.Load(ctx, t, ids)
}

// pausedStore pauses its first Load after reading, until resume is closed; later Loads pass.
type pausedStore struct {
	Store
	paused, resume chan struct{}
	first          atomic.Bool
}

func (s *pausedStore) Load(ctx context.Context, t storage.PostType, ids []uint64) (*storage.Records, *storage.Related, error) {
	recs, rel, err := s.Store.Load(ctx, t, ids)
	if s.first.CompareAndSwap(false, true) {
		close(s.paused)
		<-s.resume
	}
	return recs, rel, err
}

// TestRepairNeverUndoesTheSyncer: a repair that read a record before a write must not apply it after
// the syncer has applied the write. The repair is held between its read and its apply while the
// record is written and the syncer runs; a syncer that finishes meanwhile is the bug, so the test
// gives it 200 ms to.
func TestRepairNeverUndoesTheSyncer(t *testing.T) {
	ctx := context.Background()
	db, a, ix := indexOneConcert(t)
	en := ix.langs["en"]
	en.mu.Lock()
	en.proj.event(a.ID).status = stateDraft // drift for the repair to mend
	en.mu.Unlock()
	ps := &pausedStore{Store: db, paused: make(chan struct{}), resume: make(chan struct{})}
	ix.store = ps

	repaired := make(chan error, 1)
	go func() {
		_, err := ix.reapply(ctx, storage.TypeEvent, []uint64{a.ID}, false)
		repaired <- err
	}()
	<-ps.paused
	if _, err := db.UpdateEvent(ctx, storage.Actor{UserID: 1, Role: storage.RoleAdministrator}, a.ID,
		&storage.EventInput{Featured: new(true)}); err != nil {
		t.Fatal(err)
	}
	synced := make(chan error, 1)
	go func() {
		_, err := ix.SyncOnce(ctx)
		synced <- err
	}()
	var syncErr error
	syncDone := false
	select {
	case syncErr = <-synced:
		syncDone = true
	case <-time.After(200 * time.Millisecond):
	}
	close(ps.resume)
	if err := <-repaired; err != nil {
		t.Fatal(err)
	}
	if !syncDone {
		syncErr = <-synced
	}
	if syncErr != nil {
		t.Fatal(syncErr)
	}
	en.mu.RLock()
	r := en.proj.event(a.ID)
	en.mu.RUnlock()
	if r == nil || !r.featured || r.status != statePublish {
		t.Errorf("row after a repair and a sync: %+v, want the written state (featured, publish)", r)
	}
	// A row that matches the store when the repair reads it again is no drift.
	if fixed, err := ix.reapply(ctx, storage.TypeEvent, []uint64{a.ID}, false); err != nil || len(fixed) != 0 {
		t.Errorf("reapply of a matching row: %v, %v; want nothing repaired", fixed, err)
	}
}

func TestSyncAfterTrim(t *testing.T) {
	ctx := context.Background()
	db := openCheckStore(t)
	createEvent(t, db, "Before")
	dir := filepath.Join(t.TempDir(), "index")
	ix := openIndex(t, dir, db)
	createEvent(t, db, "Synced")
	if _, err := ix.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	cp := ix.Applied()
	if cp == 0 {
		t.Fatalf("Applied = 0 after a sync")
	}
	if _, err := db.TrimChanges(ctx, cp); err != nil {
		t.Fatal(err)
	}
	after := createEvent(t, db, "After the trim")
	if _, err := ix.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if ix.langs["en"].proj.event(after.ID) == nil {
		t.Errorf("event written after the trim is not in the projection")
	}
	ix.Close()
	// A restart replays from the checkpoint, which the trim left in place.
	ix = openIndex(t, dir, db)
	defer ix.Close()
	if n, err := ix.Check(ctx); err != nil || n != 0 {
		t.Errorf("after reopening: Check = %d, %v; want 0, nil", n, err)
	}
}

// TestRepairRefreshesTextMatches: a repair changes Bleve without moving the applied position; it moves
// the version instead, so that remembered text matches (and cached lists) do not outlive it.
func TestRepairRefreshesTextMatches(t *testing.T) {
	ctx := context.Background()
	_, a, ix := indexOneConcert(t)
	en := ix.langs["en"]
	search := func() *roaring64.Bitmap {
		t.Helper()
		set, err := en.textMatches(ctx, "concert", ix.Version(), false)
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	// Drift: the event's document is lost and its row changed; the search remembers the loss.
	if err := en.bleve.Delete(docID(storage.TypeEvent, a.ID)); err != nil {
		t.Fatal(err)
	}
	en.mu.Lock()
	en.proj.event(a.ID).status = stateDraft
	en.mu.Unlock()
	if contains(search(), a.ID) {
		t.Fatal("the lost document is still found")
	}
	before := ix.Version()
	if n, err := ix.Check(ctx); err != nil || n != 1 {
		t.Fatalf("Check = %d, %v; want 1, nil", n, err)
	}
	if after := ix.Version(); !before.Less(after) || after.Applied != before.Applied {
		t.Errorf("version %+v after the repair, %+v before", after, before)
	}
	if !contains(search(), a.ID) {
		t.Error("after the repair, the search still misses the event")
	}
}

// TestResyncPastTheTrimmedLog: an index whose position the change log was trimmed past (a cluster
// node that fell further behind than the horizon) resyncs with the store while it runs: a record
// renamed, one trashed and one created meanwhile are all found as the store has them, and the index
// then follows the log again from its head.
func TestResyncPastTheTrimmedLog(t *testing.T) {
	ctx := context.Background()
	db, a, ix := indexOneConcert(t)
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	b := createEvent(t, db, "Lecture")
	if _, err := ix.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	// Written while the index does not follow, then trimmed away.
	renamed := "Symphony"
	if _, err := db.UpdateEvent(ctx, admin, a.ID, &storage.EventInput{PostInput: storage.PostInput{Title: &renamed}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TrashEvent(ctx, admin, b.ID); err != nil {
		t.Fatal(err)
	}
	c := createEvent(t, db, "Opera")
	head, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.TrimChanges(ctx, head); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.SyncOnce(ctx); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("SyncOnce past the trimmed log = %v, want ErrCompacted", err)
	}

	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	notify := make(chan struct{}, 1)
	go func() { done <- ix.Run(rctx, notify) }()
	defer func() { cancel(); <-done }()
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := ix.WaitApplied(wctx, head); err != nil {
		t.Fatalf("the index did not resync: applied %d, head %d", ix.Applied(), head)
	}
	search := func(q string) []uint64 {
		t.Helper()
		p, err := ix.Events(ctx, &EventFilter{Lang: "en", Visibility: Visibility{Actor: admin}, Now: checkNow,
			Start: checkNow, End: checkNow.AddDate(10, 0, 0), Search: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return p.IDs
	}
	for q, want := range map[string][]uint64{"symphony": {a.ID}, "concert": nil, "lecture": nil, "opera": {c.ID}} {
		if got := search(q); !slices.Equal(got, want) {
			t.Errorf("search %q after the resync = %v, want %v", q, got, want)
		}
	}
	if n, err := ix.Check(ctx); err != nil || n != 0 {
		t.Errorf("Check after the resync = %d, %v; want 0, nil", n, err)
	}

	// Following the log again.
	d := createEvent(t, db, "Ballet")
	notify <- struct{}{}
	if err := ix.WaitApplied(wctx, head+1); err != nil {
		t.Fatalf("the index does not follow the log after the resync: %v", err)
	}
	if got := search("ballet"); !slices.Equal(got, []uint64{d.ID}) {
		t.Errorf("search ballet = %v, want [%d]", got, d.ID)
	}
}

// TestCheckRestsBetweenPages: the check rests after every full page of records it compared, and
// stops when its context ends while it rests. How long it rests (checkRest times the page's work) is
// the machine's timing, which no test asserts.
func TestCheckRestsBetweenPages(t *testing.T) {
	ctx := context.Background()
	db := openCheckStore(t)
	start, err := datetime.Parse("2030-05-01 20:00:00")
	if err != nil {
		t.Fatal(err)
	}
	err = db.Bulk(ctx, storage.Actor{UserID: 1, Role: storage.RoleAdministrator}, func(b *storage.Bulk) error {
		for range 2*scanPage + 10 { // two full pages and a partial one
			if _, err := b.CreateEvent("en", &storage.EventInput{PostInput: storage.PostInput{Title: new("Concert")}, Start: &start, End: &start}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	defer ix.Close()

	var rests []time.Duration
	ix.rest = func(_ context.Context, d time.Duration) error {
		rests = append(rests, d)
		return nil
	}
	if n, err := ix.Check(ctx); err != nil || n != 0 {
		t.Fatalf("Check = %d, %v; want 0, nil", n, err)
	}
	if len(rests) != 2 || rests[0] <= 0 || rests[1] <= 0 {
		t.Errorf("rests %v, want two, after the full pages", rests)
	}

	rests = nil
	ix.rest = func(_ context.Context, d time.Duration) error {
		rests = append(rests, d)
		return context.Canceled
	}
	if _, err := ix.Check(ctx); !errors.Is(err, context.Canceled) || len(rests) != 1 {
		t.Errorf("a check whose context ends while it rests: %v after %d rests, want context.Canceled after 1", err, len(rests))
	}
}
