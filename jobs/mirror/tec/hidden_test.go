package tec_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
	"github.com/calendard/calendard/storage"
)

// TestHiddenFromListings: an event hidden from listings is still on the site. A cheap run imports it
// through /wp/v2; a full walk, whose events list leaves it out, asks its single route instead of
// trashing it, and so also keeps up with an event hidden since the last run.
func TestHiddenFromListings(t *testing.T) {
	site, srv := newSite(t)
	site.Put(tectest.Events, event(44, "publish", "Private Party", "2030-08-01 20:00:00", "2030-08-01 23:00:00", map[string]any{"hide_from_listings": true}))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}, "", "")
	wantReport(t, sync(t, im, mirror.Options{}), "added 8, updated 0, trashed 0, unchanged 0, failed 1")
	site.HideWP = true
	site.Put(tectest.Events, event(41, "publish", "Old Concert", "2020-03-01 20:00:00", "2020-03-01 22:00:00",
		map[string]any{"venue": []any{}, "hide_from_listings": true, "modified_utc": "2026-11-22 09:59:00"}))
	site.Details.Store(0)
	wantReport(t, sync(t, im, mirror.Options{}), "added 0, updated 1, trashed 0, unchanged 7, failed 1")
	if n := site.Details.Load(); n != 2+tec.ProbeBeyond {
		t.Errorf("%d detail fetches, want %d: one per linked event the lists leave out, and the probe's past the highest post ID", n, 2+tec.ProbeBeyond)
	}
	ctx := context.Background()
	for _, id := range []uint64{41, 44} {
		if e, _, err := db.Event(ctx, id); err != nil || e.Status != storage.StatusPublish || !e.HideFromListings {
			t.Errorf("hidden event %d: %+v %v, want it published and hidden", id, e, err)
		}
	}
	site.Delete(tectest.Events, 44)
	wantReport(t, sync(t, im, mirror.Options{}), "added 0, updated 0, trashed 1, unchanged 7, failed 1")
}

// TestFirstImport: a first import brings every event the importing user may see, whatever a real
// site's lists leave out: /wp/v2 lists no event that has ended, TEC's events list no event hidden from
// listings, and the IDs of the site's posts are not predictable (revisions take IDs between them).
// Past, hidden, draft, pending, private and scheduled events all come, and nothing is trashed: an
// event hidden from listings that has ended, on no list, through the probe of the post IDs no list
// showed. The next walk probes only past the highest post ID the first one knew, and so finds an
// event hidden and ended that the site made since.
func TestFirstImport(t *testing.T) {
	site := tectest.New()
	site.User, site.Password, site.Now = siteUser, sitePass, func() time.Time { return siteNow }
	srv := httptest.NewServer(site)
	defer srv.Close()
	type seed struct {
		status    string
		past      bool
		hidden    bool
		n         int
		anonymous bool // an anonymous import brings it
	}
	seeds := []seed{
		{status: "publish", past: true, n: 60, anonymous: true}, // more than a page of the events list
		{status: "publish", n: 3, anonymous: true},
		{status: "publish", hidden: true, n: 2, anonymous: true},
		{status: "publish", past: true, hidden: true, n: 2, anonymous: true},
		{status: "draft", past: true, n: 1},
		{status: "draft", past: true, hidden: true, n: 1},
		{status: "draft", n: 1},
		{status: "pending", n: 1},
		{status: "private", past: true, n: 1},
		{status: "future", n: 1},
	}
	want := map[string]map[storage.Status]int{"anonymous": {}, "editor": {}}
	put := func(i int, s seed) {
		start := "2030-01-01 10:00:00"
		if s.past {
			start = "2025-01-01 10:00:00"
		}
		for j := range s.n {
			extra := map[string]any{"hide_from_listings": s.hidden}
			if s.status == "future" {
				extra["date"], extra["date_utc"] = "2027-01-01 09:00:00", "2027-01-01 09:00:00"
			}
			site.Put(tectest.Events, event(0, s.status, fmt.Sprintf("Event %d-%d", i, j), start, start[:11]+"12:00:00", extra))
		}
		want["editor"][storage.Status(s.status)] += s.n
		if s.anonymous {
			want["anonymous"][storage.Status(s.status)] += s.n
		}
	}
	for i, s := range seeds {
		put(i, s)
	}
	ims := map[string]*tec.Importer{}
	dbs := map[string]*storage.DB{}
	for _, tc := range []struct{ who, user, pass string }{{"anonymous", "", ""}, {"editor", siteUser, sitePass}} {
		dbs[tc.who] = openDB(t)
		ims[tc.who] = importer(dbs[tc.who], []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}, tc.user, tc.pass)
	}
	now := siteNow
	check := func(when string) {
		now = now.Add(tec.DefaultFullEvery) // every run walks
		for _, who := range []string{"anonymous", "editor"} {
			site.Details.Store(0)
			rep := sync(t, ims[who], mirror.Options{Now: func() time.Time { return now }})
			if rep.Trashed != 0 || rep.Failed != 0 {
				t.Errorf("%s, %s: %v %+v, want nothing trashed or failed", when, who, rep, rep.Failures)
			}
			if got := countByStatus(t, dbs[who]); !maps.Equal(got, want[who]) {
				t.Errorf("%s, %s: events by status %v, want %v", when, who, got, want[who])
			}
			if n := site.Details.Load(); when != "first import" && n > 10+tec.ProbeBeyond {
				t.Errorf("%s, %s: %d detail fetches, want the hidden ended events' and the probe's past the highest post ID", when, who, n)
			}
		}
	}
	check("first import")
	check("second walk")
	put(len(seeds), seed{status: "publish", past: true, hidden: true, n: 1, anonymous: true})
	check("walk after a hidden ended event was made")
}

// TestProbeCutShort: a site that fails while the probe asks for a post ID fails the run, and keeps
// the probe's mark where it was (none yet): the next run asks again and brings the event.
func TestProbeCutShort(t *testing.T) {
	now := siteNow
	site, root, failing := clockSite(t, &now)
	site.Put(tectest.Events, event(0, "publish", "Listed", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
	id := site.Put(tectest.Events, event(0, "publish", "Hidden and ended", "2025-06-01 10:00:00", "2025-06-01 12:00:00", map[string]any{"hide_from_listings": true}))
	site.Put(tectest.Events, event(0, "publish", "Listed too", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
	*failing = fmt.Sprintf("/tribe/events/v1/events/%d", id)
	ctx := context.Background()
	if _, err := im.Sync(ctx, mirror.Options{Now: func() time.Time { return now }}); err == nil {
		t.Fatal("a run whose probe failed: no error")
	}
	if o, err := db.Origin(ctx, root); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("origin after a failed probe: %+v %v, want none", o, err)
	}
	*failing = ""
	now = now.Add(tec.DefaultFullEvery)
	wantReport(t, sync(t, im, mirror.Options{Now: func() time.Time { return now }}), "added 1, updated 0, trashed 0, unchanged 2, failed 0")
	if e, _, err := db.Event(ctx, id); err != nil || e.Title != "Hidden and ended" {
		t.Errorf("probed event: %+v %v", e, err)
	}
	if o, err := db.Origin(ctx, root); err != nil || o.Probed < id {
		t.Errorf("origin after the probe: %+v %v, want the highest post ID the lists showed", o, err)
	}
}

// countByStatus counts the store's events by status.
func countByStatus(t *testing.T, db *storage.DB) map[storage.Status]int {
	t.Helper()
	got := map[storage.Status]int{}
	for id := uint64(1); id < 1000; id++ {
		if e, _, err := db.Event(context.Background(), id); err == nil {
			got[e.Status]++
		}
	}
	return got
}
