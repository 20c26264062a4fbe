package ical

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

// Encode writes c to w as one iCalendar object (RFC 5545): VERSION, PRODID, CALSCALE:GREGORIAN,
// METHOD:PUBLISH, X-WR-CALNAME and X-WR-TIMEZONE when set, a VTIMEZONE for every zone a time or
// a recurrence line refers to (in TZID order), and the events in slice order. Lines end in CRLF and
// are folded at 75 octets. The same calendar always gives the same bytes.
//
// Encode checks the whole calendar before it writes anything, so on an invalid calendar it writes
// nothing and returns an error wrapping ErrInvalid: an *EventError for an event, naming its UID.
// Otherwise it returns only the writer's error.
func Encode(w io.Writer, c *Calendar) error {
	p, err := plan(c)
	if err != nil {
		return err
	}
	e := &encoder{w: bufio.NewWriterSize(w, 64<<10), buf: make([]byte, 0, 512)}
	e.line(e.start("BEGIN:VCALENDAR"))
	e.line(e.start("VERSION:2.0"))
	e.line(appendText(e.start("PRODID:"), c.ProdID))
	e.line(e.start("CALSCALE:GREGORIAN"))
	e.line(e.start("METHOD:PUBLISH"))
	if c.Name != "" {
		e.line(appendText(e.start("X-WR-CALNAME:"), c.Name))
	}
	if c.TimeZone != "" {
		e.line(appendText(e.start("X-WR-TIMEZONE:"), c.TimeZone))
	}
	for _, name := range p.zoneNames {
		z := p.zones[name]
		e.writeVTIMEZONE(name, z.loc, z.from, z.to)
	}
	for i := range c.Events {
		e.writeEvent(&c.Events[i], p.recurrence[i])
	}
	e.line(e.start("END:VCALENDAR"))
	return e.w.Flush()
}

// encoder writes content lines, reusing one buffer for all of them.
type encoder struct {
	w   *bufio.Writer
	buf []byte
}

// start returns the buffer emptied, holding prefix.
func (e *encoder) start(prefix string) []byte {
	return append(e.buf[:0], prefix...)
}

// line writes b, a content line built on the buffer, folded, and keeps b's storage for reuse.
func (e *encoder) line(b []byte) {
	writeFolded(e.w, b)
	e.buf = b[:0]
}

func (e *encoder) writeEvent(ev *Event, recurrence []property) {
	e.line(e.start("BEGIN:VEVENT"))
	e.line(appendText(e.start("UID:"), ev.UID))
	e.line(ev.Stamp.UTC().AppendFormat(e.start("DTSTAMP:"), layoutUTC))
	e.line(appendTimeProperty(e.start("DTSTART"), ev.Start, ev.AllDay))
	if !ev.End.IsZero() {
		e.line(appendTimeProperty(e.start("DTEND"), ev.End, ev.AllDay))
	}
	if !ev.RecurrenceID.IsZero() {
		e.line(appendTimeProperty(e.start("RECURRENCE-ID"), ev.RecurrenceID, ev.AllDay))
	}
	for _, p := range recurrence {
		e.line(appendProperty(e.buf[:0], p.name, p.params, p.value))
	}
	if !ev.Created.IsZero() {
		e.line(ev.Created.UTC().AppendFormat(e.start("CREATED:"), layoutUTC))
	}
	if !ev.LastModified.IsZero() {
		e.line(ev.LastModified.UTC().AppendFormat(e.start("LAST-MODIFIED:"), layoutUTC))
	}
	if ev.Sequence != 0 {
		e.line(strconv.AppendInt(e.start("SEQUENCE:"), int64(ev.Sequence), 10))
	}
	if ev.Status != "" {
		e.line(append(e.start("STATUS:"), ev.Status...))
	}
	e.textLine("SUMMARY:", ev.Summary)
	e.textLine("DESCRIPTION:", ev.Description)
	e.textLine("LOCATION:", ev.Location)
	if ev.Geo != nil {
		e.line(appendGeo(e.start("GEO:"), *ev.Geo))
	}
	if url := cleanText(ev.URL, false); url != "" {
		e.line(append(e.start("URL:"), url...))
	}
	if o := ev.Organizer; o.Name != "" || o.Email != "" {
		b := e.start("ORGANIZER")
		if o.Name != "" {
			b = appendParamValue(append(b, ";CN="...), o.Name)
		}
		if email := cleanText(o.Email, false); email != "" {
			b = append(append(b, ":mailto:"...), email...)
		} else {
			// The address Exchange writes for an organizer without one ([MS-OXCICAL] 2.1.3.1.1.20.16).
			b = append(b, ":invalid:nomail"...)
		}
		e.line(b)
	}
	if len(ev.Categories) > 0 {
		b := e.start("CATEGORIES:")
		n := 0
		for _, c := range ev.Categories {
			if c == "" {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			b = appendText(b, c)
			n++
		}
		if n > 0 {
			e.line(b)
		}
	}
	e.line(e.start("END:VEVENT"))
}

// textLine writes a TEXT property unless its value is empty.
func (e *encoder) textLine(prefix, value string) {
	if value != "" {
		e.line(appendText(e.start(prefix), value))
	}
}

// appendTimeProperty appends the parameters and value of DTSTART, DTEND or RECURRENCE-ID.
func appendTimeProperty(b []byte, t time.Time, allDay bool) []byte {
	loc := t.Location()
	switch {
	case allDay:
		b = append(b, ";VALUE=DATE"...)
	case loc != Floating && !isUTC(loc):
		b = appendParamValue(append(b, ";TZID="...), loc.String())
	}
	return appendTimeValue(append(b, ':'), t, allDay)
}

// appendTimeValue appends t as the value of a time property whose parameters appendTimeProperty wrote.
func appendTimeValue(b []byte, t time.Time, allDay bool) []byte {
	switch {
	case allDay:
		return t.AppendFormat(b, layoutDate)
	case isUTC(t.Location()):
		return t.UTC().AppendFormat(b, layoutUTC)
	}
	return t.AppendFormat(b, layoutLocal)
}

// isUTC reports whether times in loc are written in the UTC form. Any location named "UTC" is:
// the form keeps the instant even if such a location had another offset.
func isUTC(loc *time.Location) bool {
	return loc == time.UTC || loc.String() == "UTC"
}

// encodePlan is what Encode learns while checking a calendar: the zones to describe, each over the
// span of the instants written in it, and every event's parsed recurrence lines.
type encodePlan struct {
	zones      map[string]*zoneSpan
	zoneNames  []string
	recurrence [][]property
}

type zoneSpan struct {
	loc      *time.Location
	from, to int64
}

// add widens the span of the zone of t, registering the zone if it is new. The first location
// registered under a name is the one described.
func (p *encodePlan) add(name string, loc *time.Location, unix int64) {
	z := p.zones[name]
	if z == nil {
		p.zones[name] = &zoneSpan{loc: loc, from: unix, to: unix}
		return
	}
	z.from, z.to = min(z.from, unix), max(z.to, unix)
}

// plan checks c and collects what writing it needs.
func plan(c *Calendar) (*encodePlan, error) {
	if cleanText(c.ProdID, true) == "" {
		return nil, fmt.Errorf("%w: calendar has no PRODID", ErrInvalid)
	}
	p := &encodePlan{zones: map[string]*zoneSpan{}, recurrence: make([][]property, len(c.Events))}
	for i := range c.Events {
		if err := p.checkTimes(&c.Events[i]); err != nil {
			return nil, &EventError{UID: c.Events[i].UID, Err: err}
		}
	}
	// Recurrence lines come second: their TZIDs may name a location only a later event uses.
	for i := range c.Events {
		rec, err := p.checkRecurrence(c.Events[i].Recurrence)
		if err != nil {
			return nil, &EventError{UID: c.Events[i].UID, Err: err}
		}
		p.recurrence[i] = rec
	}
	for name := range p.zones {
		p.zoneNames = append(p.zoneNames, name)
	}
	slices.Sort(p.zoneNames)
	return p, nil
}

var statuses = []string{"TENTATIVE", "CONFIRMED", "CANCELLED"}

// checkTimes checks an event's fields other than its recurrence lines and registers the zones of
// its times.
func (p *encodePlan) checkTimes(ev *Event) error {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
	}
	switch {
	case cleanText(ev.UID, true) == "":
		return invalid("no UID")
	case ev.Stamp.IsZero() || !inRange(ev.Stamp):
		return invalid("no DTSTAMP, or one outside years 0001-9999")
	case ev.Start.IsZero():
		return invalid("no DTSTART")
	case ev.Sequence < 0:
		return invalid("negative SEQUENCE")
	case ev.Status != "" && !slices.Contains(statuses, ev.Status):
		return invalid("STATUS %q", ev.Status)
	case ev.Geo != nil && !ev.Geo.valid():
		return invalid("GEO out of range")
	}
	for _, t := range []time.Time{ev.Start, ev.End, ev.RecurrenceID, ev.Created, ev.LastModified} {
		if !t.IsZero() && !inRange(t) {
			return invalid("a time outside years 0001-9999")
		}
	}
	if ev.AllDay {
		if !ev.End.IsZero() && !dateOf(ev.End).After(dateOf(ev.Start)) {
			return invalid("all-day DTEND not after DTSTART (the end date is exclusive)")
		}
		return nil
	}
	if !ev.End.IsZero() && ev.End.Before(ev.Start) {
		return invalid("DTEND before DTSTART")
	}
	for _, t := range []time.Time{ev.Start, ev.End, ev.RecurrenceID} {
		if t.IsZero() {
			continue
		}
		loc := t.Location()
		if loc == Floating || isUTC(loc) {
			continue
		}
		if name := loc.String(); name == "" || name == "Local" {
			// The host's zone is no zone of an event: its name would mean another zone elsewhere.
			return invalid("time in location %q", name)
		}
		p.add(loc.String(), loc, t.Unix())
	}
	return nil
}

// dateOf returns the calendar date of t in its location, as midnight UTC.
func dateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// checkRecurrence parses and checks an event's recurrence lines, registering the zones their TZIDs
// name.
func (p *encodePlan) checkRecurrence(lines []string) ([]property, error) {
	props := make([]property, 0, len(lines))
	for _, line := range lines {
		prop, err := parseProperty(line)
		if err == nil {
			err = p.checkRecurrenceProperty(&prop)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: recurrence line %.60q: %w", ErrInvalid, line, err)
		}
		props = append(props, prop)
	}
	return props, nil
}

func (p *encodePlan) checkRecurrenceProperty(prop *property) error {
	if cleanText(prop.value, false) != prop.value {
		return fmt.Errorf("control character in value")
	}
	switch prop.name {
	case "RRULE":
		if len(prop.params) > 0 {
			return fmt.Errorf("RRULE takes no parameters")
		}
		return checkRecur(prop.value)
	case "RDATE", "EXDATE":
	default:
		return fmt.Errorf("not an RRULE, RDATE or EXDATE line")
	}
	var loc *time.Location
	tzid := ""
	for _, pr := range prop.params {
		switch {
		case pr.name == "VALUE" && len(pr.values) == 1:
		case pr.name == "TZID" && len(pr.values) == 1 && tzid == "":
			tzid = pr.values[0]
		default:
			return fmt.Errorf("unexpected parameter %s", pr.name)
		}
	}
	if tzid != "" {
		if z := p.zones[tzid]; z != nil {
			loc = z.loc
		} else if zone, err := datetime.ParseZone(tzid); err == nil && zone.Name == tzid {
			loc = zone.Loc
		} else {
			return fmt.Errorf("TZID %q names no zone of the calendar nor of the tz database", tzid)
		}
	}
	return forEachTime(prop, func(w datetime.Wall, form timeForm) {
		if loc != nil && form == formLocal {
			p.add(tzid, loc, w.In(loc).Unix())
		}
	})
}

// forEachTime parses the values of an RDATE or EXDATE property (dates, date-times, or RDATE's
// periods, whose ends it checks) and calls f with each start.
func forEachTime(prop *property, f func(datetime.Wall, timeForm)) error {
	valueParam := strings.ToUpper(prop.param("VALUE"))
	period := valueParam == "PERIOD"
	if period {
		if prop.name != "RDATE" {
			return fmt.Errorf("%w: VALUE=PERIOD in %s", ErrSyntax, prop.name)
		}
		valueParam = "DATE-TIME"
	}
	if prop.value == "" {
		return fmt.Errorf("%w: %s without a value", ErrSyntax, prop.name)
	}
	for v := range strings.SplitSeq(prop.value, ",") {
		end := ""
		if period {
			var ok bool
			if v, end, ok = strings.Cut(v, "/"); !ok {
				return fmt.Errorf("%w: %.40q is not a PERIOD", ErrSyntax, v)
			}
		}
		w, form, err := parseTimeValue(v, valueParam)
		if err != nil {
			return err
		}
		if period {
			if _, _, err := parseTimeValue(end, "DATE-TIME"); err != nil {
				if _, err := parseDuration(end); err != nil {
					return fmt.Errorf("%w: %.40q is not a PERIOD's end", ErrSyntax, end)
				}
			}
		}
		f(w, form)
	}
	return nil
}

var frequencies = []string{"SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"}

// checkRecur checks the syntax of a RECUR value (RFC 5545 section 3.3.10) as far as a file format
// can: one FREQ, parts of the form NAME=VALUE named once each, a COUNT or an UNTIL but not both,
// and an UNTIL that is a date or date-time. What a rule means is for the code that expands it.
func checkRecur(v string) error {
	seen := map[string]bool{}
	for part := range strings.SplitSeq(strings.ToUpper(v), ";") {
		name, value, ok := strings.Cut(part, "=")
		if !ok || name == "" || value == "" || tokenEnd(name) != len(name) || seen[name] {
			return fmt.Errorf("%w: malformed RRULE part %.30q", ErrSyntax, part)
		}
		seen[name] = true
		switch name {
		case "FREQ":
			if !slices.Contains(frequencies, value) {
				return fmt.Errorf("%w: FREQ=%.20s", ErrSyntax, value)
			}
		case "UNTIL":
			if _, _, err := parseTimeValue(value, ""); err != nil {
				return err
			}
		case "COUNT", "INTERVAL":
			if _, ok := digits(value); !ok {
				return fmt.Errorf("%w: %s=%.20s", ErrSyntax, name, value)
			}
		}
	}
	if !seen["FREQ"] {
		return fmt.Errorf("%w: RRULE without FREQ", ErrSyntax)
	}
	if seen["COUNT"] && seen["UNTIL"] {
		return fmt.Errorf("%w: RRULE with both COUNT and UNTIL", ErrSyntax)
	}
	return nil
}
