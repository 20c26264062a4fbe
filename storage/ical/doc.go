// Package ical reads and writes iCalendar (RFC 5545): the .ics feeds the service publishes and the
// .ics files it imports. It is a file format and knows nothing of the store's records: the feed
// turns records into a Calendar and calls Encode; the importer calls Decode and turns the Events
// into records.
//
// # Basics
//
// A Calendar is one VCALENDAR and an Event one VEVENT, as plain values whose fields name the
// properties they stand for. A series is one Event whose Recurrence holds its RRULE, RDATE and
// EXDATE lines as Google Calendar's recurrence[] field does; an occurrence edited on its own is
// another Event with the same UID and a RecurrenceID. Times carry their zone in their location:
// time.UTC for the "Z" form, Floating for floating times, any other location for a TZID.
//
// Encode writes a calendar byte for byte the same way each time: CRLF line ends, lines folded at
// 75 octets between UTF-8 sequences, TEXT escaped, parameter values quoted where RFC 5545 wants
// quotes (and RFC 6868's caret encoding for quotes and newlines in them). Every zone a time or a
// recurrence line uses gets a VTIMEZONE generated from the tz database the binary embeds:
//
//   - the observance in force at the zone's first instant, with its true start;
//   - one STANDARD or DAYLIGHT per transition up to the zone's last instant, each with its own
//     DTSTART, so that historic rule changes inside the span come out as they happened;
//   - when the transitions after the last instant follow yearly rules (checked over 30 years, a
//     whole cycle of weekdays and dates), one RRULE observance per rule, which also absorbs the
//     trailing explicit transitions that the rule reproduces. Clients therefore place later
//     occurrences of an endless series right, and a feed of events under today's rules carries
//     just two observances per zone, as Google's and Apple's exports do. A zone without DST gets
//     a single STANDARD.
//
// Transitions are found by probing the location (see transitions in vtimezone.go), not copied
// from a rule table, so the VTIMEZONE agrees with what Go itself computes for the same instants.
//
// Decode reads a file with bounded memory and time (Limits), unfolds lines (CRLF or bare LF),
// unescapes TEXT, and resolves each TZID to a location: a tz database name, a Windows zone name
// as Outlook writes it (CLDR's mapping, in windows.go) or a Windows display name as Outlook Web
// Access writes it ("(UTC-05:00) Eastern Time (US & Canada)"), a Mozilla-style name ending in a tz
// database name, or else the file's own VTIMEZONE, made into a location named by the TZID. An
// event it cannot read is skipped and reported in an EventErrors next to the others; see Decode.
//
// # Caveats
//
//   - A TZID that is a tz database or Windows name is read with the tz database even when the file
//     has a VTIMEZONE for it that says otherwise: the database's history is complete, while a
//     file's definition often holds only today's rules and would misplace older events.
//   - A location built from a file's VTIMEZONE applies RRULE observances up to 2100 and keeps the
//     offset in force then for later instants. It accepts the yearly rules observances use (one
//     day a year in one month, by weekday, ordinal and month day); a zone with any other rule is
//     unknown, and so are the events that use it.
//   - Encode's VTIMEZONE is exact from the first instant written in the zone on. For a zone whose
//     transitions after the last instant follow no yearly rule (Morocco's around Ramadan), it ends
//     with the last transition up to that instant, so clients expanding an endless series there
//     may be an hour off in later years.
//   - Floating times and all-day dates come out of Decode in Floating, whose offset means nothing:
//     read their wall clocks, in the zone the importer chooses (Google and Apple use
//     Calendar.TimeZone). A RECURRENCE-ID of another value type than the event's DTSTART names its
//     occurrence by date (Exchange writes midnight in a Windows zone for an all-day series) and
//     comes out as that date; one in UTC other than midnight skips the event. The RDATE and EXDATE
//     date-times of an all-day event that name dates in the same way become those dates.
//   - Decode is lenient where files in the wild are wrong in harmless ways: a missing VALUE=DATE
//     on a bare date, an all-day DTEND on the start date (read as one day), "\N" for a newline,
//     unknown escapes, a comma in GEO, local times in DTSTAMP, DTEND beside DURATION (DTEND is
//     read, as Thunderbird means it), no DTSTAMP (LAST-MODIFIED or CREATED stands in), no UID (one
//     is derived from DTSTART, SUMMARY and RECURRENCE-ID, so that a later export of the same
//     calendar names the same event; an override without UID is then an event of its own, since
//     nothing ties it to its series). Calendar.Warnings lists such forms. A malformed value of a
//     descriptive property (GEO, SEQUENCE, STATUS, DTSTAMP, CREATED, LAST-MODIFIED) is dropped
//     rather than costing the event; a malformed DTSTART, DTEND, DURATION, RECURRENCE-ID, RRULE,
//     RDATE or EXDATE skips the event. When a property that may appear once appears more often, the first
//     wins. EXRULE (deprecated by RFC 5545), alarms, attendees and X- properties are not read.
//   - Recurrence lines are checked for syntax only (one FREQ, well-formed parts and dates): what a
//     rule means is for the code that expands it. Decode rewrites them in one canonical form:
//     upper case, TZID replaced by the resolved zone's name (a Windows name becomes its tz database
//     name), and values in a zone only the file defines, other than the event's own, in UTC.
//   - A content line in another charset than UTF-8 is decoded first: by its CHARSET parameter, else,
//     when it is not UTF-8, as Windows-1252 (which Latin-1 files are too). A line whose encoding
//     cannot be told (UTF-8 beside bytes that are not) or that its CHARSET does not decode skips
//     its event: Decode never turns text it cannot read into U+FFFD. Control characters other than
//     tab and newline are dropped from text, and Encode writes bytes that are not UTF-8 as U+FFFD:
//     RFC 5545 allows neither, and a fold must not split a character. Sub-second parts of times are not written.
//   - Decode takes one VCALENDAR; content after its END is an error.
package ical
