package storage

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage/kv"
)

// TestBulkPut: an import keeps its source's IDs, creating a record under one no record has and
// updating the record that has it, and IDs handed out later never collide with them.
func TestBulkPut(t *testing.T) {
	db := mustOpenDB(t)
	bulk := func(fn func(b *Bulk) error) error {
		t.Helper()
		return db.Bulk(ctx, admin, fn)
	}
	var created bool
	var e *Event
	if err := bulk(func(b *Bulk) (err error) {
		e, created, err = b.PutEvent(500, "en", newEvent(t, " Concert "))
		return err
	}); err != nil || !created || e.ID != 500 || e.Title != "Concert" {
		t.Fatalf("first put: %+v created %v %v, want event 500 created and cleaned", e, created, err)
	}
	if next := mustCreateEvent(t, db, admin, newEvent(t, "Later")); next.ID != 501 {
		t.Errorf("the next ID handed out is %d, want 501: past the imported one", next.ID)
	}
	head, _ := db.ChangeHead(ctx)
	if err := bulk(func(b *Bulk) (err error) {
		e, created, err = b.PutEvent(500, "fr", &EventInput{PostInput: PostInput{Title: ptr("Concert II")}})
		return err
	}); err != nil || created || e.Title != "Concert II" || e.Lang != "en" {
		t.Fatalf("second put: %+v created %v %v, want event 500 updated, its language kept", e, created, err)
	}
	if got := changesSince(t, db, head); len(got) == 0 {
		t.Error("the update logged no change")
	}
	// An ID below the sequence, free: created as is, and the sequence stays where it was.
	if err := bulk(func(b *Bulk) (err error) {
		e, created, err = b.PutEvent(7, "en", newEvent(t, "Old one"))
		return err
	}); err != nil || !created || e.ID != 7 {
		t.Fatalf("put under the sequence: %+v %v %v", e, created, err)
	}
	if next := mustCreateEvent(t, db, admin, newEvent(t, "Next")); next.ID != 502 {
		t.Errorf("next ID %d, want 502", next.ID)
	}

	// Venues and organizers: the source's identity wins over duplicate detection.
	for _, id := range []uint64{600, 601} {
		if err := bulk(func(b *Bulk) (err error) {
			created, err = b.PutVenue(id, "en", &VenueInput{PostInput: PostInput{Title: ptr("Hall")}})
			return err
		}); err != nil || !created {
			t.Fatalf("venue %d: created %v %v", id, created, err)
		}
	}
	for _, id := range []uint64{600, 601} {
		if v, _, err := db.Venue(ctx, id); err != nil || v.Title != "Hall" {
			t.Errorf("venue %d: %+v %v", id, v, err)
		}
	}
	if err := bulk(func(b *Bulk) (err error) {
		created, err = b.PutVenue(600, "en", &VenueInput{City: ptr(" Paris ")})
		return err
	}); err != nil || created {
		t.Fatalf("venue update: created %v %v", created, err)
	}
	if v, _, _ := db.Venue(ctx, 600); v.City != "Paris" {
		t.Errorf("venue 600 city %q, want Paris", v.City)
	}
	if err := bulk(func(b *Bulk) (err error) {
		created, err = b.PutOrganizer(700, "en", &OrganizerInput{PostInput: PostInput{Title: ptr("Org")}})
		return err
	}); err != nil || !created {
		t.Fatalf("organizer: created %v %v", created, err)
	}

	// A record of another type under the ID is refused, and nothing of that bulk is kept.
	for name, put := range map[string]func(b *Bulk) error{
		"event on a venue's ID": func(b *Bulk) error { _, _, err := b.PutEvent(600, "en", newEvent(t, "x")); return err },
		"venue on an event's ID": func(b *Bulk) error {
			_, err := b.PutVenue(500, "en", &VenueInput{PostInput: PostInput{Title: ptr("x")}})
			return err
		},
		"organizer on a venue's ID": func(b *Bulk) error {
			_, err := b.PutOrganizer(601, "en", &OrganizerInput{PostInput: PostInput{Title: ptr("x")}})
			return err
		},
	} {
		if err := bulk(put); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s: %v, want ErrWrongType", name, err)
		}
	}
}

// TestExternalLinks: what a source knows a record as is found again, per source.
func TestExternalLinks(t *testing.T) {
	db := mustOpenDB(t)
	site, other := "https://site.example/wp-json", "https://site.example/wp-json/fr"
	if err := db.Bulk(ctx, admin, func(b *Bulk) error {
		for _, l := range []struct {
			source, external string
			d                Doc
		}{
			{site, "12", Doc{DocEvent, 12}},
			{site, "venue:3", Doc{DocVenue, 3}},
			{other, "12", Doc{DocEvent, 40}},
			{"https://site.example/wp-json/f", "x", Doc{DocTag, 1}},
		} {
			if err := b.Link(l.source, l.external, l.d, "v1"); err != nil {
				return err
			}
		}
		// Linking again replaces the stamp.
		return b.Link(site, "12", Doc{DocEvent, 12}, "2026-01-02 03:04:05")
	}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Linked(ctx, site)
	if err != nil || len(got) != 2 || got["12"] != (ExternalLink{Doc{DocEvent, 12}, "2026-01-02 03:04:05"}) || got["venue:3"] != (ExternalLink{Doc{DocVenue, 3}, "v1"}) {
		t.Fatalf("Linked(site) = %v %v", got, err)
	}
	if err := db.Bulk(ctx, admin, func(b *Bulk) error { return b.Unlink(site, "12") }); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Linked(ctx, site); len(got) != 1 {
		t.Errorf("after Unlink: %v", got)
	}
	if got, _ := db.Linked(ctx, other); got["12"] != (ExternalLink{Doc{DocEvent, 40}, "v1"}) || len(got) != 1 {
		t.Errorf("Linked(other) = %v: a source whose name another extends must not mix with it", got)
	}
	counts, err := db.LinkCounts(ctx, map[string]bool{"12": true, "x": true, "venue:4": true})
	want := map[string]LinkCount{site: {Links: 1}, other: {Links: 1, Shared: 1}, "https://site.example/wp-json/f": {Links: 1, Shared: 1}}
	if diff := cmp.Diff(want, counts); err != nil || diff != "" {
		t.Errorf("LinkCounts (-want +got, %v):\n%s", err, diff)
	}
}

// TestOrigins: what the store keeps of a place an import reads is found again, per place, and
// replaced by the next PutOrigin.
func TestOrigins(t *testing.T) {
	db := mustOpenDB(t)
	feed, file := "https://feeds.example/cal.ics", "/home/me/calendar (1).ics"
	if _, err := db.Origin(ctx, feed); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Origin of a place never read: %v, want ErrNotFound", err)
	}
	for _, o := range []Origin{{Source: feed, ETag: `"v1"`}, {Source: feed, ETag: `"v2"`, LastModified: "Sun, 01 Mar 2026 10:00:00 GMT"}} {
		if err := db.Bulk(ctx, admin, func(b *Bulk) error {
			if err := b.PutOrigin(feed, o); err != nil {
				return err
			}
			return b.PutOrigin(file, Origin{Source: "/home/me/calendar.ics"})
		}); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Origin(ctx, feed); err != nil || got != o {
			t.Errorf("Origin(feed) = %+v %v, want %+v", got, err, o)
		}
	}
	if got, err := db.Origin(ctx, file); err != nil || got != (Origin{Source: "/home/me/calendar.ics"}) {
		t.Errorf("Origin(file) = %+v %v", got, err)
	}
}

// TestBulkPutTerm: an imported term keeps its ID, slug and parent, the term sequence moves past it,
// and putting it again updates it.
func TestBulkPutTerm(t *testing.T) {
	db := mustOpenDB(t)
	put := func(tax Taxonomy, id uint64, in *TermInput) (bool, error) {
		var created bool
		err := db.Bulk(ctx, admin, func(b *Bulk) (err error) {
			created, err = b.PutTerm(tax, id, in)
			return err
		})
		return created, err
	}
	if created, err := put(TaxCategory, 40, &TermInput{Name: ptr("Music"), Slug: ptr("musique")}); err != nil || !created {
		t.Fatalf("parent: created %v %v", created, err)
	}
	if created, err := put(TaxCategory, 41, &TermInput{Name: ptr("Jazz"), Slug: ptr("jazz"), Parent: ptr(uint64(40))}); err != nil || !created {
		t.Fatalf("child: created %v %v", created, err)
	}
	if got, _, err := db.Term(ctx, TaxCategory, 41); err != nil || got.Slug != "jazz" || got.Parent != 40 {
		t.Fatalf("child: %+v %v", got, err)
	}
	if next, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Later")}); err != nil || next.ID != 42 {
		t.Errorf("next term: %+v %v, want ID 42, past the imported ones", next, err)
	}
	if created, err := put(TaxCategory, 41, &TermInput{Name: ptr("Jazz Blues"), Slug: ptr("jazz-blues"), Parent: ptr(uint64(0))}); err != nil || created {
		t.Fatalf("update: created %v %v", created, err)
	}
	if got, _, err := db.Term(ctx, TaxCategory, 41); err != nil || got.Name != "Jazz Blues" || got.Slug != "jazz-blues" || got.Parent != 0 {
		t.Errorf("updated: %+v %v", got, err)
	}
	if _, err := put(TaxCategory, 50, &TermInput{Name: ptr("Orphan"), Parent: ptr(uint64(99))}); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown parent: %v, want ErrInvalid", err)
	}
	if created, err := put(TaxTag, 7, &TermInput{Name: ptr("live")}); err != nil || !created {
		t.Errorf("tag: created %v %v", created, err)
	}
}

// TestBulkPutPlaceSlug: an import keeps a venue's or organizer's slug from its source, on create and
// on update, instead of deriving it from the name.
func TestBulkPutPlaceSlug(t *testing.T) {
	db := mustOpenDB(t)
	put := func(v *VenueInput, o *OrganizerInput) {
		t.Helper()
		if err := db.Bulk(ctx, admin, func(b *Bulk) error {
			if _, err := b.PutVenue(10, "en", v); err != nil {
				return err
			}
			_, err := b.PutOrganizer(11, "en", o)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(wantVenue, wantOrganizer string) {
		t.Helper()
		if v, _, err := db.Venue(ctx, 10); err != nil || v.Slug != wantVenue {
			t.Errorf("venue slug %q %v, want %q", v.Slug, err, wantVenue)
		}
		if o, _, err := db.Organizer(ctx, 11); err != nil || o.Slug != wantOrganizer {
			t.Errorf("organizer slug %q %v, want %q", o.Slug, err, wantOrganizer)
		}
	}
	put(&VenueInput{PostInput: PostInput{Title: ptr("Hall")}, Slug: ptr("the-hall")}, &OrganizerInput{PostInput: PostInput{Title: ptr("Org")}, Slug: ptr("the-org")})
	check("the-hall", "the-org")
	put(&VenueInput{Slug: ptr("Big Hall")}, &OrganizerInput{Slug: ptr("org-2")})
	check("big-hall", "org-2")
	put(&VenueInput{PostInput: PostInput{Title: ptr("Renamed")}}, &OrganizerInput{PostInput: PostInput{Title: ptr("Renamed")}})
	check("big-hall", "org-2")
}

// TestGuardMirrored: while the store guards mirrored records, writes outside Bulk to a linked record
// or term are refused with ErrMirrored; Bulk (the import) still writes, and an unlinked record is
// free again.
func TestGuardMirrored(t *testing.T) {
	db := mustOpenDB(t)
	free := mustCreateEvent(t, db, admin, newEvent(t, "Ours"))
	const site = "https://site.example/wp-json"
	link := func(fn func(b *Bulk) error) {
		t.Helper()
		if err := db.Bulk(ctx, admin, fn); err != nil {
			t.Fatal(err)
		}
	}
	// What an import writes: records and terms with the site's IDs, each linked in the transaction
	// that writes it.
	e, v, tag, series := &Event{Post: Post{ID: 101}}, &Venue{Post: Post{ID: 102}}, &Term{ID: 103}, &Event{Post: Post{ID: 104}}
	link(func(b *Bulk) error {
		if _, _, err := b.PutEvent(e.ID, "en", newEvent(t, "Concert")); err != nil {
			return err
		}
		if _, _, err := b.PutEvent(series.ID, "en", weekly(t, "RRULE:FREQ=WEEKLY;COUNT=3")); err != nil {
			return err
		}
		if err := b.Link(site, "event:4", Doc{DocEvent, series.ID}, "s"); err != nil {
			return err
		}
		if _, err := b.PutVenue(v.ID, "en", &VenueInput{PostInput: PostInput{Title: ptr("Hall")}}); err != nil {
			return err
		}
		if _, err := b.PutTerm(TaxTag, tag.ID, &TermInput{Name: ptr("live")}); err != nil {
			return err
		}
		for _, l := range []struct {
			ext string
			d   Doc
		}{{"event:1", Doc{DocEvent, e.ID}}, {"venue:2", Doc{DocVenue, v.ID}}, {"tag:3", Doc{DocTag, tag.ID}}} {
			if err := b.Link(site, l.ext, l.d, "s"); err != nil {
				return err
			}
		}
		return nil
	})
	writes := map[string]func() error{
		"update event": func() error {
			_, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{PostInput: PostInput{Title: ptr("x")}})
			return err
		},
		"trash event": func() error { _, err := db.TrashEvent(ctx, admin, e.ID); return err },
		"update venue": func() error {
			_, err := db.UpdateVenue(ctx, admin, v.ID, &VenueInput{PostInput: PostInput{Title: ptr("x")}})
			return err
		},
		"update tag": func() error {
			_, err := db.UpdateTerm(ctx, admin, TaxTag, tag.ID, &TermInput{Name: ptr("x")})
			return err
		},
		"delete tag": func() error { _, err := db.DeleteTerm(ctx, TaxTag, tag.ID); return err },
	}
	// The occurrences of a mirrored series are the series'.
	for _, c := range occurrencesOf(t, db, series.ID) {
		writes["update occurrence "+c.day()] = func() error {
			_, err := db.UpdateEvent(ctx, admin, c.ID, &EventInput{PostInput: PostInput{Title: ptr("x")}})
			return err
		}
		writes["trash occurrence "+c.day()] = func() error { _, err := db.TrashEvent(ctx, admin, c.ID); return err }
		writes["cancel occurrence "+c.day()] = func() error { _, err := db.TrashOccurrence(ctx, admin, series.ID, c.day()); return err }
	}
	writes["cancel the first occurrence"] = func() error { _, err := db.TrashOccurrence(ctx, admin, series.ID, "2026-10-13"); return err }
	db.guardMirrored = true
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrMirrored) {
			t.Errorf("%s: %v, want ErrMirrored", name, err)
		}
	}
	if _, err := db.UpdateEvent(ctx, admin, free.ID, &EventInput{PostInput: PostInput{Title: ptr("Still ours")}}); err != nil {
		t.Errorf("an event no import linked: %v", err)
	}
	link(func(b *Bulk) error {
		_, _, err := b.PutEvent(e.ID, "en", &EventInput{PostInput: PostInput{Title: ptr("From the site")}})
		return err
	})
	// Linking the key to another document frees the first; unlinking (the site said the record is
	// gone) keeps the second the site's, which the site may link again when it brings it back.
	link(func(b *Bulk) error {
		if _, _, err := b.PutEvent(104, "en", newEvent(t, "Another")); err != nil {
			return err
		}
		return b.Link(site, "event:1", Doc{DocEvent, 104}, "s")
	})
	if err := writes["update event"](); err != nil {
		t.Errorf("after the link moved: %v", err)
	}
	link(func(b *Bulk) error { return b.Unlink(site, "venue:2") })
	if err := writes["update venue"](); !errors.Is(err, ErrMirrored) {
		t.Errorf("after Unlink: %v, want ErrMirrored", err)
	}
	link(func(b *Bulk) error {
		if _, err := b.PutVenue(v.ID, "en", &VenueInput{PostInput: PostInput{Title: ptr("Back on the site")}}); err != nil {
			return err
		}
		return b.Link(site, "venue:2", Doc{DocVenue, v.ID}, "s2")
	})
	db.guardMirrored = false
	if err := writes["update tag"](); err != nil {
		t.Errorf("without the guard: %v", err)
	}
}

// TestBulkTrash: an importer's trash takes a record (a series' parent with its occurrences) to the
// trash once, and leaves alone what is there already or not at all.
func TestBulkTrash(t *testing.T) {
	db := mustOpenDB(t)
	e := mustCreateEvent(t, db, admin, newEvent(t, "Gone from the source"))
	series, err := db.CreateEvent(ctx, admin, "en", weekly(t, "RRULE:FREQ=WEEKLY;COUNT=3"))
	if err != nil {
		t.Fatal(err)
	}
	trash := func(d Doc) error {
		t.Helper()
		return db.Bulk(ctx, admin, func(b *Bulk) error { return b.Trash(d) })
	}
	for _, d := range []Doc{{DocEvent, e.ID}, {DocEvent, e.ID}, {DocEvent, series.ID}, {DocEvent, 9999}} {
		if err := trash(d); err != nil {
			t.Errorf("trash %v: %v", d, err)
		}
	}
	if got, _, err := db.Event(ctx, e.ID); err != nil || got.Status != StatusTrash {
		t.Errorf("trashed event: %+v %v", got, err)
	}
	if occ := occurrencesOf(t, db, series.ID); len(occ) != 2 || len(live(occ)) != 0 {
		t.Errorf("occurrences of the trashed series: %d, live %v", len(occ), live(occ))
	}
	if err := trash(Doc{DocCategory, 1}); !errors.Is(err, ErrWrongType) {
		t.Errorf("trash a term: %v, want ErrWrongType", err)
	}
}

// TestLocalIDBase: with Options.LocalIDBase, every ID the store chooses (records, images' aside, and
// terms, each on its own sequence) is at least the base, records created before keep theirs, and an
// import's IDs below the base do not move it; an import's ID above it does, so that IDs never collide.
func TestLocalIDBase(t *testing.T) {
	const base = MirrorIDBase
	type step struct {
		// create makes a record or term here (kind "event", "venue", "organizer", "category",
		// "tag"), or with put an import's record with that ID.
		kind   string
		put    uint64
		bulk   bool // a record of the store's choosing, created inside Bulk (an iCalendar import)
		wantID uint64
	}
	for _, tc := range []struct {
		name  string
		base  uint64 // 0: none
		steps []step
	}{
		{name: "no base", steps: []step{
			{kind: "event", wantID: 1}, {kind: "venue", wantID: 2}, {kind: "tag", wantID: 1}, {kind: "category", wantID: 2},
		}},
		{name: "base on an empty store", base: base, steps: []step{
			{kind: "event", wantID: base}, {kind: "venue", wantID: base + 1}, {kind: "organizer", wantID: base + 2},
			{kind: "event", bulk: true, wantID: base + 3},
			{kind: "tag", wantID: base}, {kind: "category", wantID: base + 1},
		}},
		{name: "site IDs below the base", base: base, steps: []step{
			{kind: "event", put: 375, wantID: 375}, {kind: "event", wantID: base},
			{kind: "event", put: 376, wantID: 376}, {kind: "event", wantID: base + 1},
			{kind: "tag", put: 12, wantID: 12}, {kind: "tag", wantID: base},
		}},
		{name: "an import's ID above the base", base: base, steps: []step{
			{kind: "event", wantID: base}, {kind: "event", put: base + 10, wantID: base + 10}, {kind: "venue", wantID: base + 11},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := mustOpenDB(t)
			db.localIDBase = tc.base
			for i, s := range tc.steps {
				got, err := createOrPut(t, db, s.kind, s.put, s.bulk)
				if err != nil || got != s.wantID {
					t.Errorf("step %d, %s (put %d, in bulk %v): id %d, %v; want %d", i, s.kind, s.put, s.bulk, got, err, s.wantID)
				}
			}
		})
	}
	// A store that mirrors from now on keeps the IDs it has.
	db := mustOpenDB(t)
	old := mustCreateEvent(t, db, admin, newEvent(t, "Before the mirror"))
	db.localIDBase = base
	if next := mustCreateEvent(t, db, admin, newEvent(t, "After")); old.ID != 1 || next.ID != base {
		t.Errorf("ids %d then %d, want 1 then the base", old.ID, next.ID)
	}
	if e, _, err := db.Event(ctx, old.ID); err != nil || e.Title != "Before the mirror" {
		t.Errorf("the earlier event: %+v %v", e, err)
	}
}

// createOrPut creates a record or term of kind, through the API's way or inside Bulk, or puts an
// import's with ID put, and returns its ID.
func createOrPut(t *testing.T, db *DB, kind string, put uint64, bulk bool) (uint64, error) {
	t.Helper()
	tax := map[string]Taxonomy{"category": TaxCategory, "tag": TaxTag}
	switch {
	case put != 0:
		err := db.Bulk(ctx, admin, func(b *Bulk) error {
			var err error
			switch kind {
			case "event":
				_, _, err = b.PutEvent(put, "en", newEvent(t, "Site "+utoa(put)))
			case "category", "tag":
				_, err = b.PutTerm(tax[kind], put, &TermInput{Name: ptr("site " + utoa(put))})
			}
			return err
		})
		return put, err
	case bulk:
		var id uint64
		err := db.Bulk(ctx, admin, func(b *Bulk) error {
			e, err := b.CreateEvent("en", newEvent(t, "From a feed"))
			if err == nil {
				id = e.ID
			}
			return err
		})
		return id, err
	}
	switch kind {
	case "event":
		e, err := db.CreateEvent(ctx, admin, "en", newEvent(t, "Ours"))
		if err != nil {
			return 0, err
		}
		return e.ID, nil
	case "venue":
		v, _, err := db.CreateVenue(ctx, admin, "en", &VenueInput{PostInput: PostInput{Title: ptr("Hall")}})
		if err != nil {
			return 0, err
		}
		return v.ID, nil
	case "organizer":
		o, _, err := db.CreateOrganizer(ctx, admin, "en", &OrganizerInput{PostInput: PostInput{Title: ptr("Org")}})
		if err != nil {
			return 0, err
		}
		return o.ID, nil
	}
	term, err := db.CreateTerm(ctx, admin, tax[kind], &TermInput{Name: ptr("ours " + kind)})
	if err != nil {
		return 0, err
	}
	return term.ID, nil
}

// TestImportNeverOverwritesLocal: an import that writes a record or term with its source's ID, where
// the store holds one this source did not import (created here, or another source's), fails with
// ErrNotImported naming both, and the record held stays as it was; the source's own records, new or
// linked before, are written.
func TestImportNeverOverwritesLocal(t *testing.T) {
	const site, other = "https://site.example/wp-json", "https://other.example/wp-json"
	for _, tc := range []struct {
		name string
		// hold writes what the store holds under the ID before the import (nil: nothing), and
		// returns that ID and a snapshot of it.
		hold func(t *testing.T, db *DB) uint64
		// kind is what the import writes under that ID.
		kind     DocKind
		wantErr  error
		wantText string // in the error
	}{
		{name: "an event of the site's, new", kind: DocEvent,
			hold: func(t *testing.T, db *DB) uint64 { return 375 }},
		{name: "an event the site's import wrote before", kind: DocEvent,
			hold: func(t *testing.T, db *DB) uint64 { return importAs(t, db, site, DocEvent, 375) }},
		{name: "an event created here", kind: DocEvent, wantErr: ErrNotImported,
			wantText: "the source's event 375 is not written over our event 375, created here",
			hold:     func(t *testing.T, db *DB) uint64 { return createdHere(t, db, DocEvent) }},
		{name: "a venue created here", kind: DocVenue, wantErr: ErrNotImported,
			wantText: "the source's venue 375 is not written over our venue 375, created here",
			hold:     func(t *testing.T, db *DB) uint64 { return createdHere(t, db, DocVenue) }},
		{name: "an organizer created here", kind: DocOrganizer, wantErr: ErrNotImported,
			wantText: "the source's organizer 375 is not written over our organizer 375, created here",
			hold:     func(t *testing.T, db *DB) uint64 { return createdHere(t, db, DocOrganizer) }},
		{name: "a tag created here", kind: DocTag, wantErr: ErrNotImported,
			wantText: "the source's tag 375 is not written over our tag 375, created here",
			hold:     func(t *testing.T, db *DB) uint64 { return createdHere(t, db, DocTag) }},
		{name: "another source's event", kind: DocEvent, wantErr: ErrNotImported,
			wantText: "the source's event 375 is not written over our event 375, imported from " + other,
			hold:     func(t *testing.T, db *DB) uint64 { return importAs(t, db, other, DocEvent, 375) }},
		{name: "a venue created here, under the site's event", kind: DocEvent, wantErr: ErrWrongType,
			wantText: "375 is a venue here",
			hold:     func(t *testing.T, db *DB) uint64 { return createdHere(t, db, DocVenue) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := mustOpenDB(t)
			id := tc.hold(t, db)
			if id != 375 {
				t.Fatalf("held ID %d, want 375", id)
			}
			before := snapshotDocs(t, db)
			err := db.Bulk(ctx, admin, func(b *Bulk) error {
				if err := putAs(t, b, tc.kind, id, "From the site"); err != nil {
					return err
				}
				return b.Link(site, tc.kind.String()+":375", Doc{tc.kind, id}, "s2")
			})
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("import: %v", err)
				}
				if links, _ := db.Linked(ctx, site); links[tc.kind.String()+":375"] != (ExternalLink{Doc{tc.kind, id}, "s2"}) {
					t.Errorf("links %v", links)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("import: %v, want %v saying %q", err, tc.wantErr, tc.wantText)
			}
			if diff := cmp.Diff(before, snapshotDocs(t, db)); diff != "" {
				t.Errorf("the store changed (-before +after):\n%s", diff)
			}
		})
	}
}

// createdHere creates a record or term of kind k through the API's way, with ID 375.
func createdHere(t *testing.T, db *DB, k DocKind) uint64 {
	t.Helper()
	// The sequences at 374: the next ID handed out is 375, as a site's next one could be.
	if err := db.kv.Update(ctx, func(tx kv.RwTx) error {
		if err := tx.SetSequence(bSeqPosts, 374); err != nil {
			return err
		}
		return tx.SetSequence(bSeqTerms, 374)
	}); err != nil {
		t.Fatal(err)
	}
	kind := map[DocKind]string{DocEvent: "event", DocVenue: "venue", DocOrganizer: "organizer", DocCategory: "category", DocTag: "tag"}[k]
	id, err := createOrPut(t, db, kind, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// importAs writes record id of kind k as source's import does.
func importAs(t *testing.T, db *DB, source string, k DocKind, id uint64) uint64 {
	t.Helper()
	if err := db.Bulk(ctx, admin, func(b *Bulk) error {
		if err := putAs(t, b, k, id, "Imported"); err != nil {
			return err
		}
		return b.Link(source, k.String()+":"+utoa(id), Doc{k, id}, "s1")
	}); err != nil {
		t.Fatal(err)
	}
	return id
}

// putAs puts record or term id of kind k, titled title, as an import does.
func putAs(t *testing.T, b *Bulk, k DocKind, id uint64, title string) error {
	var err error
	switch k {
	case DocEvent:
		_, _, err = b.PutEvent(id, "en", newEvent(t, title))
	case DocVenue:
		_, err = b.PutVenue(id, "en", &VenueInput{PostInput: PostInput{Title: ptr(title)}})
	case DocOrganizer:
		_, err = b.PutOrganizer(id, "en", &OrganizerInput{PostInput: PostInput{Title: ptr(title)}})
	default:
		tax, _ := k.Taxonomy()
		_, err = b.PutTerm(tax, id, &TermInput{Name: ptr(title)})
	}
	return err
}

// snapshotDocs reads every key of the buckets an import writes, as strings.
func snapshotDocs(t *testing.T, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := db.kv.View(ctx, func(tx kv.Tx) error {
		for _, b := range [][]byte{bEvents, bVenues, bOrganizers, termBucket(TaxCategory), termBucket(TaxTag), bExternal, bExternalDocs, bSeqPosts, bSeqTerms} {
			c := tx.Cursor(b)
			for k, v := c.First(); k != nil; k, v = c.Next() {
				out[string(b)+"/"+string(k)] = string(v)
			}
			out[string(b)+" sequence"] = utoa(tx.Sequence(b))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoWebsite: an import's NoWebsite forgets the website, whether one was stored or "" was (an
// update's way to empty it): the event then reads as one that never had one, on create and update.
func TestNoWebsite(t *testing.T) {
	db := mustOpenDB(t)
	put := func(id uint64, in *EventInput) *Event {
		t.Helper()
		var e *Event
		if err := db.Bulk(ctx, admin, func(b *Bulk) (err error) {
			e, _, err = b.PutEvent(id, "en", in)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	in := newEvent(t, "Gig")
	in.NoWebsite, in.Website = true, ptr("https://ignored.example/")
	if e := put(900, in); e.Website != nil {
		t.Errorf("created with NoWebsite: website %q, want none", *e.Website)
	}
	for _, stored := range []string{"https://gig.example/", ""} {
		if e := put(900, &EventInput{Website: ptr(stored)}); e.Website == nil || *e.Website != stored {
			t.Fatalf("update to %q: website %v", stored, e.Website)
		}
		if e := put(900, &EventInput{NoWebsite: true}); e.Website != nil {
			t.Errorf("NoWebsite after %q: website %q, want none", stored, *e.Website)
		}
		if e, _, err := db.Event(ctx, 900); err != nil || e.Website != nil {
			t.Errorf("stored after NoWebsite: %+v %v, want no website", e, err)
		}
	}
}

// BenchmarkLinkCounts counts 50,000 links of one calendar and 50,000 of another source against the
// 50,000 UIDs of a file: what an iCalendar import pays to recognise its calendar, beside Linked, which
// reads the calendar's links after it.
func BenchmarkLinkCounts(b *testing.B) {
	const n = 50_000
	db := mustOpenDB(b)
	uids := map[string]bool{}
	for _, source := range []string{"/home/me/calendar.ics", "https://site.example/wp-json"} {
		for chunk := range n / 1000 {
			if err := db.Bulk(ctx, admin, func(bulk *Bulk) error {
				for i := range 1000 {
					id := uint64(chunk*1000 + i + 1)
					external := fmt.Sprintf("%d-1776450600-1776459600@site.example", id)
					uids[external] = true
					if err := bulk.Link(source, external, Doc{DocEvent, id}, "0123456789abcdef0123456789abcdef"); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("LinkCounts", func(b *testing.B) {
		for b.Loop() {
			if counts, err := db.LinkCounts(ctx, uids); err != nil || len(counts) != 2 {
				b.Fatal(counts, err)
			}
		}
	})
	b.Run("Linked", func(b *testing.B) {
		for b.Loop() {
			if links, err := db.Linked(ctx, "/home/me/calendar.ics"); err != nil || len(links) != n {
				b.Fatal(len(links), err)
			}
		}
	})
}
