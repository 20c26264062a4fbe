package storage

import "testing"

// TestDocsFollowWrites: every write that changes what an event's response embeds logs one of the
// event's documents (EventDocs), and a write elsewhere logs none, so a rendering judged by EventDocs
// is neither kept stale nor thrown away for nothing.
func TestDocsFollowWrites(t *testing.T) {
	db := mustOpenDB(t)
	music, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Music")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Jazz"), Parent: &music.ID}); err != nil {
		t.Fatal(err)
	}
	in := newEvent(t, "Concert")
	in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Hall")}}}
	in.Organizers = &[]OrganizerRef{{New: &OrganizerInput{PostInput: PostInput{Title: ptr("Org")}}}}
	in.Categories = &[]string{"jazz"}
	in.Tags = &[]string{"live"}
	e := mustCreateEvent(t, db, admin, in)
	other := newEvent(t, "Lecture")
	other.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Library")}}}
	other.Tags = &[]string{"talk"}
	o := mustCreateEvent(t, db, admin, other)
	talk := o.Tags[0]

	for _, tc := range []struct {
		name  string
		write func() error
		// embedded says whether the write changes e's response.
		embedded bool
	}{
		{"the event itself", func() error {
			_, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{PostInput: PostInput{Title: ptr("Concert!")}})
			return err
		}, true},
		{"its venue renamed", func() error {
			_, err := db.UpdateVenue(ctx, admin, e.VenueID, &VenueInput{PostInput: PostInput{Title: ptr("Big Hall")}})
			return err
		}, true},
		{"its organizer renamed", func() error {
			_, err := db.UpdateOrganizer(ctx, admin, e.OrganizerIDs[0], &OrganizerInput{PostInput: PostInput{Title: ptr("Org B")}})
			return err
		}, true},
		{"the parent of its category renamed (category URLs)", func() error {
			_, err := db.UpdateTerm(ctx, admin, TaxCategory, music.ID, &TermInput{Slug: ptr("musique")})
			return err
		}, true},
		{"its tag's count changed by another event", func() error {
			in := newEvent(t, "Jam")
			in.Tags = &[]string{"live"}
			_, err := db.CreateEvent(ctx, admin, "en", in)
			return err
		}, true},
		{"a translation of its venue created", func() error {
			_, _, err := db.CreateVenue(ctx, admin, "fr", &VenueInput{PostInput: PostInput{Title: ptr("Grande Salle"), TranslationOf: &e.VenueID}})
			return err
		}, true},
		{"another event's venue renamed", func() error {
			_, err := db.UpdateVenue(ctx, admin, o.VenueID, &VenueInput{PostInput: PostInput{Title: ptr("Old Library")}})
			return err
		}, false},
		{"a tag it does not carry renamed", func() error {
			_, err := db.UpdateTerm(ctx, admin, TaxTag, talk, &TermInput{Name: ptr("Talks")})
			return err
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, rel, err := db.Load(ctx, TypeEvent, []uint64{e.ID})
			if err != nil {
				t.Fatal(err)
			}
			docs := EventDocs(recs.Events[0], rel)
			head, err := db.ChangeHead(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.write(); err != nil {
				t.Fatal(err)
			}
			changed, complete, err := db.ChangedSince(ctx, head, 1000)
			if err != nil || !complete {
				t.Fatalf("ChangedSince: complete %v, %v", complete, err)
			}
			named := false
			for _, d := range docs {
				if changed[d] > head {
					named = true
				}
			}
			if named != tc.embedded {
				t.Errorf("the write named one of the event's documents %v: %v, want %v (logged %v)", docs, named, tc.embedded, changed)
			}
		})
	}
}

func TestChangedSince(t *testing.T) {
	db := mustOpenDB(t)
	e := mustCreateEvent(t, db, admin, newEvent(t, "Concert"))
	head, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"A", "B", "C"} {
		if _, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{PostInput: PostInput{Title: ptr(title)}}); err != nil {
			t.Fatal(err)
		}
	}
	last, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		after        uint64
		limit        int
		wantComplete bool
		wantSeq      uint64 // of the event's entry; 0: not named
	}{
		{"all of it", head, 10, true, last},
		{"exactly the entries left", head, int(last - head), true, last},
		{"fewer than are left", head, 1, false, head + 1},
		{"nothing new", last, 10, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed, complete, err := db.ChangedSince(ctx, tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if complete != tc.wantComplete || changed[Doc{DocEvent, e.ID}] != tc.wantSeq {
				t.Errorf("complete %v, event at %d; want %v, %d", complete, changed[Doc{DocEvent, e.ID}], tc.wantComplete, tc.wantSeq)
			}
		})
	}
	// Below what was trimmed nothing is known.
	if _, err := db.TrimChanges(ctx, last); err != nil {
		t.Fatal(err)
	}
	if changed, complete, err := db.ChangedSince(ctx, head, 10); err != nil || complete || len(changed) != 0 {
		t.Errorf("after a trim: %v %v %v, want incomplete and empty", changed, complete, err)
	}
}
