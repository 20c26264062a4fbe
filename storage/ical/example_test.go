package ical_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/ical"
)

func ExampleEncode() {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic(err)
	}
	cal := &ical.Calendar{
		ProdID: "-//calendard//example//EN",
		Name:   "Atelier Lumière",
		Events: []ical.Event{{
			UID:        "42@example.org",
			Stamp:      time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
			Summary:    "Open evening, prints; frames",
			Start:      time.Date(2026, 3, 10, 19, 0, 0, 0, paris),
			End:        time.Date(2026, 3, 10, 21, 0, 0, 0, paris),
			Recurrence: []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10"},
		}},
	}
	var buf bytes.Buffer
	if err := ical.Encode(&buf, cal); err != nil {
		panic(err)
	}
	// Lines end in CRLF; they are printed with LF here.
	fmt.Print(strings.ReplaceAll(buf.String(), "\r\n", "\n"))
	// Output:
	// BEGIN:VCALENDAR
	// VERSION:2.0
	// PRODID:-//calendard//example//EN
	// CALSCALE:GREGORIAN
	// METHOD:PUBLISH
	// X-WR-CALNAME:Atelier Lumière
	// BEGIN:VTIMEZONE
	// TZID:Europe/Paris
	// BEGIN:STANDARD
	// DTSTART:20251026T030000
	// TZOFFSETFROM:+0200
	// TZOFFSETTO:+0100
	// TZNAME:CET
	// RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
	// END:STANDARD
	// BEGIN:DAYLIGHT
	// DTSTART:20260329T020000
	// TZOFFSETFROM:+0100
	// TZOFFSETTO:+0200
	// TZNAME:CEST
	// RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
	// END:DAYLIGHT
	// END:VTIMEZONE
	// BEGIN:VEVENT
	// UID:42@example.org
	// DTSTAMP:20260301T100000Z
	// DTSTART;TZID=Europe/Paris:20260310T190000
	// DTEND;TZID=Europe/Paris:20260310T210000
	// RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10
	// SUMMARY:Open evening\, prints\; frames
	// END:VEVENT
	// END:VCALENDAR
}

func ExampleDecode() {
	const file = "BEGIN:VCALENDAR\r\n" +
		"PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN\r\n" +
		"BEGIN:VEVENT\r\n" +
		"UID:good\r\n" +
		"DTSTAMP:20260226T090000Z\r\n" +
		"DTSTART;TZID=\"W. Europe Standard Time\":20260302T093000\r\n" +
		"DTEND;TZID=\"W. Europe Standard Time\":20260302T100000\r\n" +
		"SUMMARY:Weekly sync\r\n" +
		"END:VEVENT\r\n" +
		"BEGIN:VEVENT\r\n" +
		"UID:bad\r\n" +
		"DTSTAMP:20260226T090000Z\r\n" +
		"DTSTART:2026-03-02\r\n" +
		"END:VEVENT\r\n" +
		"END:VCALENDAR\r\n"
	cal, err := ical.Decode(strings.NewReader(file), ical.Limits{})
	var skipped ical.EventErrors
	if errors.As(err, &skipped) {
		for _, e := range skipped {
			fmt.Println("skipped:", e)
		}
	} else if err != nil {
		panic(err)
	}
	for _, ev := range cal.Events {
		fmt.Println(ev.UID, ev.Summary, ev.Start.Location(), ev.Start.Format(time.RFC3339))
	}
	// Output:
	// skipped: ical: event "bad" at line 13: syntax error: "2026-03-02" is not a DATE or DATE-TIME
	// good Weekly sync Europe/Berlin 2026-03-02T09:30:00+01:00
}
