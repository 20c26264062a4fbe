package ical

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/calendard/calendard/storage/datetime"
)

// Cut ends the series ev at until (inclusive) and returns the instances of the series so cut, as an
// RFC 5545 expander computes them (section 3.8.5): DTSTART, the RRULE's instances up to until and
// every RDATE, less the EXDATEs, in order. An EXDATE removes the instance at its exact time; a
// date-time reads in its TZID, in DTSTART's location when floating, and a date is midnight there.
//
// ev.Recurrence gets a new RRULE line ending at until (an UNTIL in place of its COUNT or later
// UNTIL), unless the rule has no instance after until anyway; its other lines stay as they are.
// When the series so cut has more than limit instances, Cut returns ok false and leaves ev as it was:
// it never expands more than limit instances of the rule. It returns an error wrapping ErrSyntax for
// a line it cannot read.
func (ev *Event) Cut(until time.Time, limit int) (starts []time.Time, ok bool, err error) {
	loc := ev.Start.Location()
	set := &rrule.Set{}
	set.RDate(ev.Start)
	lines := slices.Clone(ev.Recurrence)
	for i, line := range ev.Recurrence {
		prop, err := parseProperty(line)
		if err != nil {
			return nil, false, err
		}
		switch prop.name {
		case "RRULE":
			opt, err := rrule.StrToROptionInLocation(prop.value, loc)
			if err != nil {
				return nil, false, fmt.Errorf("%w: RRULE %.60q: %v", ErrSyntax, prop.value, err)
			}
			opt.Dtstart = ev.Start
			if own, err := RFCCount(opt); err != nil || !own {
				if err != nil {
					return nil, false, fmt.Errorf("%w: RRULE: %v", ErrSyntax, err)
				}
				continue
			}
			span, err := ruleInstances(set, *opt, until, limit)
			if err != nil || span.n > limit {
				return nil, false, err
			}
			if span.goesOn {
				lines[i] = "RRULE:" + withUntil(prop.value, until, ev.AllDay)
			}
		case "RDATE", "EXDATE":
			add := set.RDate
			if prop.name == "EXDATE" {
				add = set.ExDate
			}
			err := forEachTime(&prop, func(w datetime.Wall, form timeForm) {
				add(valueTime(w, form, prop.param("TZID"), loc))
			})
			if err != nil {
				return nil, false, err
			}
		}
	}
	starts = set.All()
	if len(starts) > limit {
		return nil, false, nil
	}
	ev.Recurrence = lines
	return starts, true, nil
}

// RFCCount makes opt's COUNT count as RFC 5545 does (section 3.8.5.3): DTSTART is the first instance
// even when the rule does not give it, where rrule-go counts only the rule's own instances. It
// reports whether the rule keeps an instance of its own (not so for COUNT=1 beside such a DTSTART).
func RFCCount(opt *rrule.ROption) (bool, error) {
	if opt.Count == 0 {
		return true, nil
	}
	r, err := rrule.NewRRule(*opt)
	if err != nil {
		return false, err
	}
	if !r.After(opt.Dtstart, true).Equal(opt.Dtstart) {
		opt.Count--
	}
	return opt.Count > 0, nil
}

// ruleSpan is what ruleInstances learns of a rule.
type ruleSpan struct {
	n int // how many instances it has up to until (at most limit+1 are counted)
	// goesOn: it may have instances after until: it has no end, or its COUNT is not used up, or it
	// has one within a year after until and before its UNTIL, or its UNTIL is later than that year (a
	// rule that matches rarely is not searched further).
	goesOn bool
}

// ruleInstances adds to set the instances of the rule opt up to until, at most limit+1 of them.
func ruleInstances(set *rrule.Set, opt rrule.ROption, until time.Time, limit int) (ruleSpan, error) {
	cut := opt
	if cut.Until.IsZero() || cut.Until.After(until) {
		cut.Until = until
	}
	r, err := rrule.NewRRule(cut)
	if err != nil {
		return ruleSpan{}, fmt.Errorf("%w: RRULE: %v", ErrSyntax, err)
	}
	var span ruleSpan
	next := r.Iterator()
	for t, ok := next(); ok && span.n <= limit; t, ok = next() {
		set.RDate(t)
		span.n++
	}
	switch {
	case opt.Count > 0:
		span.goesOn = span.n < opt.Count
		return span, nil
	case opt.Until.IsZero():
		span.goesOn = true
		return span, nil
	case !opt.Until.After(until):
		return span, nil
	}
	ahead := opt
	ahead.Until = until.AddDate(1, 0, 0)
	if ahead.Until.Before(opt.Until) {
		span.goesOn = true
		return span, nil
	}
	ahead.Until = opt.Until
	if r, err = rrule.NewRRule(ahead); err != nil {
		return ruleSpan{}, fmt.Errorf("%w: RRULE: %v", ErrSyntax, err)
	}
	span.goesOn = !r.After(until, false).IsZero()
	return span, nil
}

// withUntil is the RECUR value v ending at until: COUNT and UNTIL dropped, UNTIL=until added, a date
// for an all-day series and a UTC date-time otherwise, as RFC 5545 section 3.3.10 wants it for a
// DTSTART that is a date or has a zone.
func withUntil(v string, until time.Time, allDay bool) string {
	var parts []string
	for part := range strings.SplitSeq(v, ";") {
		name, _, _ := strings.Cut(strings.ToUpper(part), "=")
		if name != "COUNT" && name != "UNTIL" {
			parts = append(parts, part)
		}
	}
	if allDay {
		return strings.Join(append(parts, until.Format("UNTIL="+layoutDate)), ";")
	}
	return strings.Join(append(parts, until.UTC().Format("UNTIL="+layoutUTC)), ";")
}

// valueTime is the instant of an RDATE or EXDATE value w of the given form, read for a series whose
// DTSTART is in loc; tzid is the value's TZID parameter. A TZID that names no zone reads as loc.
func valueTime(w datetime.Wall, form timeForm, tzid string, loc *time.Location) time.Time {
	switch form {
	case formUTC:
		return w.In(time.UTC)
	case formDate:
		return time.Date(w.Year, w.Month, w.Day, 0, 0, 0, 0, loc)
	}
	if tzid != "" {
		if zone, err := datetime.ParseZone(tzid); err == nil {
			return w.In(zone.Loc)
		}
	}
	return w.In(loc)
}

// Exclude adds an EXDATE line to ev's recurrence for the instances at ts, in the form of its DTSTART.
func (ev *Event) Exclude(ts ...time.Time) {
	if len(ts) == 0 {
		return
	}
	loc := ev.Start.Location()
	b := appendTimeProperty([]byte("EXDATE"), ts[0].In(loc), ev.AllDay)
	for _, t := range ts[1:] {
		b = appendTimeValue(append(b, ','), t.In(loc), ev.AllDay)
	}
	ev.Recurrence = append(slices.Clip(ev.Recurrence), string(b))
}
