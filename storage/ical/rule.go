package ical

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

// yearlyRule is the subset of RRULE (RFC 5545 section 3.3.10) that time zone observances use: one
// onset a year, in one month, on the day chosen by BYDAY and BYMONTHDAY. Every rule of the tz
// database takes one of three forms: the nth or last weekday of the month ("BYDAY=-1SU"), a
// weekday in a span of seven days ("BYDAY=FR;BYMONTHDAY=23,24,25,26,27,28,29", the Friday before
// the last Sunday), or a fixed date ("BYMONTHDAY=21").
type yearlyRule struct {
	month time.Month
	// weekday applies when byWeekday is set; ordinal is BYDAY's ±1..5, or 0 for every such
	// weekday of the month (which monthDays then narrows to one).
	byWeekday bool
	weekday   time.Weekday
	ordinal   int
	monthDays []int // BYMONTHDAY, ±1..31; nil when absent

	// count is COUNT, 0 when absent; until is UNTIL when hasUntil (untilForm says which form).
	count     int
	hasUntil  bool
	until     datetime.Wall
	untilForm timeForm
}

var weekdayCodes = [7]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}

// day returns the day of the month of the rule's onset in year y, or false when the rule has none
// that year (a fifth Sunday that does not exist). It fails when the rule picks more than one day, a
// rule that is not an observance's.
func (r *yearlyRule) day(y int) (int, bool, error) {
	dim := daysIn(r.month, y)
	if r.byWeekday && r.ordinal != 0 {
		first := time.Date(y, r.month, 1, 0, 0, 0, 0, time.UTC).Weekday()
		d := 1 + (int(r.weekday)-int(first)+7)%7
		if r.ordinal > 0 {
			d += 7 * (r.ordinal - 1)
		} else {
			d += 7*((dim-d)/7) + 7*(r.ordinal+1)
		}
		if d < 1 || d > dim || !r.matchesMonthDay(d, dim) {
			return 0, false, nil
		}
		return d, true, nil
	}
	found := 0
	for d := 1; d <= dim; d++ {
		if !r.matchesMonthDay(d, dim) {
			continue
		}
		if r.byWeekday && time.Date(y, r.month, d, 0, 0, 0, 0, time.UTC).Weekday() != r.weekday {
			continue
		}
		if found != 0 {
			return 0, false, fmt.Errorf("%w: RRULE picks more than one day a year", ErrUnknownZone)
		}
		found = d
	}
	return found, found != 0, nil
}

func (r *yearlyRule) matchesMonthDay(d, dim int) bool {
	if r.monthDays == nil {
		return true
	}
	for _, md := range r.monthDays {
		if md == d || md < 0 && dim+1+md == d {
			return true
		}
	}
	return false
}

// appendRule appends the RRULE value of r (without COUNT or UNTIL, which only decoding reads).
func appendRule(b []byte, r *yearlyRule) []byte {
	b = append(b, "FREQ=YEARLY;BYMONTH="...)
	b = strconv.AppendInt(b, int64(r.month), 10)
	if r.monthDays != nil {
		b = append(b, ";BYMONTHDAY="...)
		for i, d := range r.monthDays {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(d), 10)
		}
	}
	if r.byWeekday {
		b = append(b, ";BYDAY="...)
		if r.ordinal != 0 {
			b = strconv.AppendInt(b, int64(r.ordinal), 10)
		}
		b = append(b, weekdayCodes[r.weekday]...)
	}
	return b
}

// deriveRule returns a rule whose onsets fall exactly on dates, the local dates of one kind of
// transition in consecutive years, trying the forms in the order a reader expects them: nth
// weekday, last weekday, fixed date, weekday within seven days.
func deriveRule(dates []datetime.Wall) (yearlyRule, bool) {
	if len(dates) < 2 {
		return yearlyRule{}, false
	}
	first := dates[0]
	minDay := first.Day
	for i, d := range dates {
		if d.Month != first.Month || d.Year != first.Year+i {
			return yearlyRule{}, false
		}
		minDay = min(minDay, d.Day)
	}
	wd := time.Date(first.Year, first.Month, first.Day, 0, 0, 0, 0, time.UTC).Weekday()
	candidates := []yearlyRule{
		{month: first.Month, byWeekday: true, weekday: wd, ordinal: (first.Day-1)/7 + 1},
		{month: first.Month, byWeekday: true, weekday: wd, ordinal: -1},
		{month: first.Month, monthDays: []int{first.Day}},
	}
	// The window must exist in every year, February 29th included or not.
	if minDay+6 <= daysIn(first.Month, 2001) {
		window := make([]int, 7)
		for i := range window {
			window[i] = minDay + i
		}
		candidates = append(candidates, yearlyRule{month: first.Month, byWeekday: true, weekday: wd, monthDays: window})
	}
	for _, r := range candidates {
		if r.ordinal > 4 {
			continue
		}
		if r.fits(dates) {
			return r, true
		}
	}
	return yearlyRule{}, false
}

// fits reports whether r's onsets in the years of dates are exactly dates.
func (r *yearlyRule) fits(dates []datetime.Wall) bool {
	for _, d := range dates {
		day, ok, err := r.day(d.Year)
		if err != nil || !ok || day != d.Day {
			return false
		}
	}
	return true
}

// Bounds of the RRULE parts decoding accepts; a real observance needs neither bound.
const maxRuleCount = 10000

// parseYearlyRule parses the RRULE of a VTIMEZONE observance whose DTSTART is start. Rules of any
// other shape fail with ErrUnknownZone: the zone cannot be read.
func parseYearlyRule(s string, start datetime.Wall) (yearlyRule, error) {
	unsupported := fmt.Errorf("%w: unsupported observance RRULE %.60q", ErrUnknownZone, s)
	r := yearlyRule{}
	var freq, byMonth, byDay, byMonthDay bool
	for part := range strings.SplitSeq(strings.ToUpper(s), ";") {
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			return r, unsupported
		}
		switch key {
		case "FREQ":
			if val != "YEARLY" {
				return r, unsupported
			}
			freq = true
		case "INTERVAL":
			if val != "1" {
				return r, unsupported
			}
		case "WKST":
			// Irrelevant to rules that pick days within a month.
		case "BYMONTH":
			m, ok := digits(val)
			if !ok || m < 1 || m > 12 || byMonth {
				return r, unsupported
			}
			r.month, byMonth = time.Month(m), true
		case "BYDAY":
			if byDay {
				return r, unsupported
			}
			byDay = true
			ord, code := splitOrdinal(val)
			wd := -1
			for i, c := range weekdayCodes {
				if c == code {
					wd = i
				}
			}
			if wd < 0 || ord < -5 || ord > 5 {
				return r, unsupported
			}
			r.byWeekday, r.weekday, r.ordinal = true, time.Weekday(wd), ord
		case "BYMONTHDAY":
			if byMonthDay {
				return r, unsupported
			}
			byMonthDay = true
			r.monthDays = []int{}
			for v := range strings.SplitSeq(val, ",") {
				d, err := strconv.Atoi(v)
				if err != nil || d == 0 || d < -31 || d > 31 {
					return r, unsupported
				}
				r.monthDays = append(r.monthDays, d)
			}
		case "COUNT":
			n, ok := digits(val)
			if !ok || n < 1 || n > maxRuleCount {
				return r, unsupported
			}
			r.count = n
		case "UNTIL":
			w, form, err := parseTimeValue(val, "")
			if err != nil {
				return r, unsupported
			}
			r.hasUntil, r.until, r.untilForm = true, w, form
		default:
			return r, unsupported
		}
	}
	if !freq {
		return r, unsupported
	}
	if !byMonth {
		r.month = start.Month
	}
	if !byDay && !byMonthDay {
		r.monthDays = []int{start.Day}
	}
	return r, nil
}

// splitOrdinal splits a BYDAY item such as "-1SU" into its ordinal and its weekday code.
func splitOrdinal(s string) (int, string) {
	i := 0
	for i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 {
		return 0, s
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n == 0 {
		return 99, s[i:]
	}
	return n, s[i:]
}
