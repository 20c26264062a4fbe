package ical

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

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
