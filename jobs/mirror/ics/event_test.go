package ics

import (
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/ical"
	"github.com/google/go-cmp/cmp"
)

// mapped is what a test compares of an EventInput: its values, dereferenced.
type mapped struct {
	Title, Description, Website, Zone string
	AllDay                            bool
	Start, End                        string
	Venue                             *storage.VenueInput
	Organizers                        []storage.OrganizerInput
	Categories                        []string
}

func TestEventInput(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	custom := time.FixedZone("Customized Time Zone", -3*3600)
	publish := storage.StatusPublish
	base := ical.Event{UID: "u", Summary: " Jazz & Blues ", Description: "Line 1\n\nTom & <Jerry>", URL: "https://example.org/e"}
	at := func(loc *time.Location, d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, loc) }
	cases := []struct {
		name     string
		ev       func(ev *ical.Event)
		floating string
		want     mapped
	}{
		{
			name: "zoned, with location, geo, organizer, categories",
			ev: func(ev *ical.Event) {
				ev.Start, ev.End = at(paris, 10, 19), at(paris, 10, 21)
				ev.Location = "Salle Pleyel, 252 Rue du Faubourg Saint-Honoré, Paris"
				ev.Geo = &ical.Geo{Lat: 48.877, Lng: 2.3}
				ev.Organizer = ical.Organizer{Name: "Jazz Club", Email: "club@example.org"}
				ev.Categories = []string{" Music ", "", "Jazz"}
			},
			want: mapped{Zone: "Europe/Paris", Start: "2026-03-10 19:00:00", End: "2026-03-10 21:00:00",
				Venue: &storage.VenueInput{PostInput: storage.PostInput{Title: ptr("Salle Pleyel"), Status: &publish},
					Address: ptr("252 Rue du Faubourg Saint-Honoré, Paris"), Geo: &storage.Geo{Lat: 48.877, Lng: 2.3}},
				Organizers: []storage.OrganizerInput{{PostInput: storage.PostInput{Title: ptr("Jazz Club"), Status: &publish}, Email: ptr("club@example.org")}},
				Categories: []string{"Music", "Jazz"}},
		},
		{
			name:     "floating times take the calendar's zone",
			ev:       func(ev *ical.Event) { ev.Start, ev.End = at(ical.Floating, 10, 19), at(ical.Floating, 10, 20) },
			floating: "America/New_York",
			want:     mapped{Zone: "America/New_York", Start: "2026-03-10 19:00:00", End: "2026-03-10 20:00:00"},
		},
		{
			name: "UTC times",
			ev:   func(ev *ical.Event) { ev.Start, ev.End = at(time.UTC, 10, 18), at(time.UTC, 10, 20) },
			want: mapped{Zone: "UTC", Start: "2026-03-10 18:00:00", End: "2026-03-10 20:00:00"},
		},
		{
			name: "a zone only the file defines becomes its offset at the start",
			ev:   func(ev *ical.Event) { ev.Start, ev.End = at(custom, 10, 9), at(custom, 10, 10) },
			want: mapped{Zone: "UTC-3", Start: "2026-03-10 09:00:00", End: "2026-03-10 10:00:00"},
		},
		{
			name: "DTEND in another zone is read in DTSTART's",
			ev:   func(ev *ical.Event) { ev.Start, ev.End = at(paris, 10, 19), at(time.UTC, 10, 20) },
			want: mapped{Zone: "Europe/Paris", Start: "2026-03-10 19:00:00", End: "2026-03-10 21:00:00"},
		},
		{
			name: "all-day end is exclusive in the file, inclusive in the store",
			ev: func(ev *ical.Event) {
				ev.AllDay = true
				ev.Start, ev.End = at(ical.Floating, 10, 0), at(ical.Floating, 13, 0)
			},
			want: mapped{AllDay: true, Start: "2026-03-10 00:00:00", End: "2026-03-12 00:00:00"},
		},
		{
			name: "a point without a name is a venue named by its coordinates; an address-only organizer is named by it",
			ev: func(ev *ical.Event) {
				ev.Start, ev.End = at(time.UTC, 10, 18), at(time.UTC, 10, 20)
				ev.Geo = &ical.Geo{Lat: 52.5, Lng: 13.4}
				ev.Organizer = ical.Organizer{Email: "a@example.org"}
			},
			want: mapped{Zone: "UTC", Start: "2026-03-10 18:00:00", End: "2026-03-10 20:00:00",
				Venue:      &storage.VenueInput{PostInput: storage.PostInput{Title: ptr("52.50000, 13.40000"), Status: &publish}, Geo: &storage.Geo{Lat: 52.5, Lng: 13.4}},
				Organizers: []storage.OrganizerInput{{PostInput: storage.PostInput{Title: ptr("a@example.org"), Status: &publish}, Email: ptr("a@example.org")}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := base
			c.ev(&ev)
			in, err := eventInput(&ev, c.floating)
			if err != nil {
				t.Fatal(err)
			}
			got := mapped{Title: *in.Title, Description: *in.Description, Website: *in.Website, Zone: *in.Timezone,
				AllDay: *in.AllDay, Start: wall(t, in.Start), End: wall(t, in.End), Venue: in.Venue.New, Categories: *in.Categories}
			for _, o := range *in.Organizers {
				got.Organizers = append(got.Organizers, *o.New)
			}
			want := c.want
			want.Title, want.Description, want.Website = "Jazz & Blues", "Line 1\n\nTom &amp; &lt;Jerry&gt;", "https://example.org/e"
			if want.Categories == nil {
				want.Categories = []string{}
			}
			if *in.Status != storage.StatusPublish || in.Venue == nil {
				t.Errorf("status %v, venue ref %v: want publish and a venue reference that clears a removed LOCATION", *in.Status, in.Venue)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("mapped (-want +got):\n%s", d)
			}
		})
	}
}

// wall evaluates a date input in UTC, which gives back the wall clock it was parsed from.
func wall(t *testing.T, e interface {
	Eval(*time.Location, time.Time) (time.Time, error)
}) string {
	t.Helper()
	v, err := e.Eval(time.UTC, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return v.Format(wallLayout)
}

func TestSplitLocation(t *testing.T) {
	for in, want := range map[string][2]string{
		"Salle Pleyel, 252 Rue du Faubourg, Paris":           {"Salle Pleyel", " 252 Rue du Faubourg, Paris"},
		"Central Park\nNew York, NY":                         {"Central Park", "New York, NY"},
		"Example Corp HQ (500 Howard St, San Francisco, CA)": {"Example Corp HQ (500 Howard St, San Francisco, CA)", ""},
		"Hall (East, 2nd floor), Main St 1":                  {"Hall (East, 2nd floor)", " Main St 1"},
		"Online event":                                       {"Online event", ""},
		"":                                                   {"", ""},
		"Unbalanced ) paren, street":                         {"Unbalanced ) paren", " street"},
	} {
		if first, rest := splitLocation(in); first != want[0] || rest != want[1] {
			t.Errorf("splitLocation(%q) = %q, %q; want %q, %q", in, first, rest, want[0], want[1])
		}
	}
}

func TestFixedZone(t *testing.T) {
	for off, want := range map[int]string{0: "UTC", 3600: "UTC+1", -3 * 3600: "UTC-3", 5*3600 + 1800: "UTC+5:30", -(9*3600 + 2700): "UTC-9:45"} {
		if got := fixedZone(off); got != want {
			t.Errorf("fixedZone(%d) = %q, want %q", off, got, want)
		}
		if z, err := datetime.ParseZone(want); err != nil || z.Name != want {
			t.Errorf("the store reads %q as %q, %v", want, z.Name, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
