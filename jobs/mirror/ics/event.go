package ics

import (
	"fmt"
	"strings"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/ical"
)

// wallLayout is how a wall clock is written to the store's date inputs (docs/API.md "Parameters and bodies").
const wallLayout = "2006-01-02 15:04:05"

// eventInput is the store's input for one VEVENT: every field the event takes from the file, and
// nothing else, so that a re-import leaves what the file does not speak of alone (an image set by an
// editor, the featured flag). floating is the zone the file's floating times are read in (its
// X-WR-TIMEZONE when that is a zone the store knows; else "", the site zone).
//
// A LOCATION becomes a venue through duplicate detection (docs/API.md "Venue and organizer fields"): its first comma-separated
// part is the venue's name and the rest its address (splitLocation), the form Google, Apple and our
// own feed write ("Salle Pleyel, 252 Rue du Faubourg Saint-Honoré, Paris"); GEO gives its coordinates. ORGANIZER
// becomes an organizer named by its CN (else its address), CATEGORIES categories by name.
func eventInput(ev *ical.Event, floating string) (*storage.EventInput, error) {
	in := &storage.EventInput{}
	title := name(ev.Summary)
	if title == "" {
		// The store requires a title; RFC 5545 does not (a Google event without one shows "(No title)").
		title = "(no title)"
	}
	in.Title = &title
	desc := richText(ev.Description)
	in.Description = &desc
	website := ev.URL
	in.Website = &website
	publish := storage.StatusPublish
	in.Status = &publish

	zone, err := eventZone(ev.Start, floating)
	if err != nil {
		return nil, err
	}
	in.Timezone = &zone
	allDay := ev.AllDay
	in.AllDay = &allDay
	start, end := ev.Start, ev.End
	if ev.AllDay && end.After(start) {
		end = end.AddDate(0, 0, -1) // DTEND of a date is exclusive; the store's all-day end is the last day
	}
	if start.Location() != end.Location() {
		// DTEND in another zone than DTSTART: the store keeps one zone per event, DTSTART's.
		end = end.In(start.Location())
	}
	for _, d := range []struct {
		t   time.Time
		dst **datetime.Expr
	}{{start, &in.Start}, {end, &in.End}} {
		e, err := datetime.Parse(d.t.Format(wallLayout))
		if err != nil {
			return nil, fmt.Errorf("date %s: %w", d.t.Format(wallLayout), err)
		}
		*d.dst = &e
	}

	venue := storage.VenueRef{} // none: a LOCATION removed from the file unlinks the venue
	if v := venueInput(ev); v != nil {
		venue.New = v
	}
	in.Venue = &venue
	var organizers []storage.OrganizerRef
	if o := ev.Organizer; o.Name != "" || o.Email != "" {
		title := name(o.Name)
		if title == "" {
			title = o.Email
		}
		email := o.Email
		organizers = append(organizers, storage.OrganizerRef{New: &storage.OrganizerInput{
			PostInput: storage.PostInput{Title: &title, Status: &publish},
			Email:     &email,
		}})
	}
	in.Organizers = &organizers
	categories := make([]string, 0, len(ev.Categories))
	for _, c := range ev.Categories {
		if c = strings.TrimSpace(c); c != "" {
			categories = append(categories, c)
		}
	}
	in.Categories = &categories
	return in, nil
}

// venueInput is the venue of an event's LOCATION and GEO, nil when the event has neither.
func venueInput(ev *ical.Event) *storage.VenueInput {
	first, rest := splitLocation(ev.Location)
	title, address := name(first), name(strings.ReplaceAll(rest, "\n", ", "))
	if title == "" && ev.Geo == nil {
		return nil
	}
	if title == "" {
		// A point without a name: the store requires a name, and the coordinates are all there is.
		title = fmt.Sprintf("%.5f, %.5f", ev.Geo.Lat, ev.Geo.Lng)
	}
	publish := storage.StatusPublish
	v := &storage.VenueInput{PostInput: storage.PostInput{Title: &title, Status: &publish}}
	if address != "" {
		v.Address = &address
	}
	if ev.Geo != nil {
		v.Geo = &storage.Geo{Lat: ev.Geo.Lat, Lng: ev.Geo.Lng}
	}
	return v
}

// splitLocation cuts a LOCATION after its first part, the venue's name: at the first comma or line
// break outside parentheses, so that "Example Corp HQ (500 Howard St, San Francisco, CA)", as Meetup
// writes it, stays one name, and Apple's "Central Park\nNew York, NY" names "Central Park".
func splitLocation(s string) (first, rest string) {
	depth := 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ',' || r == '\n') && depth == 0:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// eventZone is the store's zone for an event starting at t: the zone of its TZID when the store
// knows it (a tz database name; ical resolves Windows names to those already), "UTC" for a UTC time,
// floating for a floating one. A TZID that only the file's own VTIMEZONE defines ("Customized Time
// Zone", as Outlook writes for a zone of its own) becomes the fixed offset in force at the start:
// the event keeps its wall clock and its instant, and only the occurrences of a series on the other
// side of a DST change would move by the change.
func eventZone(t time.Time, floating string) (string, error) {
	loc := t.Location()
	switch {
	case loc == ical.Floating:
		return floating, nil
	case loc == time.UTC:
		return "UTC", nil
	}
	if z, err := datetime.ParseZone(loc.String()); err == nil {
		return z.Name, nil
	}
	_, off := t.Zone()
	return fixedZone(off), nil
}

// fixedZone names an offset in seconds east of UTC as the store writes fixed zones ("UTC+5:30").
func fixedZone(off int) string {
	if off == 0 {
		return "UTC"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	h, m := off/3600, off%3600/60
	if m == 0 {
		return fmt.Sprintf("UTC%s%d", sign, h)
	}
	return fmt.Sprintf("UTC%s%d:%02d", sign, h, m)
}

// richText is an iCalendar TEXT value as the store keeps a description: HTML, in which the file's
// "<" and "&" are characters, not markup. Newlines stay: the store renders them as paragraphs and
// line breaks, the way our own feed's DESCRIPTION came from them.
func richText(s string) string { return htmlText.Replace(strings.TrimSpace(s)) }

var htmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// name is an iCalendar TEXT value as the store keeps a title or name: as typed, since names are
// plain text with no entity encoding (docs/API.md "Event fields".1), only trimmed.
func name(s string) string { return strings.TrimSpace(s) }
