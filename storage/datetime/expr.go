package datetime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// asciiSpace is the blank set of the contract: PCRE's \s, which the reference uses, is ASCII only.
const asciiSpace = " \t\n\v\f\r"

// Expr is a parsed Appendix A date-time expression, evaluated later in an interpretation zone.
// The zero Expr is not valid: Eval rejects it.
type Expr struct {
	valid bool

	// A Unix timestamp stands alone. unix saturates beyond ±2^62; Eval rejects it then.
	isUnix bool
	unix   int64

	base         base
	year, day    int // base == baseDate
	month        time.Month
	weekday      time.Weekday // base == baseWeekday
	weekdayShift shift

	hasTime        bool
	hour, min, sec int

	// zoned is set by a datetime with a zone designator; zoneOff is in seconds east of UTC.
	zoned   bool
	zoneOff int

	offsets []offset
}

type base uint8

const (
	baseNone base = iota
	baseDate
	baseNow
	baseToday
	baseTomorrow
	baseYesterday
	baseWeekday
)

var days = map[string]base{"now": baseNow, "today": baseToday, "tomorrow": baseTomorrow, "yesterday": baseYesterday}

// shift is the qualifier of a weekday: none and "this" mean the same thing.
type shift uint8

const (
	shiftThis shift = iota
	shiftNext
	shiftLast
)

var shifts = map[string]shift{"this": shiftThis, "next": shiftNext, "last": shiftLast}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

type unit uint8

const (
	unitSecond unit = iota
	unitMinute
	unitHour
	unitDay
	unitWeek
	unitMonth
	unitYear
)

var units = map[string]unit{
	"sec": unitSecond, "secs": unitSecond, "second": unitSecond, "seconds": unitSecond,
	"min": unitMinute, "mins": unitMinute, "minute": unitMinute, "minutes": unitMinute,
	"hour": unitHour, "hours": unitHour,
	"day": unitDay, "days": unitDay,
	"week": unitWeek, "weeks": unitWeek,
	"month": unitMonth, "months": unitMonth,
	"year": unitYear, "years": unitYear,
}

// unitSeconds is the fixed length of the units that are durations on the wall clock.
var unitSeconds = [...]int64{unitSecond: 1, unitMinute: 60, unitHour: 3600, unitDay: 86400, unitWeek: 7 * 86400}

// offset is one "±N unit" term. n saturates beyond ±2^62, which Eval rejects as out of range.
type offset struct {
	n    int64
	unit unit
}

// Bounds of the results. Both the wall clock in the interpretation zone and the UTC instant must fall
// in them because the store writes both as DB datetimes.
const (
	minYear = 1
	maxYear = 9999
	// minUnix and maxUnix are 0001-01-01 00:00:00 and 9999-12-31 23:59:59 UTC.
	minUnix = -62135596800
	maxUnix = 253402300799
	// maxSpan exceeds the distance between any two instants in range, so a larger offset can only
	// leave the range; checking it first keeps the arithmetic below from overflowing.
	maxSpan = (maxYear - minYear + 1) * 366 * 86400
	// saturated stands for any N or timestamp too large to matter.
	saturated = 1 << 62
)

var errRange = errors.New("datetime: date out of range (years 0001 to 9999)")

// Parse checks the syntax of an Appendix A expression; Eval gives it a meaning. The input is trimmed
// and matched case-insensitively (ASCII letters only). A string of digits with an optional leading "-"
// is a Unix timestamp in seconds; callers pass JSON integers as their decimal text.
//
// Beyond the appendix's grammar: the sign of an offset is glued to its number, and the number may be
// glued to its unit ("+5days", "-1week") or separated from it by blanks ("+5 days"); "+ 5 days" is
// invalid. A date followed by a blank and a two-digit 24-hour clock ("2018-01-01 16:00") is read as one
// datetime token unless the next token is "am" or "pm". A datetime with a zone designator stands for an
// instant, so no offset may appear anywhere in the same expression. Values that are syntactically
// valid but out of range (year 0000, huge offsets or timestamps) are reported by Eval, not by Parse.
func Parse(s string) (Expr, error) {
	in := lowerASCII(strings.Trim(s, asciiSpace))
	if in == "" {
		return Expr{}, fmt.Errorf("datetime: empty date-time expression")
	}
	if n, ok := parseTimestamp(in); ok {
		return Expr{valid: true, isUnix: true, unix: n}, nil
	}
	p := parser{toks: strings.FieldsFunc(in, isASCIISpace)}
	if err := p.parse(); err != nil {
		return Expr{}, fmt.Errorf("datetime: invalid date-time expression %q: %w", s, err)
	}
	p.e.valid = true
	return p.e, nil
}

// Eval evaluates e in loc at the current instant now (Appendix A rules 1-4) and returns the instant,
// expressed in loc. Zone-less absolute values and relative expressions are wall clocks in loc resolved
// with Wall.In; a datetime with a zone designator or a timestamp is an instant converted to loc. The
// bare expression "now" is the current instant itself (truncated to the second) even when its wall
// clock repeats in a DST overlap.
//
// Offsets apply in the order written, on the wall clock: months and years calendar-wise with overflow
// (Jan 31 + 1 month is Mar 3 in a non-leap year), other units as fixed durations. Returns an error if the
// base date, any intermediate result or the result falls outside years 0001..9999, in loc or in UTC for
// the result, or if loc is nil or e is the zero Expr.
func (e Expr) Eval(loc *time.Location, now time.Time) (time.Time, error) {
	if !e.valid {
		return time.Time{}, errors.New("datetime: evaluating a zero Expr")
	}
	if loc == nil {
		return time.Time{}, errors.New("datetime: evaluating in a nil location")
	}
	if e.isUnix {
		// time.Unix overflows silently far beyond the range, so check before converting.
		if e.unix < minUnix || e.unix > maxUnix {
			return time.Time{}, errRange
		}
		return inRange(time.Unix(e.unix, 0).In(loc))
	}
	if e.zoned {
		t := time.Date(e.year, e.month, e.day, e.hour, e.min, e.sec, 0, time.UTC)
		return inRange(t.Add(-time.Duration(e.zoneOff) * time.Second).In(loc))
	}

	current := time.Unix(now.Unix(), 0).In(loc)
	if e.base == baseNow && !e.hasTime && len(e.offsets) == 0 {
		// Resolving now's wall clock would pick the earlier instant during an overlap.
		return inRange(current)
	}
	y, mo, d := current.Date()
	h, mi, sec := current.Clock()
	switch e.base {
	case baseDate:
		y, mo, d = e.year, e.month, e.day
	case baseTomorrow:
		d++
	case baseYesterday:
		d--
	case baseWeekday:
		d += weekdayDelta(current.Weekday(), e.weekday, e.weekdayShift)
	}
	switch {
	case e.hasTime:
		h, mi, sec = e.hour, e.min, e.sec
	case e.base != baseNone && e.base != baseNow:
		h, mi, sec = 0, 0, 0
	}
	// The wall clock is kept in UTC, which has no DST, so that arithmetic on it is calendar arithmetic.
	w := time.Date(y, mo, d, h, mi, sec, 0, time.UTC)
	if w.Year() < minYear || w.Year() > maxYear {
		return time.Time{}, errRange
	}
	for _, o := range e.offsets {
		switch o.unit {
		case unitMonth:
			if o.n > maxSpan/(28*86400) || o.n < -maxSpan/(28*86400) {
				return time.Time{}, errRange
			}
			w = w.AddDate(0, int(o.n), 0)
		case unitYear:
			if o.n > maxYear || o.n < -maxYear {
				return time.Time{}, errRange
			}
			w = w.AddDate(int(o.n), 0, 0)
		default:
			secs := unitSeconds[o.unit]
			if o.n > maxSpan/secs || o.n < -maxSpan/secs {
				return time.Time{}, errRange
			}
			w = time.Unix(w.Unix()+o.n*secs, 0).UTC()
		}
		if w.Year() < minYear || w.Year() > maxYear {
			return time.Time{}, errRange
		}
	}
	return inRange(WallOf(w).In(loc))
}

// weekdayDelta is the number of days from today to the weekday wd under Appendix A rule 1.
func weekdayDelta(today, wd time.Weekday, sh shift) int {
	switch sh {
	case shiftNext:
		if d := (int(wd) - int(today) + 7) % 7; d != 0 {
			return d
		}
		return 7
	case shiftLast:
		if d := (int(today) - int(wd) + 7) % 7; d != 0 {
			return -d
		}
		return -7
	}
	return (int(wd) - int(today) + 7) % 7
}

func inRange(t time.Time) (time.Time, error) {
	if y := t.Year(); y < minYear || y > maxYear {
		return time.Time{}, errRange
	}
	if y := t.UTC().Year(); y < minYear || y > maxYear {
		return time.Time{}, errRange
	}
	return t, nil
}

// parser reads the whitespace-separated tokens of an expression into e.
type parser struct {
	toks []string
	i    int
	e    Expr
}

// peek returns the token k places after the current one, or "" past the end.
func (p *parser) peek(k int) string {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return ""
}

func (p *parser) parse() error {
	for p.i < len(p.toks) {
		tok := p.toks[p.i]
		n, err := p.token(tok)
		if err != nil {
			return err
		}
		p.i += n
	}
	if p.e.zoned && len(p.e.offsets) > 0 {
		return errors.New("offsets cannot apply to a datetime with a zone")
	}
	return nil
}

// token parses the expression part starting at tok and returns how many tokens it used.
func (p *parser) token(tok string) (int, error) {
	if b, ok := days[tok]; ok {
		return 1, p.setBase(b)
	}
	if sh, ok := shifts[tok]; ok {
		wd, ok := weekdays[p.peek(1)]
		if !ok {
			return 0, fmt.Errorf("%q must be followed by a weekday", tok)
		}
		p.e.weekday, p.e.weekdayShift = wd, sh
		return 2, p.setBase(baseWeekday)
	}
	if wd, ok := weekdays[tok]; ok {
		p.e.weekday, p.e.weekdayShift = wd, shiftThis
		return 1, p.setBase(baseWeekday)
	}
	switch tok {
	case "noon":
		return 1, p.setTime(12, 0, 0)
	case "midnight":
		return 1, p.setTime(0, 0, 0)
	}
	if isDate(tok) {
		return p.date(tok)
	}
	if strings.Contains(tok, ":") || isMeridiem(p.peek(1)) ||
		strings.HasSuffix(tok, "am") || strings.HasSuffix(tok, "pm") {
		return p.clock(tok)
	}
	if tok[0] == '+' || tok[0] == '-' || isDigit(tok[0]) {
		return p.offset(tok)
	}
	return 0, fmt.Errorf("unknown word %q", tok)
}

func (p *parser) setBase(b base) error {
	if p.e.base != baseNone {
		return errors.New("more than one date")
	}
	p.e.base = b
	return nil
}

func (p *parser) setTime(h, mi, s int) error {
	if p.e.hasTime {
		return errors.New("more than one time of day")
	}
	p.e.hasTime, p.e.hour, p.e.min, p.e.sec = true, h, mi, s
	return nil
}

// date parses a date or a datetime, "T"-separated in tok or blank-separated over two tokens.
func (p *parser) date(tok string) (int, error) {
	y, _ := digits(tok[0:4])
	mo, _ := digits(tok[5:7])
	d, _ := digits(tok[8:10])
	if !validDate(y, mo, d) {
		return 0, fmt.Errorf("no such date %q", tok[:10])
	}
	if err := p.setBase(baseDate); err != nil {
		return 0, err
	}
	p.e.year, p.e.month, p.e.day = y, time.Month(mo), d

	rest, n := tok[10:], 1
	switch {
	case rest == "":
		// "2018-01-01 12:00 pm" is a date and a 12-hour time, not a datetime followed by a stray "pm".
		if _, err := parseDatetimeClock(p.peek(1)); err != nil || isMeridiem(p.peek(2)) {
			return 1, nil
		}
		rest, n = p.peek(1), 2
	case rest[0] == 't':
		rest = rest[1:]
	default:
		return 0, fmt.Errorf("invalid date %q", tok)
	}
	c, err := parseDatetimeClock(rest)
	if err != nil {
		return 0, err
	}
	if err := p.setTime(c.h, c.m, c.s); err != nil {
		return 0, err
	}
	p.e.zoned, p.e.zoneOff = c.zoned, c.off
	return n, nil
}

// clock parses a 24-hour or 12-hour time of day; a 12-hour time may take its "am"/"pm" from the
// next token.
func (p *parser) clock(tok string) (int, error) {
	body, mer, n := tok, "", 1
	switch {
	case strings.HasSuffix(tok, "am") || strings.HasSuffix(tok, "pm"):
		body, mer = tok[:len(tok)-2], tok[len(tok)-2:]
	case isMeridiem(p.peek(1)):
		mer, n = p.peek(1), 2
	}
	h, mi, s, hasMin, hasSec, ok := splitClock(body)
	if !ok {
		return 0, fmt.Errorf("invalid time %q", tok)
	}
	if mer == "" {
		if !hasMin || !validClock(h, mi, s) {
			return 0, fmt.Errorf("invalid time %q", tok)
		}
		return n, p.setTime(h, mi, s)
	}
	if hasSec || h < 1 || h > 12 || mi > 59 {
		return 0, fmt.Errorf("invalid 12-hour time %q", tok)
	}
	h %= 12
	if mer == "pm" {
		h += 12
	}
	return n, p.setTime(h, mi, 0)
}

// offset parses "±N unit", with the unit glued to N or in the next token.
func (p *parser) offset(tok string) (int, error) {
	num, neg := tok, false
	if tok[0] == '+' || tok[0] == '-' {
		num, neg = tok[1:], tok[0] == '-'
	}
	k := 0
	for k < len(num) && isDigit(num[k]) {
		k++
	}
	if k == 0 {
		return 0, fmt.Errorf("invalid offset %q", tok)
	}
	name, n := num[k:], 1
	if name == "" {
		name, n = p.peek(1), 2
	}
	u, ok := units[name]
	if !ok {
		return 0, fmt.Errorf("offset %q needs a unit", tok)
	}
	v := saturatingInt(num[:k])
	if neg {
		v = -v
	}
	p.e.offsets = append(p.e.offsets, offset{n: v, unit: u})
	return n, nil
}

// datetimeClock is the part of a datetime after the date: HH:MM[:SS[.digits]][zone].
type datetimeClock struct {
	h, m, s int
	zoned   bool
	off     int
}

func parseDatetimeClock(s string) (datetimeClock, error) {
	var c datetimeClock
	bad := fmt.Errorf("invalid datetime time %q", s)
	if len(s) < 5 || s[2] != ':' {
		return c, bad
	}
	var ok1, ok2, ok3 bool
	c.h, ok1 = digits(s[0:2])
	c.m, ok2 = digits(s[3:5])
	ok3 = true
	rest := s[5:]
	if len(rest) >= 3 && rest[0] == ':' {
		c.s, ok3 = digits(rest[1:3])
		rest = rest[3:]
		if len(rest) > 0 && rest[0] == '.' {
			// The fraction is dropped: the store keeps whole seconds.
			k := 1
			for k < len(rest) && isDigit(rest[k]) {
				k++
			}
			if k == 1 {
				return c, bad
			}
			rest = rest[k:]
		}
	}
	if !(ok1 && ok2 && ok3) || !validClock(c.h, c.m, c.s) {
		return c, bad
	}
	switch {
	case rest == "":
	case rest == "z":
		c.zoned = true
	case rest[0] == '+' || rest[0] == '-':
		zone := rest[1:]
		if len(zone) == 5 && zone[2] == ':' {
			zone = zone[:2] + zone[3:]
		}
		if len(zone) != 4 {
			return c, bad
		}
		h, okh := digits(zone[:2])
		m, okm := digits(zone[2:])
		if !okh || !okm || h > 23 || m > 59 {
			return c, bad
		}
		c.zoned, c.off = true, h*3600+m*60
		if rest[0] == '-' {
			c.off = -c.off
		}
	default:
		return c, bad
	}
	return c, nil
}

// splitClock splits H[H][:MM[:SS]] into its fields; minutes and seconds take exactly two digits.
func splitClock(s string) (h, mi, sec int, hasMin, hasSec, ok bool) {
	parts := strings.Split(s, ":")
	if len(parts) > 3 || len(parts[0]) < 1 || len(parts[0]) > 2 {
		return 0, 0, 0, false, false, false
	}
	if h, ok = digits(parts[0]); !ok {
		return 0, 0, 0, false, false, false
	}
	for i, part := range parts[1:] {
		v, okv := digits(part)
		if !okv || len(part) != 2 {
			return 0, 0, 0, false, false, false
		}
		if i == 0 {
			mi, hasMin = v, true
		} else {
			sec, hasSec = v, true
		}
	}
	return h, mi, sec, hasMin, hasSec, true
}

// parseTimestamp recognises -?[0-9]+ and saturates values beyond ±2^62.
func parseTimestamp(s string) (int64, bool) {
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
	}
	n := saturatingInt(s)
	if neg {
		n = -n
	}
	return n, true
}

// saturatingInt parses a string of ASCII digits, of any length, capping it at 2^62.
func saturatingInt(s string) int64 {
	s = strings.TrimLeft(s, "0")
	if len(s) > 18 {
		return saturated
	}
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > saturated {
		return saturated
	}
	return n
}

// isDate reports whether tok starts with YYYY-MM-DD.
func isDate(tok string) bool {
	if len(tok) < 10 || tok[4] != '-' || tok[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if !isDigit(tok[i]) {
			return false
		}
	}
	return true
}

func isMeridiem(tok string) bool { return tok == "am" || tok == "pm" }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isASCIISpace(r rune) bool { return strings.ContainsRune(asciiSpace, r) }

// lowerASCII lower-cases ASCII letters only: strings.ToLower would turn "K" (Kelvin) or "İ" into ASCII
// letters and make words such as "FRİDAY" valid.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
