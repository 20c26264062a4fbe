// Package datetime parses, resolves and formats the date-times of the calendar API: the time zones of
// events and of the site (docs/API.md "Event fields"), the "DB datetime" wall clocks the store keeps, and
// the date-time expressions accepted by every date parameter (docs/API.md "Parameters and bodies").
//
// # Basics
//
// A Zone is what a client may write in a timezone field: an IANA name, "UTC", or a fixed offset in the
// WordPress style ("UTC+5", "UTC-3:30", "UTC+5.75"). A Wall is a civil date-time without a zone; the store
// keeps walls and derives instants from them with Wall.In, which resolves the wall clocks that DST skips
// or repeats the way docs/API.md "Event fields" requires. An Expr is a parsed Appendix A expression ("tomorrow 9am",
// "2018-01-01T10:00:00Z", "1514764800"); Parse checks only its syntax, and Eval gives it a meaning in an
// interpretation zone at a given current instant, so the same request evaluates the same way in tests.
//
// # Caveats
//
// Every instant this package returns has whole seconds: fractions of seconds in input are dropped and
// the current instant is truncated. Results must lie in years 0001..9999 both in the interpretation zone
// and in UTC, because both are written as DB datetimes; a wall clock near those limits can therefore be
// valid in one zone and out of range in another. The package embeds the IANA database (time/tzdata) so
// that zones work on hosts without zoneinfo files; a host's own files, when present, take precedence.
package datetime

import (
	"fmt"
	"time"

	// The service runs on small VMs and containers that may have no /usr/share/zoneinfo.
	_ "time/tzdata"
)

// DB is the layout of a "DB datetime": YYYY-MM-DD HH:MM:SS.
const DB = "2006-01-02 15:04:05"

// Wall is a civil (wall-clock) date-time with no zone.
type Wall struct {
	Year           int
	Month          time.Month
	Day, Hour, Min int
	Sec            int
}

// ParseWall parses a DB datetime. It is strict: exactly the DB layout with two-digit fields, a year
// from 0001 to 9999, a day that exists in its month, hours below 24 and minutes and seconds below 60.
func ParseWall(s string) (Wall, error) {
	if len(s) != len(DB) || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return Wall{}, fmt.Errorf("datetime: %q is not a YYYY-MM-DD HH:MM:SS datetime", s)
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	h, ok4 := digits(s[11:13])
	mi, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return Wall{}, fmt.Errorf("datetime: %q is not a YYYY-MM-DD HH:MM:SS datetime", s)
	}
	if y < 1 || !validDate(y, mo, d) || !validClock(h, mi, sec) {
		return Wall{}, fmt.Errorf("datetime: %q is not a valid date and time", s)
	}
	return Wall{Year: y, Month: time.Month(mo), Day: d, Hour: h, Min: mi, Sec: sec}, nil
}

// String formats w in the DB layout.
func (w Wall) String() string {
	return fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", w.Year, int(w.Month), w.Day, w.Hour, w.Min, w.Sec)
}

// WallOf returns the wall clock of t in t's own location, dropping fractions of a second.
func WallOf(t time.Time) Wall {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return Wall{Year: y, Month: mo, Day: d, Hour: h, Min: mi, Sec: s}
}

// In returns the instant at which the clocks of loc show w, following docs/API.md "Event fields". A wall clock
// that loc skips (a DST gap) moves forward by the length of the gap: 02:30 on a night that jumps from
// 02:00 to 03:00 becomes 03:30. A wall clock that loc shows twice (a DST overlap) takes the earlier
// instant. Out-of-range fields are normalised as time.Date does. In panics if loc is nil.
func (w Wall) In(loc *time.Location) time.Time {
	if loc == nil {
		panic("datetime: Wall.In with nil location")
	}
	// time.Date documents its choice in gaps and overlaps as unspecified, so the instant is computed
	// here: local is w read as if it were UTC, and an instant t shows w when t + offset(t) == local.
	// Time.ZoneBounds would give the periods directly, but it reports wrong bounds on the last day of
	// leap years served by a zone's TZ footer rule (golang/go#81583), so only offsets are looked up.
	local := time.Date(w.Year, w.Month, w.Day, w.Hour, w.Min, w.Sec, 0, time.UTC).Unix()
	offsetAt := func(unix int64) int64 {
		_, off := time.Unix(unix, 0).In(loc).Zone()
		return int64(off)
	}

	// Every UTC offset in the tz database is below a day in magnitude, so the offsets one day either
	// side of local are those in force before and after any transition near it. Following
	// o → offsetAt(local-o) from them reaches the offsets of shorter periods in between as well.
	const day = 24 * 60 * 60
	offsets := []int64{offsetAt(local - day), offsetAt(local), offsetAt(local + day)}
	next := make(map[int64]int64, 4)
	// Few distinct offsets are in force around one date; the bound only guards against odd zone data.
	for i := 0; i < len(offsets) && i < 16; i++ {
		o := offsets[i]
		if _, seen := next[o]; seen {
			continue
		}
		next[o] = offsetAt(local - o)
		offsets = append(offsets, next[o])
	}

	// local - o is a valid reading when o is in force then; in an overlap there are two, and the
	// larger offset gives the earlier instant.
	var (
		best, gap    int64
		found, inGap bool
	)
	for o, p := range next {
		switch {
		case p == o:
			if !found || o > best {
				best, found = o, true
			}
		case p > o && reads(next, p, o):
			// Neither reading holds, but each offset points at the other: local lies in the wall
			// clocks skipped by a jump from o to p. Reading w with o, the offset before the jump,
			// moves it forward by exactly the gap p-o.
			if !inGap || o > gap {
				gap, inGap = o, true
			}
		}
	}
	switch {
	case found:
		return time.Unix(local-best, 0).In(loc)
	case inGap:
		return time.Unix(local-gap, 0).In(loc)
	}
	// Unreachable with consistent zone data; fall back to the standard library's choice.
	return time.Date(w.Year, w.Month, w.Day, w.Hour, w.Min, w.Sec, 0, loc)
}

// reads reports whether next maps o to want.
func reads(next map[int64]int64, o, want int64) bool {
	got, ok := next[o]
	return ok && got == want
}

// digits parses s, which must be made of ASCII digits only (no sign, no blanks).
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func validDate(y, mo, d int) bool {
	if mo < 1 || mo > 12 || d < 1 {
		return false
	}
	// Day 0 of the next month is the last day of this one.
	last := time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return d <= last
}

func validClock(h, mi, s int) bool {
	return h >= 0 && h < 24 && mi >= 0 && mi < 60 && s >= 0 && s < 60
}
