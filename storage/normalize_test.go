package storage

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestInputRules(t *testing.T) {
	for _, tc := range []struct {
		name      string
		clean     func() (any, error)
		want      any
		wantField string
		wantLimit int
	}{
		{"website cleaned", func() (any, error) { return CleanWebsite("  https://x.org/<b>a</b> ") }, "https://x.org/a", "", 0},
		{"website none", func() (any, error) { return CleanWebsite("") }, "", "", 0},
		{"website relative", func() (any, error) { return CleanWebsite("/a") }, nil, "website", 0},
		{"website too long", func() (any, error) { return CleanWebsite("https://x.org/" + strings.Repeat("a", MaxURL)) }, nil, "website", MaxURL},
		{"cost items", func() (any, error) { return CleanCost([]string{" 10 € ", "", "<i>free</i>"}) }, []string{"10 €", "free"}, "", 0},
		{"cost item too long", func() (any, error) { return CleanCost([]string{strings.Repeat("9", MaxShortText+1)}) }, nil, "cost", MaxShortText},
		{"cost too many items", func() (any, error) { return CleanCost(make([]string, MaxItems+1)) }, nil, "cost", MaxItems},
		{"image URL", func() (any, error) { return CleanImageURL(" https://img.example/a.JPG ") }, "https://img.example/a.JPG", "", 0},
		{"image not an image", func() (any, error) { return CleanImageURL("https://img.example/a.pdf") }, nil, "image", 0},
		{"image not http", func() (any, error) { return CleanImageURL("ftp://img.example/a.png") }, nil, "image", 0},
		{"zone IANA", func() (any, error) { return CleanZone(" Europe/Paris ") }, "Europe/Paris", "", 0},
		{"zone quarter hour, as WordPress stores it", func() (any, error) { return CleanZone("UTC+5.75") }, "UTC+5.75", "", 0},
		{"zone unknown", func() (any, error) { return CleanZone("Mars/Olympus") }, nil, "timezone", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.clean()
			if tc.wantField != "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != tc.wantField || fe.Limit != tc.wantLimit || !errors.Is(err, ErrInvalid) {
					t.Fatalf("error %v, want a FieldError of %s with limit %d", err, tc.wantField, tc.wantLimit)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := tc.want.([]string); ok {
				if g := got.([]string); strings.Join(g, "|") != strings.Join(s, "|") {
					t.Errorf("got %q, want %q", g, s)
				}
			} else if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEveryWriteAppliesTheInputRules: a write that does not come through the API (a bulk import) is
// cleaned like one that does, and the actor's right to unfiltered HTML decides how.
func TestEveryWriteAppliesTheInputRules(t *testing.T) {
	db := mustOpenDB(t)
	author := Actor{UserID: 1, Role: RoleAuthor}
	dirty := func() *EventInput {
		in := newEvent(t, " <b>Jazz</b> night ")
		in.Description = ptr(`<p onclick="x()">Hi</p><script>alert(1)</script>`)
		in.Cost = &[]string{" 10 € ", ""}
		in.Website = ptr(" https://jazz.example ")
		in.Categories = &[]string{" <i>Music</i> ", "<b></b>"}
		in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("<em>Hall</em>")}, City: ptr(" Paris\n")}}
		return in
	}
	var e *Event
	err := db.Bulk(ctx, author, func(b *Bulk) error {
		var err error
		e, err = b.CreateEvent("en", dirty())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e, rel, err := db.Event(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Title != "Jazz night" || strings.Contains(e.Description, "script") || strings.Contains(e.Description, "onclick") ||
		strings.Join(e.Cost, "|") != "10 €" || e.Website == nil || *e.Website != "https://jazz.example" || len(e.Categories) != 1 {
		t.Errorf("bulk-created event not cleaned: title %q description %q cost %q website %v categories %v",
			e.Title, e.Description, e.Cost, e.Website, e.Categories)
	}
	if v := rel.Venues[e.VenueID]; v == nil || v.Title != "Hall" || v.City != "Paris" {
		t.Errorf("inline venue not cleaned: %+v", v)
	}
	if c, _, err := db.Term(ctx, TaxCategory, e.Categories[0]); err != nil || c.Name != "Music" {
		t.Errorf("category %+v %v, want Music", c, err)
	}

	// An administrator may keep markup in rich text and names.
	kept, err := db.CreateEvent(ctx, admin, "en", dirty())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kept.Title, "<b>") || !strings.Contains(kept.Description, "onclick") {
		t.Errorf("administrator's markup removed: %q %q", kept.Title, kept.Description)
	}

	// Updates and terms too, and a value breaking a rule fails the write as the field's.
	if _, err := db.UpdateVenue(ctx, admin, e.VenueID, &VenueInput{Website: ptr("not a url")}); !isField(err, "website") {
		t.Errorf("venue update with a relative website: %v", err)
	}
	if _, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{Timezone: ptr("Mars/Olympus")}); !isField(err, "timezone") {
		t.Errorf("event update with an unknown zone: %v", err)
	}
	term, err := db.CreateTerm(ctx, author, TaxTag, &TermInput{Name: ptr(" <b>Live</b> ")})
	if err != nil || term.Name != "Live" {
		t.Errorf("tag created by an author: %+v %v, want Live", term, err)
	}
	if _, err := db.CreateTerm(ctx, admin, TaxTag, &TermInput{Name: ptr(strings.Repeat("t", MaxTermName+1))}); !isField(err, "name") {
		t.Errorf("tag name too long: %v", err)
	}
}

// TestSingleLineFields: a single-line field keeps no control character, for every actor: line breaks
// and tabs become spaces, the others are dropped; rich text keeps its line breaks.
func TestSingleLineFields(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Jazz night", "Jazz night"},
		{"Jazz\x00 night\u0085", "Jazz night"},
		{"Jazz\r\nnight", "Jazz  night"},
		{"\tJazz\x7f\x1b[31m", " Jazz[31m"},
		{"\x00", ""},
		{"Café €", "Café €"},
	} {
		if got := SingleLine(tc.in); got != tc.want {
			t.Errorf("SingleLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	db := mustOpenDB(t)
	for _, a := range []Actor{admin, {UserID: 1, Role: RoleContributor}} {
		in := newEvent(t, "Jazz\x00\r\nnight")
		in.Description = ptr("<p>Line one\nline two</p>")
		in.Cost = &[]string{"10\x00 €"}
		in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Hall\u0007")}, Phone: ptr("+33\r\n1 23"), City: ptr("Paris\x00")}}
		in.Organizers = &[]OrganizerRef{{New: &OrganizerInput{PostInput: PostInput{Title: ptr("Org")}, Email: ptr("a@b.c\r\nX:1")}}}
		in.Categories = &[]string{"Mu\x00sic"} // an existing category for the contributor, who may not create one
		e, err := db.CreateEvent(ctx, a, "en", in)
		if err != nil {
			t.Fatal(err)
		}
		e, rel, err := db.Event(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		v, o := rel.Venues[e.VenueID], rel.Organizers[e.OrganizerIDs[0]]
		c, _, err := db.Term(ctx, TaxCategory, e.Categories[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range []string{e.Title, strings.Join(e.Cost, ""), v.Title, v.Phone, v.City, o.Email, c.Name} {
			if strings.ContainsFunc(got, isControl) {
				t.Errorf("%s: a single-line field kept a control character: %q", a.Role, got)
			}
		}
		if e.Title != "Jazz  night" || v.City != "Paris" || o.Email != "a@b.c X:1" || c.Name != "Music" {
			t.Errorf("%s: title %q, city %q, e-mail %q, category %q", a.Role, e.Title, v.City, o.Email, c.Name)
		}
		if !strings.Contains(e.Description, "one\nline") {
			t.Errorf("%s: the description lost its line break: %q", a.Role, e.Description)
		}
	}
}

// TestVenuePositionOnEarth: a venue's position is on Earth, whichever way the write comes (an importer
// builds its VenueInput itself, from a number that parsed, which NaN and infinities do).
func TestVenuePositionOnEarth(t *testing.T) {
	db := mustOpenDB(t)
	e, err := db.CreateEvent(ctx, admin, "en", func() *EventInput {
		in := newEvent(t, "Jazz")
		in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr("Hall")}}}
		return in
	}())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lat, lng float64
		ok       bool
	}{
		{90, 180, true}, {-90, -180, true}, {48.85, 2.35, true},
		{90.5, 0, false}, {-91, 0, false}, {0, 180.5, false}, {0, -181, false},
		{math.NaN(), 0, false}, {0, math.NaN(), false}, {math.Inf(1), 0, false}, {0, math.Inf(-1), false},
	} {
		_, err := db.UpdateVenue(ctx, admin, e.VenueID, &VenueInput{Geo: &Geo{Lat: tc.lat, Lng: tc.lng}})
		if tc.ok && err != nil || !tc.ok && !isField(err, "geo_lat") {
			t.Errorf("position %g, %g: %v, want accepted %v", tc.lat, tc.lng, err, tc.ok)
		}
	}
}

func isField(err error, field string) bool {
	var fe *FieldError
	return errors.As(err, &fe) && fe.Field == field
}
