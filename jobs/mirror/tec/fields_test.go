package tec_test

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/cost"
)

// TestWebsiteNone: the site reports an event's own page URL as its website when it has none, and ""
// once a partial update on the site has reset it; both are "none" here, on every path (first import,
// cheap run, complete walk, an event that has ended): the event reads as one that never had a website
// (our page URL), never as an empty one. A website set on the site arrives, and leaves again.
func TestWebsiteNone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		walk  bool // the site hides /wp/v2: every run walks
		start string
	}{
		{"cheap run", false, "2030-06-01 10:00:00"},
		{"walk", true, "2030-06-01 10:00:00"},
		{"walk, ended", true, "2025-06-01 10:00:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := siteNow
			site, root, _ := clockSite(t, &now)
			site.HideWP = tc.walk
			id := site.Put(tectest.Events, event(0, "publish", "Gig", tc.start, tc.start[:11]+"12:00:00", nil))
			db := openDB(t)
			im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
			opts := mirror.Options{Now: func() time.Time { return now }}
			website := func() *string {
				t.Helper()
				e, _, err := db.Event(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				return e.Website
			}
			for _, step := range []struct {
				what   string
				fields map[string]any // a partial update on the site, before the run
				want   string         // "" for none
			}{
				{"first import, the page URL", nil, ""},
				{"reset to \"\" by a partial update", map[string]any{"title": "Gig (moved)"}, ""},
				{"set on the site", map[string]any{"website": "https://gig.example/?a=1&b=2"}, "https://gig.example/?a=1&b=2"},
				{"set to the page URL", map[string]any{"website": "https://site.example/event/gig/"}, ""},
				{"set again, then reset", map[string]any{"website": "https://gig.example/"}, "https://gig.example/"},
				{"reset again", map[string]any{"description": "<p>New</p>"}, ""},
			} {
				if step.fields != nil {
					now = now.Add(time.Minute)
					site.Update(tectest.Events, id, step.fields)
				}
				now = now.Add(time.Minute)
				if rep := sync(t, im, opts); rep.Failed != 0 {
					t.Fatalf("%s: %v %+v", step.what, rep, rep.Failures)
				}
				switch got := website(); {
				case step.want == "" && got != nil:
					t.Errorf("%s: website %q, want none (our page URL)", step.what, *got)
				case step.want != "" && (got == nil || *got != step.want):
					t.Errorf("%s: website %v, want %q", step.what, got, step.want)
				}
			}
		})
	}
}

// TestCost: an event's cost is kept as items from which our rules (docs/API.md "Event fields") give back the
// site's formatted cost and cost_details; where no such items exist, the site's text as it is. Our
// site's default symbol is `$` before the amount, as the site's.
func TestCost(t *testing.T) {
	type details struct {
		values           []string
		symbol, position string
	}
	for _, tc := range []struct {
		name      string
		text      string
		site      details
		wantItems []string
		wantCost  string
		// exception: our rules compute other cost_details from the text (docs/IMPORT.md)
		exception bool
	}{
		{"range with a symbol after", "Free – 30€", details{[]string{"0", "20", "30"}, "€", "postfix"}, []string{"0€", "20€", "30€"}, "Free – 30€", false},
		{"TEC's suffix", "10€", details{[]string{"10"}, "€", "suffix"}, []string{"10€"}, "10€", false},
		{"one amount", "20$", details{[]string{"20"}, "$", "postfix"}, []string{"20$"}, "20$", false},
		{"text", "Donation", details{[]string{"donation"}, "", ""}, []string{"Donation"}, "Donation", false},
		{"the site's default symbol", "$23", details{[]string{"23"}, "", "prefix"}, []string{"23"}, "$23", false},
		{"escaped by the site", "Members & guests", details{[]string{"members-guests"}, "", ""}, []string{"Members & guests"}, "Members & guests", false},
		{"text our rules read otherwise", "Free – 10", details{[]string{"10"}, "Free –", "prefix"}, []string{"Free – 10"}, "Free10", true},
		{"none", "", details{[]string{}, "", ""}, nil, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := siteNow
			site, root, _ := clockSite(t, &now)
			id := site.Put(tectest.Events, event(0, "publish", "Priced", "2030-06-01 10:00:00", "2030-06-01 12:00:00", map[string]any{
				"cost": tc.text, "cost_details": map[string]any{"values": tc.site.values, "currency_symbol": tc.site.symbol, "currency_position": tc.site.position}}))
			db := openDB(t)
			if rep := sync(t, importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", ""), mirror.Options{}); rep.Failed != 0 {
				t.Fatalf("%v %+v", rep, rep.Failures)
			}
			e, _, err := db.Event(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(e.Cost, tc.wantItems) {
				t.Errorf("items %q, want %q", e.Cost, tc.wantItems)
			}
			d := cost.Parse(e.Cost)
			if got := cost.Format(e.Cost, d, "$", cost.Prefix); got != tc.wantCost {
				t.Errorf("cost %q, want %q", got, tc.wantCost)
			}
			position := map[string]string{"suffix": cost.Postfix}[tc.site.position]
			if position == "" {
				position = tc.site.position
			}
			same := slices.Equal(d.Values, tc.site.values) && d.Symbol == tc.site.symbol && (d.Symbol == "" || d.Position == position)
			if same == tc.exception {
				t.Errorf("cost_details %+v, site's %+v: same %v, want %v", d, tc.site, same, !tc.exception)
			}
		})
	}
}

// TestDraftSlugs: a draft (or pending record) has no slug on the site until it is published; here it
// gets its ID, never the slug a published record of the same title has or will have, whichever comes
// first, so an import never changes a published record's slug. Once published on the site, it takes the
// slug the site gives it.
func TestDraftSlugs(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	// The draft comes first in the events list (by ID), and the draft venue before the published one.
	draft := site.Put(tectest.Events, event(0, "draft", "Jazz Night", "2030-06-01 20:00:00", "2030-06-01 22:00:00", nil))
	pending := site.Put(tectest.Events, event(0, "pending", "Jazz Night", "2030-06-02 20:00:00", "2030-06-02 22:00:00", nil))
	published := site.Put(tectest.Events, event(0, "publish", "Jazz Night", "2030-06-03 20:00:00", "2030-06-03 22:00:00", map[string]any{"slug": "jazz-night"}))
	draftVenue := site.Put(tectest.Venues, map[string]any{"status": "draft", "venue": "Hall", "city": "Paris"})
	venue := site.Put(tectest.Venues, map[string]any{"status": "publish", "venue": "Hall", "slug": "hall", "city": "Paris"})
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, siteUser, sitePass)
	opts := mirror.Options{Now: func() time.Time { return now }}
	wantReport(t, sync(t, im, opts), "added 5, updated 0, trashed 0, unchanged 0, failed 0")
	ctx := context.Background()
	slugOf := func(id uint64) string {
		t.Helper()
		if e, _, err := db.Event(ctx, id); err == nil {
			return e.Slug
		}
		v, _, err := db.Venue(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return v.Slug
	}
	want := map[uint64]string{draft: strconv.FormatUint(draft, 10), pending: strconv.FormatUint(pending, 10), published: "jazz-night",
		draftVenue: strconv.FormatUint(draftVenue, 10), venue: "hall"}
	check := func(when string) {
		t.Helper()
		for id, slug := range want {
			if got := slugOf(id); got != slug {
				t.Errorf("%s: record %d slug %q, want %q", when, id, got, slug)
			}
		}
	}
	check("first import")

	// A published event the site creates later, titled as the drafts: its slug is its own.
	now = now.Add(time.Minute)
	later := site.Put(tectest.Events, event(0, "publish", "Jazz Night", "2030-07-01 20:00:00", "2030-07-01 22:00:00", map[string]any{"slug": "jazz-night-2"}))
	// The draft is published on the site, which gives it a slug.
	site.Update(tectest.Events, draft, map[string]any{"status": "publish", "slug": "jazz-night-3"})
	site.Update(tectest.Events, pending, map[string]any{"title": "Jazz Night (edited)"})
	now = now.Add(time.Minute)
	wantReport(t, sync(t, im, opts), "added 1, updated 2, trashed 0, unchanged 3, failed 0")
	want[later], want[draft] = "jazz-night-2", "jazz-night-3"
	check("after a cheap run")
}

// TestSubscriber: valid credentials of a user the site does not show unpublished records (a subscriber)
// get a 400 for asking the lists for them; the import then brings the public records, with one note
// in each run's report, rather than failing.
func TestSubscriber(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	site.Subscriber, site.SubscriberPassword = "reader", "qrst uvwx"
	site.Put(tectest.Venues, map[string]any{"status": "publish", "venue": "Hall", "city": "Paris"})
	site.Put(tectest.Events, event(0, "publish", "Public", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
	site.Put(tectest.Events, event(0, "publish", "Over", "2025-06-01 10:00:00", "2025-06-01 12:00:00", nil))
	site.Put(tectest.Events, event(0, "draft", "Draft", "2030-06-01 10:00:00", "2030-06-01 12:00:00", nil))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "reader", "qrst uvwx")
	opts := mirror.Options{Now: func() time.Time { return now }}
	for _, want := range []string{"added 3, updated 0, trashed 0, unchanged 0, failed 0", "added 0, updated 0, trashed 0, unchanged 3, failed 0"} {
		rep := sync(t, im, opts)
		wantReport(t, rep, want)
		if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "does not show user reader its unpublished records") {
			t.Errorf("notes %q, want one saying the user sees the public records", rep.Notes)
		}
		now = now.Add(time.Minute)
	}
	if got := countByStatus(t, db); !maps.Equal(got, map[storage.Status]int{storage.StatusPublish: 2}) {
		t.Errorf("events by status %v, want the two published ones", got)
	}
}

// TestEmbeddedDraft: a published event whose venue and organizer are drafts: the site embeds them in
// the event, while their own lists leave them out and their own routes answer 403 to an anonymous
// import. They are imported from the embedding, as drafts, and the event with its links; they stay
// while their routes stay closed, follow their edits at the complete walks, become the site's own
// records once it publishes them, and are trashed once the site deletes them.
func TestEmbeddedDraft(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	venue := site.Put(tectest.Venues, map[string]any{"status": "draft", "venue": "Secret Hall", "city": "Paris"})
	org := site.Put(tectest.Organizers, map[string]any{"status": "draft", "organizer": "Secret Org", "email": "s@example.org"})
	other := site.Put(tectest.Venues, map[string]any{"status": "draft", "venue": "Back Room", "city": "Lyon"})
	ev := site.Put(tectest.Events, event(0, "publish", "Gig", "2030-06-01 20:00:00", "2030-06-01 22:00:00",
		map[string]any{"venue": map[string]any{"id": venue}, "organizer": []any{map[string]any{"id": org}}}))
	past := site.Put(tectest.Events, event(0, "publish", "Old Gig", "2025-06-01 20:00:00", "2025-06-01 22:00:00",
		map[string]any{"venue": map[string]any{"id": other}}))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
	im.FullEvery = time.Hour
	opts := mirror.Options{Now: func() time.Time { return now }}
	ctx := context.Background()
	check := func(when string, id uint64, status storage.Status, title string) {
		t.Helper()
		var gotStatus storage.Status
		var gotTitle string
		if v, _, err := db.Venue(ctx, id); err == nil {
			gotStatus, gotTitle = v.Status, v.Title
		} else if o, _, err := db.Organizer(ctx, id); err == nil {
			gotStatus, gotTitle = o.Status, o.Title
		} else {
			t.Fatalf("%s: record %d: %v", when, id, err)
		}
		if gotStatus != status || gotTitle != title {
			t.Errorf("%s: record %d %s %q, want %s %q", when, id, gotStatus, gotTitle, status, title)
		}
	}

	wantReport(t, sync(t, im, opts), "added 5, updated 0, trashed 0, unchanged 0, failed 0")
	if e, _, err := db.Event(ctx, ev); err != nil || e.VenueID != venue || !slices.Equal(e.OrganizerIDs, []uint64{org}) {
		t.Fatalf("event: %+v %v, want it linked to venue %d and organizer %d", e, err, venue, org)
	}
	if e, _, err := db.Event(ctx, past); err != nil || e.VenueID != other {
		t.Fatalf("past event: %+v %v, want it linked to venue %d", e, err, other)
	}
	check("first import", venue, storage.StatusDraft, "Secret Hall")
	check("first import", org, storage.StatusDraft, "Secret Org")
	check("first import", other, storage.StatusDraft, "Back Room")

	now = now.Add(time.Minute) // a cheap run
	wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 5, failed 0")
	now = now.Add(time.Hour) // a complete walk, which asks their routes: 403
	wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 5, failed 0")
	check("after a walk", venue, storage.StatusDraft, "Secret Hall")

	site.Update(tectest.Venues, other, map[string]any{"venue": "Back Room (new)"})
	now = now.Add(time.Minute) // a cheap run of events sees nothing of it
	wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 5, failed 0")
	now = now.Add(time.Hour) // the walk brings it through the event
	wantReport(t, sync(t, im, opts), "added 0, updated 1, trashed 0, unchanged 4, failed 0")
	check("edited", other, storage.StatusDraft, "Back Room (new)")

	site.Update(tectest.Venues, venue, map[string]any{"status": "publish", "slug": "secret-hall"})
	site.Delete(tectest.Venues, other)
	// Venues are walked at every run while no venue of theirs is here from its own route (there is no
	// mark to ask /wp/v2 from): this one lists the published venue, and asks the deleted one's route.
	now = now.Add(time.Minute)
	wantReport(t, sync(t, im, opts), "added 0, updated 1, trashed 1, unchanged 3, failed 0")
	check("published", venue, storage.StatusPublish, "Secret Hall")
	check("deleted", other, storage.StatusTrash, "Back Room (new)")
	now = now.Add(time.Hour)
	wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 4, failed 0")
	check("published, after a walk", venue, storage.StatusPublish, "Secret Hall")
	if e, _, err := db.Event(ctx, ev); err != nil || e.VenueID != venue {
		t.Errorf("event at the end: %+v %v", e, err)
	}
}
