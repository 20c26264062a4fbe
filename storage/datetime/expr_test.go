package datetime

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sunday is the default current instant of the expression tests: 2026-11-22 10:15:30, a Sunday, in the
// zone of each case.
var sunday = Wall{2026, time.November, 22, 10, 15, 30}

func TestParseEval(t *testing.T) {
	wednesday := Wall{2026, time.November, 25, 8, 0, 0}
	tests := []struct {
		name string
		in   string
		zone string // default America/New_York
		now  Wall   // default sunday, in zone
		want string // wall clock of the result in zone
	}{
		// The examples of Appendix A.
		{name: "appendix date 4pm", in: "2018-01-01 4pm", want: "2018-01-01 16:00:00"},
		{name: "appendix zulu", in: "2017-12-21T10:00:00Z", want: "2017-12-21 05:00:00"},
		{name: "appendix timestamp", in: "1514764800", want: "2017-12-31 19:00:00"},
		{name: "appendix tomorrow 9am", in: "tomorrow 9am", want: "2026-11-23 09:00:00"},
		{name: "appendix next wednesday", in: "next wednesday 16:00", want: "2026-11-25 16:00:00"},
		{name: "appendix offset 11am", in: "+5 days 11am", want: "2026-11-27 11:00:00"},

		// Absolute values.
		{name: "db datetime", in: "2018-01-01 16:00:00", want: "2018-01-01 16:00:00"},
		{name: "T datetime", in: "2018-01-01T16:00:00", want: "2018-01-01 16:00:00"},
		{name: "datetime without seconds", in: "2018-01-01 16:00", want: "2018-01-01 16:00:00"},
		{name: "datetime fraction dropped", in: "2018-01-01T16:00:00.999999", want: "2018-01-01 16:00:00"},
		{name: "date alone", in: "2018-01-01", want: "2018-01-01 00:00:00"},
		{name: "date and single-digit hour", in: "2018-01-01 9:05", want: "2018-01-01 09:05:00"},
		{name: "date and 12-hour with minutes", in: "2018-01-01 11:30pm", want: "2018-01-01 23:30:00"},
		{name: "date and spaced meridiem", in: "2018-01-01 12:00 pm", want: "2018-01-01 12:00:00"},
		{name: "time before date", in: "4pm 2018-01-01", want: "2018-01-01 16:00:00"},
		{name: "zone plus", in: "2018-01-01T16:00:00+01:00", want: "2018-01-01 10:00:00"},
		{name: "zone minus no colon", in: "2018-01-01T16:00:00-0130", want: "2018-01-01 12:30:00"},
		{name: "zone with blank datetime", in: "2018-01-01 16:00:00Z", want: "2018-01-01 11:00:00"},
		{name: "zone without seconds", in: "2018-01-01T16:00z", want: "2018-01-01 11:00:00"},
		{name: "zone with fraction", in: "2018-01-01T16:00:00.5+00:00", want: "2018-01-01 11:00:00"},
		{name: "zone converts to fixed zone", in: "2018-01-01T16:00:00Z", zone: "UTC+5:30", want: "2018-01-01 21:30:00"},
		{name: "timestamp zero", in: "0", want: "1969-12-31 19:00:00"},
		{name: "short timestamp", in: "9", zone: "UTC", want: "1970-01-01 00:00:09"},
		{name: "negative timestamp", in: "-1", want: "1969-12-31 18:59:59"},
		{name: "timestamp leading zeros", in: "0001514764800", want: "2017-12-31 19:00:00"},
		{name: "timestamp blanks", in: " 1514764800\n", zone: "UTC", want: "2018-01-01 00:00:00"},
		{name: "small year", in: "0001-01-01 00:00:00", zone: "UTC", want: "0001-01-01 00:00:00"},
		{name: "last second", in: "9999-12-31 23:59:59", zone: "UTC", want: "9999-12-31 23:59:59"},
		{name: "leap day", in: "2024-02-29", want: "2024-02-29 00:00:00"},

		// Days.
		{name: "now", in: "now", want: "2026-11-22 10:15:30"},
		{name: "today", in: "today", want: "2026-11-22 00:00:00"},
		{name: "tomorrow", in: "tomorrow", want: "2026-11-23 00:00:00"},
		{name: "yesterday noon", in: "yesterday noon", want: "2026-11-21 12:00:00"},
		{name: "tomorrow midnight", in: "tomorrow midnight", want: "2026-11-23 00:00:00"},
		{name: "now with time", in: "now 9am", want: "2026-11-22 09:00:00"},
		{name: "case and blanks", in: "  TOMORROW \t 9 AM ", want: "2026-11-23 09:00:00"},
		{name: "yesterday across month", in: "yesterday", now: Wall{2026, time.March, 1, 5, 0, 0}, want: "2026-02-28 00:00:00"},

		// Weekdays when today, a Sunday, is and is not the weekday named.
		{name: "sunday on sunday", in: "sunday", want: "2026-11-22 00:00:00"},
		{name: "this sunday on sunday", in: "this sunday", want: "2026-11-22 00:00:00"},
		{name: "next sunday on sunday", in: "next sunday", want: "2026-11-29 00:00:00"},
		{name: "last sunday on sunday", in: "last sunday", want: "2026-11-15 00:00:00"},
		{name: "monday on sunday", in: "monday", want: "2026-11-23 00:00:00"},
		{name: "this monday on sunday", in: "this monday", want: "2026-11-23 00:00:00"},
		{name: "next monday on sunday", in: "next monday", want: "2026-11-23 00:00:00"},
		{name: "last monday on sunday", in: "last monday", want: "2026-11-16 00:00:00"},
		{name: "saturday on sunday", in: "saturday", want: "2026-11-28 00:00:00"},
		{name: "last saturday on sunday", in: "last saturday", want: "2026-11-21 00:00:00"},
		{name: "wednesday on wednesday", in: "Wednesday", now: wednesday, want: "2026-11-25 00:00:00"},
		{name: "this wednesday on wednesday", in: "this wednesday", now: wednesday, want: "2026-11-25 00:00:00"},
		{name: "next wednesday on wednesday", in: "next wednesday", now: wednesday, want: "2026-12-02 00:00:00"},
		{name: "last wednesday on wednesday", in: "last wednesday", now: wednesday, want: "2026-11-18 00:00:00"},
		{name: "last tuesday on wednesday", in: "last tuesday noon", now: wednesday, want: "2026-11-24 12:00:00"},
		{name: "thursday on wednesday", in: "thursday", now: wednesday, want: "2026-11-26 00:00:00"},
		{name: "friday with time first", in: "18:30 friday", now: wednesday, want: "2026-11-27 18:30:00"},

		// Times of day.
		{name: "9 am", in: "9 am", want: "2026-11-22 09:00:00"},
		{name: "11:30pm", in: "11:30pm", want: "2026-11-22 23:30:00"},
		{name: "11:30 PM", in: "11:30 PM", want: "2026-11-22 23:30:00"},
		{name: "12am", in: "12am", want: "2026-11-22 00:00:00"},
		{name: "12pm", in: "12pm", want: "2026-11-22 12:00:00"},
		{name: "12:15 am", in: "12:15 am", want: "2026-11-22 00:15:00"},
		{name: "1am", in: "1am", want: "2026-11-22 01:00:00"},
		{name: "24-hour", in: "16:00", want: "2026-11-22 16:00:00"},
		{name: "24-hour seconds", in: "7:05:09", want: "2026-11-22 07:05:09"},
		{name: "midnight", in: "midnight", want: "2026-11-22 00:00:00"},
		{name: "noon", in: "noon", want: "2026-11-22 12:00:00"},

		// Offsets.
		{name: "plus week keeps time", in: "+1 week", want: "2026-11-29 10:15:30"},
		{name: "minus week", in: "-1 week", want: "2026-11-15 10:15:30"},
		{name: "unsigned hours", in: "3 hours", want: "2026-11-22 13:15:30"},
		{name: "glued month", in: "+1month", want: "2026-12-22 10:15:30"},
		{name: "glued plural", in: "-2weeks", want: "2026-11-08 10:15:30"},
		{name: "several offsets", in: "+90 minutes -30 mins +15 secs", want: "2026-11-22 11:15:45"},
		{name: "seconds spelled out", in: "+1 second 5 seconds -1 sec", want: "2026-11-22 10:15:35"},
		{name: "now plus day", in: "now +1 day", want: "2026-11-23 10:15:30"},
		{name: "offset before time", in: "11am +5 days", want: "2026-11-27 11:00:00"},
		{name: "offset on date", in: "2018-01-01 +1 year -2 days", want: "2018-12-30 00:00:00"},
		{name: "month overflow", in: "2018-01-31 +1 month", want: "2018-03-03 00:00:00"},
		{name: "month overflow leap", in: "2020-01-31 +1 month", want: "2020-03-02 00:00:00"},
		{name: "offsets in order", in: "2018-01-31 +1 month -1 month", want: "2018-02-03 00:00:00"},
		{name: "year from leap day", in: "2024-02-29 +1 year", want: "2025-03-01 00:00:00"},
		{name: "zero offset", in: "today +0 days", want: "2026-11-22 00:00:00"},
		{name: "huge zero offset", in: "today +00000000000000000000000000 days", want: "2026-11-22 00:00:00"},
		{name: "large offset in range", in: "-2025 years", want: "0001-11-22 10:15:30"},
		{name: "offset on tomorrow", in: "tomorrow 9am -1 hour", want: "2026-11-23 08:00:00"},

		// DST: the wall clock is resolved with Wall.In rules after the offsets.
		{name: "gap", in: "2026-03-08 02:30", want: "2026-03-08 03:30:00"},
		{name: "gap after offset", in: "2026-03-07 02:30 +1 day", want: "2026-03-08 03:30:00"},
		{name: "wall hours across gap", in: "2026-03-08 01:30 +1 hour", want: "2026-03-08 03:30:00"},
		{name: "paris gap", in: "2026-03-29 02:00", zone: "Europe/Paris", want: "2026-03-29 03:00:00"},
		{name: "lord howe gap", in: "2026-10-04 02:00 +10 minutes", zone: "Australia/Lord_Howe", want: "2026-10-04 02:40:00"},

		// Other zones.
		{name: "utc today", in: "today", zone: "UTC", want: "2026-11-22 00:00:00"},
		{name: "fixed zone", in: "tomorrow 9am", zone: "UTC-3:30", want: "2026-11-23 09:00:00"},
		{name: "kolkata timestamp", in: "1514764800", zone: "Asia/Kolkata", want: "2018-01-01 05:30:00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc := zoneLoc(t, tc.zone)
			now := tc.now
			if now == (Wall{}) {
				now = sunday
			}
			e, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			got, err := e.Eval(loc, now.In(loc))
			if err != nil {
				t.Fatalf("Eval(%q): %v", tc.in, err)
			}
			if got.Location() != loc {
				t.Errorf("location = %v, want %v", got.Location(), loc)
			}
			if s := got.Format(DB); s != tc.want {
				t.Errorf("Eval(%q) = %s, want %s", tc.in, s, tc.want)
			}
		})
	}
}

// TestEvalOverlap checks instants, not wall clocks: in an overlap both readings print the same.
func TestEvalOverlap(t *testing.T) {
	ny := zoneLoc(t, "America/New_York")
	// 05:40 UTC is 01:40 EST, the second pass through 01:40 on 2026-11-01.
	secondPass := time.Date(2026, 11, 1, 6, 40, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		now  time.Time
		want time.Time
	}{
		{"ambiguous datetime takes the earlier instant", "2026-11-01 01:30", secondPass, time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC)},
		{"now stays the current instant", "now", secondPass.Add(999 * time.Millisecond), secondPass},
		{"relative wall clock takes the earlier instant", "now +0 sec", secondPass, secondPass.Add(-time.Hour)},
		{"time of day from now", "1:40", secondPass, secondPass.Add(-time.Hour)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Eval(ny, tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("Eval(%q) = %v, want %v", tc.in, got.UTC(), tc.want)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []string{
		"",
		"   ",
		"\t\n",
		"tomorrow today",
		"now now",
		"today 2018-01-01",
		"2018-01-01 2018-01-02",
		"friday monday",
		"next friday tomorrow",
		"4pm 5pm",
		"noon midnight",
		"2018-01-01 16:00 4pm",
		"2018-01-01T10:00:00Z 4pm",
		"2018-01-01T10:00:00Z +1 day",
		"+1 day 2018-01-01T10:00:00Z",
		"2018-01-01 10:00:00+01:00 -1 hour",
		"+x days",
		"32 days ago",
		"+5",
		"+5 fortnights",
		"+ 5 days",
		"--5 days",
		"5.5 days",
		"+1 day+1 day",
		"today+1day",
		"days",
		"next",
		"next week",
		"last 4pm",
		"mon",
		"2018-02-30",
		"2019-02-29",
		"2018-13-01",
		"2018-00-10",
		"2018-1-01",
		"18-01-01",
		"2018/01/01",
		"2018-01-01T",
		"2018-01-01T16",
		"2018-01-01T9:00",
		"2018-01-01x16:00",
		"2018-01-01 24:00",
		"2018-01-01 10:60",
		"2018-01-01T10:00:60",
		"2018-01-01T16:00:00.",
		"2018-01-01T16:00.5",
		"2018-01-01T16:00:00+5",
		"2018-01-01T16:00:00+05",
		"2018-01-01T16:00:00+24:00",
		"2018-01-01T16:00:00+05:60",
		"2018-01-01T16:00:00 z",
		"2018-01-01 16:00:00 +01:00",
		"2018-01-01 16:00:00 pm",
		"24:00",
		"10:60",
		"10:5",
		"10:",
		":30",
		"100:00",
		"16:00:00.5",
		"13pm",
		"0am",
		"00:30am",
		"12:30:00pm",
		"16:00 pm",
		"9 am pm",
		"am",
		"pm",
		"9 o'clock",
		"tomorrow 9",
		"+1514764800",
		"1514764800.5",
		"1514764800 +1 day",
		"-",
		"T",
		"tomorrow\u00a09am",
		"fr\u0130day",
		"\u212aoday",
		"１２:００",
		"2018-01-01\x00",
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			if got, err := Parse(in); err == nil {
				t.Errorf("Parse(%q) = %+v, want an error", in, got)
			}
		})
	}
}

func TestEvalOutOfRange(t *testing.T) {
	tests := []struct {
		in   string
		zone string
	}{
		{in: "0000-01-01"},
		{in: "0000-12-31 +1 day"},
		{in: "0000-06-01T00:00:00Z"},
		{in: "9999-12-31 +1 day"},
		{in: "9999-12-31 23:00", zone: "America/New_York"},
		{in: "0001-01-01 00:00:00", zone: "Asia/Tokyo"},
		{in: "0001-01-01T00:00:00Z", zone: "America/New_York"},
		{in: "253402300800"},
		{in: "-62135596801"},
		{in: "99999999999999999999999999999"},
		{in: "-99999999999999999999999999999"},
		{in: "-2026 years"},
		{in: "+7974 years"},
		{in: "+10000 years -10000 years"},
		{in: "+99999999999999999999 seconds"},
		{in: "-9223372036854775808 seconds"},
		{in: "+9223372036854775807 weeks"},
		{in: "+9223372036854775807 months"},
		{in: "-99999999999999999999999 months"},
		{in: "+99999999999999999999999 years"},
		{in: "+400000000 days"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			loc := zoneLoc(t, tc.zone)
			e, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got, err := e.Eval(loc, sunday.In(loc)); err == nil {
				t.Errorf("Eval(%q) = %v, want an error", tc.in, got)
			}
		})
	}
}

func TestEvalMisuse(t *testing.T) {
	if got, err := (Expr{}).Eval(time.UTC, time.Now()); err == nil {
		t.Errorf("zero Expr Eval = %v, want an error", got)
	}
	e, err := Parse("today")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := e.Eval(nil, time.Now()); err == nil {
		t.Errorf("Eval(nil loc) = %v, want an error", got)
	}
}

// zoneLoc returns the location of a test case's zone, America/New_York by default.
func zoneLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	if name == "" {
		name = "America/New_York"
	}
	z, err := ParseZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return z.Loc
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"2018-01-01 4pm", "2017-12-21T10:00:00Z", "1514764800", "tomorrow 9am", "next wednesday 16:00",
		"+5 days 11am", "2018-01-01 16:00:00", "2018-01-01T16:00:00.123+05:30", "2018-01-01 16:00 -0130",
		"now", "today", "yesterday noon", "last friday midnight", "this sunday", "12:15 am", "11:30pm",
		"-1 week 3 hours", "+1month", "2018-01-31 +1 month", "-1", "99999999999999999999", "9999-12-31 23:59:59",
		"0001-01-01 00:00:00", "2026-03-08 02:30", "+99999999999 years", "4pm 5pm", "tomorrow today", "",
	} {
		f.Add(s)
	}
	var locs []*time.Location
	for _, name := range []string{"UTC", "America/New_York", "Australia/Lord_Howe", "UTC+14", "UTC-12"} {
		locs = append(locs, zoneLoc(f, name))
	}
	now := time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if w, werr := ParseWall(s); werr == nil {
			if err != nil {
				t.Fatalf("ParseWall(%q) ok but Parse: %v", s, err)
			}
			got, err := e.Eval(time.UTC, now)
			if err != nil {
				t.Fatalf("Eval(%q) in UTC: %v", s, err)
			}
			if WallOf(got) != w {
				t.Fatalf("Eval(%q) in UTC = %s, want %s", s, got.Format(DB), w)
			}
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "datetime: ") {
				t.Fatalf("Parse(%q): error %q does not name the package", s, err)
			}
			return
		}
		if strings.Trim(s, asciiSpace) == "" {
			t.Fatalf("Parse(%q) accepted a blank string", s)
		}
		for _, loc := range locs {
			got, err := e.Eval(loc, now)
			if err != nil {
				// Parse has checked the syntax: the only failure left is a result out of range.
				if !errors.Is(err, errRange) {
					t.Fatalf("Eval(%q) in %v: %v, want the range error", s, loc, err)
				}
				continue
			}
			// The result written back as a DB datetime or a timestamp reads as the same wall clock
			// (the same instant, for the timestamp): what the store writes, it reads back.
			if again := evalIn(t, got.Format(DB), loc, now); WallOf(again) != WallOf(got) {
				t.Fatalf("Eval(%q) in %v = %s, but its DB form reads as %s", s, loc, got.Format(DB), again.Format(DB))
			}
			if again := evalIn(t, strconv.FormatInt(got.Unix(), 10), loc, now); !again.Equal(got) {
				t.Fatalf("Eval(%q) in %v = %v, but its timestamp reads as %v", s, loc, got, again)
			}
			if got.Location() != loc {
				t.Fatalf("Eval(%q) location = %v, want %v", s, got.Location(), loc)
			}
			if y, yu := got.Year(), got.UTC().Year(); y < 1 || y > 9999 || yu < 1 || yu > 9999 {
				t.Fatalf("Eval(%q) = %v, out of range", s, got)
			}
			if got.Nanosecond() != 0 {
				t.Fatalf("Eval(%q) = %v, has a fraction of a second", s, got)
			}
		}
	})
}

// evalIn parses and evaluates s, which must succeed.
func evalIn(t *testing.T, s string, loc *time.Location, now time.Time) time.Time {
	t.Helper()
	e, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	got, err := e.Eval(loc, now)
	if err != nil {
		t.Fatalf("Eval(%q) in %v: %v", s, loc, err)
	}
	return got
}

func BenchmarkParseEval(b *testing.B) {
	loc := zoneLoc(b, "Europe/Paris")
	now := sunday.In(loc)
	for b.Loop() {
		e, err := Parse("next wednesday 16:00 +1 month")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Eval(loc, now); err != nil {
			b.Fatal(err)
		}
	}
}
