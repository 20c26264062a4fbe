package ical

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"
)

func mustLoad(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}

func unix(y int, m time.Month, d int) int64 {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix()
}

// scanTransitions finds the transitions of loc in (from, to] the slow way: a probe every hour,
// then a bisection to the second.
func scanTransitions(loc *time.Location, from, to int64) []transition {
	var list []transition
	cur := stateAt(loc, from)
	for t := from + 3600; t-3600 < to; t += 3600 {
		t := min(t, to)
		if s := stateAt(loc, t); s != cur {
			at := firstChange(loc, t-3600, t, cur)
			list = append(list, transition{at: at, from: cur, to: stateAt(loc, at)})
			cur = stateAt(loc, at)
		}
	}
	return list
}

func TestTransitions(t *testing.T) {
	tests := []struct {
		zone     string
		from, to int64
	}{
		// 2040 is a leap year served by the zones' footer rules, where ZoneBounds misbehaves.
		{zone: "Europe/Paris", from: unix(2038, 6, 1), to: unix(2042, 6, 1)},
		{zone: "America/New_York", from: unix(2039, 1, 1), to: unix(2041, 12, 31)},
		{zone: "Australia/Lord_Howe", from: unix(2039, 1, 1), to: unix(2041, 12, 31)},
		{zone: "America/Santiago", from: unix(2039, 1, 1), to: unix(2041, 12, 31)},
		// Historic rule changes: the US in 2007, Russia in 2011 and 2014, Brazil ending DST in 2019.
		{zone: "America/New_York", from: unix(2005, 1, 1), to: unix(2009, 1, 1)},
		{zone: "Europe/Moscow", from: unix(2010, 1, 1), to: unix(2015, 1, 1)},
		{zone: "America/Sao_Paulo", from: unix(2017, 1, 1), to: unix(2021, 1, 1)},
		{zone: "Asia/Tokyo", from: unix(1948, 1, 1), to: unix(1953, 1, 1)},
		{zone: "Africa/Casablanca", from: unix(2025, 1, 1), to: unix(2027, 1, 1)},
		{zone: "UTC", from: unix(2025, 1, 1), to: unix(2027, 1, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.zone+time.Unix(tc.from, 0).UTC().Format("/2006"), func(t *testing.T) {
			loc := mustLoad(t, tc.zone)
			got := transitions(loc, tc.from, tc.to)
			want := scanTransitions(loc, tc.from, tc.to)
			if len(got) != len(want) {
				t.Fatalf("got %d transitions, want %d:\n got  %v\n want %v", len(got), len(want), got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("transition %d = %+v, want %+v", i, got[i], want[i])
				}
			}
		})
	}
}

// vtimezone returns the VTIMEZONE Encode writes for loc over from..to, unfolded, one line per
// string.
func vtimezone(loc *time.Location, from, to int64) []string {
	var buf bytes.Buffer
	e := &encoder{w: bufio.NewWriter(&buf)}
	e.writeVTIMEZONE(loc.String(), loc, from, to)
	e.w.Flush()
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(buf.String(), "\r\n ", ""), "\r\n"), "\r\n")
}

func TestVTIMEZONEShape(t *testing.T) {
	tests := []struct {
		name     string
		zone     string
		from, to int64
		want     []string
	}{
		{
			name: "current rules only",
			zone: "Europe/Paris", from: unix(2026, 3, 10), to: unix(2026, 6, 1),
			want: []string{
				"BEGIN:VTIMEZONE", "TZID:Europe/Paris",
				"BEGIN:STANDARD", "DTSTART:20251026T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET",
				"RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
				"BEGIN:DAYLIGHT", "DTSTART:20260329T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST",
				"RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
				"END:VTIMEZONE",
			},
		},
		{
			name: "no DST",
			zone: "Asia/Tokyo", from: unix(2026, 1, 1), to: unix(2030, 1, 1),
			want: []string{
				"BEGIN:VTIMEZONE", "TZID:Asia/Tokyo",
				"BEGIN:STANDARD", "DTSTART:19510909T010000", "TZOFFSETFROM:+1000", "TZOFFSETTO:+0900", "TZNAME:JST", "END:STANDARD",
				"END:VTIMEZONE",
			},
		},
		{
			name: "never changed",
			zone: "Etc/GMT-14", from: unix(2026, 1, 1), to: unix(2026, 1, 1),
			want: []string{
				"BEGIN:VTIMEZONE", "TZID:Etc/GMT-14",
				"BEGIN:STANDARD", "DTSTART:16010101T000000", "TZOFFSETFROM:+1400", "TZOFFSETTO:+1400", "TZNAME:+14", "END:STANDARD",
				"END:VTIMEZONE",
			},
		},
		{
			name: "half-hour DST",
			zone: "Australia/Lord_Howe", from: unix(2026, 5, 10), to: unix(2026, 5, 10),
			want: []string{
				"BEGIN:VTIMEZONE", "TZID:Australia/Lord_Howe",
				"BEGIN:STANDARD", "DTSTART:20260405T020000", "TZOFFSETFROM:+1100", "TZOFFSETTO:+1030", "TZNAME:+1030",
				"RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU", "END:STANDARD",
				"BEGIN:DAYLIGHT", "DTSTART:20261004T020000", "TZOFFSETFROM:+1030", "TZOFFSETTO:+1100", "TZNAME:+11",
				"RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU", "END:DAYLIGHT",
				"END:VTIMEZONE",
			},
		},
		{
			// Israel's DST starts on the Friday before the last Sunday of March: no nth weekday.
			name: "weekday within a week",
			zone: "Asia/Jerusalem", from: unix(2026, 6, 1), to: unix(2026, 6, 1),
			want: []string{
				"BEGIN:VTIMEZONE", "TZID:Asia/Jerusalem",
				"BEGIN:DAYLIGHT", "DTSTART:20260327T020000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0300", "TZNAME:IDT",
				"RRULE:FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=23,24,25,26,27,28,29;BYDAY=FR", "END:DAYLIGHT",
				"BEGIN:STANDARD", "DTSTART:20261025T020000", "TZOFFSETFROM:+0300", "TZOFFSETTO:+0200", "TZNAME:IST",
				"RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
				"END:VTIMEZONE",
			},
		},
		{
			// The US rules changed in 2007: the transitions before are explicit.
			name: "historic rule change",
			zone: "America/New_York", from: unix(2006, 1, 1), to: unix(2008, 1, 1),
			want: []string{
				"BEGIN:VTIMEZONE", "TZID:America/New_York",
				"BEGIN:STANDARD", "DTSTART:20051030T020000", "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "TZNAME:EST", "END:STANDARD",
				"BEGIN:DAYLIGHT", "DTSTART:20060402T020000", "TZOFFSETFROM:-0500", "TZOFFSETTO:-0400", "TZNAME:EDT", "END:DAYLIGHT",
				"BEGIN:STANDARD", "DTSTART:20061029T020000", "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "TZNAME:EST", "END:STANDARD",
				"BEGIN:DAYLIGHT", "DTSTART:20070311T020000", "TZOFFSETFROM:-0500", "TZOFFSETTO:-0400", "TZNAME:EDT",
				"RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", "END:DAYLIGHT",
				"BEGIN:STANDARD", "DTSTART:20071104T020000", "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "TZNAME:EST",
				"RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:STANDARD",
				"END:VTIMEZONE",
			},
		},
		{
			// Past horizonYear a zone repeats its rules: the VTIMEZONE starts them there.
			name: "far future",
			zone: "Europe/Paris", from: unix(9000, 6, 1), to: unix(9999, 6, 1),
			want: []string{
				"BEGIN:VTIMEZONE", "TZID:Europe/Paris",
				"BEGIN:STANDARD", "DTSTART:21991027T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET",
				"RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
				"BEGIN:DAYLIGHT", "DTSTART:22000330T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST",
				"RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
				"END:VTIMEZONE",
			},
		},
		{
			// Brazil abolished DST in 2019: explicit transitions, no rule after.
			name: "DST abolished",
			zone: "America/Sao_Paulo", from: unix(2018, 6, 1), to: unix(2020, 1, 1),
			want: []string{
				"BEGIN:VTIMEZONE", "TZID:America/Sao_Paulo",
				"BEGIN:STANDARD", "DTSTART:20180218T000000", "TZOFFSETFROM:-0200", "TZOFFSETTO:-0300", "TZNAME:-03", "END:STANDARD",
				"BEGIN:DAYLIGHT", "DTSTART:20181104T000000", "TZOFFSETFROM:-0300", "TZOFFSETTO:-0200", "TZNAME:-02", "END:DAYLIGHT",
				"BEGIN:STANDARD", "DTSTART:20190217T000000", "TZOFFSETFROM:-0200", "TZOFFSETTO:-0300", "TZNAME:-03", "END:STANDARD",
				"END:VTIMEZONE",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := vtimezone(mustLoad(t, tc.zone), tc.from, tc.to)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestVTIMEZONEAgrees reads each generated VTIMEZONE back with Decode's builder and checks that it
// gives the offsets and abbreviations of the tz database at every hour of the span, and, where the
// VTIMEZONE ends in yearly rules, for years after it.
func TestVTIMEZONEAgrees(t *testing.T) {
	tests := []struct {
		zone      string
		from, to  int64
		checkTo   int64
		wantRules bool
	}{
		{zone: "Europe/Paris", from: unix(2026, 1, 1), to: unix(2028, 1, 1), checkTo: unix(2045, 1, 1), wantRules: true},
		{zone: "America/New_York", from: unix(2000, 1, 1), to: unix(2010, 1, 1), checkTo: unix(2030, 1, 1), wantRules: true},
		{zone: "Australia/Lord_Howe", from: unix(2026, 1, 1), to: unix(2027, 1, 1), checkTo: unix(2041, 12, 31), wantRules: true},
		{zone: "America/Santiago", from: unix(2026, 1, 1), to: unix(2027, 1, 1), checkTo: unix(2035, 1, 1), wantRules: true},
		{zone: "Asia/Jerusalem", from: unix(2010, 1, 1), to: unix(2027, 1, 1), checkTo: unix(2040, 1, 1), wantRules: true},
		{zone: "Pacific/Chatham", from: unix(2026, 1, 1), to: unix(2027, 1, 1), checkTo: unix(2035, 1, 1), wantRules: true},
		{zone: "Europe/Moscow", from: unix(2010, 1, 1), to: unix(2016, 1, 1), checkTo: unix(2016, 1, 1)},
		{zone: "Asia/Tokyo", from: unix(1940, 1, 1), to: unix(2026, 1, 1), checkTo: unix(2030, 1, 1)},
		{zone: "Africa/Casablanca", from: unix(2026, 1, 1), to: unix(2027, 1, 1), checkTo: unix(2027, 1, 1)},
		{zone: "Europe/Paris", from: unix(1890, 1, 1), to: unix(1950, 1, 1), checkTo: unix(1950, 1, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.zone+time.Unix(tc.from, 0).UTC().Format("/2006"), func(t *testing.T) {
			loc := mustLoad(t, tc.zone)
			lines := vtimezone(loc, tc.from, tc.to)
			if got := strings.Contains(strings.Join(lines, "\n"), "RRULE:"); got != tc.wantRules {
				t.Errorf("has RRULE observances = %v, want %v", got, tc.wantRules)
			}
			text := "BEGIN:VCALENDAR\r\n" + strings.Join(lines, "\r\n") + "\r\nEND:VCALENDAR\r\n"
			root, err := parseComponents(strings.NewReader(text), Limits{}.withDefaults(), &warnings{})
			if err != nil {
				t.Fatal(err)
			}
			built, err := locationFromVTIMEZONE(tc.zone, root.children[0])
			if err != nil {
				t.Fatal(err)
			}
			for at := tc.from; at <= tc.checkTo; at += 3600 {
				if got, want := stateAt(built, at), stateAt(loc, at); got != want {
					t.Fatalf("at %v: VTIMEZONE gives %+v, tz database %+v", time.Unix(at, 0).UTC(), got, want)
				}
			}
		})
	}
}

func TestDeriveRule(t *testing.T) {
	// The last Sunday of October, 2020-2027.
	var lastSundays []transition
	paris := mustLoad(t, "Europe/Paris")
	for _, tr := range transitions(paris, unix(2020, 1, 1), unix(2028, 1, 1)) {
		if !tr.to.dst {
			lastSundays = append(lastSundays, tr)
		}
	}
	rules := tailRules(lastSundays)
	if len(rules) != 1 {
		t.Fatalf("tailRules = %v, want one rule", rules)
	}
	for _, r := range rules {
		if got := string(appendRule(nil, r.rule)); got != "FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU" {
			t.Errorf("rule = %s", got)
		}
		if r.timeOfDay != 3*3600 {
			t.Errorf("time of day = %d, want 03:00", r.timeOfDay)
		}
	}
	// A gap year is no yearly rule.
	if rules := tailRules(append(lastSundays[:2:2], lastSundays[3:]...)); rules != nil {
		t.Errorf("tailRules with a missing year = %v, want nil", rules)
	}
}
