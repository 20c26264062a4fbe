package ical

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

// timeForm is the form of a DATE or DATE-TIME value (RFC 5545 sections 3.3.4 and 3.3.5).
type timeForm int

const (
	formDate  timeForm = iota // 20261229
	formLocal                 // 20261229T190000: floating, or local to a TZID
	formUTC                   // 20261229T180000Z
)

// parseTimeValue parses a DATE or DATE-TIME value. valueParam is the VALUE parameter: "DATE" demands
// a date; "" accepts a bare date too, as several writers leave VALUE=DATE out.
func parseTimeValue(s, valueParam string) (datetime.Wall, timeForm, error) {
	var w datetime.Wall
	bad := func() (datetime.Wall, timeForm, error) {
		return datetime.Wall{}, 0, fmt.Errorf("%w: %.40q is not a DATE or DATE-TIME", ErrSyntax, s)
	}
	switch valueParam {
	case "", "DATE", "DATE-TIME":
	default:
		return datetime.Wall{}, 0, fmt.Errorf("%w: VALUE=%.20s where a date or date-time belongs", ErrSyntax, valueParam)
	}
	if len(s) < 8 {
		return bad()
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[4:6])
	d, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 || y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(time.Month(mo), y) {
		return bad()
	}
	w.Year, w.Month, w.Day = y, time.Month(mo), d
	if len(s) == 8 {
		if valueParam == "DATE-TIME" {
			return bad()
		}
		return w, formDate, nil
	}
	if valueParam == "DATE" || (len(s) != 15 && len(s) != 16) || s[8] != 'T' {
		return bad()
	}
	h, ok1 := digits(s[9:11])
	mi, ok2 := digits(s[11:13])
	sec, ok3 := digits(s[13:15])
	// A second of 60 is a leap second (RFC 5545 section 3.3.12); Go's times have none, so it reads
	// as the next minute's first second.
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 60 {
		return bad()
	}
	w.Hour, w.Min, w.Sec = h, mi, sec
	if len(s) == 16 {
		if s[15] != 'Z' {
			return bad()
		}
		return w, formUTC, nil
	}
	return w, formLocal, nil
}

// digits parses a string of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}

// daysIn returns the number of days of month m in year y.
func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// wallTime returns the wall clock w as a time in Floating, the location of dates and floating times.
func wallTime(w datetime.Wall) time.Time {
	return time.Date(w.Year, w.Month, w.Day, w.Hour, w.Min, w.Sec, 0, Floating)
}

// Layouts of the values written; dates and local times are formatted in the time's own location.
const (
	layoutDate  = "20060102"
	layoutLocal = "20060102T150405"
	layoutUTC   = "20060102T150405Z"
)

// appendWall appends the wall clock w in the DATE-TIME form without zone.
func appendWall(b []byte, w datetime.Wall) []byte {
	return time.Date(w.Year, w.Month, w.Day, w.Hour, w.Min, w.Sec, 0, time.UTC).AppendFormat(b, layoutLocal)
}

// inRange reports whether t's year is one that a DATE or DATE-TIME can hold, both in t's location
// and in UTC.
func inRange(t time.Time) bool {
	y, u := t.Year(), t.UTC().Year()
	return y >= 1 && y <= 9999 && u >= 1 && u <= 9999
}

// duration is a DURATION value (RFC 5545 section 3.3.6): weeks and days are nominal (a day is
// the same wall clock on the next date, 23 or 25 hours across a DST change), the rest exact.
type duration struct {
	days    int
	seconds int64
}

// Bounds of a DURATION: longer than any event, short enough that no sum overflows (a
// time.Duration holds 292 years).
const (
	maxDurationDays    = 10000 * 366
	maxDurationSeconds = 100 * 366 * day
)

// parseDuration parses a positive DURATION ("P1D", "PT1H30M", "P2W"); a negative one is an error
// here because DTEND may not precede DTSTART.
func parseDuration(s string) (duration, error) {
	bad := fmt.Errorf("%w: %.40q is not a positive DURATION", ErrSyntax, s)
	s = strings.TrimPrefix(s, "+")
	if !strings.HasPrefix(s, "P") || len(s) < 3 {
		return duration{}, bad
	}
	s = s[1:]
	var d duration
	inTime := false
	seen := ""
	for s != "" {
		if s[0] == 'T' {
			if inTime {
				return duration{}, bad
			}
			inTime = true
			s = s[1:]
			if s == "" {
				return duration{}, bad
			}
			continue
		}
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		// Nine digits keep every sum and product far from overflow; the totals are checked after.
		if i == 0 || i > 9 || i == len(s) {
			return duration{}, bad
		}
		n, _ := strconv.Atoi(s[:i])
		unit := s[i]
		s = s[i+1:]
		if strings.IndexByte(seen, unit) >= 0 {
			return duration{}, bad
		}
		seen += string(unit)
		switch {
		case !inTime && unit == 'W':
			d.days += 7 * n
		case !inTime && unit == 'D':
			d.days += n
		case inTime && unit == 'H':
			d.seconds += int64(n) * 3600
		case inTime && unit == 'M':
			d.seconds += int64(n) * 60
		case inTime && unit == 'S':
			d.seconds += int64(n)
		default:
			return duration{}, bad
		}
	}
	if d.days > maxDurationDays || d.seconds > maxDurationSeconds {
		return duration{}, bad
	}
	return d, nil
}

// after returns t plus d, adding days to the wall clock of t in its location.
func (d duration) after(t time.Time) time.Time {
	if d.days != 0 {
		w := datetime.WallOf(t)
		w.Day += d.days
		t = w.In(t.Location())
	}
	return t.Add(time.Duration(d.seconds) * time.Second)
}

// parseOffset parses a UTC-OFFSET value ("+0100", "-0330", "+053000") into seconds east of UTC.
func parseOffset(s string) (int, error) {
	bad := fmt.Errorf("%w: %.20q is not a UTC offset", ErrSyntax, s)
	if (len(s) != 5 && len(s) != 7) || (s[0] != '+' && s[0] != '-') {
		return 0, bad
	}
	h, ok1 := digits(s[1:3])
	m, ok2 := digits(s[3:5])
	sec, ok3 := 0, true
	if len(s) == 7 {
		sec, ok3 = digits(s[5:7])
	}
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 59 {
		return 0, bad
	}
	off := h*3600 + m*60 + sec
	if s[0] == '-' {
		off = -off
	}
	return off, nil
}

// appendOffset appends a UTC-OFFSET, with seconds only when there are some (local mean times).
func appendOffset(b []byte, off int) []byte {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	b = append(b, sign)
	b = appendTwo(b, off/3600)
	b = appendTwo(b, off/60%60)
	if off%60 != 0 {
		b = appendTwo(b, off%60)
	}
	return b
}

func appendTwo(b []byte, n int) []byte {
	return append(b, byte('0'+n/10%10), byte('0'+n%10))
}

// parseGeo parses GEO's "lat;lng". A comma is accepted in place of the semicolon, as some writers
// use one.
func parseGeo(s string) (*Geo, error) {
	lat, lng, ok := strings.Cut(s, ";")
	if !ok {
		lat, lng, ok = strings.Cut(s, ",")
	}
	if ok {
		la, err1 := strconv.ParseFloat(strings.TrimSpace(lat), 64)
		ln, err2 := strconv.ParseFloat(strings.TrimSpace(lng), 64)
		if g := (Geo{Lat: la, Lng: ln}); err1 == nil && err2 == nil && g.valid() {
			return &g, nil
		}
	}
	return nil, fmt.Errorf("%w: %.40q is not a GEO latitude;longitude", ErrSyntax, s)
}

func (g Geo) valid() bool {
	return !math.IsNaN(g.Lat) && !math.IsNaN(g.Lng) && math.Abs(g.Lat) <= 90 && math.Abs(g.Lng) <= 180
}

// appendGeo appends GEO's value with the shortest decimals that read back as the same floats.
func appendGeo(b []byte, g Geo) []byte {
	b = strconv.AppendFloat(b, g.Lat, 'f', -1, 64)
	b = append(b, ';')
	return strconv.AppendFloat(b, g.Lng, 'f', -1, 64)
}
