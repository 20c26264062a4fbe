package ical

import (
	"errors"
	"fmt"
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

// germanDisplayName is the zone of an event of owa.ics that only the file's VTIMEZONE defines.
const germanDisplayName = "(UTC+01:00) Amsterdam, Berlin, Bern, Rom, Stockholm, Wien"

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
