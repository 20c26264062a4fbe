package ical

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sameTime compares times as instants in locations of the same name: what Decode promises.
var sameTime = cmp.Comparer(func(a, b time.Time) bool {
	return a.Equal(b) && a.Location().String() == b.Location().String()
})

var eventOpts = cmp.Options{sameTime, cmpopts.EquateEmpty()}

func in(tb testing.TB, zone string, y int, m time.Month, d, h, mi int) time.Time {
	tb.Helper()
	return time.Date(y, m, d, h, mi, 0, 0, mustLoad(tb, zone))
}

func utc(y int, m time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, m, d, h, mi, s, 0, time.UTC)
}

func floating(y int, m time.Month, d, h, mi int) time.Time {
	return time.Date(y, m, d, h, mi, 0, 0, Floating)
}

func decodeFile(tb testing.TB, name string) *Calendar {
	tb.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	c, err := Decode(f, Limits{})
	if err != nil {
		tb.Fatalf("Decode(%s): %v", name, err)
	}
	return c
}

// germanDisplayName is the zone of an event of owa.ics that only the file's VTIMEZONE defines.
const germanDisplayName = "(UTC+01:00) Amsterdam, Berlin, Bern, Rom, Stockholm, Wien"

func TestDecodeFixtures(t *testing.T) {
	customZone := time.FixedZone("Customized Time Zone", -2*3600)
	tests := []struct {
		file string
		want Calendar
	}{
		{
			file: "google.ics",
			want: Calendar{
				ProdID: "-//Google Inc//Google Calendar 70.9054//EN", Name: "Atelier Lumière — public", TimeZone: "Europe/Paris",
				Events: []Event{
					{
						UID:   "5k2v0q1m8n3b7c6x4z9a1s2d3f@google.com",
						Stamp: utc(2026, 3, 1, 10, 15, 0), Created: utc(2026, 2, 20, 8, 45, 0), LastModified: utc(2026, 3, 1, 10, 15, 0),
						Sequence: 2, Status: "CONFIRMED",
						Summary:     "Soirée ouverte: tirages & encadrement",
						Description: "Open evening: bring your own prints, we provide the frames.\n\nStudio 4, second floor — ring twice.\nQuestions? écrivez-nous à atelier@example.fr",
						Location:    "Atelier Lumière, 12 Rue des Vinaigriers, 75010 Paris, France",
						Organizer:   Organizer{Name: "Atelier Lumière", Email: "c_8f3e2a1b9d@group.calendar.google.com"},
						Start:       in(t, "Europe/Paris", 2026, 3, 10, 19, 0), End: in(t, "Europe/Paris", 2026, 3, 10, 21, 0),
						Recurrence: []string{
							"RRULE:FREQ=WEEKLY;WKST=MO;UNTIL=20270601T000000Z;BYDAY=TU",
							"EXDATE;TZID=Europe/Paris:20261229T190000",
							"EXDATE;TZID=Europe/Paris:20261222T190000",
						},
					},
					{
						UID:   "5k2v0q1m8n3b7c6x4z9a1s2d3f@google.com",
						Stamp: utc(2026, 3, 1, 10, 15, 0), Created: utc(2026, 2, 20, 8, 45, 0), LastModified: utc(2026, 3, 2, 16, 0, 0),
						Sequence: 3, Status: "CONFIRMED",
						Summary:      "Soirée ouverte (20h)",
						Description:  "This week one hour later: the print lab is booked until 20:00.",
						Location:     "Atelier Lumière, 12 Rue des Vinaigriers, 75010 Paris, France",
						Start:        in(t, "Europe/Paris", 2026, 4, 14, 20, 0),
						End:          in(t, "Europe/Paris", 2026, 4, 14, 22, 0),
						RecurrenceID: in(t, "Europe/Paris", 2026, 4, 14, 19, 0),
					},
					{
						UID:   "0a9s8d7f6g5h4j3k2l1@google.com",
						Stamp: utc(2026, 3, 1, 10, 15, 0), Created: utc(2026, 1, 15, 12, 0, 0), LastModified: utc(2026, 1, 15, 12, 0, 0),
						Status: "CONFIRMED", Summary: "Portes ouvertes des ateliers",
						Start: floating(2026, 5, 23, 0, 0), End: floating(2026, 5, 25, 0, 0), AllDay: true,
					},
					{
						UID:   "7y6t5r4e3w2q1@google.com",
						Stamp: utc(2026, 3, 1, 10, 15, 0), Created: utc(2026, 3, 1, 9, 30, 0), LastModified: utc(2026, 3, 1, 9, 30, 0),
						Status: "TENTATIVE", Summary: "Online talk: archival inks",
						Description: "Live on the studio's channel: https://video.example.org/atelier",
						Start:       utc(2026, 6, 12, 16, 30, 0), End: utc(2026, 6, 12, 18, 0, 0),
					},
				},
			},
		},
		{
			file: "outlook.ics",
			want: Calendar{
				ProdID: "-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN", Name: "Projects (Jane Doe)",
				Events: []Event{
					{
						// Windows zone names come out as the tz database zones CLDR maps them to.
						UID:   "040000008200E00074C5B7101A82E00800000000B0C5A1F3D2A6DC01000000000000000010000000C2E5E4BE7B8F6A4E9D1F38B2A6C0E771",
						Stamp: utc(2026, 2, 26, 9, 0, 0), Created: utc(2026, 2, 25, 14, 12, 33), LastModified: utc(2026, 2, 25, 14, 15, 0),
						Summary:     "Atlas weekly sync",
						Description: "Agenda:\n1. Status per workstream\n2. Risks\n\nJoin from the Berlin office (room Spree) or by phone.\n",
						Location:    "Berlin – Spree (4.12)",
						Organizer:   Organizer{Name: "Doe, Jane", Email: "jane.doe@contoso.example"},
						Categories:  []string{"Blue Category", "Project Atlas"},
						Start:       in(t, "Europe/Berlin", 2026, 3, 2, 9, 30), End: in(t, "Europe/Berlin", 2026, 3, 2, 10, 0),
						Recurrence: []string{"EXDATE;TZID=Europe/Berlin:20260406T093000", "RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=MO"},
					},
					{
						UID:   "040000008200E00074C5B7101A82E0080000000070D8F2A4D3A6DC0100000000000000001000000034A7B2C91E0F4D4A8C6B1E2F3A4B5C6D",
						Stamp: utc(2026, 3, 1, 12, 5, 0), Created: utc(2026, 3, 1, 12, 0, 0), LastModified: utc(2026, 3, 1, 12, 0, 0),
						Sequence: 1, Summary: "Q4 review (NY)", Description: "Quarterly review with the New York team.\n",
						Location:  "NYC – 5th Ave, floor 22",
						Organizer: Organizer{Name: "Doe, Jane", Email: "jane.doe@contoso.example"},
						Start:     in(t, "America/New_York", 2026, 11, 5, 10, 0), End: in(t, "America/New_York", 2026, 11, 5, 11, 30),
					},
					{
						// A zone only the file defines: its VTIMEZONE says -02:00 in January (DST).
						UID:   "040000008200E00074C5B7101A82E00800000000A1B2C3D4E5F6DC010000000000000000100000009F8E7D6C5B4A39281706F5E4D3C2B1A0",
						Stamp: utc(2026, 3, 1, 12, 10, 0), Created: utc(2026, 3, 1, 12, 10, 0), LastModified: utc(2026, 3, 1, 12, 10, 0),
						Summary: "Planejamento 2027", Location: "São Paulo office",
						Organizer: Organizer{Name: "Ana Souza", Email: "ana.souza@fabrikam.example"},
						Start:     time.Date(2027, 1, 15, 10, 0, 0, 0, customZone), End: time.Date(2027, 1, 15, 11, 30, 0, 0, customZone),
					},
					{
						UID:   "040000008200E00074C5B7101A82E0080000000055E6F7A8B9C0DC01000000000000000010000000AB12CD34EF56AB78CD90EF12AB34CD56",
						Stamp: utc(2026, 3, 1, 12, 20, 0), Created: utc(2026, 3, 1, 12, 20, 0), LastModified: utc(2026, 3, 1, 12, 20, 0),
						Summary: "Easter (office closed)",
						Start:   floating(2026, 4, 3, 0, 0), End: floating(2026, 4, 6, 0, 0), AllDay: true,
					},
				},
			},
		},
		{
			file: "apple.ics",
			want: Calendar{
				ProdID: "-//Apple Inc.//macOS 15.3//EN", Name: "Family", TimeZone: "America/New_York",
				Events: []Event{
					{
						UID:   "6F3C1D2E-9B8A-4C7D-8E6F-1A2B3C4D5E6F",
						Stamp: utc(2026, 2, 2, 17, 45, 30), Created: utc(2026, 2, 2, 17, 44, 11), LastModified: utc(2026, 2, 2, 17, 45, 30),
						Sequence: 1, Summary: "Picnic 🧺 in the park", Location: "Central Park\nNew York, NY, United States",
						URL:   "https://example.com/family/picnic",
						Start: in(t, "America/New_York", 2026, 7, 4, 12, 0), End: in(t, "America/New_York", 2026, 7, 4, 15, 0),
					},
					{
						// 01:30 happens twice that night; RFC 5545 takes the first (EDT).
						UID:   "C0FFEE00-1111-2222-3333-444455556666",
						Stamp: utc(2026, 2, 10, 9, 0, 0), Created: utc(2026, 2, 10, 9, 0, 0), LastModified: utc(2026, 2, 10, 9, 0, 0),
						Summary: "Night train (clocks go back)",
						Start:   utc(2026, 11, 1, 5, 30, 0).In(mustLoad(t, "America/New_York")),
						End:     utc(2026, 11, 1, 7, 30, 0).In(mustLoad(t, "America/New_York")),
					},
					{
						UID:   "B16B00B5-0000-4000-8000-000000000001",
						Stamp: utc(2026, 2, 11, 10, 0, 0), Created: utc(2026, 2, 11, 10, 0, 0), LastModified: utc(2026, 2, 11, 10, 0, 0),
						Summary: "Call grandma (whatever the time zone)",
						Start:   floating(2026, 9, 5, 10, 0), End: floating(2026, 9, 5, 11, 0),
					},
					{
						UID:   "D00DFEED-AAAA-4BBB-8CCC-DDDDEEEEFFFF",
						Stamp: utc(2026, 2, 12, 10, 0, 0), Created: utc(2026, 2, 12, 10, 0, 0), LastModified: utc(2026, 2, 12, 10, 0, 0),
						Summary: "Thanksgiving",
						Start:   floating(2026, 11, 26, 0, 0), End: floating(2026, 11, 27, 0, 0), AllDay: true,
					},
					{
						UID:   "FACEFEED-1234-4567-89AB-CDEF01234567",
						Stamp: utc(2026, 2, 13, 10, 0, 0), Created: utc(2026, 2, 13, 10, 0, 0), LastModified: utc(2026, 2, 13, 10, 0, 0),
						Summary: "Swim camp",
						Start:   in(t, "America/New_York", 2026, 8, 10, 8, 0), End: in(t, "America/New_York", 2026, 8, 10, 9, 0),
						Recurrence: []string{"RRULE:FREQ=DAILY;COUNT=5"},
					},
					{
						UID:   "FACEFEED-1234-4567-89AB-CDEF01234567",
						Stamp: utc(2026, 2, 14, 10, 0, 0), Created: utc(2026, 2, 13, 10, 0, 0), LastModified: utc(2026, 2, 14, 10, 0, 0),
						Sequence: 1, Summary: "Swim camp (late start)",
						Start:        in(t, "America/New_York", 2026, 8, 12, 9, 0),
						End:          in(t, "America/New_York", 2026, 8, 12, 10, 0),
						RecurrenceID: in(t, "America/New_York", 2026, 8, 12, 8, 0),
					},
				},
			},
		},
		{
			file: "tec.ics",
			want: Calendar{
				ProdID: "-//Jazz Club Utrecht - ECPv6.6.4//NONSGML v1.0//EN", Name: "Jazz Club Utrecht",
				Events: []Event{
					{
						// The Events Calendar writes DTSTAMP without its Z.
						UID:   "10457-1776450600-1776459600@jazzclub.example.nl",
						Stamp: utc(2026, 3, 10, 9, 15, 12), Created: utc(2026, 2, 1, 10, 10, 10), LastModified: utc(2026, 3, 5, 14, 30, 0),
						Summary:     "Trio Nachtlicht – album release",
						Description: "Trio Nachtlicht presents its second album, „Grachtenblauw“, live and in full.\n\nDoors 20:00 – concert 20:30. Tickets €18 / €12 (students).",
						URL:         "https://jazzclub.example.nl/event/trio-nachtlicht-album-release/",
						Location:    "Jazz Club Utrecht, Oudegracht 123, Utrecht, 3511 AB, Netherlands",
						Geo:         &Geo{Lat: 52.0907, Lng: 5.1214},
						Categories:  []string{"Concerts", "Jazz"},
						Organizer:   Organizer{Name: "Stichting Jazz Utrecht", Email: "info@jazzclub.example.nl"},
						Start:       in(t, "Europe/Amsterdam", 2026, 4, 17, 20, 30), End: in(t, "Europe/Amsterdam", 2026, 4, 17, 23, 0),
					},
					{
						UID:   "10512-1777680000-1777852799@jazzclub.example.nl",
						Stamp: utc(2026, 3, 10, 9, 15, 12), Created: utc(2026, 1, 15, 8, 0, 0), LastModified: utc(2026, 2, 20, 12, 0, 0),
						Summary: "Utrecht Jazz Weekend", Description: "Two days, six stages, free entry.",
						URL:        "https://jazzclub.example.nl/event/utrecht-jazz-weekend/",
						Categories: []string{"Festivals"},
						Start:      floating(2026, 5, 2, 0, 0), End: floating(2026, 5, 4, 0, 0), AllDay: true,
					},
					{
						UID:   "10533-1793386800-1793401200@jazzclub.example.nl",
						Stamp: utc(2026, 3, 10, 9, 15, 12), Created: utc(2026, 3, 1, 8, 0, 0), LastModified: utc(2026, 3, 1, 8, 0, 0),
						Summary:     "Late-night jam session",
						Description: "Bring your instrument. House band from 21:00; open stage from 22:30.",
						URL:         "https://jazzclub.example.nl/event/late-night-jam-session/",
						Location:    "Jazz Club Utrecht, Oudegracht 123, Utrecht, 3511 AB, Netherlands",
						Geo:         &Geo{Lat: 52.0907, Lng: 5.1214},
						Categories:  []string{"Jam sessions", "Jazz"},
						Organizer:   Organizer{Name: "Stichting Jazz Utrecht", Email: "info@jazzclub.example.nl"},
						Start:       in(t, "Europe/Amsterdam", 2026, 10, 30, 21, 0), End: in(t, "Europe/Amsterdam", 2026, 10, 31, 1, 0),
					},
				},
			},
		},
		{
			// Meetup's file here ends its lines in a bare LF, as some exports do.
			file: "meetup.ics",
			want: Calendar{
				ProdID: "-//Meetup//RemoteApi//EN", Name: "Events - Go Users SF",
				Events: []Event{
					{
						UID:   "event_301234567@meetup.com",
						Stamp: utc(2026, 3, 1, 17, 5, 1), Created: utc(2026, 2, 15, 20, 0, 12), LastModified: utc(2026, 3, 1, 17, 5, 1),
						Status: "CONFIRMED", Summary: "Go at scale: profiling in production",
						Description: "Go Users SF\nThursday, March 19 at 6:30 PM\n\nThree short talks on pprof, continuous profiling and the execution tracer, then pizza.\n\nhttps://www.meetup.com/go-users-sf/events/301234567/",
						Geo:         &Geo{Lat: 37.78, Lng: -122.4},
						Location:    "Example Corp HQ (500 Howard St, San Francisco, CA)",
						URL:         "https://www.meetup.com/go-users-sf/events/301234567/",
						Start:       in(t, "America/Los_Angeles", 2026, 3, 19, 18, 30), End: in(t, "America/Los_Angeles", 2026, 3, 19, 21, 0),
					},
					{
						UID:   "event_301234999@meetup.com",
						Stamp: utc(2026, 3, 1, 17, 5, 1), Created: utc(2026, 3, 1, 17, 0, 0), LastModified: utc(2026, 3, 1, 17, 5, 1),
						Status: "CONFIRMED", Summary: "Hack night",
						Description: "Go Users SF\nThursday, April 16 at 6:30 PM\n\nBring a laptop.\n\nhttps://www.meetup.com/go-users-sf/events/301234999/",
						Location:    "Online event",
						URL:         "https://www.meetup.com/go-users-sf/events/301234999/",
						// From DURATION:PT2H30M.
						Start: in(t, "America/Los_Angeles", 2026, 4, 16, 18, 30), End: in(t, "America/Los_Angeles", 2026, 4, 16, 21, 0),
					},
				},
			},
		},
		{
			// Thunderbird writes DURATION:PT0S beside DTEND on each moved occurrence.
			file: "thunderbird.ics",
			want: Calendar{
				ProdID:   "-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN",
				Warnings: []string{"2 events have both DTEND and DURATION (Thunderbird writes both on a moved occurrence): DTEND was read"},
				Events: []Event{
					{
						UID:   "3f1c2b9e-7a4d-4e0f-9b8a-5d6c7e8f9a0b",
						Stamp: utc(2026, 11, 20, 17, 42, 10), Created: utc(2026, 11, 1, 9, 15, 0), LastModified: utc(2026, 11, 20, 17, 42, 10),
						Sequence: 1, Summary: "Chorprobe", Location: "Gemeindesaal, Bergstraße 4, Heidelberg",
						Start: in(t, "Europe/Berlin", 2026, 12, 2, 19, 30), End: in(t, "Europe/Berlin", 2026, 12, 2, 21, 30),
						Recurrence: []string{"RRULE:FREQ=WEEKLY;COUNT=8;BYDAY=WE"},
					},
					{
						UID:   "3f1c2b9e-7a4d-4e0f-9b8a-5d6c7e8f9a0b",
						Stamp: utc(2026, 11, 20, 17, 42, 10), Created: utc(2026, 11, 20, 17, 41, 55), LastModified: utc(2026, 11, 20, 17, 42, 10),
						Sequence: 2, Summary: "Chorprobe (Generalprobe)", Location: "Gemeindesaal, Bergstraße 4, Heidelberg",
						Start: in(t, "Europe/Berlin", 2026, 12, 17, 19, 0), End: in(t, "Europe/Berlin", 2026, 12, 17, 22, 0),
						RecurrenceID: in(t, "Europe/Berlin", 2026, 12, 16, 19, 30),
					},
					{
						UID:   "3f1c2b9e-7a4d-4e0f-9b8a-5d6c7e8f9a0b",
						Stamp: utc(2026, 11, 20, 17, 42, 10), Created: utc(2026, 11, 20, 17, 42, 1), LastModified: utc(2026, 11, 20, 17, 42, 10),
						Sequence: 2, Summary: "Chorprobe", Location: "Gemeindesaal, Bergstraße 4, Heidelberg",
						Start: in(t, "Europe/Berlin", 2026, 12, 29, 19, 30), End: in(t, "Europe/Berlin", 2026, 12, 29, 21, 30),
						RecurrenceID: in(t, "Europe/Berlin", 2026, 12, 30, 19, 30),
					},
				},
			},
		},
		{
			// Exchange names the moved occurrence of an all-day series, and the one it excludes, by
			// midnight in a Windows zone.
			file: "exchange-allday.ics",
			want: Calendar{
				ProdID: "Microsoft Exchange Server 2010", Name: "Kalender",
				Events: []Event{
					{
						UID:   "040000008200E00074C5B7101A82E00800000000B0C1D2E3F4A5DB01000000000000000010000000A1B2C3D4E5F60718293A4B5C6D7E8F90",
						Stamp: utc(2026, 12, 15, 8, 12, 0), Status: "CONFIRMED", Summary: "Inventur", Location: "Lager",
						Start: floating(2026, 12, 28, 0, 0), End: floating(2026, 12, 29, 0, 0), AllDay: true,
						// EXDATE;TZID=W. Europe Standard Time:20270118T000000 names a date too.
						Recurrence: []string{"RRULE:FREQ=WEEKLY;COUNT=6;INTERVAL=1;BYDAY=MO;WKST=MO", "EXDATE;VALUE=DATE:20270118"},
					},
					{
						UID:   "040000008200E00074C5B7101A82E00800000000B0C1D2E3F4A5DB01000000000000000010000000A1B2C3D4E5F60718293A4B5C6D7E8F90",
						Stamp: utc(2026, 12, 15, 8, 12, 0), Status: "CONFIRMED", Summary: "Inventur (verschoben)", Location: "Lager",
						Start: floating(2027, 1, 5, 0, 0), End: floating(2027, 1, 6, 0, 0), AllDay: true,
						RecurrenceID: floating(2027, 1, 4, 0, 0),
					},
				},
			},
		},
		{
			// Outlook Web Access: display names as TZIDs, no UID, no DTSTAMP. The UIDs derived from
			// DTSTART, SUMMARY and RECURRENCE-ID are pinned: a change to them would make the next import
			// of every such calendar add its events a second time.
			file: "owa.ics",
			want: Calendar{
				ProdID: "Microsoft Exchange Server 2010", Name: "Calendar",
				Warnings: []string{"6 events have no UID: each was given one derived from its DTSTART, SUMMARY and RECURRENCE-ID, so an event whose title or start changes at the source is replaced"},
				Events: []Event{
					{
						UID: "derived-35db1a3069f25ad5c167674ef4571c0c", Status: "CONFIRMED", Summary: "Board meeting", Location: "Room 4B",
						Start: in(t, "America/New_York", 2027, 1, 12, 9, 0), End: in(t, "America/New_York", 2027, 1, 12, 10, 30),
					},
					{
						UID: "derived-2db2efde5402fd2123a2d2bf62fa8e5e", Status: "CONFIRMED", Summary: "Board meeting", Location: "Room 4B",
						Start: in(t, "America/New_York", 2027, 7, 13, 9, 0), End: in(t, "America/New_York", 2027, 7, 13, 10, 30),
					},
					{
						UID: "derived-4955558198f6aa8a91bfba6550d024c0", Status: "CONFIRMED", Summary: "Supplier call",
						Start: in(t, "Europe/Berlin", 2027, 1, 12, 16, 0), End: in(t, "Europe/Berlin", 2027, 1, 12, 16, 30),
					},
					{
						UID: "derived-4955558198f6aa8a91bfba6550d024c0-2", Status: "CONFIRMED", Summary: "Supplier call",
						Start: in(t, "Europe/Berlin", 2027, 1, 12, 16, 0), End: in(t, "Europe/Berlin", 2027, 1, 12, 16, 30),
					},
					{
						// A display name in another language than English: the file's VTIMEZONE.
						UID: "derived-3ddf1c6dd064533b190ccb0181a5b7cb", Status: "CONFIRMED", Summary: "Werksbesuch",
						Start: time.Date(2027, 6, 15, 10, 0, 0, 0, time.FixedZone(germanDisplayName, 2*3600)),
						End:   time.Date(2027, 6, 15, 12, 0, 0, 0, time.FixedZone(germanDisplayName, 2*3600)),
					},
					{
						UID: "derived-e9e2ea5495edbbed93ce5823105f521a", Status: "CONFIRMED", Summary: "Tokyo sync",
						Stamp: utc(2026, 12, 10, 12, 0, 0), LastModified: utc(2026, 12, 10, 12, 0, 0),
						Start: in(t, "Asia/Tokyo", 2027, 1, 20, 8, 0), End: in(t, "Asia/Tokyo", 2027, 1, 20, 9, 0),
					},
				},
			},
		},
		{
			// Latin-1 bytes, and one property in the ISO-8859-15 its CHARSET names ("€" is 0xA4 there).
			file: "latin1.ics",
			want: Calendar{
				ProdID:   "-//Vereinskalender//Export 2.1//DE",
				Warnings: []string{"3 lines are not UTF-8 and declare no CHARSET: they were read as Windows-1252"},
				Events: []Event{
					{
						UID: "20270301-cafe@verein.example", Stamp: utc(2026, 12, 1, 10, 0, 0),
						Summary: "Café crème", Description: "Kaffee und Kuchen für alle Mitglieder", Location: "Salle des fêtes",
						Start: utc(2027, 3, 1, 15, 0, 0), End: utc(2027, 3, 1, 17, 0, 0),
					},
					{
						UID: "20270302-prix@verein.example", Stamp: utc(2026, 12, 1, 10, 0, 0), Summary: "Entrée 5 €",
						Start: utc(2027, 3, 2, 15, 0, 0), End: utc(2027, 3, 2, 17, 0, 0),
					},
				},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got := decodeFile(t, tc.file)
			if diff := cmp.Diff(&tc.want, got, eventOpts); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

// calendar wraps VEVENT lines (joined with CRLF) in a minimal VCALENDAR.
func calendar(lines ...string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + strings.Join(lines, "\r\n") + "\r\nEND:VCALENDAR\r\n"
}

// vevent returns a valid VEVENT with the given UID and extra lines (which come before the default
// DTSTART and DTSTAMP, so that the first occurrence of a property wins).
func vevent(uid string, extra ...string) string {
	lines := append([]string{"BEGIN:VEVENT", "UID:" + uid}, extra...)
	lines = append(lines, "DTSTAMP:20260101T000000Z", "DTSTART:20260310T180000Z", "END:VEVENT")
	return strings.Join(lines, "\r\n")
}

func TestDecodeFatal(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		limits Limits
		want   error
	}{
		{name: "empty", in: "", want: ErrSyntax},
		{name: "blank lines", in: "\r\n\r\n", want: ErrSyntax},
		{name: "not a calendar", in: "BEGIN:VCARD\r\nEND:VCARD\r\n", want: ErrSyntax},
		{name: "content before BEGIN", in: "VERSION:2.0\r\n" + calendar(), want: ErrSyntax},
		{name: "END before BEGIN", in: "END:VEVENT\r\n" + calendar(), want: ErrSyntax},
		{name: "garbage", in: "\x00\x01\x02", want: ErrSyntax},
		{name: "cut short", in: strings.TrimSuffix(calendar(vevent("a")), "END:VCALENDAR\r\n"), want: ErrSyntax},
		{name: "cut short inside an event", in: "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\n", want: ErrSyntax},
		{name: "content after END", in: calendar() + "X:y\r\n", want: ErrSyntax},
		{name: "two calendars", in: calendar() + calendar(), want: ErrSyntax},
		{name: "VCALENDAR inside", in: calendar("BEGIN:VCALENDAR", "END:VCALENDAR"), want: ErrSyntax},
		{name: "too large", in: calendar(vevent("a")), limits: Limits{MaxBytes: 64}, want: ErrLimit},
		{name: "too large by one byte", in: calendar(), limits: Limits{MaxBytes: int64(len(calendar()) - 1)}, want: ErrLimit},
		{name: "too many events", in: calendar(vevent("a"), vevent("b"), vevent("c")), limits: Limits{MaxEvents: 2}, want: ErrLimit},
		{name: "nested too deep", in: calendar(strings.Repeat("BEGIN:X\r\n", maxDepth) + strings.Repeat("END:X\r\n", maxDepth)), want: ErrLimit},
		{name: "long line outside the calendar", in: "X-" + strings.Repeat("a", 100) + ":b\r\n" + calendar(), limits: Limits{MaxLineBytes: 50}, want: ErrLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Decode(strings.NewReader(tc.in), tc.limits)
			if !errors.Is(err, tc.want) {
				t.Errorf("error = %v, want %v", err, tc.want)
			}
			if c != nil {
				t.Errorf("calendar = %+v, want nil on a fatal error", c)
			}
		})
	}
}

func TestDecodeLimitsFit(t *testing.T) {
	in := calendar(vevent("a"), vevent("b"))
	limits := Limits{MaxBytes: int64(len(in)), MaxEvents: 2, MaxLineBytes: len("DTSTAMP:20260101T000000Z"), MaxProperties: 3}
	c, err := Decode(strings.NewReader(in), limits)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Events) != 2 {
		t.Errorf("got %d events, want 2", len(c.Events))
	}
}

// TestDecodeSkipsBadEvents checks that each fault confined to an event costs that event only,
// and is reported with its UID, line and kind.
func TestDecodeSkipsBadEvents(t *testing.T) {
	tests := []struct {
		name     string
		event    string
		limits   Limits
		wantUID  string
		wantLine int // line of the fault, counting from the calendar's first line
		want     error
	}{
		{name: "no DTSTART", event: "BEGIN:VEVENT\r\nUID:x\r\nDTSTAMP:20260101T000000Z\r\nEND:VEVENT", wantUID: "x", wantLine: 4, want: ErrInvalid},
		{name: "bad DTSTART", event: vevent("x", "DTSTART:20261310T180000Z"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "unknown TZID", event: vevent("x", "DTSTART;TZID=Mars/Olympus_Mons:20260310T180000"), wantUID: "x", wantLine: 6, want: ErrUnknownZone},
		{name: "end before start", event: vevent("x", "DTEND:20260310T170000Z"), wantUID: "x", wantLine: 6, want: ErrInvalid},
		{name: "date end of a timed event", event: vevent("x", "DTEND;VALUE=DATE:20260311"), wantUID: "x", wantLine: 6, want: ErrInvalid},
		{name: "bad DURATION", event: vevent("x", "DURATION:1H"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "UTC RECURRENCE-ID off midnight for an all-day event", event: vevent("x", "DTSTART;VALUE=DATE:20260310", "RECURRENCE-ID:20260309T230000Z"), wantUID: "x", wantLine: 7, want: ErrInvalid},
		{name: "unknown CHARSET", event: vevent("x", "SUMMARY;CHARSET=x-klingon:Qapla'"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "UTF-8 beside bytes that are not", event: vevent("x", "SUMMARY:Caf\xc3\xa9 cr\xe8me"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "CHARSET=UTF-8 that is not", event: vevent("x", "SUMMARY;CHARSET=UTF-8:caf\xe9"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "not what its CHARSET says", event: vevent("x", "SUMMARY;CHARSET=Shift_JIS:\x82"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "CHARSET=UTF-16 in a line", event: vevent("x", "SUMMARY;CHARSET=UTF-16LE:ab"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "bad RRULE", event: vevent("x", "RRULE:FREQ=FORTNIGHTLY"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "RRULE without FREQ", event: vevent("x", "RRULE:COUNT=3"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "bad EXDATE", event: vevent("x", "EXDATE:2026-03-17"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "EXDATE in an unknown zone", event: vevent("x", "EXDATE;TZID=Nowhere:20260317T180000"), wantUID: "x", wantLine: 6, want: ErrUnknownZone},
		{name: "malformed line", event: vevent("x", "this is no content line"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "END without BEGIN", event: vevent("x", "END:VALARM"), wantUID: "x", wantLine: 6, want: ErrSyntax},
		{name: "line too long", event: vevent("x", "DESCRIPTION:"+strings.Repeat("a", 200)), limits: Limits{MaxLineBytes: 100}, wantUID: "x", wantLine: 6, want: ErrLimit},
		{name: "too many properties", event: vevent("x", "A:1", "B:2", "C:3"), limits: Limits{MaxProperties: 4}, wantUID: "x", wantLine: 9, want: ErrLimit},
		{name: "BEGIN:VEVENT without END", event: "BEGIN:VEVENT\r\nUID:x\r\nDTSTAMP:20260101T000000Z", wantUID: "x", wantLine: 4, want: ErrSyntax},
		{name: "alarm without END", event: vevent("x", "BEGIN:VALARM", "TRIGGER:-PT1H"), wantUID: "x", wantLine: 6, want: ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := calendar(vevent("good-1"), tc.event, vevent("good-2"))
			c, err := Decode(strings.NewReader(in), tc.limits)
			var skipped EventErrors
			if !errors.As(err, &skipped) {
				t.Fatalf("error = %v, want EventErrors", err)
			}
			if len(skipped) != 1 {
				t.Fatalf("skipped = %v, want one event", skipped)
			}
			// Lines 1-3 are the calendar's, 4-8 the first event's.
			got := skipped[0]
			if got.UID != tc.wantUID || got.Line != tc.wantLine+5 || !errors.Is(got, tc.want) {
				t.Errorf("skipped = {UID %q, Line %d, %v}; want {UID %q, Line %d, %v}", got.UID, got.Line, got.Err, tc.wantUID, tc.wantLine+5, tc.want)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.want)
			}
			if c == nil || len(c.Events) != 2 || c.Events[0].UID != "good-1" || c.Events[1].UID != "good-2" {
				t.Errorf("calendar = %+v, want the two good events", c)
			}
		})
	}
}

func TestDecodeTimeZones(t *testing.T) {
	outlookParis := "BEGIN:VTIMEZONE\r\nTZID:%s\r\n" +
		"BEGIN:STANDARD\r\nDTSTART:16011028T030000\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\n" +
		"BEGIN:DAYLIGHT\r\nDTSTART:16010325T020000\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nEND:DAYLIGHT\r\n" +
		"END:VTIMEZONE"
	tests := []struct {
		name     string
		zones    string
		dtstart  string
		want     time.Time
		wantZone string
	}{
		{name: "tz database", dtstart: "DTSTART;TZID=Europe/Paris:20260710T190000", want: utc(2026, 7, 10, 17, 0, 0), wantZone: "Europe/Paris"},
		{name: "UTC form", dtstart: "DTSTART:20260710T190000Z", want: utc(2026, 7, 10, 19, 0, 0), wantZone: "UTC"},
		{name: "TZID=UTC", dtstart: "DTSTART;TZID=UTC:20260710T190000", want: utc(2026, 7, 10, 19, 0, 0), wantZone: "UTC"},
		{name: "floating", dtstart: "DTSTART:20260710T190000", want: floating(2026, 7, 10, 19, 0), wantZone: "floating"},
		{name: "Windows name", dtstart: "DTSTART;TZID=Romance Standard Time:20260710T190000", want: utc(2026, 7, 10, 17, 0, 0), wantZone: "Europe/Paris"},
		{name: "Windows name quoted", dtstart: `DTSTART;TZID="Tokyo Standard Time":20260710T190000`, want: utc(2026, 7, 10, 10, 0, 0), wantZone: "Asia/Tokyo"},
		{name: "Windows name with a VTIMEZONE", zones: fmt.Sprintf(outlookParis, "W. Europe Standard Time"), dtstart: "DTSTART;TZID=W. Europe Standard Time:20260110T190000", want: utc(2026, 1, 10, 18, 0, 0), wantZone: "Europe/Berlin"},
		{name: "Mozilla prefix", dtstart: "DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20260710T190000", want: utc(2026, 7, 10, 23, 0, 0), wantZone: "America/New_York"},
		{
			name:    "X-LIC-LOCATION",
			zones:   strings.Replace(fmt.Sprintf(outlookParis, "Paris time"), "TZID:Paris time", "TZID:Paris time\r\nX-LIC-LOCATION:Europe/Paris", 1),
			dtstart: "DTSTART;TZID=Paris time:20260710T190000", want: utc(2026, 7, 10, 17, 0, 0), wantZone: "Europe/Paris",
		},
		{name: "the file's own zone, summer", zones: fmt.Sprintf(outlookParis, "Customized Time Zone"), dtstart: "DTSTART;TZID=Customized Time Zone:20260710T190000", want: utc(2026, 7, 10, 17, 0, 0), wantZone: "Customized Time Zone"},
		{name: "the file's own zone, winter", zones: fmt.Sprintf(outlookParis, "Customized Time Zone"), dtstart: "DTSTART;TZID=Customized Time Zone:20261210T190000", want: utc(2026, 12, 10, 18, 0, 0), wantZone: "Customized Time Zone"},
		{name: "the file's own zone, old display name", zones: fmt.Sprintf(outlookParis, "(UTC+01:00) Amsterdam, Berlin, Bern, Rome"), dtstart: `DTSTART;TZID="(UTC+01:00) Amsterdam, Berlin, Bern, Rome":20260710T190000`, want: utc(2026, 7, 10, 17, 0, 0), wantZone: "(UTC+01:00) Amsterdam, Berlin, Bern, Rome"},
		{name: "Windows display name", dtstart: `DTSTART;TZID="(UTC-05:00) Eastern Time (US & Canada)":20260710T190000`, want: utc(2026, 7, 10, 23, 0, 0), wantZone: "America/New_York"},
		{name: "Windows display name with a VTIMEZONE", zones: fmt.Sprintf(outlookParis, "(UTC+01:00) Brussels, Copenhagen, Madrid, Paris"), dtstart: `DTSTART;TZID="(UTC+01:00) Brussels, Copenhagen, Madrid, Paris":20260110T190000`, want: utc(2026, 1, 10, 18, 0, 0), wantZone: "Europe/Paris"},
		{name: "Windows XP display name", dtstart: `DTSTART;TZID="(GMT+05:30) Chennai, Kolkata, Mumbai, New Delhi":20260710T190000`, want: utc(2026, 7, 10, 13, 30, 0), wantZone: "Asia/Kolkata"},
		{name: "Windows display name of UTC", dtstart: `DTSTART;TZID="(UTC) Coordinated Universal Time":20260710T190000`, want: utc(2026, 7, 10, 19, 0, 0), wantZone: "Etc/UTC"},
		{name: "Windows display name, former wording", dtstart: `DTSTART;TZID="(UTC+02:00) Helsinki, Kiev, Riga, Sofia, Tallinn, Vilnius":20260110T190000`, want: utc(2026, 1, 10, 17, 0, 0), wantZone: "Europe/Kyiv"},
		// 02:30 does not exist on 2026-03-29 in Paris: RFC 5545 reads it with the offset before the gap.
		{name: "DST gap", dtstart: "DTSTART;TZID=Europe/Paris:20260329T023000", want: utc(2026, 3, 29, 1, 30, 0), wantZone: "Europe/Paris"},
		// 02:30 happens twice on 2026-10-25 in Paris: RFC 5545 takes the first.
		{name: "DST overlap", dtstart: "DTSTART;TZID=Europe/Paris:20261025T023000", want: utc(2026, 10, 25, 0, 30, 0), wantZone: "Europe/Paris"},
		{name: "half-hour DST", dtstart: "DTSTART;TZID=Australia/Lord_Howe:20260110T190000", want: utc(2026, 1, 10, 8, 0, 0), wantZone: "Australia/Lord_Howe"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var lines []string
			if tc.zones != "" {
				lines = append(lines, tc.zones)
			}
			lines = append(lines, "BEGIN:VEVENT", "UID:x", "DTSTAMP:20260101T000000Z", tc.dtstart, "END:VEVENT")
			c, err := Decode(strings.NewReader(calendar(lines...)), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got := c.Events[0].Start
			if !got.Equal(tc.want) || got.Location().String() != tc.wantZone {
				t.Errorf("Start = %v in %q, want %v in %q", got.UTC(), got.Location(), tc.want.UTC(), tc.wantZone)
			}
			if tc.wantZone == "floating" && got.Location() != Floating {
				t.Errorf("location is not Floating")
			}
		})
	}
}

func TestDecodeUnreadableZone(t *testing.T) {
	zone := "BEGIN:VTIMEZONE\r\nTZID:Odd\r\nBEGIN:STANDARD\r\nDTSTART:20000101T000000\r\n" +
		"RRULE:FREQ=MONTHLY;BYDAY=1SU\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE"
	in := calendar(zone, vevent("x", "DTSTART;TZID=Odd:20260310T100000"))
	_, err := Decode(strings.NewReader(in), Limits{})
	if !errors.Is(err, ErrUnknownZone) {
		t.Errorf("error = %v, want ErrUnknownZone", err)
	}
}

func TestDecodeRecurrenceLines(t *testing.T) {
	custom := "BEGIN:VTIMEZONE\r\nTZID:Custom\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n" +
		"TZOFFSETFROM:+0300\r\nTZOFFSETTO:+0300\r\nEND:STANDARD\r\nEND:VTIMEZONE"
	tests := []struct {
		name    string
		dtstart string
		lines   []string
		want    []string
	}{
		{
			name:    "canonical form",
			dtstart: "DTSTART;TZID=Europe/Paris:20260310T190000",
			lines:   []string{"rrule:freq=weekly;byday=tu;until=20270601t000000z", "exdate;tzid=Europe/Paris;value=date-time:20261229T190000,20261222T190000"},
			want:    []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270601T000000Z", "EXDATE;VALUE=DATE-TIME;TZID=Europe/Paris:20261229T190000,20261222T190000"},
		},
		{
			name:    "Windows TZID",
			dtstart: "DTSTART;TZID=W. Europe Standard Time:20260310T190000",
			lines:   []string{`EXDATE;TZID="W. Europe Standard Time":20261229T190000`},
			want:    []string{"EXDATE;TZID=Europe/Berlin:20261229T190000"},
		},
		{
			name:    "the event's own custom zone stays",
			dtstart: "DTSTART;TZID=Custom:20260310T190000",
			lines:   []string{"EXDATE;TZID=Custom:20261229T190000"},
			want:    []string{"EXDATE;TZID=Custom:20261229T190000"},
		},
		{
			name:    "another custom zone becomes UTC",
			dtstart: "DTSTART;TZID=Europe/Paris:20260310T190000",
			lines:   []string{"RDATE;TZID=Custom;VALUE=PERIOD:20261229T190000/PT1H,20261230T190000/20261230T200000"},
			want:    []string{"RDATE;VALUE=PERIOD:20261229T160000Z/PT1H,20261230T160000Z/20261230T170000Z"},
		},
		{
			name:    "all-day exclusions at midnight in a Windows zone",
			dtstart: "DTSTART;VALUE=DATE:20261228",
			lines:   []string{"EXDATE;TZID=W. Europe Standard Time:20270111T000000,20270118T000000", "EXDATE:20270125T000000Z", "RDATE:20270203T000000"},
			want:    []string{"EXDATE;VALUE=DATE:20270111,20270118", "EXDATE;VALUE=DATE:20270125", "RDATE;VALUE=DATE:20270203"},
		},
		{
			name:    "all-day exclusion in UTC off midnight stays",
			dtstart: "DTSTART;VALUE=DATE:20261228",
			lines:   []string{"EXDATE:20270110T230000Z"},
			want:    []string{"EXDATE:20270110T230000Z"},
		},
		{
			name:    "dates",
			dtstart: "DTSTART;VALUE=DATE:20260310",
			lines:   []string{"RRULE:FREQ=YEARLY", "EXDATE;VALUE=DATE:20270310", "RDATE;VALUE=DATE:20270311"},
			want:    []string{"RRULE:FREQ=YEARLY", "EXDATE;VALUE=DATE:20270310", "RDATE;VALUE=DATE:20270311"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := append([]string{custom, "BEGIN:VEVENT", "UID:x", "DTSTAMP:20260101T000000Z", tc.dtstart}, tc.lines...)
			c, err := Decode(strings.NewReader(calendar(append(lines, "END:VEVENT")...)), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.Events[0].Recurrence); diff != "" {
				t.Errorf("Recurrence (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeLenient(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		check func(*Event) bool
	}{
		{name: "bare date without VALUE", lines: []string{"DTSTART:20260310", "DTEND:20260311"}, check: func(e *Event) bool { return e.AllDay && e.End.Equal(floating(2026, 3, 11, 0, 0)) }},
		{name: "all-day end on the start date", lines: []string{"DTSTART;VALUE=DATE:20260310", "DTEND;VALUE=DATE:20260310"}, check: func(e *Event) bool { return e.End.Equal(floating(2026, 3, 11, 0, 0)) }},
		{name: "all-day without end", lines: []string{"DTSTART;VALUE=DATE:20260310"}, check: func(e *Event) bool { return e.End.Equal(floating(2026, 3, 11, 0, 0)) }},
		{name: "all-day DURATION", lines: []string{"DTSTART;VALUE=DATE:20260310", "DURATION:P3D"}, check: func(e *Event) bool { return e.End.Equal(floating(2026, 3, 13, 0, 0)) }},
		{name: "timed without end", lines: []string{"DTSTART:20260310T180000Z"}, check: func(e *Event) bool { return e.End.Equal(e.Start) }},
		{name: "bad GEO dropped", lines: []string{"GEO:north"}, check: func(e *Event) bool { return e.Geo == nil }},
		{name: "bad SEQUENCE dropped", lines: []string{"SEQUENCE:-1"}, check: func(e *Event) bool { return e.Sequence == 0 }},
		{name: "unknown STATUS dropped", lines: []string{"STATUS:NEEDS-ACTION"}, check: func(e *Event) bool { return e.Status == "" }},
		{name: "status in lower case", lines: []string{"STATUS:cancelled"}, check: func(e *Event) bool { return e.Status == "CANCELLED" }},
		{name: "first SUMMARY wins", lines: []string{"SUMMARY:one", "SUMMARY:two"}, check: func(e *Event) bool { return e.Summary == "one" }},
		{name: "organizer without address", lines: []string{"ORGANIZER;CN=Club:invalid:nomail"}, check: func(e *Event) bool { return e.Organizer == Organizer{Name: "Club"} }},
		{name: "organizer in upper case", lines: []string{"ORGANIZER:MAILTO:a@b.org"}, check: func(e *Event) bool { return e.Organizer == Organizer{Email: "a@b.org"} }},
		{name: "folded with a tab", lines: []string{"SUMMARY:ab\r\n\tcd"}, check: func(e *Event) bool { return e.Summary == "abcd" }},
		{name: "blank lines", lines: []string{"", "SUMMARY:x", ""}, check: func(e *Event) bool { return e.Summary == "x" }},
		{name: "DTEND beside DURATION", lines: []string{"DTEND:20260310T193000Z", "DURATION:PT0S"}, check: func(e *Event) bool { return e.End.Equal(utc(2026, 3, 10, 19, 30, 0)) }},
		{name: "all-day occurrence named in a Windows zone", lines: []string{"DTSTART;VALUE=DATE:20260310", "RECURRENCE-ID;TZID=W. Europe Standard Time:20260309T000000"}, check: func(e *Event) bool { return e.RecurrenceID == floating(2026, 3, 9, 0, 0) }},
		{name: "all-day occurrence named at midnight UTC", lines: []string{"DTSTART;VALUE=DATE:20260310", "RECURRENCE-ID:20260309T000000Z"}, check: func(e *Event) bool { return e.RecurrenceID == floating(2026, 3, 9, 0, 0) }},
		{name: "timed occurrence of an all-day series", lines: []string{"RECURRENCE-ID;VALUE=DATE:20260309"}, check: func(e *Event) bool { return e.RecurrenceID == floating(2026, 3, 9, 0, 0) && !e.AllDay }},
		{name: "Latin-1 text", lines: []string{"SUMMARY:Caf\xe9 cr\xe8me"}, check: func(e *Event) bool { return e.Summary == "Café crème" }},
		{name: "Windows-1252 text", lines: []string{"SUMMARY:\x93Quoted\x94 \x80 5"}, check: func(e *Event) bool { return e.Summary == "“Quoted” € 5" }},
		{name: "CHARSET", lines: []string{"SUMMARY;CHARSET=ISO-8859-2:Kraj\xf3w \xb3\xb1ka"}, check: func(e *Event) bool { return e.Summary == "Krajów łąka" }},
		{name: "CHARSET=UTF-8", lines: []string{"SUMMARY;CHARSET=UTF-8:Café"}, check: func(e *Event) bool { return e.Summary == "Café" }},
		{name: "local DTSTAMP read as UTC", lines: []string{"DTSTAMP;TZID=Europe/Paris:20260101T120000"}, check: func(e *Event) bool { return e.Stamp.Equal(utc(2026, 1, 1, 11, 0, 0)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := append([]string{"BEGIN:VEVENT", "UID:x"}, tc.lines...)
			lines = append(lines, "DTSTAMP:20260101T000000Z", "DTSTART:20260310T180000Z", "END:VEVENT")
			c, err := Decode(strings.NewReader(calendar(lines...)), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(&c.Events[0]) {
				t.Errorf("unexpected event %+v", c.Events[0])
			}
		})
	}
}

func TestDecodeByteOrderMarkAndSplitCRLF(t *testing.T) {
	// A line long enough to end across the reader's buffer, so that its CR and LF arrive apart.
	long := "DESCRIPTION:" + strings.Repeat("x", 64<<10-len("DESCRIPTION:")-1)
	in := "\xef\xbb\xbf" + calendar(vevent("x", long))
	c, err := Decode(strings.NewReader(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Events[0].Description; got != strings.Repeat("x", len(got)) || len(got) != len(long)-len("DESCRIPTION:") {
		t.Errorf("Description has %d bytes, want %d x's", len(got), len(long)-len("DESCRIPTION:"))
	}
}

func TestWindowsZonesLoad(t *testing.T) {
	for windows, iana := range windowsZones {
		if _, err := time.LoadLocation(iana); err != nil {
			t.Errorf("%s: %v", windows, err)
		}
	}
	for name, id := range windowsDisplayNames {
		if _, ok := windowsZones[id]; !ok {
			t.Errorf("display name %q: %q is no Windows zone ID of windowsZones", name, id)
		}
	}
}

func TestWindowsDisplayZone(t *testing.T) {
	tests := []struct {
		tzid, want string
	}{
		{"(UTC-05:00) Eastern Time (US & Canada)", "Eastern Standard Time"},
		{"(UTC+05:45) Kathmandu", "Nepal Standard Time"},
		{"(GMT-03:00) Brasilia", "E. South America Standard Time"},
		{"(UTC) Monrovia, Reykjavik", "Greenwich Standard Time"},
		{"(UTC+03:00) Moscow, St. Petersburg, Volgograd", "Russian Standard Time"},
		{"Eastern Time (US & Canada)", ""},
		{"(UTC-05:00)Eastern Time (US & Canada)", ""},
		{"(UTC-0500) Eastern Time (US & Canada)", ""},
		{"(UTC-05:00) Eastern Time", ""},
		{"(UTC+01:00) Amsterdam, Berlin, Bern, Rom, Stockholm, Wien", ""},
	}
	for _, tc := range tests {
		got, ok := windowsDisplayZone(tc.tzid)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("windowsDisplayZone(%q) = %q, %v; want %q", tc.tzid, got, ok, tc.want)
		}
	}
}

// TestDecodeWithoutUIDOrStamp: a VEVENT without UID or DTSTAMP is read. Its UID is derived from
// DTSTART, SUMMARY and RECURRENCE-ID only, so that the same event exported again with another
// description, end or stamp keeps it; its stamp is LAST-MODIFIED, else CREATED, else none.
func TestDecodeWithoutUIDOrStamp(t *testing.T) {
	decode := func(lines ...string) Event {
		t.Helper()
		lines = append(append([]string{"BEGIN:VEVENT"}, lines...), "END:VEVENT")
		c, err := Decode(strings.NewReader(calendar(lines...)), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return c.Events[0]
	}
	base := decode("DTSTART;TZID=Europe/Paris:20270110T190000", "SUMMARY:Concert")
	if !strings.HasPrefix(base.UID, "derived-") || !base.Stamp.IsZero() {
		t.Errorf("UID %q, stamp %v: want a derived UID and no stamp", base.UID, base.Stamp)
	}
	same := decode("SUMMARY:Concert", "DTSTART;TZID=Europe/Paris:20270110T190000", "DTEND;TZID=Europe/Paris:20270110T220000",
		"DESCRIPTION:Now with a description", "DTSTAMP:20261201T000000Z", "UID:")
	if same.UID != base.UID {
		t.Errorf("the same event exported again has UID %q, want %q", same.UID, base.UID)
	}
	for _, other := range [][]string{
		{"DTSTART;TZID=Europe/Paris:20270110T200000", "SUMMARY:Concert"},
		{"DTSTART;TZID=Europe/Berlin:20270110T190000", "SUMMARY:Concert"},
		{"DTSTART;TZID=Europe/Paris:20270110T190000", "SUMMARY:Concert (sold out)"},
		{"DTSTART;TZID=Europe/Paris:20270110T190000", "SUMMARY:Concert", "RECURRENCE-ID;TZID=Europe/Paris:20270110T190000"},
	} {
		if got := decode(other...); got.UID == base.UID {
			t.Errorf("%q has the UID of another event", other)
		}
	}
	bad := calendar("BEGIN:VEVENT", "DTSTART;TZID=Europe/Paris:20270110T190000", "SUMMARY:Concert", "DTEND:tomorrow", "END:VEVENT")
	var skipped EventErrors
	if _, err := Decode(strings.NewReader(bad), Limits{}); !errors.As(err, &skipped) || skipped[0].UID != base.UID || !skipped[0].Derived {
		t.Errorf("a malformed event without UID: %v, want it skipped under UID %s, derived", err, base.UID)
	}
	for _, tc := range []struct {
		lines []string
		want  time.Time
	}{
		{[]string{"LAST-MODIFIED:20261201T100000Z", "CREATED:20261101T100000Z"}, utc(2026, 12, 1, 10, 0, 0)},
		{[]string{"CREATED:20261101T100000Z"}, utc(2026, 11, 1, 10, 0, 0)},
		{[]string{"DTSTAMP:20261215T100000Z", "LAST-MODIFIED:20261201T100000Z"}, utc(2026, 12, 15, 10, 0, 0)},
		{[]string{"DTSTAMP:yesterday", "CREATED:20261101T100000Z"}, utc(2026, 11, 1, 10, 0, 0)},
	} {
		if got := decode(append([]string{"UID:x", "DTSTART:20270110T190000Z"}, tc.lines...)...).Stamp; !got.Equal(tc.want) {
			t.Errorf("%q: stamp %v, want %v", tc.lines, got, tc.want)
		}
	}
}
