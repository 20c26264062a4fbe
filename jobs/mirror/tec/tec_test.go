package tec_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
	"github.com/calendard/calendard/storage"
)

var (
	siteNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	admin   = storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
)

const (
	siteUser = "editor"
	sitePass = "abcd efgh ijkl mnop"
)

func openDB(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{Now: func() time.Time { return siteNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// newSite is a fake site in Paris time holding what the tests import: two categories (the child
// listed before its parent), a tag, a venue and an organizer with HTML-escaped websites, a future
// event using them all, a past one, a draft, and an event our contract refuses (an unknown zone).
func newSite(t testing.TB) (*tectest.Site, *httptest.Server) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	site := tectest.New()
	site.User, site.Password, site.Zone, site.Now = siteUser, sitePass, paris, func() time.Time { return siteNow }
	site.Put(tectest.Categories, map[string]any{"id": 9, "name": "Jazz", "slug": "jazz-fr", "description": "", "parent": 10, "taxonomy": "calendar_events_cat"})
	site.Put(tectest.Categories, map[string]any{"id": 10, "name": "Music", "slug": "music", "description": "All music", "parent": 0, "taxonomy": "calendar_events_cat"})
	site.Put(tectest.Tags, map[string]any{"id": 20, "name": "live", "slug": "live", "description": "", "parent": 0, "taxonomy": "post_tag"})
	site.Put(tectest.Venues, map[string]any{"id": 30, "status": "publish", "date_utc": "2026-01-01 09:00:00", "modified_utc": "2026-01-02 09:00:00",
		"venue": "Salle Pleyel", "slug": "pleyel", "city": "Paris", "country": "France", "website": "https://pleyel.example/?a=1&b=2",
		"geo_lat": 48.87, "geo_lng": 2.30, "show_map": true, "show_map_link": false})
	site.Put(tectest.Organizers, map[string]any{"id": 31, "status": "publish", "date_utc": "2026-01-01 09:00:00", "modified_utc": "2026-01-02 09:00:00",
		"organizer": "Org A", "slug": "org-a", "email": "a@example.org", "website": "https://org.example/?x=1&y=2"})
	site.Put(tectest.Events, event(40, "publish", "Jazz Night", "2030-05-01 20:00:00", "2030-05-01 22:00:00", map[string]any{
		"slug": "jazz-night-2030", "description": "<p>A <b>great</b> night</p><script>alert(1)</script>", "timezone": "Europe/Paris",
		"all_day": false, "featured": true, "sticky": true, "hide_from_listings": false, "show_map": true, "show_map_link": true,
		"cost": "Free – 30€", "cost_details": map[string]any{"values": []string{"0", "20", "30"}, "currency_symbol": "€", "currency_position": "postfix"},
		"website": "https://tickets.example/?e=40&lang=en", "image": map[string]any{"url": "https://img.example/jazz.jpg", "id": 99},
		"categories": []any{map[string]any{"id": 9}}, "tags": []any{map[string]any{"id": 20}},
		"venue": map[string]any{"id": 30}, "organizer": []any{map[string]any{"id": 31}},
	}))
	site.Put(tectest.Events, event(41, "publish", "Old Concert", "2020-03-01 20:00:00", "2020-03-01 22:00:00", map[string]any{"venue": []any{}}))
	site.Put(tectest.Events, event(42, "draft", "Secret Draft", "2030-06-01 20:00:00", "2030-06-01 21:00:00", nil))
	site.Put(tectest.Events, event(43, "publish", "Nowhere", "2030-07-01 20:00:00", "2030-07-01 21:00:00", map[string]any{"timezone": "Mars/Olympus"}))
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	return site, srv
}

// event is an event in the reference's shape, with extra fields merged in.
func event(id int, status, title, start, end string, extra map[string]any) map[string]any {
	e := map[string]any{"id": id, "status": status, "date_utc": "2026-01-01 09:00:00", "modified_utc": "2026-01-02 09:00:00",
		"url":   "https://site.example/event/" + strings.ToLower(strings.ReplaceAll(title, " ", "-")) + "/",
		"title": title, "description": "", "start_date": start, "end_date": end, "timezone": "UTC", "image": false}
	// Without a website of its own the reference reports the page URL.
	e["website"] = e["url"]
	for k, v := range extra {
		e[k] = v
	}
	return e
}

func importer(db *storage.DB, roots []tec.Root, user, pass string) *tec.Importer {
	return &tec.Importer{Store: db, Actor: admin, Roots: roots,
		Get: &mirror.Getter{User: user, Password: pass, Sleep: func(context.Context, time.Duration) error { return nil }}}
}

// sync runs im once, at siteNow unless opts say another time.
func sync(t *testing.T, im *tec.Importer, opts mirror.Options) *mirror.Report {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return siteNow }
	}
	rep, err := im.Sync(context.Background(), opts)
	if err != nil {
		t.Fatalf("Sync: %v (%v)", err, rep)
	}
	return rep
}

func wantReport(t *testing.T, rep *mirror.Report, want string) {
	t.Helper()
	if got := rep.String(); got != want {
		t.Errorf("report %q, want %q (failures %+v)", got, want, rep.Failures)
	}
}

// TestImport: a first run imports what an anonymous visitor sees, past events included, keeping IDs,
// slugs and every field; a page that fails once is retried; a record our contract refuses is
// reported with its ID and reason.
func TestImport(t *testing.T) {
	site, srv := newSite(t)
	db := openDB(t)
	site.FailOnce("/tribe/events/v1/events?")
	im := importer(db, []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}, "", "")
	rep := sync(t, im, mirror.Options{})
	// 2 categories, 1 tag, 1 venue, 1 organizer, events 40 and 41; 43 refused; the draft unseen.
	wantReport(t, rep, "added 7, updated 0, trashed 0, unchanged 0, failed 1")
	if len(rep.Failures) != 1 || rep.Failures[0].ID != "43" || rep.Failures[0].Kind != "event" || !strings.Contains(rep.Failures[0].Reason, "timezone") {
		t.Errorf("failures %+v, want event 43 with its zone as the reason", rep.Failures)
	}
	ctx := context.Background()
	e, _, err := db.Event(ctx, 40)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"slug", e.Slug, "jazz-night-2030"},
		{"title", e.Title, "Jazz Night"},
		{"lang", e.Lang, storage.Lang("en")},
		{"status", e.Status, storage.StatusPublish},
		{"author", e.Author, admin.UserID},
		{"date", e.Date, time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)},
		{"start", e.Start, "2030-05-01 20:00:00"},
		{"utc start", e.StartUTC, time.Date(2030, 5, 1, 18, 0, 0, 0, time.UTC)},
		{"timezone", e.Timezone, "Europe/Paris"},
		{"description sanitised", strings.Contains(e.Description, "script"), false},
		{"cost", strings.Join(e.Cost, ","), "0€,20€,30€"},
		{"website unescaped", *e.Website, "https://tickets.example/?e=40&lang=en"},
		{"featured", e.Featured, true},
		{"sticky", e.Sticky, true},
		{"show_map", e.ShowMap, true},
		{"categories", e.Categories, []uint64{9}},
		{"tags", e.Tags, []uint64{20}},
		{"venue", e.VenueID, uint64(30)},
		{"organizers", e.OrganizerIDs, []uint64{31}},
		{"image", e.ImageID != 0, true},
	}
	for _, c := range checks {
		if !equal(c.got, c.want) {
			t.Errorf("event 40 %s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if old, _, err := db.Event(ctx, 41); err != nil || old.Website != nil || old.VenueID != 0 {
		t.Errorf("past event 41: %+v %v, want it imported, without the page URL as its website", old, err)
	}
	if _, _, err := db.Event(ctx, 42); err == nil {
		t.Error("the draft was imported without credentials")
	}
	if v, _, err := db.Venue(ctx, 30); err != nil || v.Slug != "pleyel" || v.Website != "https://pleyel.example/?a=1&b=2" || v.Geo == nil || v.ShowMapLink {
		t.Errorf("venue 30: %+v %v", v, err)
	}
	if o, _, err := db.Organizer(ctx, 31); err != nil || o.Website != "https://org.example/?x=1&y=2" || o.Email != "a@example.org" {
		t.Errorf("organizer 31: %+v %v", o, err)
	}
	if c, _, err := db.Term(ctx, storage.TaxCategory, 9); err != nil || c.Parent != 10 || c.Slug != "jazz-fr" {
		t.Errorf("category 9: %+v %v, want its parent 10 and slug", c, err)
	}
	if next, err := db.CreateTerm(ctx, admin, storage.TaxTag, &storage.TermInput{Name: ptr("new")}); err != nil || next.ID != 21 {
		t.Errorf("next term %+v %v, want ID 21: the sequence moved past the imported ones", next, err)
	}
}

// TestSyncAgain: a second run changes nothing and fetches no record; then a changed record is
// updated and a renamed tag updated, with a handful of requests. An event the site deletes is trashed
// when the site says so for it: an event that has ended is on no cheap run's list, so a cheap run
// keeps it and the next complete walk (FullEvery later) asks its single route and trashes it; an
// upcoming one leaves /wp/v2's list, and the next cheap run asks its single route. On a site that
// hides /wp/v2 every run is a complete walk.
func TestSyncAgain(t *testing.T) {
	for _, hideWP := range []bool{false, true} {
		t.Run(map[bool]string{false: "cheap", true: "full walk"}[hideWP], func(t *testing.T) {
			site, srv := newSite(t)
			site.HideWP = hideWP
			db := openDB(t)
			im := importer(db, []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}, "", "")
			now := siteNow
			opts := mirror.Options{Now: func() time.Time { return now }}
			sync(t, im, opts)
			site.Details.Store(0)
			now = now.Add(5 * time.Minute)
			rep := sync(t, im, opts)
			wantReport(t, rep, "added 0, updated 0, trashed 0, unchanged 7, failed 1")
			if !hideWP && site.Details.Load() != 1 {
				t.Errorf("%d detail fetches on an unchanged site, want 1: the refused event is tried again", site.Details.Load())
			}

			site.Put(tectest.Events, event(40, "publish", "Jazz Night (moved)", "2030-05-02 20:00:00", "2030-05-02 22:00:00",
				map[string]any{"modified_utc": "2026-11-22 09:59:00", "slug": "jazz-night-2030", "venue": map[string]any{"id": 30}}))
			site.Delete(tectest.Events, 41)
			site.Put(tectest.Tags, map[string]any{"id": 20, "name": "live music", "slug": "live", "parent": 0})
			now = now.Add(5 * time.Minute)
			rep = sync(t, im, opts)
			ctx := context.Background()
			if hideWP {
				wantReport(t, rep, "added 0, updated 2, trashed 1, unchanged 4, failed 1")
			} else {
				// The past event's deletion is no cheap run's to see: kept until the walk asks.
				wantReport(t, rep, "added 0, updated 2, trashed 0, unchanged 5, failed 1")
				if e, _, err := db.Event(ctx, 41); err != nil || e.Status != storage.StatusPublish {
					t.Errorf("past event after a cheap run: %+v %v, want it still published", e, err)
				}
				now = now.Add(tec.DefaultFullEvery)
				wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 1, unchanged 6, failed 1")
			}
			if e, _, err := db.Event(ctx, 40); err != nil || e.Title != "Jazz Night (moved)" || e.Start != "2030-05-02 20:00:00" || e.Timezone != "UTC" {
				t.Errorf("changed event: %+v %v", e, err)
			}
			if e, _, err := db.Event(ctx, 41); err != nil || e.Status != storage.StatusTrash {
				t.Errorf("deleted event: %+v %v, want it trashed", e, err)
			}
			if tag, _, err := db.Term(ctx, storage.TaxTag, 20); err != nil || tag.Name != "live music" {
				t.Errorf("renamed tag: %+v %v", tag, err)
			}
			now = now.Add(time.Minute)
			wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 6, failed 1")

			site.Delete(tectest.Events, 40)
			now = now.Add(time.Minute)
			wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 1, unchanged 5, failed 1")
			if e, _, err := db.Event(ctx, 40); err != nil || e.Status != storage.StatusTrash {
				t.Errorf("deleted upcoming event: %+v %v, want it trashed", e, err)
			}
		})
	}
}

// TestCredentials: with an application password the draft comes too, as a draft, and an anonymous
// mirror's next run trashes it: its single route answers 401 to that mirror.
func TestCredentials(t *testing.T) {
	site, srv := newSite(t)
	db := openDB(t)
	root := []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}
	im := importer(db, root, siteUser, sitePass)
	wantReport(t, sync(t, im, mirror.Options{}), "added 8, updated 0, trashed 0, unchanged 0, failed 1")
	if e, _, err := db.Event(context.Background(), 42); err != nil || e.Status != storage.StatusDraft || e.Title != "Secret Draft" {
		t.Errorf("draft: %+v %v", e, err)
	}
	// A cheap run: the draft's stamp (its local modified date in the site's zone) matches /wp/v2's
	// modified_gmt.
	site.Details.Store(0)
	wantReport(t, sync(t, im, mirror.Options{}), "added 0, updated 0, trashed 0, unchanged 8, failed 1")
	if site.Details.Load() != 1 {
		t.Errorf("%d detail fetches on an unchanged site, want 1: the refused event is tried again", site.Details.Load())
	}
	anonymous := importer(db, root, "", "")
	wantReport(t, sync(t, anonymous, mirror.Options{}), "added 0, updated 0, trashed 1, unchanged 7, failed 1")
	if e, _, err := db.Event(context.Background(), 42); err != nil || e.Status != storage.StatusTrash {
		t.Errorf("draft after an anonymous run: %+v %v, want it trashed", e, err)
	}
}

// TestWrongCredentials: credentials the site refuses stop the run before anything is written, with
// what the site said: no such user, or a wrong application password.
func TestWrongCredentials(t *testing.T) {
	_, srv := newSite(t)
	root := []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}
	for _, tc := range []struct{ user, pass, want string }{
		{"nobody", sitePass, `the site knows no user "nobody"`},
		{siteUser, "wrong", `the site refused the application password of user "editor"`},
	} {
		db := openDB(t)
		rep, err := importer(db, root, tc.user, tc.pass).Sync(context.Background(), mirror.Options{Now: func() time.Time { return siteNow }})
		if err == nil || !strings.Contains(err.Error(), tc.want) || rep.Added != 0 {
			t.Errorf("%s/%s: %v, %v; want an error saying %q and nothing written", tc.user, tc.pass, rep, err, tc.want)
		}
	}
}

// TestTranslations: two roots import into their languages, and a record that names its translation
// joins its group.
func TestTranslations(t *testing.T) {
	_, srv := newSite(t)
	fr := tectest.New()
	fr.Now = func() time.Time { return siteNow }
	fr.Put(tectest.Events, event(50, "publish", "Soirée Jazz", "2030-05-01 20:00:00", "2030-05-01 22:00:00",
		map[string]any{"translations": map[string]any{"en": 40}}))
	frSrv := httptest.NewServer(fr)
	defer frSrv.Close()
	db := openDB(t)
	roots := []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}, {URL: frSrv.URL + "/wp-json", Lang: "fr"}}
	wantReport(t, sync(t, importer(db, roots, "", ""), mirror.Options{}), "added 8, updated 0, trashed 0, unchanged 0, failed 1")
	ctx := context.Background()
	en, _, err := db.Event(ctx, 40)
	if err != nil {
		t.Fatal(err)
	}
	frEvent, _, err := db.Event(ctx, 50)
	if err != nil || frEvent.Lang != "fr" || frEvent.Group != en.Group {
		t.Errorf("fr event %+v %v: want French, in event 40's group %d", frEvent, err, en.Group)
	}
}

func equal(a, b any) bool {
	if x, ok := a.([]uint64); ok {
		y, _ := b.([]uint64)
		return slices.Equal(x, y)
	}
	return a == b
}

func ptr[T any](v T) *T { return &v }

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

// TestGoneOnSite: a record the site deletes, trashes, unpublishes or makes private is trashed here
// when its single route says so for the importing user: through the cheap run when it was upcoming
// (it leaves /wp/v2's list), through the next complete walk when it had ended. A record unpublished
// for a user who may still read it is updated, not trashed.
func TestGoneOnSite(t *testing.T) {
	for _, tc := range []struct {
		name       string
		user, pass string
		remove     func(site *tectest.Site, id uint64)
		want       storage.Status
	}{
		{"deleted", "", "", func(s *tectest.Site, id uint64) { s.Delete(tectest.Events, id) }, storage.StatusTrash},
		{"trashed, anonymous", "", "", func(s *tectest.Site, id uint64) { s.Trash(tectest.Events, id) }, storage.StatusTrash},
		{"trashed, editor", siteUser, sitePass, func(s *tectest.Site, id uint64) { s.Trash(tectest.Events, id) }, storage.StatusTrash},
		{"unpublished, anonymous", "", "", func(s *tectest.Site, id uint64) { s.Update(tectest.Events, id, map[string]any{"status": "draft"}) }, storage.StatusTrash},
		{"made private, anonymous", "", "", func(s *tectest.Site, id uint64) { s.Update(tectest.Events, id, map[string]any{"status": "private"}) }, storage.StatusTrash},
		{"unpublished, editor", siteUser, sitePass, func(s *tectest.Site, id uint64) { s.Update(tectest.Events, id, map[string]any{"status": "draft"}) }, storage.StatusDraft},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := siteNow
			site, root, _ := clockSite(t, &now)
			upcoming := site.Put(tectest.Events, event(0, "publish", "Upcoming", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
			past := site.Put(tectest.Events, event(0, "publish", "Past", "2025-06-01 10:00:00", "2025-06-01 12:00:00", nil))
			db := openDB(t)
			im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, tc.user, tc.pass)
			opts := mirror.Options{Now: func() time.Time { return now }}
			sync(t, im, opts)
			now = now.Add(time.Minute)
			sync(t, im, opts) // a cheap run, which learns what /wp/v2 lists
			statusOf := func(id uint64) storage.Status {
				e, _, err := db.Event(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				return e.Status
			}
			tc.remove(site, upcoming)
			tc.remove(site, past)
			now = now.Add(time.Minute)
			sync(t, im, opts)
			if got := statusOf(upcoming); got != tc.want {
				t.Errorf("upcoming event after a cheap run: %s, want %s", got, tc.want)
			}
			if got := statusOf(past); got != storage.StatusPublish {
				t.Errorf("past event after a cheap run: %s, want it published until the next walk", got)
			}
			now = now.Add(tec.DefaultFullEvery)
			sync(t, im, opts)
			if got := statusOf(past); got != tc.want {
				t.Errorf("past event after a walk: %s, want %s", got, tc.want)
			}
		})
	}
}

// TestDeletedAfterWalk: a venue deleted on the site right after a walk is trashed by the next cheap
// run: the walk learnt what /wp/v2 lists, and the venue leaves that list.
func TestDeletedAfterWalk(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	id := site.Put(tectest.Venues, map[string]any{"status": "publish", "venue": "Hall", "city": "Paris"})
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
	opts := mirror.Options{Now: func() time.Time { return now }}
	wantReport(t, sync(t, im, opts), "added 1, updated 0, trashed 0, unchanged 0, failed 0")
	site.Delete(tectest.Venues, id)
	now = now.Add(time.Minute)
	wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 1, unchanged 0, failed 0")
	if v, _, err := db.Venue(context.Background(), id); err != nil || v.Status != storage.StatusTrash {
		t.Errorf("deleted venue: %+v %v, want it trashed", v, err)
	}
}

// TestBackOnSite: a record the site trashed, or unpublished out of the importing user's sight, and
// then brought back is brought back here too: the import that trashed it still knows it as the site's.
// Taken out of the site's trash it is a draft there, and here, until it is published again.
func TestBackOnSite(t *testing.T) {
	for _, tc := range []struct {
		name       string
		user, pass string
		away, back func(site *tectest.Site, id uint64)
		wantBack   storage.Status
	}{
		{"trashed and restored", siteUser, sitePass, func(s *tectest.Site, id uint64) { s.Trash(tectest.Events, id) },
			func(s *tectest.Site, id uint64) { s.Restore(tectest.Events, id) }, storage.StatusDraft},
		{"unpublished and published again, anonymous", "", "", func(s *tectest.Site, id uint64) {
			s.Update(tectest.Events, id, map[string]any{"status": "draft"})
		}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := siteNow
			site, root, _ := clockSite(t, &now)
			id := site.Put(tectest.Events, event(0, "publish", "Upcoming", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
			db := openDB(t)
			im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, tc.user, tc.pass)
			opts := mirror.Options{Now: func() time.Time { return now }}
			status := func() storage.Status {
				t.Helper()
				e, _, err := db.Event(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				return e.Status
			}
			sync(t, im, opts)
			tc.away(site, id)
			now = now.Add(time.Minute)
			sync(t, im, opts)
			if got := status(); got != storage.StatusTrash {
				t.Fatalf("after the site took it away: %s, want trash", got)
			}
			if tc.back != nil {
				tc.back(site, id)
				now = now.Add(time.Minute)
				sync(t, im, opts)
				if got := status(); got != tc.wantBack {
					t.Errorf("after the site took it out of its trash: %s, want %s", got, tc.wantBack)
				}
			}
			site.Update(tectest.Events, id, map[string]any{"status": "publish"})
			now = now.Add(time.Minute)
			rep := sync(t, im, opts)
			if got := status(); got != storage.StatusPublish {
				t.Errorf("after the site brought it back: %s, want publish (%v)", got, rep)
			}
		})
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

// TestTrashedByAnEarlierVersion: an event an earlier version's import trashed because /wp/v2 left it
// out, forgetting it was the site's (in the trash, unlinked, unmarked), is brought back by the next
// import as the site has it; a trashed record of another title holding a site's ID is a record made
// here, and stays as it is.
func TestTrashedByAnEarlierVersion(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	past := site.Put(tectest.Events, event(0, "publish", "Past gig", "2025-06-01 10:00:00", "2025-06-01 12:00:00", nil))
	other := site.Put(tectest.Events, event(0, "publish", "Site's own", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
	db := openDB(t)
	ctx := context.Background()
	for id, title := range map[uint64]string{past: "Past gig", other: "Ours"} {
		err := db.Bulk(ctx, admin, func(b *storage.Bulk) error {
			in := &storage.EventInput{PostInput: storage.PostInput{Title: &title}, Start: when(t, "2025-06-01 10:00:00"), End: when(t, "2025-06-01 12:00:00")}
			if _, _, err := b.PutEvent(id, "en", in); err != nil {
				return err
			}
			return b.Trash(storage.Doc{Kind: storage.DocEvent, ID: id})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rep := sync(t, importer(db, []tec.Root{{URL: root, Lang: "en"}}, siteUser, sitePass), mirror.Options{Now: func() time.Time { return now }})
	if e, _, err := db.Event(ctx, past); err != nil || e.Status != storage.StatusPublish || e.Start != "2025-06-01 10:00:00" {
		t.Errorf("the trashed past event: %+v (%v), want it published as on the site (%v)", e, err, rep)
	}
	if e, _, err := db.Event(ctx, other); err != nil || e.Status != storage.StatusTrash || e.Title != "Ours" {
		t.Errorf("our trashed record: %+v (%v), want it left alone", e, err)
	}
	if rep.Failed != 1 {
		t.Errorf("%v, want the collision reported", rep)
	}
}

// TestDeletedForGoodOnSite: a term, venue or organizer deleted for good on the site, whose single
// route then answers WordPress's 400 rest_invalid_param on its id, is deleted (a term) or trashed
// here at the next walk, and the runs after it go on as usual.
func TestDeletedForGoodOnSite(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	cat := site.Put(tectest.Categories, map[string]any{"id": 7, "name": "Jazz", "slug": "jazz", "description": "", "parent": 0, "taxonomy": "tribe_events_cat"})
	venue := site.Put(tectest.Venues, map[string]any{"status": "publish", "venue": "Hall", "slug": "hall", "modified_utc": "2026-01-02 09:00:00"})
	org := site.Put(tectest.Organizers, map[string]any{"status": "publish", "organizer": "Crew", "slug": "crew", "modified_utc": "2026-01-02 09:00:00"})
	site.Put(tectest.Events, event(0, "publish", "Gig", "2030-06-01 10:00:00", "2030-06-01 12:00:00",
		map[string]any{"categories": []any{map[string]any{"id": cat}}}))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, siteUser, sitePass)
	opts := mirror.Options{Now: func() time.Time { return now }}
	sync(t, im, opts)
	ctx := context.Background()
	if _, _, err := db.Term(ctx, storage.TaxCategory, cat); err != nil {
		t.Fatalf("the category before: %v", err)
	}
	site.Delete(tectest.Categories, cat)
	site.Delete(tectest.Venues, venue)
	site.Delete(tectest.Organizers, org)
	for run := range 2 {
		now = now.Add(tec.DefaultFullEvery)
		if rep := sync(t, im, opts); rep.Failed != 0 {
			t.Errorf("run %d: %v (%v)", run, rep, rep.Failures)
		}
	}
	if _, _, err := db.Term(ctx, storage.TaxCategory, cat); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the category deleted on the site: %v, want it gone", err)
	}
	if v, _, err := db.Venue(ctx, venue); err != nil || v.Status != storage.StatusTrash {
		t.Errorf("the venue deleted on the site: %v (%v), want it trashed", v, err)
	}
	if o, _, err := db.Organizer(ctx, org); err != nil || o.Status != storage.StatusTrash {
		t.Errorf("the organizer deleted on the site: %v (%v), want it trashed", o, err)
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

// TestSiteZoneNote: a site whose dates read in another zone than this service's says so in every
// run's report, naming the setting; one in the same zone, or in another name of it, does not.
func TestSiteZoneNote(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ours *time.Location
		want bool
	}{
		{"UTC here, Paris there", time.UTC, true},
		{"Paris on both", paris, false},
		{"Berlin here: the same offsets", berlin, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := newSite(t) // in Paris time
			im := importer(openDB(t), []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}, siteUser, sitePass)
			im.Zone = tc.ours
			rep, _ := im.Sync(context.Background(), mirror.Options{Now: func() time.Time { return siteNow }})
			noted := slices.ContainsFunc(rep.Notes, func(n string) bool {
				return strings.Contains(n, "CALENDAR_SITE_TIMEZONE") && strings.Contains(n, "Europe/Paris")
			})
			if noted != tc.want {
				t.Errorf("notes %q: noted %v, want %v", rep.Notes, noted, tc.want)
			}
		})
	}
}
