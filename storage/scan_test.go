package storage

import (
	"fmt"
	"testing"
)

// benchStore holds n events with venues, organizers and terms, every tenth event with a French
// translation, written in one bulk transaction. It returns the event IDs.
func benchStore(b *testing.B, n int) (*DB, []uint64) {
	b.Helper()
	db := mustOpenDB(b)
	var ids []uint64
	err := db.Bulk(ctx, admin, func(bk *Bulk) error {
		for i := range n {
			in := newEvent(b, fmt.Sprint("Concert ", i))
			in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr(fmt.Sprint("Hall ", i%50))}}}
			in.Organizers = &[]OrganizerRef{{New: &OrganizerInput{PostInput: PostInput{Title: ptr(fmt.Sprint("Org ", i%30))}}}}
			in.Categories = &[]string{fmt.Sprint("Category ", i%20)}
			in.Tags = &[]string{fmt.Sprint("Tag ", i%40), "Outdoor"}
			e, err := bk.CreateEvent("en", in)
			if err != nil {
				return err
			}
			ids = append(ids, e.ID)
			if i%10 == 0 {
				tr := newEvent(b, fmt.Sprint("Concert fr ", i))
				tr.TranslationOf = &e.ID
				if _, err := bk.CreateEvent("fr", tr); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return db, ids
}

// BenchmarkDB_Load loads a list page: 100 events with what they embed.
func BenchmarkDB_Load(b *testing.B) {
	db, ids := benchStore(b, 2000)
	page := ids[500:600]
	for b.Loop() {
		if _, _, err := db.Load(ctx, TypeEvent, page); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDB_Scan reads a page of a rebuild's scan: 500 events decoded.
func BenchmarkDB_Scan(b *testing.B) {
	db, _ := benchStore(b, 2000)
	for b.Loop() {
		if _, err := db.Scan(ctx, TypeEvent, 0, 500); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDB_CreateEvent creates an event with a new venue and an existing category: one durable
// commit with the links, counts and change-log entries a create writes.
func BenchmarkDB_CreateEvent(b *testing.B) {
	db, _ := benchStore(b, 200)
	for b.Loop() {
		in := newEvent(b, "Jazz concert")
		in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Hall")}}}
		in.Categories = &[]string{"Category 1"}
		if _, err := db.CreateEvent(ctx, admin, "en", in); err != nil {
			b.Fatal(err)
		}
	}
}
