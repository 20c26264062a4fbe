package storage

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap/zaptest"
)

var update = flag.Bool("update", false, "rewrite testdata/layout.golden")

// TestLayout pins the bytes a fixed series of writes leaves in the file: every bucket with its sequence,
// keys and values, read back with bbolt alone. A file written by an older calendard must open
// unchanged, so a change to what this golden file shows of an existing bucket is a schema change: it
// needs a new schema version and a migration. A new bucket is not: every open creates the missing
// ones, empty.
func TestLayout(t *testing.T) {
	now := testNow
	path := filepath.Join(t.TempDir(), "calendar.db")
	db, err := Open(path, Options{Now: func() time.Time { return now }, Logger: zaptest.NewLogger(t), ChangesHorizon: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	user, err := db.CreateUser(ctx, User{Login: "Admin", Email: "Admin@example.org", Role: RoleAdministrator})
	must(err)
	a := Actor{UserID: user.ID, Role: user.Role}
	must(db.AddAppPassword(ctx, "admin", "laptop", "AAAAAAAAAAAAAAAAAAAAAAAA"))
	must(db.AddAppPassword(ctx, "admin", "phone", "BBBBBBBBBBBBBBBBBBBBBBBB"))
	must(db.RevokeAppPassword(ctx, "admin", "phone"))
	music, err := db.CreateTerm(ctx, a, TaxCategory, &TermInput{Name: ptr("Music")})
	must(err)
	_, err = db.CreateTerm(ctx, a, TaxCategory, &TermInput{Name: ptr("Jazz"), Parent: &music.ID})
	must(err)

	in := newEvent(t, "Concert")
	in.Image = &ImageRef{URL: "https://example.org/a.jpg"}
	in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Hall")}, Geo: &Geo{Lat: 48.85, Lng: 2.35}}}
	in.Organizers = &[]OrganizerRef{{New: &OrganizerInput{PostInput: PostInput{Title: ptr("Org")}}}}
	in.Categories = &[]string{"Jazz", "Blues"}
	in.Tags = &[]string{"Outdoor"}
	concert, err := db.CreateEvent(ctx, a, "en", in)
	must(err)
	fr := newEvent(t, "Concert")
	fr.TranslationOf = &concert.ID
	frConcert, err := db.CreateEvent(ctx, a, "fr", fr)
	must(err)
	_, err = db.CreateEvent(ctx, a, "de", fr)
	must(err)
	// Trashing a member logs the whole group, in the groups bucket's key order (de before en).
	_, err = db.TrashEvent(ctx, a, frConcert.ID)
	must(err)
	soon := now.Add(time.Hour)
	later := newEvent(t, "Later")
	later.Status, later.Date, later.Tags = ptr(StatusFuture), &soon, &[]string{"Outdoor"}
	_, err = db.CreateEvent(ctx, a, "en", later)
	must(err)
	scheduled := newEvent(t, "Scheduled")
	scheduled.Status, scheduled.Date, scheduled.Tags = ptr(StatusFuture), ptr(now.Add(48*time.Hour)), &[]string{"Outdoor"}
	_, err = db.CreateEvent(ctx, a, "en", scheduled)
	must(err)
	trashed, err := db.CreateEvent(ctx, a, "en", newEvent(t, "Concert"))
	must(err)
	_, err = db.TrashEvent(ctx, a, trashed.ID)
	must(err)

	_, err = db.UpdateVenue(ctx, a, concert.VenueID, &VenueInput{Geo: &Geo{Lat: 48.86, Lng: 2.34}})
	must(err)
	_, err = db.TrashOrganizer(ctx, a, concert.OrganizerIDs[0])
	must(err)
	_, err = db.UpdateTerm(ctx, a, TaxCategory, music.ID, &TermInput{Name: ptr("Live music"), Slug: ptr("live")})
	must(err)
	_, err = db.DeleteTerm(ctx, TaxCategory, concert.Categories[1])
	must(err)
	now = soon
	_, err = db.PublishDue(ctx)
	must(err)
	// Each trim marks the head (outbox_marks); the second trims to the first mark, the third drops it.
	for range 3 {
		_, err = db.TrimChanges(ctx, 5)
		must(err)
		now = now.Add(2 * time.Hour)
	}
	must(db.Close())

	got := dumpFile(t, path)
	golden := filepath.Join("testdata", "layout.golden")
	if *update {
		must(os.MkdirAll("testdata", 0o755))
		must(os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	must(err)
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("the file's layout changed (-golden +got):\n%s", diff)
	}
}

// dumpFile lists every bucket of a store file, with its sequence, keys and values, as text. Printable
// bytes are quoted, others are hex. The two values that are random in every store, the password hash
// key and the keyed hashes it makes, are masked.
func dumpFile(t *testing.T, path string) string {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	var out strings.Builder
	show := func(b []byte) string {
		for _, c := range b {
			if c < 0x20 || c > 0x7e {
				return fmt.Sprintf("%x", b)
			}
		}
		return fmt.Sprintf("%q", b)
	}
	err = bdb.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			fmt.Fprintf(&out, "%s sequence=%d\n", name, b.Sequence())
			return b.ForEach(func(k, v []byte) error {
				switch {
				case bytes.Equal(name, bMeta) && bytes.Equal(k, kHashKey):
					v = []byte("<random>")
				case bytes.Equal(name, bAppPasswords):
					k = []byte("<keyed hash>")
				}
				fmt.Fprintf(&out, "\t%s = %s\n", show(k), show(v))
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}
