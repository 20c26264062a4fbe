package ical

import (
	"sort"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

// zoneState is what a location says at an instant: abbreviation, offset and DST flag.
type zoneState struct {
	name   string
	offset int
	dst    bool
}

func stateAt(loc *time.Location, unix int64) zoneState {
	t := time.Unix(unix, 0).In(loc)
	name, off := t.Zone()
	return zoneState{name: name, offset: off, dst: t.IsDST()}
}

// transition is an instant at which a location changes state.
type transition struct {
	at       int64 // Unix seconds
	from, to zoneState
}

// localStart returns the wall clock at which t begins, read in the state before it: an
// observance's DTSTART (RFC 5545 section 3.6.5).
func (t transition) localStart() datetime.Wall {
	return datetime.WallOf(time.Unix(t.at+int64(t.from.offset), 0).UTC())
}

const day = 24 * 60 * 60

// transitions returns the transitions of loc in (from, to], in order.
//
// It hops from one period to the next with Time.ZoneBounds, which costs a lookup per transition
// instead of a probe per hour or day. Two quirks of ZoneBounds are handled: in the years a zone's
// TZ footer rule serves (after its last listed transition), it reports the end of each year as a
// bound, which is no change at all and is skipped; and on the last day of a leap year it reports a
// bound at or before the instant asked about (golang/go#81583), after which the walk advances a day
// and bisects for a change within it.
func transitions(loc *time.Location, from, to int64) []transition {
	var list []transition
	cur := stateAt(loc, from)
	for t := from; t < to; {
		_, end := time.Unix(t, 0).In(loc).ZoneBounds()
		if end.IsZero() {
			break // the period lasts forever
		}
		next := end.Unix()
		if next <= t {
			next = min(t+day, to)
			if stateAt(loc, next) != cur {
				next = firstChange(loc, t, next, cur)
			}
		}
		if next > to {
			break
		}
		if s := stateAt(loc, next); s != cur {
			list = append(list, transition{at: next, from: cur, to: s})
			cur = s
		}
		t = next
	}
	return list
}

// firstChange returns the first instant in (lo, hi] whose state differs from cur, which must hold
// at lo and not at hi.
func firstChange(loc *time.Location, lo, hi int64, cur zoneState) int64 {
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if stateAt(loc, mid) == cur {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// periodStart returns the instant at which the state in force at t began, or false when it has
// been in force since the beginning of time (a fixed zone, or local mean time before a zone's first
// transition). Bounds that are no change (ZoneBounds' year ends, see transitions) are looked past.
func periodStart(loc *time.Location, t int64) (int64, bool) {
	cur := stateAt(loc, t)
	// Each step goes back at least a day; a period found by ZoneBounds is found within two steps,
	// and the bound only guards against location data that never changes state going back.
	for range 1000 {
		start, _ := time.Unix(t, 0).In(loc).ZoneBounds()
		if start.IsZero() {
			return 0, false
		}
		s := start.Unix()
		if s >= t {
			s = t - day
		}
		if prev := stateAt(loc, s-1); prev != cur {
			if stateAt(loc, s) != cur {
				s = firstChange(loc, s-1, t, prev)
			}
			return s, true
		}
		t = s - 1
	}
	return 0, false
}

// observance is one STANDARD or DAYLIGHT sub-component: a transition, and when rule is set, the
// same transition every year from then on.
type observance struct {
	transition
	rule *yearlyRule
}

// Time zone span constants.
const (
	// tailYears is how far past the last event the transitions are probed for the zone's current
	// yearly rules: long enough to see every weekday fall on every date of a seven-day window
	// (a 28-year cycle), so that a derived rule is the rule, not a coincidence.
	tailYears = 30
	// horizonYear is where probing stops: the tz database lists transitions up to 2037 and
	// describes later ones with a yearly footer rule, and Decode's zones end in 2100 (ruleLastYear),
	// so past it a zone only repeats itself. The tail rules, or the last period, describe the rest;
	// without the bound, a zone used in years 1 and 9999 would cost ten thousand years of probes.
	horizonYear = 2200
)

// observances returns the STANDARD and DAYLIGHT sub-components that describe loc for every
// instant from `from` on, exactly for the instants up to `to`:
//
//   - the period in force at `from` with its true start (or, for a zone that never changed, one
//     observance starting in 1601 as Outlook writes it, or in year 1 if `from` is earlier);
//   - every transition up to `to`, each an observance with its own DTSTART;
//   - when the zone's transitions after `to` follow yearly rules (as every zone with DST does today),
//     the trailing transitions those rules reproduce are replaced by one RRULE observance per rule,
//     so that clients get the zone right for the later occurrences of an endless series too.
//
// Instants after horizonYear count as horizonYear: by then every zone repeats a yearly rule or
// no longer changes.
//
// Transitions are found by probing the location, never taken from a copy of the rules, so the
// output follows the tz database the binary embeds, including historic rule changes inside the
// span (each written as the explicit transition it was). RDATE is not used: one DTSTART per
// explicit transition is read by every client.
func observances(loc *time.Location, from, to int64) []observance {
	horizon := time.Date(horizonYear, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	from, to = min(from, horizon), min(to, horizon)
	var obs []observance
	if start, ok := periodStart(loc, from); ok {
		for _, tr := range transitions(loc, start-1, to) {
			obs = append(obs, observance{transition: tr})
		}
	} else {
		s := stateAt(loc, from)
		epoch := time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		if from+int64(s.offset) < epoch {
			epoch = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		}
		obs = append(obs, observance{transition: transition{at: epoch - int64(s.offset), from: s, to: s}})
		for _, tr := range transitions(loc, from, to) {
			obs = append(obs, observance{transition: tr})
		}
	}

	future := transitions(loc, to, time.Unix(to, 0).UTC().AddDate(tailYears, 0, 0).Unix())
	rules := tailRules(future)
	if rules == nil {
		return obs
	}
	// Fold the trailing explicit transitions that the rules reproduce into the RRULE observances.
	i := len(obs)
	for i > 0 && rules.fits(obs[i-1].transition) {
		i--
	}
	firsts := map[[2]zoneState]transition{}
	for _, tr := range append(transitionsOf(obs[i:]), future...) {
		k := [2]zoneState{tr.from, tr.to}
		if _, ok := firsts[k]; !ok {
			firsts[k] = tr
		}
	}
	obs = obs[:i]
	var tail []observance
	for k, tr := range firsts {
		tail = append(tail, observance{transition: tr, rule: rules[k].rule})
	}
	sort.Slice(tail, func(a, b int) bool { return tail[a].at < tail[b].at })
	return append(obs, tail...)
}

func transitionsOf(obs []observance) []transition {
	trs := make([]transition, len(obs))
	for i, o := range obs {
		trs[i] = o.transition
	}
	return trs
}

// kindRule is the yearly rule of one kind of transition (a from state and a to state), and the
// local time of day at which it happens.
type kindRule struct {
	rule      *yearlyRule
	timeOfDay int // seconds after midnight, in the from state's wall clock
}

type tailRuleSet map[[2]zoneState]kindRule

// tailRules returns one rule per kind of transition in trs if every kind recurs once a year on a
// day a yearlyRule describes, at a fixed local time; nil otherwise (no transitions, or irregular
// ones such as Morocco's around Ramadan).
func tailRules(trs []transition) tailRuleSet {
	if len(trs) == 0 {
		return nil
	}
	var order [][2]zoneState
	byKind := map[[2]zoneState][]transition{}
	for _, tr := range trs {
		k := [2]zoneState{tr.from, tr.to}
		if byKind[k] == nil {
			order = append(order, k)
		}
		byKind[k] = append(byKind[k], tr)
	}
	rules := tailRuleSet{}
	for _, k := range order {
		group := byKind[k]
		dates := make([]datetime.Wall, len(group))
		tod := secondOfDay(group[0].localStart())
		for i, tr := range group {
			dates[i] = tr.localStart()
			if secondOfDay(dates[i]) != tod {
				return nil
			}
		}
		r, ok := deriveRule(dates)
		if !ok {
			return nil
		}
		rules[k] = kindRule{rule: &r, timeOfDay: tod}
	}
	return rules
}

// fits reports whether tr is a transition the set's rules produce.
func (rs tailRuleSet) fits(tr transition) bool {
	kr, ok := rs[[2]zoneState{tr.from, tr.to}]
	if !ok {
		return false
	}
	w := tr.localStart()
	return secondOfDay(w) == kr.timeOfDay && w.Month == kr.rule.month && kr.rule.fits([]datetime.Wall{w})
}

func secondOfDay(w datetime.Wall) int {
	return w.Hour*3600 + w.Min*60 + w.Sec
}

// writeVTIMEZONE writes the VTIMEZONE of loc under the TZID name for the instants from..to.
func (e *encoder) writeVTIMEZONE(name string, loc *time.Location, from, to int64) {
	e.line(e.start("BEGIN:VTIMEZONE"))
	e.line(appendText(e.start("TZID:"), name))
	for _, o := range observances(loc, from, to) {
		kind := "STANDARD"
		if o.to.dst {
			kind = "DAYLIGHT"
		}
		e.line(append(e.start("BEGIN:"), kind...))
		e.line(appendWall(e.start("DTSTART:"), o.localStart()))
		e.line(appendOffset(e.start("TZOFFSETFROM:"), o.from.offset))
		e.line(appendOffset(e.start("TZOFFSETTO:"), o.to.offset))
		if o.to.name != "" {
			e.line(appendText(e.start("TZNAME:"), o.to.name))
		}
		if o.rule != nil {
			e.line(appendRule(e.start("RRULE:"), o.rule))
		}
		e.line(append(e.start("END:"), kind...))
	}
	e.line(e.start("END:VTIMEZONE"))
}
