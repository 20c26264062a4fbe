package storage

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teambition/rrule-go"

	"github.com/calendard/calendard/storage/ical"
)

// MaxOccurrences bounds a series inside its window (SeriesWindow): a daily rule over the default four
// years is 1,461 days, and nothing a calendar needs goes beyond.
const MaxOccurrences = 1500

// dayLayout names an occurrence by its local date: in slugs and in the parent's exclusions.
const dayLayout = "2006-01-02"

// rule is a series' recurrence (RFC 5545 3.8.5), read in the event's zone: the RRULE expanded by
// teambition/rrule-go, the RDATEs added and the EXDATEs taken out. An occurrence is named by its local
// date, so a series has at most one per day: that is what lets an exclusion or an edited occurrence
// keep naming its day when the parent's time of day changes.
type rule struct {
	rrule  *rrule.RRule
	line   string // the RRULE as sent, for the errors of its expansion
	rdates []time.Time
	exdays map[string]bool
}

// recurrenceLine is one line of a recurrence list: its name, its parameters (upper-case names) and
// its value.
type recurrenceLine struct {
	name   string
	params []string
	value  string
}

// parseLine splits a content line (RFC 5545 3.1) of a recurrence list. Parameter values never hold a
// colon in what this field accepts (TZID, VALUE), so the first colon ends the parameters.
func parseLine(s string) (recurrenceLine, error) {
	if strings.ContainsAny(s, "\r\n") {
		return recurrenceLine{}, fmt.Errorf("one line per item")
	}
	head, value, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || value == "" {
		return recurrenceLine{}, fmt.Errorf("not a content line NAME:VALUE")
	}
	parts := strings.Split(head, ";")
	l := recurrenceLine{name: strings.ToUpper(parts[0]), value: value}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return recurrenceLine{}, fmt.Errorf("parameter %s has no value", quoteShort(p))
		}
		k = strings.ToUpper(k)
		if k == "VALUE" {
			v = strings.ToUpper(v)
		}
		l.params = append(l.params, k+"="+v)
	}
	return l, nil
}

func (l recurrenceLine) String() string {
	return strings.Join(append([]string{l.name}, l.params...), ";") + ":" + l.value
}

// parseRule reads a recurrence list for a series starting at start (in the event's zone, whose
// location reads the floating times). Each failure is a *FieldError of `recurrence` quoting the line.
func parseRule(lines []string, start time.Time) (*rule, error) {
	r := &rule{exdays: map[string]bool{}}
	loc := start.Location()
	for _, s := range lines {
		fail := func(format string, args ...any) error {
			return invalid("recurrence", "%s: %s", quoteShort(s), fmt.Sprintf(format, args...))
		}
		l, err := parseLine(s)
		if err != nil {
			return nil, fail("%v", err)
		}
		switch l.name {
		case "RRULE":
			if r.line != "" {
				return nil, fail("a series has one RRULE")
			}
			if len(l.params) > 0 {
				return nil, fail("RRULE takes no parameters")
			}
			opt, err := rrule.StrToROptionInLocation(strings.ToUpper(l.value), loc)
			if err != nil {
				return nil, fail("%s", inWords(err))
			}
			if opt.Freq > rrule.DAILY {
				return nil, fail("frequencies below a day are not supported")
			}
			if opt.Count > 0 && !opt.Until.IsZero() {
				return nil, fail("COUNT and UNTIL exclude each other")
			}
			until := opt.Until.In(loc).Format("2006-01-02 15:04 MST")
			if len(untilOf(l.value)) == len(dateValue) {
				// A DATE UNTIL takes in the whole day it names, as calendar apps read it beside a
				// start at a time of day (which the API refuses, checkUntil, but exports hold).
				u := opt.Until.In(loc)
				opt.Until = time.Date(u.Year(), u.Month(), u.Day(), 23, 59, 59, 0, loc)
				until = u.Format(dayLayout)
			}
			if !opt.Until.IsZero() && opt.Until.Before(start) {
				// The series would be its parent alone, which a calendar app expanding the rule would
				// not show at all.
				return nil, fail("UNTIL %s is before the series' start", until)
			}
			opt.Dtstart = start
			r.line = s
			own, err := ical.RFCCount(opt) // the series' start counts among COUNT's instances
			if err != nil {
				return nil, fail("%s", inWords(err))
			}
			if !own {
				continue // the start alone
			}
			if r.rrule, err = rrule.NewRRule(*opt); err != nil {
				return nil, fail("%s", inWords(err))
			}
		case "RDATE", "EXDATE":
			if slices.ContainsFunc(l.params, func(p string) bool { return p == "VALUE=PERIOD" }) {
				return nil, fail("periods are not supported")
			}
			ts, err := rrule.StrToDatesInLoc(strings.Join(l.params, ";")+":"+l.value, loc)
			if len(l.params) == 0 {
				ts, err = rrule.StrToDatesInLoc(l.value, loc)
			}
			if err != nil {
				return nil, fail("%s", inWords(err))
			}
			values := strings.Split(l.value, ",")
			for i, t := range ts {
				if l.name == "RDATE" {
					r.rdates = append(r.rdates, wallIn(t, start, len(values[i]) == len(dateValue)))
				} else {
					r.exdays[t.In(loc).Format(dayLayout)] = true
				}
			}
		default:
			return nil, fail("only RRULE, RDATE and EXDATE lines are accepted")
		}
	}
	return r, nil
}

// untilOf returns the UNTIL value of an RRULE's value, "" when it has none.
func untilOf(rule string) string {
	for part := range strings.SplitSeq(rule, ";") {
		if name, value, _ := strings.Cut(part, "="); strings.EqualFold(name, "UNTIL") {
			return value
		}
	}
	return ""
}

// checkUntil refuses an RRULE whose UNTIL is not of DTSTART's value type (RFC 5545 3.3.10): a date
// for an all-day series, a date-time otherwise. The store reads either (parseRule), as exports hold
// both; a client of the API is told, as apps differ on what the other type means. Lines that do not
// read are left to parseRule.
func checkUntil(lines []string, allDay bool) error {
	for _, s := range lines {
		l, err := parseLine(s)
		if err != nil || l.name != "RRULE" {
			continue
		}
		switch until := untilOf(l.value); {
		case until == "":
		case len(until) == len(dateValue) && !allDay:
			return invalid("recurrence", "%s: UNTIL is a date and the series starts at a time: give a date-time, such as %sT235959Z",
				quoteShort(s), until)
		case len(until) != len(dateValue) && allDay:
			return invalid("recurrence", "%s: UNTIL is a date-time and the series is all-day: give a date, such as %.8s",
				quoteShort(s), until)
		}
	}
	return nil
}

// quoteShort quotes a value a client sent (a line of a recurrence list, a term's name), or its first
// quotedRunes characters: an error message says which value is wrong, and need not repeat a long one
// whole.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) <= quotedRunes {
		return strconv.Quote(s)
	}
	r := []rune(s)
	return strconv.Quote(string(r[:quotedRunes])) + "…"
}

const quotedRunes = 60

// inWords says what the rule library found wrong, without the Go internals some of its errors carry
// (a time.Parse or strconv message quoting the input), and at most quotedRunes of its own text.
func inWords(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "parsing time") || strings.Contains(msg, "strToTime"):
		return "a date must read 20261013, 20261013T190000 or 20261013T170000Z"
	case strings.Contains(msg, "strconv."):
		return "a number cannot be read"
	case utf8.RuneCountInString(msg) > quotedRunes:
		return string([]rune(msg)[:quotedRunes]) + "…"
	}
	return msg
}

// dateValue is the layout of a DATE value (RFC 5545 3.3.4).
const dateValue = "20060102"

// wallIn places a value of an RDATE in start's zone: a DATE is that day at start's time of day, as the
// first occurrence's; a date-time, in UTC or in another zone, is the instant it names, midnight
// included.
func wallIn(t, start time.Time, date bool) time.Time {
	if date {
		return time.Date(t.Year(), t.Month(), t.Day(), start.Hour(), start.Minute(), start.Second(), 0, start.Location())
	}
	return t.In(start.Location())
}

// occurrences lists the series' starts within [from, to], in order, leaving out start itself (the
// parent) and the excluded days. More than MaxOccurrences, or two on one day, is a *FieldError.
func (r *rule) occurrences(start, from, to time.Time) ([]time.Time, error) {
	var all []time.Time
	if r.rrule != nil {
		// UNTIL bounds the expansion: a rule that matches nothing (31 February) would otherwise be
		// searched for up to year 9999.
		rr := *r.rrule
		if u := rr.GetUntil(); u.IsZero() || u.After(to) {
			rr.Until(to)
		}
		next := rr.Iterator()
		for t, ok := next(); ok && !t.After(to); t, ok = next() {
			if !t.Before(from) {
				all = append(all, t)
			}
			if len(all) > MaxOccurrences+len(r.exdays)+1 {
				break
			}
		}
	}
	for _, t := range r.rdates {
		if !t.Before(from) && !t.After(to) {
			all = append(all, t)
		}
	}
	slices.SortFunc(all, func(a, b time.Time) int { return a.Compare(b) })
	all = slices.CompactFunc(all, time.Time.Equal)
	out := all[:0]
	startDay := start.Format(dayLayout)
	for i, t := range all {
		day := t.Format(dayLayout)
		if i > 0 && all[i-1].Format(dayLayout) == day {
			return nil, invalid("recurrence", "%s: two occurrences on %s: a series has at most one a day", quoteShort(r.line), day)
		}
		if day != startDay && !r.exdays[day] {
			out = append(out, t)
		}
	}
	if len(out)+1 > MaxOccurrences {
		return nil, invalid("recurrence", "%s: more than %d occurrences between %s and %s", quoteShort(r.line), MaxOccurrences,
			from.Format(dayLayout), to.Format(dayLayout))
	}
	return out, nil
}
