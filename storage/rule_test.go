package storage

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRuleOccurrences expands rules as a series does: starts in the event's zone (wall clocks kept
// across daylight-saving changes), the parent's own day left out, exclusions by day.
func TestRuleOccurrences(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	at := func(loc *time.Location, s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	far := at(time.UTC, "2030-01-01 00:00")
	for _, tc := range []struct {
		name     string
		lines    []string
		start    time.Time
		from, to time.Time
		want     []string // wall clocks in the start's zone
	}{
		{"weekly across the end of summer time keeps 19:00", []string{"RRULE:FREQ=WEEKLY;COUNT=3"},
			at(paris, "2026-10-18 19:00"), time.Time{}, far, []string{"2026-10-25 19:00 CET", "2026-11-01 19:00 CET"}},
		{"daily across the start of summer time keeps 19:00", []string{"RRULE:FREQ=DAILY;COUNT=3"},
			at(paris, "2027-03-27 19:00"), time.Time{}, far, []string{"2027-03-28 19:00 CEST", "2027-03-29 19:00 CEST"}},
		{"UNTIL inclusive, in UTC", []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20261215T180000Z"},
			at(paris, "2026-12-01 19:00"), time.Time{}, far, []string{"2026-12-08 19:00 CET", "2026-12-15 19:00 CET"}},
		{"EXDATE with TZID takes out its day", []string{"RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=Europe/Paris:20261215T190000"},
			at(paris, "2026-12-01 19:00"), time.Time{}, far, []string{"2026-12-08 19:00 CET", "2026-12-22 19:00 CET"}},
		{"EXDATE in UTC and lower case", []string{"rrule:freq=daily;count=3", "exdate:20261202T180000Z"},
			at(paris, "2026-12-01 19:00"), time.Time{}, far, []string{"2026-12-03 19:00 CET"}},
		{"EXDATE of another time that day still takes the day", []string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=Europe/Paris:20261202T080000"},
			at(paris, "2026-12-01 19:00"), time.Time{}, far, []string{"2026-12-03 19:00 CET"}},
		{"EXDATE in another zone takes out the day it names in the event's", []string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=America/New_York:20261202T130000"},
			at(paris, "2026-12-01 19:00"), time.Time{}, far, []string{"2026-12-03 19:00 CET"}},
		{"EXDATE in UTC the day before in UTC", []string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20261201T233000Z"},
			at(paris, "2026-12-01 00:30"), time.Time{}, far, []string{"2026-12-03 00:30 CET"}},
		{"all-day with VALUE=DATE exclusions", []string{"RRULE:FREQ=DAILY;COUNT=4", "EXDATE;VALUE=DATE:20261203,20261204"},
			at(ny, "2026-12-01 00:00"), time.Time{}, far, []string{"2026-12-02 00:00 EST"}},
		{"RDATE adds days, a bare date at the start's time", []string{"RDATE;VALUE=DATE:20261210", "RDATE;TZID=America/New_York:20261212T090000"},
			at(ny, "2026-12-01 18:30"), time.Time{}, far, []string{"2026-12-10 18:30 EST", "2026-12-12 09:00 EST"}},
		{"RDATE on a rule's day is one occurrence", []string{"RRULE:FREQ=DAILY;COUNT=2", "RDATE;TZID=America/New_York:20261202T183000"},
			at(ny, "2026-12-01 18:30"), time.Time{}, far, []string{"2026-12-02 18:30 EST"}},
		{"COUNT counts a start the rule does not give", []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3"},
			at(paris, "2026-11-30 19:00"), time.Time{}, far, []string{"2026-12-01 19:00 CET", "2026-12-08 19:00 CET"}},
		{"COUNT=1 beside a start the rule does not give is the start alone", []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=1"},
			at(paris, "2026-11-30 19:00"), time.Time{}, far, nil},
		{"the window cuts an endless rule", []string{"RRULE:FREQ=MONTHLY"},
			at(paris, "2026-01-15 10:00"), at(paris, "2026-03-01 00:00"), at(paris, "2026-05-20 00:00"),
			[]string{"2026-03-15 10:00 CET", "2026-04-15 10:00 CEST", "2026-05-15 10:00 CEST"}},
		{"a rule matching nothing ends", []string{"RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"},
			at(paris, "2026-01-15 10:00"), time.Time{}, at(paris, "2028-05-20 00:00"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parseRule(tc.lines, tc.start)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.occurrences(tc.start, tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			var walls []string
			for _, o := range got {
				walls = append(walls, o.Format("2006-01-02 15:04 MST"))
			}
			if strings.Join(walls, ",") != strings.Join(tc.want, ",") {
				t.Errorf("occurrences = %q, want %q", walls, tc.want)
			}
		})
	}
}

// TestRuleRejects: what a series cannot be is a `recurrence` field error quoting the line at fault.
func TestRuleRejects(t *testing.T) {
	start := time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, line string
		extra      []string
		reason     string
	}{
		{"hourly", "RRULE:FREQ=HOURLY", nil, "frequencies below a day"},
		{"minutely", "RRULE:FREQ=MINUTELY;COUNT=2", nil, "frequencies below a day"},
		{"unknown part", "RRULE:FREQ=DAILY;FOO=1", nil, "unknown RRULE property"},
		{"no FREQ", "RRULE:COUNT=3", nil, "FREQ is required"},
		{"COUNT and UNTIL", "RRULE:FREQ=DAILY;COUNT=3;UNTIL=20270101T000000Z", nil, "exclude each other"},
		{"UNTIL before the start", "RRULE:FREQ=DAILY;UNTIL=20261130", nil, "UNTIL 2026-11-30 is before the series' start"},
		{"UNTIL before the start that day", "RRULE:FREQ=DAILY;UNTIL=20261201T180000Z", nil, "UNTIL 2026-12-01 18:00 UTC is before the series' start"},
		{"two RRULEs", "RRULE:FREQ=WEEKLY", []string{"RRULE:FREQ=DAILY"}, "one RRULE"},
		{"unknown property", "EXRULE:FREQ=DAILY", nil, "only RRULE, RDATE and EXDATE"},
		{"no value", "RRULE", nil, "NAME:VALUE"},
		{"two lines in one", "RRULE:FREQ=DAILY\nEXDATE:20261202T190000Z", nil, "one line per item"},
		{"bad date", "EXDATE:2026-12-01", nil, "a date must read 20261013"},
		{"bad number", "RRULE:FREQ=DAILY;COUNT=x", nil, "a number cannot be read"},
		{"a long line", "RRULE:FREQ=DAILY;COUNT=3;X=" + strings.Repeat("y", 100_000), nil, "unknown RRULE property: X"},
		{"bad zone", "EXDATE;TZID=Mars/Olympus:20261201T190000", nil, "unknown time zone"},
		{"period", "RDATE;VALUE=PERIOD:20261201T190000Z/PT1H", nil, "periods"},
		{"two a day", "RRULE:FREQ=DAILY;BYHOUR=9,17;COUNT=4", nil, "at most one a day"},
		{"too many in five years", "RRULE:FREQ=DAILY", nil, "more than 1500 occurrences"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := append([]string{tc.line}, tc.extra...)
			r, err := parseRule(lines, start)
			if err == nil {
				_, err = r.occurrences(start, start, start.AddDate(5, 0, 0))
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "recurrence" {
				t.Fatalf("err = %v, want a recurrence field error", err)
			}
			// The line quoted, its first 60 characters when longer; the whole reason short, in words.
			line := []rune(lines[len(lines)-1])
			quoted := strconv.Quote(string(line[:min(len(line), 60)]))
			if !strings.Contains(fe.Reason, tc.reason) || !strings.Contains(fe.Reason, quoted) {
				t.Errorf("reason %.300q, want %q and the line %.300q", fe.Reason, tc.reason, quoted)
			}
			if len(fe.Reason) > 200 || strings.Contains(fe.Reason, "strconv") || strings.Contains(fe.Reason, "parsing time") {
				t.Errorf("reason %.300q: more than 200 bytes, or Go's own words", fe.Reason)
			}
		})
	}
	// An UNTIL on the start's own day, as a DATE (midnight, before a start later that day), is the day.
	if _, err := parseRule([]string{"RRULE:FREQ=DAILY;UNTIL=20261201"}, start); err != nil {
		t.Errorf("UNTIL on the start's day: %v", err)
	}
}

// TestRuleUntilType: the API refuses an UNTIL of another value type than the start (a DATE beside a
// time of day, a date-time beside an all-day start), naming the line; Google's UTC UNTIL beside a
// zoned start stays accepted. The store reads a DATE UNTIL as the whole day it names, so an import
// of such an export keeps that day's occurrence, as calendar apps show it.
func TestRuleUntilType(t *testing.T) {
	for _, tc := range []struct {
		name   string
		line   string
		allDay bool
		reason string // "" when accepted
	}{
		{"DATE beside a time", "RRULE:FREQ=DAILY;UNTIL=20270101", false, "UNTIL is a date and the series starts at a time"},
		{"lower case DATE beside a time", "rrule:freq=daily;until=20270101;interval=2", false, "UNTIL is a date"},
		{"date-time beside all-day", "RRULE:FREQ=DAILY;UNTIL=20270101T000000Z", true, "UNTIL is a date-time and the series is all-day"},
		{"Google's UTC beside a time", "RRULE:FREQ=WEEKLY;WKST=MO;UNTIL=20270601T000000Z;BYDAY=TU", false, ""},
		{"floating beside a time", "RRULE:FREQ=DAILY;UNTIL=20270101T190000", false, ""},
		{"DATE beside all-day", "RRULE:FREQ=DAILY;UNTIL=20270101", true, ""},
		{"no UNTIL", "RRULE:FREQ=DAILY;COUNT=3", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkUntil([]string{"EXDATE:20261202T190000Z", tc.line}, tc.allDay)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "recurrence" || !strings.Contains(fe.Reason, tc.reason) ||
				!strings.Contains(fe.Reason, strconv.Quote(tc.line)) || len(fe.Reason) > 200 {
				t.Fatalf("err = %v, want a recurrence error of at most 200 bytes saying %q and quoting the line", err, tc.reason)
			}
		})
	}

	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 29, 19, 0, 0, 0, paris)
	r, err := parseRule([]string{"RRULE:FREQ=DAILY;UNTIL=20261231"}, start)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.occurrences(start, start, start.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Format(dayLayout) != "2026-12-31" {
		t.Errorf("a DATE UNTIL beside 19:00 gives %v, want the 30th and the 31st", got)
	}
	// A date-time UNTIL beside an all-day start ends on the day it falls on in the event's zone.
	start = time.Date(2026, 12, 29, 0, 0, 0, 0, paris)
	if r, err = parseRule([]string{"RRULE:FREQ=DAILY;UNTIL=20261230T230000Z"}, start); err != nil {
		t.Fatal(err)
	}
	if got, err = r.occurrences(start, start, start.AddDate(1, 0, 0)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Format(dayLayout) != "2026-12-31" {
		t.Errorf("a UTC UNTIL beside an all-day start gives %v, want the 30th and the 31st", got)
	}
}
