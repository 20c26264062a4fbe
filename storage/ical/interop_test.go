package ical

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/teambition/rrule-go"
)

// This file reads Encode's output with libraries that share no code with this package:
// arran4/golang-ical parses the file (folding, escaping, parameters, components), and
// teambition/rrule-go expands the RRULEs of the VTIMEZONEs, so that every time is also checked
// through the VTIMEZONE a client without a tz database would use.

// interopCalendar has an event in each zone across its DST changes, and every field Encode writes.
func interopCalendar(tb testing.TB) *Calendar {
	var events []Event
	for _, zone := range []string{"Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Tokyo", "UTC"} {
		loc := mustLoad(tb, zone)
		for d := 0; d < 800; d += 23 {
			start := time.Date(2025, 6, 1+d, 19, 30, 0, 0, loc)
			events = append(events, Event{
				UID: fmt.Sprintf("%s-%d@example.org", zone, d), Stamp: stamp,
				Summary: "Jazz, blues; soul — " + zone, Start: start, End: start.Add(150 * time.Minute),
			})
		}
	}
	paris := mustLoad(tb, "Europe/Paris")
	events = append(events,
		Event{
			UID: "series@example.org", Stamp: stamp, Created: utc(2026, 1, 5, 8, 0, 0), LastModified: utc(2026, 2, 1, 9, 30, 0),
			Sequence: 3, Status: "CONFIRMED",
			Summary:     "Soirée ouverte: tirages, cadres; et \\ encadrement",
			Description: "Bring your prints.\nStudio 4, second floor — ring twice.\n" + strings.Repeat("Ünïcödé façade 🧺 ", 12),
			Location:    "Atelier Lumière, 12 Rue des Vinaigriers, 75010 Paris",
			Geo:         &Geo{Lat: 48.871, Lng: 2.3609}, URL: "https://example.org/events/soiree-ouverte/",
			Organizer:  Organizer{Name: "Atelier Lumière; Paris", Email: "atelier@example.org"},
			Categories: []string{"Art", "Workshops"},
			Start:      time.Date(2026, 3, 10, 19, 0, 0, 0, paris), End: time.Date(2026, 3, 10, 21, 0, 0, 0, paris),
			Recurrence: []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270601T000000Z", "EXDATE;TZID=Europe/Paris:20261229T190000"},
		},
		Event{
			UID: "series@example.org", Stamp: stamp, Summary: "Soirée ouverte (20h)",
			Start: time.Date(2026, 4, 14, 20, 0, 0, 0, paris), End: time.Date(2026, 4, 14, 22, 0, 0, 0, paris),
			RecurrenceID: time.Date(2026, 4, 14, 19, 0, 0, 0, paris),
		},
		Event{UID: "allday@example.org", Stamp: stamp, Summary: "Festival", AllDay: true, Start: floating(2026, 5, 23, 0, 0), End: floating(2026, 5, 25, 0, 0)},
	)
	return &Calendar{ProdID: "-//calendard//interop//EN", Name: "Interop", TimeZone: "Europe/Paris", Events: events}
}

func TestEncodeReadByIndependentParser(t *testing.T) {
	want := interopCalendar(t)
	out := encode(t, want)
	cal, err := ics.ParseCalendar(strings.NewReader(out))
	if err != nil {
		t.Fatalf("golang-ical: %v", err)
	}
	zones := zonesFromVTIMEZONEs(t, cal)
	got := cal.Events()
	if len(got) != len(want.Events) {
		t.Fatalf("golang-ical read %d events, want %d", len(got), len(want.Events))
	}
	for i, ev := range got {
		w := want.Events[i]
		t.Run(w.UID, func(t *testing.T) {
			prop := func(name ics.ComponentProperty) string {
				if p := ev.GetProperty(name); p != nil {
					return p.Value
				}
				return ""
			}
			check := func(what, got, want string) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %q, want %q", what, got, want)
				}
			}
			check("UID", prop(ics.ComponentPropertyUniqueId), w.UID)
			check("SUMMARY", prop(ics.ComponentPropertySummary), w.Summary)
			check("DESCRIPTION", prop(ics.ComponentPropertyDescription), w.Description)
			check("LOCATION", prop(ics.ComponentPropertyLocation), w.Location)
			check("URL", prop(ics.ComponentPropertyUrl), w.URL)
			check("STATUS", prop(ics.ComponentPropertyStatus), w.Status)
			check("DTSTAMP", prop(ics.ComponentPropertyDtstamp), w.Stamp.UTC().Format(layoutUTC))
			if w.Sequence != 0 {
				check("SEQUENCE", prop(ics.ComponentPropertySequence), strconv.Itoa(w.Sequence))
			}
			if w.Geo != nil {
				check("GEO", prop(ics.ComponentPropertyGeo), fmt.Sprintf("%v;%v", w.Geo.Lat, w.Geo.Lng))
			}
			if w.Organizer.Email != "" {
				o := ev.GetProperty(ics.ComponentPropertyOrganizer)
				check("ORGANIZER", o.Value, "mailto:"+w.Organizer.Email)
				check("ORGANIZER CN", strings.Join(o.ICalParameters["CN"], ","), w.Organizer.Name)
			}
			if len(w.Categories) > 0 {
				check("CATEGORIES", prop(ics.ComponentPropertyCategories), strings.Join(w.Categories, ","))
			}
			var recurrence []string
			for _, name := range []ics.ComponentProperty{ics.ComponentPropertyRrule, ics.ComponentPropertyExdate} {
				for _, p := range ev.GetProperties(name) {
					line := p.IANAToken
					if tz := p.ICalParameters["TZID"]; len(tz) > 0 {
						line += ";TZID=" + tz[0]
					}
					recurrence = append(recurrence, line+":"+p.Value)
				}
			}
			check("recurrence", strings.Join(recurrence, " "), strings.Join(w.Recurrence, " "))

			if w.AllDay {
				start, err := ev.GetAllDayStartAt()
				if err != nil {
					t.Fatal(err)
				}
				end, err := ev.GetAllDayEndAt()
				if err != nil {
					t.Fatal(err)
				}
				check("all-day DTSTART", start.Format(layoutDate), w.Start.Format(layoutDate))
				check("all-day DTEND", end.Format(layoutDate), w.End.Format(layoutDate))
				return
			}
			// golang-ical reads a TZID through its own tz database lookup...
			start, err := ev.GetStartAt()
			if err != nil {
				t.Fatal(err)
			}
			end, err := ev.GetEndAt()
			if err != nil {
				t.Fatal(err)
			}
			if !start.Equal(w.Start) || !end.Equal(w.End) {
				t.Errorf("golang-ical times = %v..%v, want %v..%v", start, end, w.Start, w.End)
			}
			// ...and the VTIMEZONE, expanded with rrule-go, must place every time at the same instant.
			for _, p := range []struct {
				name ics.ComponentProperty
				want time.Time
			}{
				{ics.ComponentPropertyDtStart, w.Start},
				{ics.ComponentPropertyDtEnd, w.End},
				{ics.ComponentPropertyRecurrenceId, w.RecurrenceID},
			} {
				prop := ev.GetProperty(p.name)
				if prop == nil {
					if !p.want.IsZero() {
						t.Errorf("no %s", p.name)
					}
					continue
				}
				got, err := zones.instant(prop)
				if err != nil {
					t.Fatal(err)
				}
				if !got.Equal(p.want) {
					t.Errorf("%s through the VTIMEZONE = %v, want %v", p.name, got.UTC(), p.want.UTC())
				}
			}
		})
	}
}

// observanceSet is the onsets of one VTIMEZONE, in order.
type observanceSet []vtzOnset

type vtzOnset struct {
	at       time.Time
	from, to int
}

type vtzZones map[string]observanceSet

// zonesFromVTIMEZONEs expands the VTIMEZONEs golang-ical read with rrule-go, up to 2040.
func zonesFromVTIMEZONEs(tb testing.TB, cal *ics.Calendar) vtzZones {
	tb.Helper()
	zones := vtzZones{}
	until := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tz := range cal.Timezones() {
		var set observanceSet
		for _, sub := range tz.SubComponents() {
			props := map[string]string{}
			for _, p := range sub.UnknownPropertiesIANAProperties() {
				props[p.IANAToken] = p.Value
			}
			from, err1 := parseOffset(props["TZOFFSETFROM"])
			to, err2 := parseOffset(props["TZOFFSETTO"])
			// The DTSTART is a wall clock: read as UTC, it orders and subtracts like one.
			start, err3 := time.Parse(layoutLocal, props["DTSTART"])
			if err1 != nil || err2 != nil || err3 != nil {
				tb.Fatalf("observance %v: %v %v %v", props, err1, err2, err3)
			}
			walls := []time.Time{start}
			if rule := props["RRULE"]; rule != "" {
				opt, err := rrule.StrToROption(rule)
				if err != nil {
					tb.Fatalf("rrule-go: %v", err)
				}
				opt.Dtstart = start
				r, err := rrule.NewRRule(*opt)
				if err != nil {
					tb.Fatalf("rrule-go: %v", err)
				}
				walls = r.Between(start, until, true)
			}
			for _, w := range walls {
				set = append(set, vtzOnset{at: w.Add(-time.Duration(from) * time.Second), from: from, to: to})
			}
		}
		sort.Slice(set, func(i, j int) bool { return set[i].at.Before(set[j].at) })
		zones[tz.GetProperty(ics.ComponentPropertyTzid).Value] = set
	}
	return zones
}

// offsetAt returns the offset the observances give at instant t.
func (s observanceSet) offsetAt(t time.Time) int {
	off := s[0].from
	for _, o := range s {
		if o.at.After(t) {
			break
		}
		off = o.to
	}
	return off
}

// instant reads a DATE-TIME property as RFC 5545 section 3.3.5 says: UTC, or a wall clock in the
// VTIMEZONE its TZID names, the earlier instant where the wall clock happens twice.
func (z vtzZones) instant(p *ics.IANAProperty) (time.Time, error) {
	if strings.HasSuffix(p.Value, "Z") {
		return time.Parse(layoutUTC, p.Value)
	}
	wall, err := time.Parse(layoutLocal, p.Value)
	if err != nil {
		return time.Time{}, err
	}
	tzid := p.ICalParameters["TZID"]
	if len(tzid) != 1 {
		return time.Time{}, fmt.Errorf("%s has no TZID", p.IANAToken)
	}
	set, ok := z[tzid[0]]
	if !ok {
		return time.Time{}, fmt.Errorf("no VTIMEZONE %q", tzid[0])
	}
	var found time.Time
	for _, o := range set {
		for _, off := range []int{o.from, o.to} {
			t := wall.Add(-time.Duration(off) * time.Second)
			if set.offsetAt(t) == off && (found.IsZero() || t.Before(found)) {
				found = t
			}
		}
	}
	if found.IsZero() {
		return time.Time{}, fmt.Errorf("%s: no offset of %q reads %v", p.IANAToken, tzid[0], wall)
	}
	return found, nil
}
