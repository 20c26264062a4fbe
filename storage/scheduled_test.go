package storage

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/kv"
)

// scheduledEntry is an entry of the scheduled bucket, decoded.
type scheduledEntry struct {
	Date  time.Time
	Terms []uint64
}

// scheduledDrift compares the scheduled bucket with the stored records, which it must mirror exactly:
// one entry per record stored as future, under its date, with an event's terms. It returns the
// difference, or "" when they agree. Every test store runs it at cleanup (openClockDB).
func scheduledDrift(tx kv.Tx) (string, error) {
	want := map[uint64]scheduledEntry{}
	for _, t := range []PostType{TypeEvent, TypeVenue, TypeOrganizer} {
		err := forEach(tx, postBucket(t), func(k, v []byte) error {
			r, err := decodeRecord(t, v)
			if err != nil {
				return err
			}
			if p := r.post(); p.Status == StatusFuture {
				var terms []uint64
				if e, ok := r.(*Event); ok {
					terms = e.termIDs()
				}
				want[p.ID] = scheduledEntry{time.Unix(p.Date.Unix(), 0), terms}
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	got := map[uint64]scheduledEntry{}
	err := forEach(tx, bScheduled, func(k, v []byte) error {
		if len(k) != 16 || len(v)%8 != 0 {
			return fmt.Errorf("malformed entry %x → %x", k, v)
		}
		var terms []uint64
		for ; len(v) > 0; v = v[8:] {
			terms = append(terms, binary.BigEndian.Uint64(v))
		}
		got[beUint(k[8:])] = scheduledEntry{time.Unix(int64(beUint(k)), 0), terms}
		return nil
	})
	return cmp.Diff(want, got), err
}

// checkScheduled fails t when the scheduled bucket does not mirror the stored records.
func checkScheduled(t testing.TB, db *DB) {
	t.Helper()
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		diff, err := scheduledDrift(tx)
		if diff != "" {
			t.Errorf("scheduled bucket drifted from the records (-records +bucket):\n%s", diff)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// forEach calls fn with each key and value of bucket, in order, as bbolt's Bucket.ForEach does.
func forEach(tx kv.Tx, bucket []byte, fn func(k, v []byte) error) error {
	c := tx.Cursor(bucket)
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// scheduledAt is the date of record id's scheduled entry, zero if it has none.
func scheduledAt(t *testing.T, db *DB, id uint64) time.Time {
	t.Helper()
	var at time.Time
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		return forEach(tx, bScheduled, func(k, _ []byte) error {
			if beUint(k[8:]) == id {
				at = time.Unix(int64(beUint(k)), 0).UTC()
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// postKind drives the writes every record type shares.
type postKind struct {
	name   string
	create func(db *DB, in PostInput) (uint64, error)
	update func(db *DB, id uint64, in PostInput) error
	trash  func(db *DB, id uint64) error
}

var postKinds = []postKind{
	{
		name: "event",
		create: func(db *DB, in PostInput) (uint64, error) {
			e, err := db.CreateEvent(ctx, admin, "en", &EventInput{PostInput: in, Start: &eventStart, End: &eventStart})
			if err != nil {
				return 0, err
			}
			return e.ID, nil
		},
		update: func(db *DB, id uint64, in PostInput) error {
			_, err := db.UpdateEvent(ctx, admin, id, &EventInput{PostInput: in})
			return err
		},
		trash: func(db *DB, id uint64) error { _, err := db.TrashEvent(ctx, admin, id); return err },
	},
	{
		name: "venue",
		create: func(db *DB, in PostInput) (uint64, error) {
			v, _, err := db.CreateVenue(ctx, admin, "en", &VenueInput{PostInput: in})
			if err != nil {
				return 0, err
			}
			return v.ID, nil
		},
		update: func(db *DB, id uint64, in PostInput) error {
			_, err := db.UpdateVenue(ctx, admin, id, &VenueInput{PostInput: in})
			return err
		},
		trash: func(db *DB, id uint64) error { _, err := db.TrashVenue(ctx, admin, id); return err },
	},
	{
		name: "organizer",
		create: func(db *DB, in PostInput) (uint64, error) {
			o, _, err := db.CreateOrganizer(ctx, admin, "en", &OrganizerInput{PostInput: in})
			if err != nil {
				return 0, err
			}
			return o.ID, nil
		},
		update: func(db *DB, id uint64, in PostInput) error {
			_, err := db.UpdateOrganizer(ctx, admin, id, &OrganizerInput{PostInput: in})
			return err
		},
		trash: func(db *DB, id uint64) error { _, err := db.TrashOrganizer(ctx, admin, id); return err },
	},
}

var eventStart, _ = datetime.Parse("2030-05-01 20:00:00")

// TestScheduledBucketFollowsEveryWrite: every write that sets or clears `future`, or moves the date of
// a scheduled record, of every record type, leaves the record in the scheduled bucket exactly when it
// is stored as scheduled, under its date (and openClockDB's cleanup compares the whole bucket with
// the records).
func TestScheduledBucketFollowsEveryWrite(t *testing.T) {
	soon, later, past := testNow.Add(time.Hour), testNow.Add(2*time.Hour), testNow.Add(-time.Hour)
	future, publish, draft := ptr(StatusFuture), ptr(StatusPublish), ptr(StatusDraft)
	scheduled := PostInput{Title: ptr("Scheduled"), Status: future, Date: &soon}
	for _, k := range postKinds {
		for _, tc := range []struct {
			name   string
			create PostInput
			// write runs after the create; now is the store's clock.
			write func(db *DB, id uint64, now *time.Time) error
			want  time.Time
		}{
			{"create scheduled", scheduled, nil, soon},
			{"create published with a date ahead", PostInput{Title: ptr("x"), Status: publish, Date: &soon}, nil, soon},
			{"create published", PostInput{Title: ptr("x"), Status: publish}, nil, time.Time{}},
			{"create draft with a date ahead", PostInput{Title: ptr("x"), Status: draft, Date: &soon}, nil, time.Time{}},
			{"create scheduled in the past", PostInput{Title: ptr("x"), Status: future, Date: &past}, nil, time.Time{}},
			{"move the date", scheduled, func(db *DB, id uint64, _ *time.Time) error {
				return k.update(db, id, PostInput{Date: &later})
			}, later},
			{"move the date to the past", scheduled, func(db *DB, id uint64, _ *time.Time) error {
				return k.update(db, id, PostInput{Date: &past})
			}, time.Time{}},
			{"unschedule", scheduled, func(db *DB, id uint64, _ *time.Time) error {
				return k.update(db, id, PostInput{Status: draft})
			}, time.Time{}},
			{"schedule a draft", PostInput{Title: ptr("x"), Status: draft}, func(db *DB, id uint64, _ *time.Time) error {
				return k.update(db, id, PostInput{Status: future, Date: &later})
			}, later},
			{"edit other fields", scheduled, func(db *DB, id uint64, _ *time.Time) error {
				return k.update(db, id, PostInput{Title: ptr("Renamed")})
			}, soon},
			{"trash", scheduled, func(db *DB, id uint64, _ *time.Time) error { return k.trash(db, id) }, time.Time{}},
			{"trash through status", scheduled, func(db *DB, id uint64, _ *time.Time) error {
				return k.update(db, id, PostInput{Status: ptr(StatusTrash)})
			}, time.Time{}},
			{"restore as scheduled", scheduled, func(db *DB, id uint64, _ *time.Time) error {
				if err := k.trash(db, id); err != nil {
					return err
				}
				return k.update(db, id, PostInput{Status: publish})
			}, soon},
			{"edit once due", scheduled, func(db *DB, id uint64, now *time.Time) error {
				*now = soon
				return k.update(db, id, PostInput{Title: ptr("Renamed")})
			}, time.Time{}},
			{"edit once due, changing nothing", scheduled, func(db *DB, id uint64, now *time.Time) error {
				*now = soon
				return k.update(db, id, PostInput{Title: ptr("Scheduled")})
			}, soon},
			{"trash once due", scheduled, func(db *DB, id uint64, now *time.Time) error {
				*now = soon
				return k.trash(db, id)
			}, time.Time{}},
			{"PublishDue before the date", scheduled, func(db *DB, _ uint64, _ *time.Time) error {
				_, err := db.PublishDue(ctx)
				return err
			}, soon},
			{"PublishDue at the date", scheduled, func(db *DB, _ uint64, now *time.Time) error {
				*now = soon
				_, err := db.PublishDue(ctx)
				return err
			}, time.Time{}},
		} {
			t.Run(k.name+"/"+tc.name, func(t *testing.T) {
				now := testNow
				db := openClockDB(t, &now)
				id, err := k.create(db, tc.create)
				if err != nil {
					t.Fatal(err)
				}
				if tc.write != nil {
					if err := tc.write(db, id, &now); err != nil {
						t.Fatal(err)
					}
				}
				if got := scheduledAt(t, db, id); !got.Equal(tc.want) {
					t.Errorf("scheduled at %v, want %v (zero: not scheduled)", got, tc.want)
				}
			})
		}
	}
}

// TestScheduledEntriesFollowEventLinks: a scheduled event's entry holds its terms, and follows every
// write that changes them or rewrites the event: its own updates, term deletion, the trashing of its
// venue or organizer; records created inline or in bulk are scheduled too. The bucket is compared
// with the records after each step.
func TestScheduledEntriesFollowEventLinks(t *testing.T) {
	soon := testNow.Add(time.Hour)
	now := testNow
	db := openClockDB(t, &now)
	scheduled := PostInput{Status: ptr(StatusFuture), Date: &soon}
	var ev *Event
	steps := []struct {
		name string
		do   func() error
	}{
		{"create with terms and inline scheduled venue and organizer", func() (err error) {
			in := newEvent(t, "Concert")
			in.PostInput = scheduled
			in.Title = ptr("Concert")
			in.Categories, in.Tags = &[]string{"Music", "Jazz"}, &[]string{"Outdoor"}
			in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Hall"), Status: ptr(StatusFuture), Date: &soon}}}
			in.Organizers = &[]OrganizerRef{{New: &OrganizerInput{PostInput: PostInput{Title: ptr("Org"), Status: ptr(StatusFuture), Date: &soon}}}}
			ev, err = db.CreateEvent(ctx, admin, "en", in)
			return err
		}},
		{"change its terms", func() error {
			_, err := db.UpdateEvent(ctx, admin, ev.ID, &EventInput{Categories: &[]string{"Music", "Blues"}})
			return err
		}},
		{"delete one of its terms", func() error {
			_, err := db.DeleteTerm(ctx, TaxCategory, ev.Categories[0])
			return err
		}},
		{"trash its venue", func() error { _, err := db.TrashVenue(ctx, admin, ev.VenueID); return err }},
		{"trash its organizer", func() error { _, err := db.TrashOrganizer(ctx, admin, ev.OrganizerIDs[0]); return err }},
		{"bulk create", func() error {
			return db.Bulk(ctx, admin, func(b *Bulk) error {
				in := newEvent(t, "Bulk")
				in.PostInput, in.Title, in.Tags = scheduled, ptr("Bulk"), &[]string{"Outdoor"}
				if _, err := b.CreateEvent("en", in); err != nil {
					return err
				}
				if _, err := b.CreateVenue("en", &VenueInput{PostInput: PostInput{Title: ptr("Bulk hall"), Status: ptr(StatusFuture), Date: &soon}}); err != nil {
					return err
				}
				_, err := b.CreateOrganizer("en", &OrganizerInput{PostInput: PostInput{Title: ptr("Bulk org"), Status: ptr(StatusFuture), Date: &soon}})
				return err
			})
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		checkScheduled(t, db)
	}
	var n int
	db.kv.View(ctx, func(tx kv.Tx) error { n = tx.Count(bScheduled); return nil })
	if n != 4 {
		t.Errorf("%d records scheduled, want 4 (2 events, the venue and organizer created in bulk)", n)
	}
}

// TestSchema2Migrates: a store written by schema 2 had only events in the scheduled bucket, and could
// have lost the entry of a due event left scheduled by an update that changed nothing, which counted
// the event already. Opening it schedules its venues and organizers, restores the lost entry and
// recounts, and PublishDue then publishes them all.
func TestSchema2Migrates(t *testing.T) {
	now := testNow
	path := filepath.Join(t.TempDir(), "calendar.db")
	open := func() *DB {
		db, err := Open(path, Options{Now: func() time.Time { return now }, Logger: zaptest.NewLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	soon := testNow.Add(time.Hour)
	tag, err := db.CreateTerm(ctx, admin, TaxTag, &TermInput{Name: ptr("Outdoor")})
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	types := []PostType{TypeEvent, TypeVenue, TypeOrganizer, TypeEvent}
	for _, k := range postKinds {
		id, err := k.create(db, PostInput{Title: ptr("Scheduled " + k.name), Status: ptr(StatusFuture), Date: &soon})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	in := newEvent(t, "Lost")
	in.Status, in.Date, in.Tags = ptr(StatusFuture), &soon, &[]string{utoa(tag.ID)}
	lost := mustCreateEvent(t, db, admin, in)
	ids = append(ids, lost.ID)
	err = db.kv.Update(ctx, func(tx kv.RwTx) error { // what schema 2 wrote
		for _, id := range []uint64{ids[1], ids[2], lost.ID} {
			if err := tx.Delete(bScheduled, scheduledKey(soon, id)); err != nil {
				return err
			}
		}
		// The lost event, counted by the update that changed nothing.
		if err := setTagCount(tx, tag.ID, 1); err != nil {
			return err
		}
		return tx.Put(bMeta, kSchema, u64(2))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = open()
	defer db.Close()
	checkScheduled(t, db)
	if term, _, err := db.Term(ctx, TaxTag, tag.ID); err != nil || term.Count != 0 {
		t.Errorf("before the date: count %v, %v; want 0", term, err)
	}
	now = soon
	if n, err := db.PublishDue(ctx); err != nil || n != len(ids) {
		t.Errorf("PublishDue = %d, %v; want %d", n, err, len(ids))
	}
	for i, id := range ids {
		if got := storedStatus(t, db, postBucket(types[i]), id).Status; got != StatusPublish {
			t.Errorf("record %d stored as %s, want publish", id, got)
		}
	}
	if term, _, err := db.Term(ctx, TaxTag, tag.ID); err != nil || term.Count != 1 {
		t.Errorf("after the date: count %v, %v; want 1", term, err)
	}
	checkScheduled(t, db)
}
