package ical

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

// Limits bound what Decode reads, so that no input makes it use unbounded memory or time. A zero
// field takes its default.
type Limits struct {
	// MaxBytes bounds the whole input. Exceeding it is fatal.
	MaxBytes int64
	// MaxLineBytes bounds one unfolded content line. A longer line is skipped, and so is the
	// VEVENT or VTIMEZONE whose own line it is (a VTIMEZONE makes its zone unknown).
	MaxLineBytes int
	// MaxEvents bounds the number of VEVENTs. Exceeding it is fatal: an importer must not take
	// the events past the limit for events removed from the calendar.
	MaxEvents int
	// MaxProperties bounds the properties and sub-components of one component (for VCALENDAR,
	// its properties and its components other than VEVENTs). An event past it is skipped.
	MaxProperties int
}

// Default limits: a calendar of tens of thousands of events with long descriptions fits.
const (
	DefaultMaxBytes      = 64 << 20
	DefaultMaxLineBytes  = 1 << 20
	DefaultMaxEvents     = 100_000
	DefaultMaxProperties = 1_000
)

// maxDepth bounds the nesting of components; real files nest three deep (VCALENDAR, VTIMEZONE,
// STANDARD).
const maxDepth = 8

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = DefaultMaxEvents
	}
	if l.MaxProperties <= 0 {
		l.MaxProperties = DefaultMaxProperties
	}
	return l
}

// Decode reads one iCalendar object (RFC 5545) from r.
//
// A fault confined to one VEVENT (a malformed line or value, a missing DTSTART, a TZID that cannot
// be resolved, too many properties) skips that event: Decode returns the calendar
// of the other events together with an EventErrors error listing the skipped ones, so that
// an importer can report them and go on:
//
//	cal, err := ical.Decode(r, ical.Limits{})
//	var skipped ical.EventErrors
//	if errors.As(err, &skipped) {
//		// report skipped; import cal.Events
//	} else if err != nil {
//		return err
//	}
//
// Forms that real exports use and RFC 5545 does not allow are read as their writers mean them, and
// the calendar's Warnings say so once per kind (see Calendar.Warnings).
//
// Any other error is fatal and comes with a nil calendar: input that is not one VCALENDAR, a
// file cut short (no END:VCALENDAR), a limit on the whole input, or the reader's own error.
// A truncated download therefore never looks like a calendar whose later events were deleted.
func Decode(r io.Reader, limits Limits) (*Calendar, error) {
	limits = limits.withDefaults()
	w := &warnings{}
	root, err := parseComponents(r, limits, w)
	if err != nil {
		return nil, err
	}
	d := newDecoder(root, w)
	cal := &Calendar{
		ProdID:   parseText(d.calendarValue("PRODID")),
		Name:     parseText(d.calendarValue("X-WR-CALNAME")),
		TimeZone: parseText(d.calendarValue("X-WR-TIMEZONE")),
	}
	var skipped EventErrors
	for _, c := range root.children {
		if c.name != "VEVENT" {
			continue
		}
		uid, derived := d.uid(c)
		ev, err := d.event(c, uid)
		if err != nil {
			line := c.line
			var lineErr *lineError
			if errors.As(err, &lineErr) {
				line, err = lineErr.line, lineErr.err
			}
			skipped = append(skipped, &EventError{UID: uid, Derived: derived, Line: line, Err: err})
			continue
		}
		cal.Events = append(cal.Events, ev)
	}
	cal.Warnings = w.list()
	if len(skipped) > 0 {
		return cal, skipped
	}
	return cal, nil
}

// decoder turns components into events.
type decoder struct {
	root  *component
	zones *zoneResolver
	warn  *warnings
	// derived counts the UIDs derived so far, to tell apart events alike in what derives them.
	derived map[string]int
}

func newDecoder(root *component, warn *warnings) *decoder {
	defs := map[string]*component{}
	for _, c := range root.children {
		if c.name != "VTIMEZONE" {
			continue
		}
		if p := c.first("TZID"); p != nil {
			tzid := parseText(p.value)
			if _, dup := defs[tzid]; !dup {
				defs[tzid] = c
			}
		}
	}
	return &decoder{root: root, zones: newZoneResolver(defs), warn: warn, derived: map[string]int{}}
}

func (d *decoder) calendarValue(name string) string {
	if p := d.root.first(name); p != nil {
		return p.value
	}
	return ""
}

// uid returns the UID of a VEVENT, derived from its content when it has none: Outlook Web Access
// and RFC 2445 writers leave it out. The derived UID is a hash of DTSTART, SUMMARY and
// RECURRENCE-ID as written, what tells one event of a calendar from another and stays the same when
// the calendar is exported again: a later import of the same calendar then updates the event (a new
// DESCRIPTION, LOCATION or DTEND) instead of adding a second, while a new title or start at the
// source replaces it. Events alike in all three get "-2", "-3"… in file order. derived reports
// that the UID is one of these.
func (d *decoder) uid(c *component) (uid string, derived bool) {
	if p := c.first("UID"); p != nil {
		if uid := parseText(p.value); uid != "" {
			return uid, false
		}
	}
	d.warn.add(warnNoUID)
	h := sha256.New()
	for _, name := range []string{"DTSTART", "SUMMARY", "RECURRENCE-ID"} {
		if p := c.first(name); p != nil {
			fmt.Fprintf(h, "%s %q %q\n", name, p.param("TZID"), parseText(p.value))
		}
	}
	uid = "derived-" + hex.EncodeToString(h.Sum(nil)[:16])
	if d.derived[uid]++; d.derived[uid] > 1 {
		uid += "-" + strconv.Itoa(d.derived[uid])
	}
	return uid, true
}

// event decodes one VEVENT whose UID is uid. Errors about one property come as *lineError.
func (d *decoder) event(c *component, uid string) (Event, error) {
	if c.fault != nil {
		return Event{}, c.fault
	}
	ev := Event{UID: uid}
	at := func(p *property, err error) error {
		return &lineError{line: p.line, err: err}
	}
	required := func(name string) (*property, error) {
		if p := c.first(name); p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("%w: no %s", ErrInvalid, name)
	}

	start, err := required("DTSTART")
	if err != nil {
		return Event{}, err
	}
	var startForm timeForm
	if ev.Start, startForm, err = d.time(start); err != nil {
		return Event{}, at(start, err)
	}
	ev.AllDay = startForm == formDate
	if err := d.end(c, &ev); err != nil {
		return Event{}, err
	}
	if p := c.first("RECURRENCE-ID"); p != nil {
		if ev.RecurrenceID, err = d.recurrenceID(p, ev.AllDay); err != nil {
			return Event{}, at(p, err)
		}
	}
	for i := range c.props {
		p := &c.props[i]
		switch p.name {
		case "RRULE", "RDATE", "EXDATE":
			line, err := d.recurrenceLine(p, ev.Start.Location(), ev.AllDay)
			if err != nil {
				return Event{}, at(p, err)
			}
			ev.Recurrence = append(ev.Recurrence, line)
		case "CATEGORIES":
			ev.Categories = append(ev.Categories, splitTextList(p.value)...)
		}
	}
	d.descriptive(c, &ev)
	return ev, nil
}

// recurrenceID decodes the RECURRENCE-ID of an event, all-day or not. One of another value type
// than DTSTART names the occurrence by its date, which is how real writers mean it: Exchange gives
// the occurrence of an all-day series as midnight in the series' Windows zone
// ("RECURRENCE-ID;TZID=W. Europe Standard Time:20270104T000000"), and an all-day occurrence moved to
// a time of day keeps the date of its series. Either becomes that date, in the form of DTSTART: a
// date for an all-day event, midnight floating for a timed one. Only a UTC time other than midnight
// stays refused: its date in UTC need not be the date meant.
func (d *decoder) recurrenceID(p *property, allDay bool) (time.Time, error) {
	t, form, err := d.time(p)
	switch {
	case err != nil:
		return time.Time{}, err
	case (form == formDate) == allDay:
		return t, nil
	case form == formUTC && (t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0):
		return time.Time{}, fmt.Errorf("%w: RECURRENCE-ID in UTC and DTSTART differ in value type", ErrInvalid)
	}
	return wallTime(datetime.Wall{Year: t.Year(), Month: t.Month(), Day: t.Day()}), nil
}

// end sets ev.End from DTEND or DURATION, or from the defaults of RFC 5545 section 3.6.1.
func (d *decoder) end(c *component, ev *Event) error {
	dtend, dur := c.first("DTEND"), c.first("DURATION")
	if dtend != nil && dur != nil {
		// RFC 5545 allows one of them; Thunderbird writes both on a moved occurrence, DURATION:PT0S
		// beside the true DTEND.
		d.warn.add(warnBothEnds)
		dur = nil
	}
	switch {
	case dtend != nil:
		end, form, err := d.time(dtend)
		if err != nil {
			return &lineError{line: dtend.line, err: err}
		}
		if (form == formDate) != ev.AllDay {
			return &lineError{line: dtend.line, err: fmt.Errorf("%w: DTEND and DTSTART differ in value type", ErrInvalid)}
		}
		if ev.AllDay && !end.After(ev.Start) {
			// Some writers give the last day instead of the day after; RFC 5545 allows neither
			// that nor an empty event, and readers take both as one day.
			end = ev.Start.AddDate(0, 0, 1)
		}
		if end.Before(ev.Start) {
			return &lineError{line: dtend.line, err: fmt.Errorf("%w: DTEND before DTSTART", ErrInvalid)}
		}
		ev.End = end
	case dur != nil:
		dd, err := parseDuration(dur.value)
		if err != nil {
			return &lineError{line: dur.line, err: err}
		}
		if ev.AllDay {
			dd.seconds = 0 // a date has no time of day to add hours to
			dd.days = max(dd.days, 1)
		}
		ev.End = dd.after(ev.Start)
		if !inRange(ev.End) {
			return &lineError{line: dur.line, err: fmt.Errorf("%w: DURATION ends after year 9999", ErrInvalid)}
		}
	case ev.AllDay:
		ev.End = ev.Start.AddDate(0, 0, 1)
	default:
		ev.End = ev.Start
	}
	if !inRange(ev.End) {
		return fmt.Errorf("%w: the event ends after year 9999", ErrInvalid)
	}
	return nil
}

// descriptive sets the fields that do not decide when an event happens, DTSTAMP among them. A
// malformed value of one of them is ignored rather than costing the whole event.
func (d *decoder) descriptive(c *component, ev *Event) {
	ev.Summary = d.text(c, "SUMMARY")
	ev.Description = d.text(c, "DESCRIPTION")
	ev.Location = d.text(c, "LOCATION")
	if p := c.first("URL"); p != nil {
		ev.URL = cleanText(p.value, false)
	}
	if p := c.first("CREATED"); p != nil {
		ev.Created, _ = d.utcTime(p)
	}
	if p := c.first("LAST-MODIFIED"); p != nil {
		ev.LastModified, _ = d.utcTime(p)
	}
	if p := c.first("DTSTAMP"); p != nil {
		ev.Stamp, _ = d.utcTime(p)
	}
	if ev.Stamp.IsZero() {
		// Outlook Web Access and RFC 2445 writers may leave DTSTAMP out; the event's last change
		// is the nearest thing.
		ev.Stamp = ev.LastModified
		if ev.Stamp.IsZero() {
			ev.Stamp = ev.Created
		}
	}
	if p := c.first("SEQUENCE"); p != nil {
		if n, err := strconv.Atoi(strings.TrimSpace(p.value)); err == nil && n >= 0 && n <= 1<<31-1 {
			ev.Sequence = n
		}
	}
	if p := c.first("STATUS"); p != nil {
		if s := strings.ToUpper(strings.TrimSpace(p.value)); slices.Contains(statuses, s) {
			ev.Status = s
		}
	}
	if p := c.first("GEO"); p != nil {
		ev.Geo, _ = parseGeo(p.value)
	}
	if p := c.first("ORGANIZER"); p != nil {
		ev.Organizer.Name = p.param("CN")
		addr := cleanText(strings.TrimSpace(p.value), false)
		if len(addr) > len("mailto:") && strings.EqualFold(addr[:len("mailto:")], "mailto:") {
			ev.Organizer.Email = addr[len("mailto:"):]
		}
	}
}

func (d *decoder) text(c *component, name string) string {
	if p := c.first(name); p != nil {
		return parseText(p.value)
	}
	return ""
}

// time decodes DTSTART, DTEND or RECURRENCE-ID: a date (midnight in Floating), a UTC time, a
// floating time, or a time in the zone its TZID names.
func (d *decoder) time(p *property) (time.Time, timeForm, error) {
	w, form, err := parseTimeValue(p.value, strings.ToUpper(p.param("VALUE")))
	if err != nil {
		return time.Time{}, 0, err
	}
	var t time.Time
	switch tzid := p.param("TZID"); {
	case form == formDate, form == formLocal && tzid == "":
		t = wallTime(w)
	case form == formUTC:
		t = w.In(time.UTC)
	default:
		loc, err := d.zones.resolve(tzid)
		if err != nil {
			return time.Time{}, 0, err
		}
		t = w.In(loc)
	}
	if !inRange(t) {
		return time.Time{}, 0, fmt.Errorf("%w: %s outside years 0001-9999 in UTC", ErrInvalid, p.name)
	}
	if t.IsZero() {
		// The zero time.Time means "no time" in an Event.
		return time.Time{}, 0, fmt.Errorf("%w: %s at the first instant of year 1", ErrInvalid, p.name)
	}
	return t, form, nil
}

// utcTime decodes DTSTAMP, CREATED or LAST-MODIFIED, which RFC 5545 wants in UTC; a writer that
// gives a local time is taken at its word.
func (d *decoder) utcTime(p *property) (time.Time, error) {
	t, form, err := d.time(p)
	switch {
	case err != nil:
		return time.Time{}, err
	case form == formDate:
		return time.Time{}, fmt.Errorf("%w: %s is a date", ErrSyntax, p.name)
	case t.Location() == Floating:
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC), nil
	}
	return t.UTC(), nil
}

// recurrenceLine checks an RRULE, RDATE or EXDATE property of an event starting in startLoc and
// returns it as a recurrence line. The line is written anew in one canonical form (upper-case
// names, RRULE in upper case) with its TZID replaced by the name of the zone it resolves to, so that
// a Windows zone name becomes the IANA name; values in a zone that only this file defines, other
// than the event's own zone, are turned into UTC, since nothing outside the file could read that
// TZID. The date-times of an all-day event's RDATE or EXDATE become the dates they name (see
// datesOf).
func (d *decoder) recurrenceLine(p *property, startLoc *time.Location, allDay bool) (string, error) {
	if cleanText(p.value, false) != p.value {
		return "", fmt.Errorf("%w: control character in %s", ErrSyntax, p.name)
	}
	if p.name == "RRULE" {
		v := strings.ToUpper(p.value)
		if err := checkRecur(v); err != nil {
			return "", err
		}
		return "RRULE:" + v, nil
	}
	var params []param
	tzid := ""
	for _, pr := range p.params {
		switch pr.name {
		case "VALUE":
			if len(pr.values) == 1 {
				params = append(params, param{name: "VALUE", values: []string{strings.ToUpper(pr.values[0])}})
			}
		case "TZID":
			if len(pr.values) == 1 && tzid == "" {
				tzid = pr.values[0]
			}
		}
	}
	prop := property{name: p.name, params: params, value: p.value}
	if err := forEachTime(&prop, func(datetime.Wall, timeForm) {}); err != nil {
		return "", err
	}
	if allDay {
		if dates, ok := datesOf(p.value); ok {
			return string(appendProperty(nil, prop.name, []param{{name: "VALUE", values: []string{"DATE"}}}, dates)), nil
		}
	}
	if tzid == "" {
		return string(appendProperty(nil, prop.name, prop.params, prop.value)), nil
	}
	loc, err := d.zones.resolve(tzid)
	if err != nil {
		return "", err
	}
	if isUTC(loc) || (!d.zones.isNamed(loc) && loc != startLoc) {
		prop.value = toUTC(&prop, loc)
	} else {
		prop.params = append(prop.params, param{name: "TZID", values: []string{loc.String()}})
	}
	return string(appendProperty(nil, prop.name, prop.params, prop.value)), nil
}

// datesOf returns the values of an RDATE or EXDATE as dates when each is a date-time that names a
// date, as for RECURRENCE-ID (see decoder.recurrenceID): a wall clock, floating or in its TZID, or
// midnight UTC. Exchange writes the exclusions of an all-day series as midnight in a Windows zone
// ("EXDATE;TZID=W. Europe Standard Time:20270111T000000"). ok is false when some value is not one.
func datesOf(value string) (dates string, ok bool) {
	var b []byte
	for i, v := range strings.Split(value, ",") {
		w, form, err := parseTimeValue(v, "")
		if err != nil || form == formDate || (form == formUTC && w.Hour+w.Min+w.Sec != 0) {
			return "", false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = time.Date(w.Year, w.Month, w.Day, 0, 0, 0, 0, time.UTC).AppendFormat(b, layoutDate)
	}
	return string(b), true
}

// toUTC rewrites the local date-times of an RDATE or EXDATE value in loc to UTC; dates and
// durations stay as they are.
func toUTC(p *property, loc *time.Location) string {
	var b []byte
	for i, v := range strings.Split(p.value, ",") {
		if i > 0 {
			b = append(b, ',')
		}
		for j, part := range strings.Split(v, "/") {
			if j > 0 {
				b = append(b, '/')
			}
			w, form, err := parseTimeValue(part, "")
			if err != nil || form != formLocal {
				b = append(b, part...)
				continue
			}
			b = w.In(loc).UTC().AppendFormat(b, layoutUTC)
		}
	}
	return string(b)
}

// warnings counts the forms Decode read otherwise than RFC 5545 has them, by kind, for
// Calendar.Warnings.
type warnings struct {
	counts map[string]int
	order  []string // the kinds in the order first met
}

// The kinds of warnings: fmt formats of the number of events or lines that have the form.
const (
	warnBothEnds = "%d events have both DTEND and DURATION (Thunderbird writes both on a moved occurrence): DTEND was read"
	warnNoUID    = "%d events have no UID: each was given one derived from its DTSTART, SUMMARY and RECURRENCE-ID, so an event whose title or start changes at the source is replaced"
	warnNotUTF8  = "%d lines are not UTF-8 and declare no CHARSET: they were read as Windows-1252"
)

func (w *warnings) add(kind string) {
	if w.counts == nil {
		w.counts = map[string]int{}
	}
	if w.counts[kind] == 0 {
		w.order = append(w.order, kind)
	}
	w.counts[kind]++
}

// list returns one line per kind, in the order the kinds were first met; nil when there is none.
func (w *warnings) list() []string {
	var out []string
	for _, kind := range w.order {
		out = append(out, fmt.Sprintf(kind, w.counts[kind]))
	}
	return out
}
