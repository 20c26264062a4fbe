package tec_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
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
