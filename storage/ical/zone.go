package ical

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

// zoneResolver maps the TZIDs of one file to locations, caching each answer.
type zoneResolver struct {
	defs  map[string]*component // the file's VTIMEZONEs by TZID
	cache map[string]resolved
	// named holds the locations that are zones of the tz database (or UTC, or a "UTC±hh:mm" zone),
	// as opposed to the ones built from the file's own definitions.
	named map[*time.Location]bool
}

type resolved struct {
	loc *time.Location
	err error
}

func newZoneResolver(defs map[string]*component) *zoneResolver {
	return &zoneResolver{defs: defs, cache: map[string]resolved{}, named: map[*time.Location]bool{}}
}

// resolve returns the location a TZID names, trying in order:
//
//  1. the TZID itself as a zone of the tz database, "UTC", or a "UTC±hh:mm" zone (what
//     datetime.ParseZone accepts), which is what Google, Apple and this package write;
//  2. a Windows zone name, as Outlook and Exchange write ("W. Europe Standard Time"), through
//     CLDR's mapping, or a Windows display name, as Outlook Web Access writes
//     ("(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna"), through its zone's name;
//  3. the X-LIC-LOCATION of the file's VTIMEZONE, which Mozilla-based writers add;
//  4. a tz database name at the end of the TZID, as in "/mozilla.org/20050126_1/Europe/Paris";
//  5. the file's VTIMEZONE itself, made into a location named by the TZID.
//
// The tz database comes first even when the file defines the zone: its history is complete, while
// a VTIMEZONE often describes only today's rules (Outlook's start in 1601) and would misplace
// older events.
func (z *zoneResolver) resolve(tzid string) (*time.Location, error) {
	if r, ok := z.cache[tzid]; ok {
		return r.loc, r.err
	}
	loc, named, err := z.lookup(tzid)
	z.cache[tzid] = resolved{loc: loc, err: err}
	if named {
		z.named[loc] = true
	}
	return loc, err
}

// isNamed reports whether loc, returned by resolve, is known outside the file.
func (z *zoneResolver) isNamed(loc *time.Location) bool {
	return z.named[loc]
}

func (z *zoneResolver) lookup(tzid string) (*time.Location, bool, error) {
	if zone, err := datetime.ParseZone(tzid); err == nil {
		return zone.Loc, true, nil
	}
	windows := tzid
	if id, ok := windowsDisplayZone(tzid); ok {
		windows = id
	}
	if iana, ok := windowsZones[windows]; ok {
		if zone, err := datetime.ParseZone(iana); err == nil {
			return zone.Loc, true, nil
		}
	}
	def := z.defs[tzid]
	if def != nil {
		if p := def.first("X-LIC-LOCATION"); p != nil {
			if zone, err := datetime.ParseZone(parseText(p.value)); err == nil && strings.Contains(zone.Name, "/") {
				return zone.Loc, true, nil
			}
		}
	}
	for i := 0; i < len(tzid); i++ {
		if tzid[i] != '/' {
			continue
		}
		// Only a suffix with a slash: "…/Paris" alone could be anything.
		if suffix := tzid[i+1:]; strings.Contains(suffix, "/") {
			if zone, err := datetime.ParseZone(suffix); err == nil {
				return zone.Loc, true, nil
			}
		}
	}
	if def == nil {
		return nil, false, fmt.Errorf("%w: TZID %.60q has no VTIMEZONE and is no known zone name", ErrUnknownZone, tzid)
	}
	loc, err := locationFromVTIMEZONE(tzid, def)
	return loc, false, err
}

// Bounds on building a location from a VTIMEZONE.
const (
	// ruleLastYear is the last year whose onsets an RRULE observance contributes; later instants
	// keep the offset in force then.
	ruleLastYear = 2100
	// maxOnsets bounds the transitions of one location (a VTIMEZONE from 1601 with two rules has
	// about a thousand up to ruleLastYear), and maxRuleYears the years its RRULEs are evaluated
	// for, which a rule that matches no day would otherwise spend for nothing.
	maxOnsets    = 4096
	maxRuleYears = 8192
)

// onset is one instant at which an observance takes effect.
type onset struct {
	at    int64 // Unix seconds
	from  int   // TZOFFSETFROM
	state zoneState
	order int // the observance's position in the VTIMEZONE, which breaks ties
}

// locationFromVTIMEZONE builds a location from a VTIMEZONE: every onset of its STANDARD and
// DAYLIGHT observances (DTSTART, RDATE, and RRULE up to ruleLastYear) becomes a transition of a
// tz database file that time.LoadLocationFromTZData reads. Before the first onset, that onset's
// TZOFFSETFROM holds. Of two onsets at the same instant, the later observance in the file wins.
func locationFromVTIMEZONE(tzid string, c *component) (*time.Location, error) {
	fail := func(err error) (*time.Location, error) {
		return nil, fmt.Errorf("%w: VTIMEZONE %.60q: %w", ErrUnknownZone, tzid, err)
	}
	if c.fault != nil {
		return fail(c.fault)
	}
	var onsets []onset
	budget := &zoneBudget{onsets: maxOnsets, years: maxRuleYears}
	for i, o := range c.children {
		if o.fault != nil {
			return fail(o.fault)
		}
		os, err := observanceOnsets(o, i, budget)
		if err != nil {
			return fail(err)
		}
		onsets = append(onsets, os...)
	}
	if len(onsets) == 0 {
		return fail(fmt.Errorf("%w: no STANDARD or DAYLIGHT", ErrSyntax))
	}
	sort.Slice(onsets, func(a, b int) bool {
		if onsets[a].at != onsets[b].at {
			return onsets[a].at < onsets[b].at
		}
		return onsets[a].order < onsets[b].order
	})
	kept := onsets[:0]
	for i, o := range onsets {
		if i+1 < len(onsets) && onsets[i+1].at == o.at {
			continue
		}
		kept = append(kept, o)
	}
	before := zoneState{offset: kept[0].from}
	for _, o := range kept {
		if !o.state.dst && o.state.offset == before.offset {
			before.name = o.state.name
			break
		}
	}
	data, err := tzif(kept, before)
	if err != nil {
		return fail(err)
	}
	loc, err := time.LoadLocationFromTZData(tzid, data)
	if err != nil {
		return fail(err)
	}
	return loc, nil
}

// zoneBudget is what building one location may still spend.
type zoneBudget struct {
	onsets, years int
}

// observanceOnsets returns the onsets of one STANDARD or DAYLIGHT component, spending budget.
func observanceOnsets(c *component, order int, budget *zoneBudget) ([]onset, error) {
	if c.name != "STANDARD" && c.name != "DAYLIGHT" {
		return nil, nil
	}
	var (
		start    datetime.Wall
		from, to int
		state    = zoneState{dst: c.name == "DAYLIGHT"}
		err      error
	)
	for _, name := range []string{"DTSTART", "TZOFFSETFROM", "TZOFFSETTO"} {
		p := c.first(name)
		if p == nil {
			return nil, fmt.Errorf("%w: %s without %s", ErrSyntax, c.name, name)
		}
		switch name {
		case "DTSTART":
			// A DTSTART in UTC form is wrong here (it is local time), but its digits are meant.
			start, _, err = parseTimeValue(p.value, "DATE-TIME")
		case "TZOFFSETFROM":
			from, err = parseOffset(p.value)
		case "TZOFFSETTO":
			to, err = parseOffset(p.value)
		}
		if err != nil {
			return nil, err
		}
	}
	state.offset = to
	if p := c.first("TZNAME"); p != nil {
		state.name = parseText(p.value)
	}
	var onsets []onset
	add := func(w datetime.Wall) error {
		if budget.onsets--; budget.onsets < 0 {
			return fmt.Errorf("%w: more than %d transitions", ErrLimit, maxOnsets)
		}
		at := time.Date(w.Year, w.Month, w.Day, w.Hour, w.Min, w.Sec, 0, time.UTC).Unix() - int64(from)
		onsets = append(onsets, onset{at: at, from: from, state: state, order: order})
		return nil
	}
	if err := add(start); err != nil {
		return nil, err
	}
	rules := 0
	for i := range c.props {
		p := &c.props[i]
		switch p.name {
		case "RDATE":
			if strings.EqualFold(p.param("VALUE"), "PERIOD") {
				return nil, fmt.Errorf("%w: RDATE;VALUE=PERIOD in an observance", ErrUnknownZone)
			}
			for v := range strings.SplitSeq(p.value, ",") {
				w, _, err := parseTimeValue(v, "DATE-TIME")
				if err != nil {
					return nil, err
				}
				if err := add(w); err != nil {
					return nil, err
				}
			}
		case "RRULE":
			if rules++; rules > 1 {
				return nil, fmt.Errorf("%w: more than one RRULE in an observance", ErrUnknownZone)
			}
			r, err := parseYearlyRule(p.value, start)
			if err != nil {
				return nil, err
			}
			if err := ruleOnsets(&r, start, from, budget, add); err != nil {
				return nil, err
			}
		}
	}
	return onsets, nil
}

// ruleOnsets calls add with each onset of r after start, the observance's first, up to
// ruleLastYear, COUNT and UNTIL. Onsets share start's time of day.
func ruleOnsets(r *yearlyRule, start datetime.Wall, from int, budget *zoneBudget, add func(datetime.Wall) error) error {
	n := 1 // COUNT counts DTSTART (RFC 5545 section 3.3.10)
	for y := start.Year; y <= ruleLastYear; y++ {
		if budget.years--; budget.years < 0 {
			return fmt.Errorf("%w: RRULEs over more than %d years", ErrLimit, maxRuleYears)
		}
		d, ok, err := r.day(y)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		w := start
		w.Year, w.Month, w.Day = y, r.month, d
		if !wallAfter(w, start) {
			continue
		}
		if r.count > 0 && n >= r.count {
			return nil
		}
		if r.hasUntil && untilPassed(r, w, from) {
			return nil
		}
		if err := add(w); err != nil {
			return err
		}
		n++
	}
	return nil
}

func wallAfter(a, b datetime.Wall) bool {
	return wallUnix(a) > wallUnix(b)
}

// wallUnix returns the wall clock w read as UTC, in Unix seconds: a number that orders walls.
func wallUnix(w datetime.Wall) int64 {
	return time.Date(w.Year, w.Month, w.Day, w.Hour, w.Min, w.Sec, 0, time.UTC).Unix()
}

// untilPassed reports whether the onset at wall clock w (in the offset from) is past r's UNTIL.
func untilPassed(r *yearlyRule, w datetime.Wall, from int) bool {
	switch r.untilForm {
	case formUTC:
		return wallUnix(w)-int64(from) > wallUnix(r.until)
	case formDate:
		return wallUnix(datetime.Wall{Year: w.Year, Month: w.Month, Day: w.Day}) > wallUnix(r.until)
	}
	return wallUnix(w) > wallUnix(r.until)
}

// tzif returns a version 2 tz database file (RFC 8536) with the given transitions, in order, and
// with before as the state in force before the first of them.
func tzif(onsets []onset, before zoneState) ([]byte, error) {
	// Type 0 is used by no transition, which tells Go that it holds before the first one
	// (time.Location's lookupFirstZone).
	types := []zoneState{before}
	typeIndex := map[zoneState]int{}
	abbrevs := []byte{}
	abbrevIndex := map[string]int{}
	abbrev := func(name string) int {
		if i, ok := abbrevIndex[name]; ok {
			return i
		}
		abbrevIndex[name] = len(abbrevs)
		abbrevs = append(append(abbrevs, name...), 0)
		return abbrevIndex[name]
	}
	abbrev(before.name)
	indexes := make([]byte, len(onsets))
	for i, o := range onsets {
		t, ok := typeIndex[o.state]
		if !ok {
			t = len(types)
			typeIndex[o.state] = t
			types = append(types, o.state)
			abbrev(o.state.name)
		}
		indexes[i] = byte(t)
		if t > 255 || len(abbrevs) > 256 {
			return nil, fmt.Errorf("%w: too many distinct offsets and names", ErrLimit)
		}
	}

	header := func(b []byte, times, types, chars int) []byte {
		b = append(b, "TZif2"...)
		b = append(b, make([]byte, 15)...)
		for _, n := range []int{0, 0, 0, times, types, chars} {
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		return b
	}
	// The version 1 block is empty: readers of version 2 skip it.
	b := header(nil, 0, 0, 0)
	b = header(b, len(onsets), len(types), len(abbrevs))
	for _, o := range onsets {
		b = binary.BigEndian.AppendUint64(b, uint64(o.at))
	}
	b = append(b, indexes...)
	for _, t := range types {
		b = binary.BigEndian.AppendUint32(b, uint32(int32(t.offset)))
		dst := byte(0)
		if t.dst {
			dst = 1
		}
		b = append(b, dst, byte(abbrevIndex[t.name]))
	}
	b = append(b, abbrevs...)
	return append(b, "\n\n"...), nil
}
