package datetime

import (
	"fmt"
	"testing"
	"time"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("LoadLocation(%q): %v", name, err)
	}
	return loc
}

func TestParseWall(t *testing.T) {
	tests := []struct {
		in      string
		want    Wall
		wantErr bool
	}{
		{in: "2018-01-01 16:00:00", want: Wall{2018, time.January, 1, 16, 0, 0}},
		{in: "0001-01-01 00:00:00", want: Wall{1, time.January, 1, 0, 0, 0}},
		{in: "9999-12-31 23:59:59", want: Wall{9999, time.December, 31, 23, 59, 59}},
		{in: "2024-02-29 12:30:45", want: Wall{2024, time.February, 29, 12, 30, 45}},
		{in: "2000-02-29 00:00:00", want: Wall{2000, time.February, 29, 0, 0, 0}},
		{in: "", wantErr: true},
		{in: "0000-00-00 00:00:00", wantErr: true},
		{in: "0000-01-01 00:00:00", wantErr: true},
		{in: "2023-02-29 00:00:00", wantErr: true},
		{in: "1900-02-29 00:00:00", wantErr: true},
		{in: "2018-04-31 00:00:00", wantErr: true},
		{in: "2018-13-01 00:00:00", wantErr: true},
		{in: "2018-01-00 00:00:00", wantErr: true},
		{in: "2018-01-01 24:00:00", wantErr: true},
		{in: "2018-01-01 23:60:00", wantErr: true},
		{in: "2018-01-01 23:59:60", wantErr: true},
		{in: "2018-01-01T16:00:00", wantErr: true},
		{in: "2018-01-01 16:00", wantErr: true},
		{in: " 2018-01-01 16:00:00", wantErr: true},
		{in: "2018-01-01 16:00:00 ", wantErr: true},
		{in: "2018-1-01 16:00:00", wantErr: true},
		{in: "+018-01-01 16:00:00", wantErr: true},
		{in: "2018-01-01 16:00:0x", wantErr: true},
		{in: "2018-01-01 1 :00:00", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseWall(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ParseWall(%q) = %v, want an error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseWall(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("ParseWall(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
			if s := got.String(); s != tc.in {
				t.Errorf("String() = %q, want %q", s, tc.in)
			}
		})
	}
}

func TestWallOf(t *testing.T) {
	paris := mustLoad(t, "Europe/Paris")
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"utc", time.Date(2018, 1, 1, 16, 0, 0, 0, time.UTC), "2018-01-01 16:00:00"},
		{"own location", time.Date(2018, 7, 1, 0, 0, 0, 0, time.UTC).In(paris), "2018-07-01 02:00:00"},
		{"fraction dropped", time.Date(2018, 1, 1, 16, 0, 0, 999_999_999, time.UTC), "2018-01-01 16:00:00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := WallOf(tc.in).String(); got != tc.want {
				t.Errorf("WallOf(%v) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestWallIn(t *testing.T) {
	tests := []struct {
		name string
		zone string
		wall string
		want string // UTC
	}{
		{"utc", "UTC", "2018-01-01 16:00:00", "2018-01-01 16:00:00"},
		{"no transition", "America/New_York", "2018-01-01 16:00:00", "2018-01-01 21:00:00"},
		{"summer", "Europe/Paris", "2018-07-01 12:00:00", "2018-07-01 10:00:00"},
		{"year 1", "Europe/Paris", "0001-01-01 12:00:00", "0001-01-01 11:50:39"},
		{"year 9999", "America/New_York", "9999-07-01 12:00:00", "9999-07-01 16:00:00"},

		// New York springs forward at 02:00 EST to 03:00 EDT on 2026-03-08.
		{"ny before gap", "America/New_York", "2026-03-08 01:59:59", "2026-03-08 06:59:59"},
		{"ny gap start", "America/New_York", "2026-03-08 02:00:00", "2026-03-08 07:00:00"},
		{"ny gap", "America/New_York", "2026-03-08 02:30:00", "2026-03-08 07:30:00"},
		{"ny gap end", "America/New_York", "2026-03-08 02:59:59", "2026-03-08 07:59:59"},
		{"ny after gap", "America/New_York", "2026-03-08 03:00:00", "2026-03-08 07:00:00"},
		// New York falls back at 02:00 EDT to 01:00 EST on 2026-11-01: 01:xx happens twice.
		{"ny before overlap", "America/New_York", "2026-11-01 00:59:59", "2026-11-01 04:59:59"},
		{"ny overlap start", "America/New_York", "2026-11-01 01:00:00", "2026-11-01 05:00:00"},
		{"ny overlap", "America/New_York", "2026-11-01 01:30:00", "2026-11-01 05:30:00"},
		{"ny overlap end", "America/New_York", "2026-11-01 01:59:59", "2026-11-01 05:59:59"},
		{"ny after overlap", "America/New_York", "2026-11-01 02:00:00", "2026-11-01 07:00:00"},

		// Paris springs forward at 02:00 CET on 2026-03-29 and falls back at 03:00 CEST on 2026-10-25.
		{"paris gap", "Europe/Paris", "2026-03-29 02:30:00", "2026-03-29 01:30:00"},
		{"paris after gap", "Europe/Paris", "2026-03-29 03:00:00", "2026-03-29 01:00:00"},
		{"paris overlap", "Europe/Paris", "2026-10-25 02:30:00", "2026-10-25 00:30:00"},
		{"paris after overlap", "Europe/Paris", "2026-10-25 03:00:00", "2026-10-25 02:00:00"},

		// Lord Howe moves by 30 minutes: 02:00 → 02:30 on 2026-10-04, 02:00 → 01:30 on 2026-04-05.
		{"lord howe gap", "Australia/Lord_Howe", "2026-10-04 02:15:00", "2026-10-03 15:45:00"},
		{"lord howe after gap", "Australia/Lord_Howe", "2026-10-04 02:30:00", "2026-10-03 15:30:00"},
		{"lord howe overlap", "Australia/Lord_Howe", "2026-04-05 01:45:00", "2026-04-04 14:45:00"},
		{"lord howe after overlap", "Australia/Lord_Howe", "2026-04-05 02:00:00", "2026-04-04 15:30:00"},

		// Moscow left +04 for +03 at 02:00 on 2014-10-26: a standard-time change, not DST.
		{"moscow overlap", "Europe/Moscow", "2014-10-26 01:30:00", "2014-10-25 21:30:00"},
		// Samoa skipped 2011-12-30 entirely, going from -10 to +14 at midnight.
		{"apia skipped day", "Pacific/Apia", "2011-12-30 12:00:00", "2011-12-30 22:00:00"},
		{"apia day after", "Pacific/Apia", "2011-12-31 12:00:00", "2011-12-30 22:00:00"},

		// Time.ZoneBounds misreports the last day of leap years after a zone's last explicit
		// transition (golang/go#81583); the resolution must not depend on it.
		{"footer rule leap year end", "America/New_York", "2040-12-31 12:00:00", "2040-12-31 17:00:00"},
		{"footer rule far leap year end", "Australia/Lord_Howe", "9992-12-31 23:59:00", "9992-12-31 12:59:00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := ParseWall(tc.wall)
			if err != nil {
				t.Fatal(err)
			}
			loc := mustLoad(t, tc.zone)
			got := w.In(loc)
			if got.Location() != loc {
				t.Errorf("location = %v, want %v", got.Location(), loc)
			}
			if s := got.UTC().Format(DB); s != tc.want {
				t.Errorf("%s in %s = %s UTC, want %s UTC", tc.wall, tc.zone, s, tc.want)
			}
		})
	}
}

// TestWallInEveryQuarterHour checks the rules on every wall clock of a year with transitions: a wall
// clock that exists resolves to the first instant showing it, and one that does not is moved forward
// by the gap.
func TestWallInEveryQuarterHour(t *testing.T) {
	tests := []struct {
		zone string
		year int
	}{
		{"America/New_York", 2026},
		{"Europe/Paris", 2026},
		{"Australia/Lord_Howe", 2026},
		{"Asia/Kolkata", 2026},
		{"Europe/Moscow", 2014},
		{"Pacific/Apia", 2011},
		// A leap year served by the zone's TZ footer rule rather than explicit transitions.
		{"Europe/Paris", 2040},
		{"America/New_York", 9992},
	}
	for _, tc := range tests {
		zone, year := tc.zone, tc.year
		t.Run(fmt.Sprint(zone, " ", year), func(t *testing.T) {
			loc := mustLoad(t, zone)
			first := map[Wall]time.Time{}
			// Scan two days more on each side: wall clocks run up to a day ahead of or behind UTC.
			start := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
			stop := time.Date(year+1, 1, 3, 0, 0, 0, 0, time.UTC)
			for at := start.Add(-48 * time.Hour); at.Before(stop); at = at.Add(15 * time.Minute) {
				w := WallOf(at.In(loc))
				if _, ok := first[w]; !ok {
					first[w] = at
				}
			}
			for local := start; local.Year() == year; local = local.Add(15 * time.Minute) {
				w := WallOf(local)
				got := w.In(loc)
				if want, ok := first[w]; ok {
					if !got.Equal(want) {
						t.Fatalf("%s.In(%s) = %v, want %v", w, zone, got, want)
					}
					continue
				}
				// In a gap the offset before the jump applies: the last one before got's period.
				_, after := got.Zone()
				before := after
				for back := got; before == after; back = back.Add(-time.Minute) {
					_, before = back.Zone()
				}
				if want := local.Add(-time.Duration(before) * time.Second); !got.Equal(want) {
					t.Fatalf("gap %s.In(%s) = %v, want %v", w, zone, got, want)
				}
			}
		})
	}
}

func TestWallInNilLocation(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Wall.In(nil) did not panic")
		}
	}()
	Wall{Year: 2018, Month: 1, Day: 1}.In(nil)
}

func BenchmarkWallIn(b *testing.B) {
	loc := mustLoad(b, "Europe/Paris")
	w := Wall{2026, time.October, 25, 2, 30, 0}
	for b.Loop() {
		w.In(loc)
	}
}
