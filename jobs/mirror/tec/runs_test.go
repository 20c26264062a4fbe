package tec_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
	"github.com/calendard/calendard/storage"
)

// clockSite is a fake site in UTC whose clock and the importer's are now, with a handler that answers
// 500 to every request whose path and query contain *failing (when set).
func clockSite(t *testing.T, now *time.Time) (site *tectest.Site, root string, failing *string) {
	t.Helper()
	site = tectest.New()
	site.User, site.Password, site.Now = siteUser, sitePass, func() time.Time { return *now }
	failing = new(string)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *failing != "" && strings.Contains(r.URL.RequestURI(), *failing) {
			http.Error(w, `{"code":"internal_server_error"}`, http.StatusInternalServerError)
			return
		}
		site.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return site, srv.URL + "/wp-json", failing
}

// TestEndedBetweenRuns: an event that ends between two runs leaves /wp/v2's list; the next cheap run
// asks its single route once, and it stays published.
func TestEndedBetweenRuns(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	id := site.Put(tectest.Events, event(0, "publish", "Ends Soon", "2026-11-22 09:00:00", "2026-11-22 10:30:00", nil))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
	opts := mirror.Options{Now: func() time.Time { return now }}
	wantReport(t, sync(t, im, opts), "added 1, updated 0, trashed 0, unchanged 0, failed 0")
	for _, want := range []int64{1, 0} { // asked when it leaves the list, not after
		now = now.Add(time.Hour)
		site.Details.Store(0)
		wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 1, failed 0")
		if got := site.Details.Load(); got != want {
			t.Errorf("%d detail fetches, want %d", got, want)
		}
	}
	if e, _, err := db.Event(context.Background(), id); err != nil || e.Status != storage.StatusPublish {
		t.Errorf("ended event: %+v %v, want it published", e, err)
	}
}

// TestPastEditArrives: an edit to an event that has ended is on no cheap run's list; the complete
// walk that runs once FullEvery has passed brings it, together with the deletion of another past
// event. A walk that fails half way trashes nothing, reports the run failed, and the next run walks
// again.
func TestPastEditArrives(t *testing.T) {
	now := siteNow
	site, root, failing := clockSite(t, &now)
	var ids []uint64
	for i := range 60 { // two pages of the events list
		ids = append(ids, site.Put(tectest.Events, event(0, "publish", fmt.Sprintf("Past %d", i), "2025-06-01 10:00:00", "2025-06-01 12:00:00", nil)))
	}
	site.Put(tectest.Events, event(0, "publish", "Upcoming", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
	im.FullEvery = 6 * time.Hour
	opts := mirror.Options{Now: func() time.Time { return now }}
	wantReport(t, sync(t, im, opts), "added 61, updated 0, trashed 0, unchanged 0, failed 0")

	edited, deleted := ids[len(ids)-1], ids[0] // on the list's second page and first
	now = now.Add(time.Minute)
	site.Update(tectest.Events, edited, map[string]any{"title": "Past, edited"})
	site.Delete(tectest.Events, deleted)
	ctx := context.Background()
	title := func() string {
		e, _, err := db.Event(ctx, edited)
		if err != nil {
			t.Fatal(err)
		}
		return e.Title
	}
	status := func() storage.Status {
		e, _, err := db.Event(ctx, deleted)
		if err != nil {
			t.Fatal(err)
		}
		return e.Status
	}
	now = now.Add(time.Hour)
	wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 61, failed 0")
	if title() != "Past 59" || status() != storage.StatusPublish {
		t.Errorf("after a cheap run: title %q, deleted event %s; want neither seen yet", title(), status())
	}

	now = now.Add(6 * time.Hour)
	*failing = "/tribe/events/v1/events?end_date=2999-12-31+23%3A59%3A59&page=2"
	rep, err := im.Sync(ctx, opts)
	if err == nil || rep.Trashed != 0 {
		t.Fatalf("walk failing on its second page: %v, %v; want an error and nothing trashed", rep, err)
	}
	if status() != storage.StatusPublish {
		t.Errorf("deleted event after a failed walk: %s, want it still published", status())
	}
	*failing = ""
	now = now.Add(5 * time.Minute)
	wantReport(t, sync(t, im, opts), "added 0, updated 1, trashed 1, unchanged 59, failed 0")
	if title() != "Past, edited" || status() != storage.StatusTrash {
		t.Errorf("after the walk: title %q, deleted event %s; want the edit and the trash", title(), status())
	}
}

// TestScheduledEventOnSite: a scheduled event's modification time on the site is its publication
// date, ahead of now; the cheap runs still ask /wp/v2 for what changed since the newest modification
// they know that is not ahead, so an edit made meanwhile arrives at the next one, not at the next walk,
// however far apart the runs are.
func TestScheduledEventOnSite(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	site.Put(tectest.Events, event(0, "future", "Later", "2030-06-01 10:00:00", "2030-06-01 12:00:00", map[string]any{"date_utc": "2027-01-15 08:00:00"}))
	gig := site.Put(tectest.Events, event(0, "publish", "Gig", "2030-07-01 10:00:00", "2030-07-01 12:00:00", nil))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, siteUser, sitePass)
	opts := mirror.Options{Now: func() time.Time { return now }}
	sync(t, im, opts)
	now = now.Add(time.Hour)
	sync(t, im, opts)
	now = now.Add(time.Hour)
	site.Update(tectest.Events, gig, map[string]any{"title": "Gig, moved"})
	now = now.Add(time.Hour) // runs further apart than the overlap
	sync(t, im, opts)
	if e, _, err := db.Event(context.Background(), gig); err != nil || e.Title != "Gig, moved" {
		t.Errorf("the event edited on the site: %+v (%v), want its new title at the next cheap run", e, err)
	}
}

// TestEarlierVersionsStamps: a record an earlier version imported (its link's stamp is modified
// alone) is written again at the next complete walk, so that what that version read wrongly (here an
// event's website, the page URL kept as if it were its own) is as the site has it; then it counts as
// unchanged again.
func TestEarlierVersionsStamps(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	id := site.Put(tectest.Events, event(0, "publish", "Gig", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, siteUser, sitePass)
	opts := mirror.Options{Now: func() time.Time { return now }}
	sync(t, im, opts)
	ctx := context.Background()
	links, err := db.Linked(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	key := "event:" + strconv.FormatUint(id, 10)
	old, _, _ := strings.Cut(links[key].Stamp, "|")
	page := "https://site.example/event/gig/"
	err = db.Bulk(ctx, admin, func(b *storage.Bulk) error {
		if _, _, err := b.PutEvent(id, "en", &storage.EventInput{Website: &page}); err != nil {
			return err
		}
		return b.Link(root, key, links[key].Doc, old)
	})
	if err != nil {
		t.Fatal(err)
	}

	now = now.Add(tec.DefaultFullEvery)
	wantReport(t, sync(t, im, opts), "added 0, updated 1, trashed 0, unchanged 0, failed 0")
	if e, _, err := db.Event(ctx, id); err != nil || e.Website != nil {
		t.Errorf("website after the walk: %v (%v), want none, as the site has it", e.Website, err)
	}
	now = now.Add(tec.DefaultFullEvery)
	wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 1, failed 0")
}

// TestInterruptedRun: a run interrupted midway (Ctrl-C) keeps every record it wrote whole, and the
// next run writes only the rest.
func TestInterruptedRun(t *testing.T) {
	site := tectest.New()
	site.Now = func() time.Time { return siteNow }
	for id := 100; id < 220; id++ {
		site.Put(tectest.Events, event(id, "publish", "Event", "2030-01-01 10:00:00", "2030-01-01 11:00:00", nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/tribe/events/v1/events") && r.URL.Query().Get("page") == "2" {
			cancel() // the operator's Ctrl-C, while the second page is on its way
		}
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}, "", "")
	rep, err := im.Sync(ctx, mirror.Options{})
	if !errors.Is(err, context.Canceled) || rep.Added != 50 {
		t.Fatalf("interrupted run: %v, %v; want context.Canceled after the first page's 50 events", rep, err)
	}
	wantReport(t, sync(t, im, mirror.Options{}), "added 70, updated 0, trashed 0, unchanged 50, failed 0")
}
