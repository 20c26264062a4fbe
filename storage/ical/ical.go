package ical

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Calendar is one VCALENDAR: the feed the service publishes or the file an import reads.
type Calendar struct {
	// ProdID is PRODID, the product that wrote the calendar ("-//calendard//calendard 1.0//EN").
	ProdID string
	// Name is X-WR-CALNAME, the name Google, Apple and Outlook show for a subscription.
	Name string
	// TimeZone is X-WR-TIMEZONE, the zone the writer meant for the calendar as a whole, usually an
	// IANA name. Decode keeps it as written; it is the zone Google and Apple read floating times in.
	TimeZone string
	// Events are the VEVENTs in file order; an override of one occurrence of a series is an Event of
	// its own with the series' UID and a RecurrenceID.
	Events []Event
	// Warnings are set by Decode: one line for each kind of form that the file has and RFC 5545 does
	// not allow, which Decode read as the writer means it (both DTEND and DURATION, no UID, text
	// not in UTF-8), with the number of events or lines that have it. Encode ignores them.
	Warnings []string
}

// Event is one VEVENT.
//
// Times: Start, End and RecurrenceID carry their zone in their *time.Location. Encode writes a time
// in time.UTC (or any location named "UTC") in the UTC form "20261229T180000Z", a
// time in Floating without zone ("20261229T190000"), and any other time with TZID=<location name>
// and a VTIMEZONE describing that location. Decode gives each time the location its TZID resolves to
// (see the package documentation), time.UTC for the UTC form and Floating for floating times.
// Sub-second parts are not written.
type Event struct {
	// UID is UID, the event's identity across versions of the file. Decode derives one that starts
	// with "derived-" for a VEVENT without UID, from its content (see decoder.uid).
	UID string
	// Stamp is DTSTAMP, written in UTC: when this copy of the event was produced. Required by
	// Encode. Decode takes LAST-MODIFIED, else CREATED, for a VEVENT without DTSTAMP, and leaves it
	// zero when there is neither.
	Stamp time.Time
	// Created is CREATED, in UTC; zero when unknown.
	Created time.Time
	// LastModified is LAST-MODIFIED, in UTC; zero when unknown.
	LastModified time.Time
	// Sequence is SEQUENCE, the revision number clients use to order versions of an event.
	Sequence int
	// Summary is SUMMARY, the title, as plain text.
	Summary string
	// Description is DESCRIPTION, as plain text (lines separated by "\n").
	Description string
	// Location is LOCATION: the venue and its address as one line of plain text.
	Location string
	// Geo is GEO, the venue's coordinates; nil when unknown.
	Geo *Geo
	// URL is URL, the event's page.
	URL string
	// Organizer is ORGANIZER; the zero value means none.
	Organizer Organizer
	// Categories are the values of every CATEGORIES property, in order.
	Categories []string
	// Status is STATUS: "TENTATIVE", "CONFIRMED", "CANCELLED" or empty.
	Status string

	// Start is DTSTART. Required.
	Start time.Time
	// End is DTEND: the exclusive end. Decode computes it from DURATION when the file has that
	// instead, and sets it to Start (a day after Start for all-day events) when the file has neither,
	// as RFC 5545 section 3.6.1 prescribes.
	End time.Time
	// AllDay makes DTSTART and DTEND dates (VALUE=DATE): Encode writes the calendar dates of Start and
	// End in their own locations, so End is the day after the last day. Decode sets both to midnight
	// in Floating.
	AllDay bool

	// Recurrence holds the RRULE, RDATE and EXDATE lines of a series exactly as Google Calendar's
	// recurrence[] field does: one unfolded content line each, e.g.
	// "RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270601T000000Z" or
	// "EXDATE;TZID=Europe/Paris:20261229T190000". A TZID in a line names a location that Start, End
	// or RecurrenceID of some event of the calendar uses, or an IANA zone.
	Recurrence []string
	// RecurrenceID is RECURRENCE-ID: set on an override, the original start of the occurrence it
	// replaces; zero otherwise. It takes the form of the event's own DTSTART: a date when AllDay.
	RecurrenceID time.Time
}

// Geo is a point in degrees, as GEO writes it ("48.85341;2.3488").
type Geo struct {
	Lat, Lng float64
}

// Organizer is ORGANIZER: the CN parameter and the mailto: address.
type Organizer struct {
	Name  string
	Email string
}

// Floating is the location of floating times: wall clocks that name no zone, which RFC 5545
// section 3.3.5 reads in whatever zone the reader is in. Its offset is zero, so the instant of a
// floating time means nothing; only its wall clock does. Compare locations with ==: a location
// merely named like this one is not Floating.
var Floating = time.FixedZone("floating", 0)

// Decode errors. A fatal error of Decode wraps ErrSyntax or ErrLimit (or is an I/O error from the
// reader); an EventError wraps one of ErrSyntax, ErrLimit, ErrInvalid and ErrUnknownZone.
var (
	// ErrSyntax is returned for input that is not iCalendar: a malformed content line, component or
	// value.
	ErrSyntax = errors.New("ical: syntax error")

	// ErrLimit is returned when input exceeds one of the Limits.
	ErrLimit = errors.New("ical: limit exceeded")

	// ErrUnknownZone is returned when a TZID names neither a zone of the tz database, nor a Windows
	// zone, nor a VTIMEZONE of the file that Decode can read.
	ErrUnknownZone = errors.New("ical: unknown time zone")
)

// Encode errors, and decode errors for events that are well-formed but unusable.
var (
	// ErrInvalid is returned for an event that breaks a rule of RFC 5545 or of this package: no UID,
	// no DTSTART, an end before the start, a malformed recurrence line, a time outside years
	// 0001-9999.
	ErrInvalid = errors.New("ical: invalid event")
)

// EventError is one VEVENT that Decode skipped, or the event that made Encode fail.
type EventError struct {
	// UID is the event's UID: for Decode, the one it derived when the VEVENT has none (Derived);
	// for Encode, the Event's.
	UID string
	// Derived says that the VEVENT has no UID of its own, so that UID tells a reader nothing.
	Derived bool
	// Line is the 1-based line of the input at fault: the property's first line, or the
	// BEGIN:VEVENT line when the fault is the event as a whole. Encode sets it to 0.
	Line int
	// Err wraps one of the package's errors.
	Err error
}

func (e *EventError) Error() string {
	var b strings.Builder
	b.WriteString("ical: event")
	if e.UID != "" {
		fmt.Fprintf(&b, " %q", e.UID)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(strings.TrimPrefix(e.Err.Error(), "ical: "))
	return b.String()
}

// Unwrap lets errors.Is match the kind of fault.
func (e *EventError) Unwrap() error { return e.Err }

// EventErrors lists the events Decode skipped, in file order. Decode returns it as its error, next
// to the calendar of the events it could read; see Decode.
type EventErrors []*EventError

func (e EventErrors) Error() string {
	switch len(e) {
	case 0:
		return "ical: no skipped events"
	case 1:
		return e[0].Error()
	}
	return fmt.Sprintf("%s (and %d more skipped events)", e[0].Error(), len(e)-1)
}

// Unwrap lets errors.Is and errors.As look at each event's error.
func (e EventErrors) Unwrap() []error {
	errs := make([]error, len(e))
	for i, err := range e {
		errs[i] = err
	}
	return errs
}
