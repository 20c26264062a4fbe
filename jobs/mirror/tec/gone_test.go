package tec_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
	"github.com/calendard/calendard/storage"
)

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
