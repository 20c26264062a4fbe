package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/kv"
)

var testNow = time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)

// mustOpenDB opens a store in a temp dir with a frozen clock and checks its consistency at cleanup.
func mustOpenDB(t testing.TB) *DB {
	t.Helper()
	now := testNow
	return openClockDB(t, &now)
}

var (
	ctx   = context.Background()
	admin = Actor{UserID: 1, Role: RoleAdministrator}
)

func ptr[T any](v T) *T { return &v }

func expr(t testing.TB, s string) *datetime.Expr {
	t.Helper()
	e, err := datetime.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return &e
}

func newEvent(t testing.TB, title string) *EventInput {
	return &EventInput{PostInput: PostInput{Title: ptr(title)}, Start: expr(t, "2030-05-01 20:00:00"), End: expr(t, "2030-05-01 22:00:00")}
}

func mustCreateEvent(t testing.TB, db *DB, a Actor, in *EventInput) *Event {
	t.Helper()
	e, err := db.CreateEvent(ctx, a, "en", in)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// changesSince returns the change-log entries after seq as "kind:id" pairs.
func changesSince(t testing.TB, db *DB, seq uint64) []Change {
	t.Helper()
	cs, err := db.Changes(ctx, seq, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cs {
		cs[i].Seq = 0
	}
	return cs
}

func TestChangeLogNamesEveryTouchedDocument(t *testing.T) {
	db := mustOpenDB(t)
	in := newEvent(t, "Concert")
	in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Hall")}}}
	in.Organizers = &[]OrganizerRef{{New: &OrganizerInput{PostInput: PostInput{Title: ptr("Org")}}}}
	in.Categories = &[]string{"Music"}
	e := mustCreateEvent(t, db, admin, in)
	got := changesSince(t, db, 0)
	want := []Change{{Kind: DocVenue, ID: 2}, {Kind: DocOrganizer, ID: 3}, {Kind: DocCategory, ID: 1}, {Kind: DocEvent, ID: e.ID}}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("create: change log %v lacks %v", got, w)
		}
	}

	// Moving a venue's position reaches the events that carry it in the index.
	head, _ := db.ChangeHead(ctx)
	if _, err := db.UpdateVenue(ctx, admin, 2, &VenueInput{Geo: &Geo{Lat: 1, Lng: 2}}); err != nil {
		t.Fatal(err)
	}
	if got := changesSince(t, db, head); !slices.Contains(got, Change{Kind: DocEvent, ID: e.ID}) || !slices.Contains(got, Change{Kind: DocVenue, ID: 2}) {
		t.Errorf("venue move: %v", got)
	}

	// An update that changes nothing writes nothing.
	head, _ = db.ChangeHead(ctx)
	if _, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{PostInput: PostInput{Title: ptr("Concert")}}); err != nil {
		t.Fatal(err)
	}
	if got := changesSince(t, db, head); len(got) != 0 {
		t.Errorf("no-op update logged %v", got)
	}
	after, _, _ := db.Event(ctx, e.ID)
	if !after.Modified.Equal(e.Modified) {
		t.Errorf("no-op update moved modified")
	}

	// Trashing the venue unlinks it and names the event.
	head, _ = db.ChangeHead(ctx)
	if _, err := db.TrashVenue(ctx, admin, 2); err != nil {
		t.Fatal(err)
	}
	if got := changesSince(t, db, head); !slices.Contains(got, Change{Kind: DocEvent, ID: e.ID}) {
		t.Errorf("venue trash: %v", got)
	}
	after, _, _ = db.Event(ctx, e.ID)
	if after.VenueID != 0 || !slices.Equal(after.OrganizerIDs, []uint64{3}) {
		t.Errorf("after venue trash: venue %d organizers %v", after.VenueID, after.OrganizerIDs)
	}
}

func TestIDsShareOneSequence(t *testing.T) {
	db := mustOpenDB(t)
	e := mustCreateEvent(t, db, admin, newEvent(t, "A"))
	v, _, err := db.CreateVenue(ctx, admin, "en", &VenueInput{PostInput: PostInput{Title: ptr("V")}})
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := db.CreateOrganizer(ctx, admin, "en", &OrganizerInput{PostInput: PostInput{Title: ptr("O")}})
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != 1 || v.ID != 2 || o.ID != 3 {
		t.Errorf("ids %d %d %d", e.ID, v.ID, o.ID)
	}
	if _, _, err := db.Event(ctx, v.ID); !errors.Is(err, ErrWrongType) {
		t.Errorf("venue id as event: %v", err)
	}
	if _, _, err := db.Venue(ctx, e.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("event id as venue: %v", err)
	}
}

func TestSlugs(t *testing.T) {
	db := mustOpenDB(t)
	a := mustCreateEvent(t, db, admin, newEvent(t, "Palais de l'Élysée"))
	b := mustCreateEvent(t, db, admin, newEvent(t, "Palais de l'Elysee"))
	c, err := db.CreateEvent(ctx, admin, "fr", newEvent(t, "Palais de l'Élysée"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Slug != "palais-de-lelysee" || b.Slug != "palais-de-lelysee-2" || c.Slug != "palais-de-lelysee" {
		t.Errorf("slugs %q %q %q (per language)", a.Slug, b.Slug, c.Slug)
	}
	// A title that normalises to nothing falls back to the ID.
	d := mustCreateEvent(t, db, admin, newEvent(t, "!!!"))
	if d.Slug != utoa(d.ID) {
		t.Errorf("empty slug fallback %q", d.Slug)
	}
	// Trash frees the slug; by-slug lookups prefer the live record.
	if _, err := db.TrashEvent(ctx, admin, a.ID); err != nil {
		t.Fatal(err)
	}
	e := mustCreateEvent(t, db, admin, newEvent(t, "Palais de l'Élysée"))
	if e.Slug != "palais-de-lelysee" {
		t.Errorf("slug after trash %q", e.Slug)
	}
	if got, _, err := db.EventBySlug(ctx, "en", "Palais-de-lelysee"); err != nil || got.ID != e.ID {
		t.Errorf("by slug: %v %v", got, err)
	}
	if _, err := db.TrashEvent(ctx, admin, e.ID); err != nil {
		t.Fatal(err)
	}
	if got, _, err := db.EventBySlug(ctx, "en", "palais-de-lelysee"); err != nil || got.ID != e.ID {
		t.Errorf("most recently trashed by slug: %v %v", got, err)
	}
	// Restoring re-uniquifies.
	restored, err := db.UpdateEvent(ctx, admin, a.ID, &EventInput{PostInput: PostInput{Status: ptr(StatusDraft)}})
	if err != nil {
		t.Fatal(err)
	}
	if restored.Slug != "palais-de-lelysee" || restored.Status != StatusDraft {
		t.Errorf("restored %q %q", restored.Slug, restored.Status)
	}
}

func TestTermCounts(t *testing.T) {
	db := mustOpenDB(t)
	in := newEvent(t, "A")
	in.Categories = &[]string{"Music", "music", "MUSIC"}
	in.Tags = &[]string{"live"}
	e := mustCreateEvent(t, db, admin, in)
	if len(e.Categories) != 1 {
		t.Fatalf("categories %v: names resolve to one term", e.Categories)
	}
	count := func(tax Taxonomy, id uint64) int {
		term, _, err := db.Term(ctx, tax, id)
		if err != nil {
			t.Fatal(err)
		}
		return term.Count
	}
	if count(TaxCategory, 1) != 1 || count(TaxTag, 2) != 1 {
		t.Errorf("counts after publish")
	}
	if _, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{PostInput: PostInput{Status: ptr(StatusDraft)}}); err != nil {
		t.Fatal(err)
	}
	if count(TaxCategory, 1) != 0 {
		t.Errorf("draft still counted")
	}
	if _, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{PostInput: PostInput{Status: ptr(StatusPublish)}}); err != nil {
		t.Fatal(err)
	}
	// A digit item names an ID; an unknown ID is skipped.
	if _, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{Categories: &[]string{"999", "1"}}); err != nil {
		t.Fatal(err)
	}
	if count(TaxCategory, 1) != 1 {
		t.Errorf("count after re-set")
	}
	if _, err := db.DeleteTerm(ctx, TaxCategory, 1); err != nil {
		t.Fatal(err)
	}
	after, _, _ := db.Event(ctx, e.ID)
	if len(after.Categories) != 0 {
		t.Errorf("deleted term still on the event: %v", after.Categories)
	}
}

func TestCategoryTree(t *testing.T) {
	db := mustOpenDB(t)
	music, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Music")})
	if err != nil {
		t.Fatal(err)
	}
	jazz, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Jazz"), Parent: &music.ID})
	if err != nil {
		t.Fatal(err)
	}
	bebop, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Bebop"), Parent: &jazz.ID})
	if err != nil {
		t.Fatal(err)
	}
	var te *TermExistsError
	if _, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("jazz"), Parent: &music.ID}); !errors.As(err, &te) || te.ID != jazz.ID {
		t.Errorf("duplicate name under the same parent: %v", err)
	}
	if _, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Jazz")}); err != nil {
		t.Errorf("same name elsewhere in the tree: %v", err)
	}
	if _, err := db.UpdateTerm(ctx, admin, TaxCategory, music.ID, &TermInput{Parent: &bebop.ID}); !errors.Is(err, ErrInvalid) {
		t.Errorf("cycle: %v", err)
	}
	if _, err := db.UpdateTerm(ctx, admin, TaxCategory, bebop.ID, &TermInput{Slug: ptr("music")}); !errors.Is(err, ErrDuplicateSlug) {
		t.Errorf("duplicate slug on update: %v", err)
	}
	if _, err := db.DeleteTerm(ctx, TaxCategory, jazz.ID); err != nil {
		t.Fatal(err)
	}
	got, _, _ := db.Term(ctx, TaxCategory, bebop.ID)
	if got.Parent != music.ID {
		t.Errorf("child re-parented to %d, want %d", got.Parent, music.ID)
	}
}

func TestDuplicateAvoidance(t *testing.T) {
	db := mustOpenDB(t)
	first, existed, err := db.CreateVenue(ctx, admin, "en", &VenueInput{PostInput: PostInput{Title: ptr("Hall"), Description: ptr("Big")}, City: ptr("Paris")})
	if err != nil || existed {
		t.Fatal(err, existed)
	}
	tests := []struct {
		name, title, desc string
		lang              Lang
		same              bool
	}{
		{"same name", "  hALL ", "", "en", true},
		{"same name and description", "Hall", " big ", "en", true},
		{"other description", "Hall", "Small", "en", false},
		{"other language", "Hall", "", "fr", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &VenueInput{PostInput: PostInput{Title: ptr(tc.title)}, City: ptr("Berlin")}
			if tc.desc != "" {
				in.Description = ptr(tc.desc)
			}
			v, existed, err := db.CreateVenue(ctx, admin, tc.lang, in)
			if err != nil {
				t.Fatal(err)
			}
			if existed != tc.same || (v.ID == first.ID) != tc.same {
				t.Errorf("existed %v id %d", existed, v.ID)
			}
			if tc.same && v.City != "Paris" {
				t.Errorf("existing record changed: city %q", v.City)
			}
		})
	}
}

func TestTranslationGroups(t *testing.T) {
	db := mustOpenDB(t)
	en := mustCreateEvent(t, db, admin, newEvent(t, "Concert"))
	in := newEvent(t, "Concert")
	in.TranslationOf = &en.ID
	fr, err := db.CreateEvent(ctx, admin, "fr", in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateEvent(ctx, admin, "fr", in); !errors.Is(err, ErrConflict) {
		t.Errorf("second fr translation: %v", err)
	}
	_, rel, _ := db.Event(ctx, en.ID)
	if members := rel.Groups[en.Group]; len(members) != 2 || fr.Group != en.Group {
		t.Errorf("group members %v", members)
	}
	if _, err := db.TrashEvent(ctx, admin, fr.ID); err != nil {
		t.Fatal(err)
	}
	_, rel, _ = db.Event(ctx, en.ID)
	if members := rel.Groups[en.Group]; len(members) != 1 {
		t.Errorf("trashed record still in the group: %v", members)
	}
	if _, err := db.CreateEvent(ctx, admin, "fr", in); err != nil {
		t.Errorf("fr slot free after trash: %v", err)
	}
}

func TestEventDates(t *testing.T) {
	db := mustOpenDB(t)
	tests := []struct {
		name               string
		tz, start, end     string
		allDay             bool
		wantStart, wantEnd string
		wantStartUTC       string
	}{
		{"zone", "Europe/Paris", "2030-05-01 20:00:00", "2030-05-01 22:00:00", false, "2030-05-01 20:00:00", "2030-05-01 22:00:00", "2030-05-01 18:00:00"},
		{"end before start", "UTC", "2030-05-01 20:00:00", "2030-05-01 10:00:00", false, "2030-05-01 20:00:00", "2030-05-01 20:00:00", "2030-05-01 20:00:00"},
		{"all day", "UTC+5", "2030-05-01 20:00:00", "2030-05-02 10:00:00", true, "2030-05-01 00:00:00", "2030-05-02 23:59:59", "2030-04-30 19:00:00"},
		{"dst gap moves forward", "America/New_York", "2030-03-10 02:30:00", "2030-03-10 04:00:00", false, "2030-03-10 03:30:00", "2030-03-10 04:00:00", "2030-03-10 07:30:00"},
		{"instant converted", "America/New_York", "2017-12-21T10:00:00Z", "2017-12-21T12:00:00Z", false, "2017-12-21 05:00:00", "2017-12-21 07:00:00", "2017-12-21 10:00:00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &EventInput{PostInput: PostInput{Title: ptr("T")}, Timezone: ptr(tc.tz), Start: expr(t, tc.start), End: expr(t, tc.end), AllDay: ptr(tc.allDay)}
			e := mustCreateEvent(t, db, admin, in)
			if e.Start != tc.wantStart || e.End != tc.wantEnd || e.StartUTC.Format(datetime.DB) != tc.wantStartUTC {
				t.Errorf("got %s / %s / %s", e.Start, e.End, e.StartUTC.Format(datetime.DB))
			}
		})
	}
	// Changing the zone keeps the wall clock and recomputes the instants.
	e := mustCreateEvent(t, db, admin, &EventInput{PostInput: PostInput{Title: ptr("T")}, Timezone: ptr("UTC"),
		Start: expr(t, "2030-05-01 20:00:00"), End: expr(t, "2030-05-01 21:00:00")})
	e, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{Timezone: ptr("Europe/Paris")})
	if err != nil {
		t.Fatal(err)
	}
	if e.Start != "2030-05-01 20:00:00" || e.StartUTC.Format(datetime.DB) != "2030-05-01 18:00:00" {
		t.Errorf("zone change: %s %s", e.Start, e.StartUTC)
	}
}

func TestPermissions(t *testing.T) {
	const own, other = 7, 8
	roles := map[string]Actor{
		"anonymous":   {},
		"subscriber":  {UserID: own, Role: RoleSubscriber},
		"contributor": {UserID: own, Role: RoleContributor},
		"author":      {UserID: own, Role: RoleAuthor},
		"editor":      {UserID: own, Role: RoleEditor},
	}
	// want is "read edit delete" as r/e/d or '-' for each (role, owner, status).
	tests := []struct {
		role   string
		author uint64
		status Status
		want   string
	}{
		{"anonymous", other, StatusPublish, "r--"},
		{"anonymous", other, StatusDraft, "---"},
		{"subscriber", own, StatusDraft, "r--"},
		{"contributor", own, StatusDraft, "red"},
		{"contributor", own, StatusPending, "red"},
		{"contributor", own, StatusPublish, "r--"},
		{"contributor", other, StatusDraft, "---"},
		{"contributor", other, StatusPublish, "r--"},
		{"author", own, StatusPublish, "red"},
		{"author", own, StatusFuture, "red"},
		{"author", other, StatusPublish, "r--"},
		{"author", other, StatusPrivate, "---"},
		{"editor", other, StatusPrivate, "red"},
		{"editor", other, StatusDraft, "red"},
	}
	for _, tc := range tests {
		a := roles[tc.role]
		p := &Post{Author: tc.author, Status: tc.status}
		got := []byte("---")
		if a.CanRead(p) {
			got[0] = 'r'
		}
		if a.CanEdit(p) {
			got[1] = 'e'
		}
		if a.CanDelete(p) {
			got[2] = 'd'
		}
		if string(got) != tc.want {
			t.Errorf("%s on %s record of user %d: %s, want %s", tc.role, tc.status, tc.author, got, tc.want)
		}
	}
}

func TestAppPasswords(t *testing.T) {
	db := mustOpenDB(t)
	if _, err := db.CreateUser(ctx, User{Login: "ann", Email: "ann@example.org", Role: RoleEditor}); err != nil {
		t.Fatal(err)
	}
	pw, err := db.CreateAppPassword(ctx, "ann", "phone")
	if err != nil || !ValidAppPassword(pw) {
		t.Fatal(pw, err)
	}
	grouped := pw[:4] + " " + pw[4:8] + " " + pw[8:]
	for _, name := range []string{"ann", "ANN", "ann@example.org"} {
		if u, err := db.AuthenticateBasic(ctx, name, grouped); err != nil || u.Login != "ann" {
			t.Errorf("basic %s: %v", name, err)
		}
	}
	if u, err := db.AuthenticateBearer(ctx, pw); err != nil || u.Login != "ann" {
		t.Errorf("bearer: %v", err)
	}
	var ae *AuthError
	if _, err := db.AuthenticateBasic(ctx, "ann", NewAppPassword()); !errors.As(err, &ae) || ae.Code != AuthIncorrectPassword {
		t.Errorf("wrong password: %v", err)
	}
	if err := db.RevokeAppPassword(ctx, "ann", "phone"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AuthenticateBearer(ctx, pw); !errors.As(err, &ae) || ae.Code != AuthInvalidToken {
		t.Errorf("revoked: %v", err)
	}
	if _, err := db.CreateUser(ctx, User{Login: "Ann", Email: "x@example.org", Role: RoleEditor}); !errors.Is(err, ErrInvalid) {
		t.Errorf("duplicate login: %v", err)
	}
}

func TestCreateUserChecksLoginAndEmail(t *testing.T) {
	db := mustOpenDB(t)
	tests := []struct {
		login, email string
		ok           bool
	}{
		{"ann", "ann@example.org", true},
		{"admin", "admin@localhost", true},
		{"Bob Smith", "bob+cal@example.org", true},
		{"", "c@example.org", false},
		{"c:d", "c@example.org", false},
		{"c\x01", "c@example.org", false},
		{"d", "", false},
		{"d", "notanemail", false},
		{"d", "d@", false},
		{"d", "@example.org", false},
		{"d", "d@e@example.org", false},
		{"d", "d e@example.org", false},
	}
	for _, tc := range tests {
		_, err := db.CreateUser(ctx, User{Login: tc.login, Email: tc.email, Role: RoleAuthor})
		if tc.ok && err != nil || !tc.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("CreateUser(%q, %q): %v", tc.login, tc.email, err)
		}
	}
}

func TestRecordCacheServesTheCurrentVersion(t *testing.T) {
	db := mustOpenDB(t)
	e := mustCreateEvent(t, db, admin, newEvent(t, "First"))
	for _, title := range []string{"Second", "Third"} {
		got, _, err := db.Event(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		got.Title = "changed by a caller" // a caller's copy: the cache must not see this
		if _, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{PostInput: PostInput{Title: ptr(title)}}); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := db.Event(ctx, e.ID); got.Title != title {
			t.Errorf("read after update: %q, want %q", got.Title, title)
		}
	}
	recs, _, err := db.Load(ctx, TypeEvent, []uint64{e.ID, e.ID})
	if err != nil || len(recs.Events) != 2 || recs.Events[0] == recs.Events[1] || recs.Events[0].Title != "Third" {
		t.Fatalf("load: %v %v", err, recs.Events)
	}
}

func TestTermCacheServesTheCurrentVersion(t *testing.T) {
	db := mustOpenDB(t)
	in := newEvent(t, "Concert")
	in.Categories = &[]string{"Music"}
	e := mustCreateEvent(t, db, admin, in)
	cat := e.Categories[0]
	for _, name := range []string{"Live music", "Jazz"} {
		_, rel, err := db.Load(ctx, TypeEvent, []uint64{e.ID})
		if err != nil {
			t.Fatal(err)
		}
		rel.Terms[cat].Name = "changed by a caller" // a caller's copy: the cache must not see this
		if _, err := db.UpdateTerm(ctx, admin, TaxCategory, cat, &TermInput{Name: ptr(name)}); err != nil {
			t.Fatal(err)
		}
		if _, rel, _ := db.Load(ctx, TypeEvent, []uint64{e.ID}); rel.Terms[cat].Name != name {
			t.Errorf("load after rename: %q, want %q", rel.Terms[cat].Name, name)
		}
		if terms, _ := db.Terms(ctx, TaxCategory); len(terms) != 1 || terms[0].Name != name {
			t.Errorf("terms after rename: %+v, want %q", terms, name)
		}
	}
}

// TestTermWriteFailsWhenItsEventsCannotBeLogged: a category write logs the events of its subtree,
// which needs every category record; when one cannot be read, the write fails and changes nothing.
func TestTermWriteFailsWhenItsEventsCannotBeLogged(t *testing.T) {
	tests := []struct {
		name  string
		write func(db *DB, id uint64) error
	}{
		{"rename", func(db *DB, id uint64) error {
			_, err := db.UpdateTerm(ctx, admin, TaxCategory, id, &TermInput{Name: ptr("Live music")})
			return err
		}},
		{"delete", func(db *DB, id uint64) error {
			_, err := db.DeleteTerm(ctx, TaxCategory, id)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := mustOpenDB(t)
			music, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Music")})
			if err != nil {
				t.Fatal(err)
			}
			broken, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Jazz"), Parent: &music.ID})
			if err != nil {
				t.Fatal(err)
			}
			err = db.kv.Update(ctx, func(tx kv.RwTx) error {
				return tx.Put(bCategories, u64(broken.ID), []byte("{not json"))
			})
			if err != nil {
				t.Fatal(err)
			}
			head, err := db.ChangeHead(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.write(db, music.ID); err == nil {
				t.Fatal("write succeeded, want the decode error")
			}
			if got, _, err := db.Term(ctx, TaxCategory, music.ID); err != nil || got.Name != "Music" {
				t.Errorf("after the failed write: %+v (%v), want Music unchanged", got, err)
			}
			if got, err := db.ChangeHead(ctx); err != nil || got != head {
				t.Errorf("change head %d (%v), want %d", got, err, head)
			}
		})
	}
}

// Scan stops at its limit of records or once it has decoded ScanBytes, and says whether records are
// left after the page: a scan in pages reads every record once, whatever their sizes.
func TestScanPages(t *testing.T) {
	db, err := openTestDB(t, Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The longest description a record may have, in characters of four bytes: each record is a bit
	// more than a sixteenth of ScanBytes, so sixteen fill a page.
	long := strings.Repeat("𝄞", 65535)
	var want []uint64
	for i := range 40 {
		in := newEvent(t, fmt.Sprint("Event ", i))
		in.Description = &long
		want = append(want, mustCreateEvent(t, db, admin, in).ID)
	}
	for _, tc := range []struct {
		limit int
		pages []int // the records of each page
	}{
		{limit: 10, pages: []int{10, 10, 10, 10}},
		{limit: 20, pages: []int{16, 16, 8}},
		{limit: 1000, pages: []int{16, 16, 8}},
		{limit: 8, pages: []int{8, 8, 8, 8, 8}},
	} {
		t.Run(fmt.Sprint("limit ", tc.limit), func(t *testing.T) {
			var got []uint64
			var pages []int
			for after, more := uint64(0), true; more; {
				page, err := db.Scan(ctx, TypeEvent, after, tc.limit)
				if err != nil {
					t.Fatal(err)
				}
				pages = append(pages, len(page.Events))
				for _, e := range page.Events {
					got, after = append(got, e.ID), e.ID
				}
				more = page.More
			}
			if !slices.Equal(got, want) || !slices.Equal(pages, tc.pages) {
				t.Errorf("pages of %v records holding %v, want %v holding %v", pages, got, tc.pages, want)
			}
		})
	}
}
