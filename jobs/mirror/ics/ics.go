// Package ics imports an iCalendar file or feed (RFC 5545) into the store: `calendard import ics`,
// its --follow mirror, and the same inside serve. It is a mirror.Source.
//
// # Basics
//
// Each UID of the file is one event of ours, linked to it within its calendar (storage.Bulk.Link) so
// that the next run updates the same event instead of creating another, and trashes the event of a
// UID the calendar no longer has. A UID's VEVENTs — the event, or a series with its RRULE/RDATE/EXDATE
// lines and the overrides of single occurrences (RECURRENCE-ID) — are written whole, in one
// transaction with the other UIDs of its batch: the series' parent with its `recurrence`, then each
// override as an edit of the occurrence it replaces, which makes it an exception the series keeps.
// The link's stamp is a hash of what the file says of the UID, so a run skips every UID whose VEVENTs
// did not change (DTSTAMP aside: Google and Outlook write the time of the export there, which changes
// on every download).
//
// An event the file spells wrongly (the codec skips it) or the store refuses is a failure in the report
// and keeps what an earlier run wrote: its UID is still in the file, so it is not trashed as gone.
// The forms of real exports that the codec reads as their writers mean them (a VEVENT without UID
// gets one derived from its content, see ical.Event.UID) are a note each in the report
// (ical.Calendar.Warnings).
//
// # Calendars
//
// A calendar is known by its UIDs, not by where it is read from: `calendar (1).ics`, the same export
// downloaded again, or the same feed under another URL, updates the events of the calendar first
// imported, never adds a copy. The links of a calendar are those of one source (storage.Bulk.Link's),
// named by the path or URL the calendar was first imported from; the store keeps, for each place
// read (storage.Origin), the source it was read as. A run links its file's UIDs under:
//
//  1. the source most of whose links are UIDs of the file, provided they also are most of the file's
//     UIDs (RFC 5545 makes UIDs globally unique, so a file sharing most of its UIDs with a calendar
//     is that calendar again); the place's own source first when several qualify;
//  2. else the source the place was read as last time (a calendar the place has always held, however
//     much of it changed);
//  3. else the place itself: a new calendar, or one imported before this rule under its path.
//
// Two calendars sharing a few UIDs (the same event in two categories' exports of one site) stay two
// calendars, each with its own event for it; a run trashes only what its own calendar no longer has.
//
// A feed (an http(s) URL) is asked for as text/calendar, and conditionally: the store keeps the ETag
// and Last-Modified of the feed as its last complete run read it, with its origin, and the next run
// sends them (If-None-Match, If-Modified-Since), so an unchanged feed costs one 304 and the run writes
// nothing, reporting every linked UID unchanged; a restart or a one-off `import ics URL` included.
//
// What becomes what is eventInput's documentation.
//
// # Caveats
//
//   - A VEVENT with STATUS:CANCELLED is an event the calendar no longer has: it is not imported, and
//     trashed when an earlier run imported it.
//   - An override whose occurrence the series does not have (outside the series window, or a moved
//     RECURRENCE-ID that matches no date of the rule) is reported as a failure and skipped.
//   - An override the file drops later leaves its occurrence as the exception it was: nothing in the
//     file says what the occurrence should go back to but the parent, and editing the parent again
//     does not reach exceptions (that is what makes them exceptions).
//   - A TZID only the file defines (Outlook's "Customized Time Zone") gives the event the fixed offset
//     in force at its start (see eventZone); the occurrences of its series keep that offset across
//     the zone's DST changes.
//   - A calendar read from a new place after it lost more than half of its events, or grew by more
//     than its size, is not recognised: it becomes a new calendar, with its own copy of the events
//     it still shares with the old one (which the old place's runs keep up to date or trash).
//   - A store that holds two copies of a calendar already (imported from two paths before the store
//     kept calendars by their UIDs) keeps both; each path's runs keep its own copy.
package ics

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/ical"
)

// Importer brings the store in line with one iCalendar file or feed.
type Importer struct {
	// From is the file's path or the feed's http(s) URL. A new calendar's links are named by it
	// (see Calendars in the package documentation).
	From  string
	Store mirror.Store
	// Actor writes the events and becomes their author.
	Actor storage.Actor
	// Lang is the language the events are created in.
	Lang storage.Lang
	// Get fetches a feed (From a URL); its retries and credentials apply.
	Get *mirror.Getter
	// Limits bound what a file may hold (ical.Limits; zero fields take their defaults).
	Limits ical.Limits
}

// feedAccept is the Accept header of a feed request: iCalendar, or whatever the server has, as many
// serve .ics files as text/plain or application/octet-stream.
const feedAccept = "text/calendar, */*;q=0.1"

// errNotModified is read's answer when the feed has not changed since the last complete run.
var errNotModified = errors.New("ics: feed not modified")

// stampVersion changes when what an event takes from a VEVENT changes (eventInput), so that the
// next run writes every event again instead of skipping them as unchanged.
const stampVersion = "1"

// Name is the source's name in reports and links.
func (im *Importer) Name() string { return im.From }

// Sync imports the file once; see the package documentation.
func (im *Importer) Sync(ctx context.Context, opts mirror.Options) (*mirror.Report, error) {
	opts = opts.WithDefaults()
	rep := &mirror.Report{Source: im.From}
	opts.Progress.Begin("reading "+im.From, 0)
	if im.Get != nil {
		// The Getter outlives a run (--follow): the report counts this run's requests.
		before := im.Get.Requests()
		defer func() { rep.Requests = im.Get.Requests() - before }()
	}
	origin, err := im.Store.Origin(ctx, im.From)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return rep, err
	}
	cal, validators, err := im.read(ctx, origin)
	if errors.Is(err, errNotModified) {
		linked, err := im.Store.Linked(ctx, origin.Source)
		for range linked {
			rep.Count(mirror.Unchanged)
		}
		return rep, err
	}
	// seen holds the UIDs the file has: the others' events are trashed at the end. An event the file
	// spells wrongly this time is still the file's: it is reported, and its event left as it was.
	seen := map[string]bool{}
	var skipped ical.EventErrors
	switch {
	case errors.As(err, &skipped):
		for _, e := range skipped {
			id := e.UID
			if id == "" || e.Derived {
				id = fmt.Sprintf("line %d", e.Line)
			}
			seen[e.UID] = true
			rep.Fail("event", id, e.Err)
		}
	case err != nil:
		return rep, err
	}
	for _, w := range cal.Warnings {
		rep.Note("%s", w)
	}
	groups := byUID(cal.Events)
	source, err := im.calendar(ctx, origin, seen, groups)
	if err != nil {
		return rep, err
	}
	if source != im.From && source != origin.Source {
		// Once: the place's origin remembers it from now on.
		rep.Note("the same calendar (by its UIDs) as first imported from %s: its events are updated, not added again", source)
	}
	linked, err := im.Store.Linked(ctx, source)
	if err != nil {
		return rep, err
	}
	floating := ""
	if z, err := datetime.ParseZone(cal.TimeZone); err == nil {
		floating = z.Name
	}
	opts.Progress.Begin("events", len(groups))
	var batch []*change
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if g.main().Status == "CANCELLED" {
			opts.Progress.Add(1)
			continue
		}
		seen[g.uid] = true
		c, err := prepare(g, source, floating, linked[g.uid])
		switch {
		case err != nil:
			rep.Fail("event", g.uid, err)
		case c == nil:
			rep.Count(mirror.Unchanged)
		default:
			batch = append(batch, c)
		}
		if len(batch) == batchSize {
			if err := im.commit(ctx, batch, rep); err != nil {
				return rep, err
			}
			batch = batch[:0]
		}
		opts.Progress.Add(1)
	}
	if err := im.commit(ctx, batch, rep); err != nil {
		return rep, err
	}
	if err := im.trashGone(ctx, source, linked, seen, rep); err != nil {
		return rep, err
	}
	// Only now: a run that stopped short must not make the next one skip the feed.
	next := storage.Origin{Source: source, ETag: validators.ETag, LastModified: validators.LastModified}
	if next == origin {
		return rep, nil
	}
	return rep, im.Store.Bulk(ctx, im.Actor, func(b *storage.Bulk) error { return b.PutOrigin(im.From, next) })
}

// calendar returns the source the file's UIDs are linked under (Calendars in the package
// documentation): seen holds the UIDs the codec skipped, groups the others.
func (im *Importer) calendar(ctx context.Context, origin storage.Origin, seen map[string]bool, groups []*group) (string, error) {
	uids := map[string]bool{}
	for uid := range seen {
		if uid != "" {
			uids[uid] = true
		}
	}
	for _, g := range groups {
		uids[g.uid] = true
	}
	counts, err := im.Store.LinkCounts(ctx, uids)
	if err != nil {
		return "", err
	}
	own := cmp.Or(origin.Source, im.From)
	best := ""
	for source, n := range counts {
		if 2*n.Shared <= n.Links || 2*n.Shared <= len(uids) {
			continue
		}
		if source == own {
			return own, nil
		}
		if b := counts[best]; best == "" || n.Shared > b.Shared || n.Shared == b.Shared && source < best {
			best = source
		}
	}
	return cmp.Or(best, own), nil
}

// read fetches and decodes the file, and returns a feed's validators (ETag, Last-Modified). A feed is
// asked for with the validators the store keeps of it: errNotModified when the server answers 304.
func (im *Importer) read(ctx context.Context, origin storage.Origin) (*ical.Calendar, mirror.Request, error) {
	if strings.HasPrefix(im.From, "http://") || strings.HasPrefix(im.From, "https://") {
		get := im.Get
		if get == nil {
			get = &mirror.Getter{}
		}
		res, err := get.Do(ctx, mirror.Request{URL: im.From, Accept: feedAccept, ETag: origin.ETag, LastModified: origin.LastModified})
		if err != nil {
			return nil, mirror.Request{}, err
		}
		if res.Status == http.StatusNotModified {
			return nil, mirror.Request{}, errNotModified
		}
		validators := mirror.Request{ETag: res.Header.Get("ETag"), LastModified: res.Header.Get("Last-Modified")}
		cal, err := ical.Decode(bytes.NewReader(res.Body), im.Limits)
		return cal, validators, err
	}
	f, err := os.Open(im.From)
	if err != nil {
		return nil, mirror.Request{}, err
	}
	defer f.Close()
	cal, err := ical.Decode(f, im.Limits)
	return cal, mirror.Request{}, err
}

// group is the VEVENTs of one UID: the event or series (zero when the file has only overrides of
// it) and the overrides of single occurrences, in file order.
type group struct {
	uid       string
	series    *ical.Event
	overrides []*ical.Event
}

// main is the VEVENT the event is made of: the series, or the first override of a series the file
// does not hold (an invitation to one occurrence, as calendar apps export them).
func (g *group) main() *ical.Event {
	if g.series != nil {
		return g.series
	}
	return g.overrides[0]
}

// byUID groups events by UID, in the order each UID first appears.
func byUID(events []ical.Event) []*group {
	var out []*group
	at := map[string]*group{}
	for i := range events {
		ev := &events[i]
		g := at[ev.UID]
		if g == nil {
			g = &group{uid: ev.UID}
			at[ev.UID] = g
			out = append(out, g)
		}
		if ev.RecurrenceID.IsZero() && g.series == nil {
			g.series = ev
		} else {
			g.overrides = append(g.overrides, ev)
		}
	}
	return out
}

// stamp is the link stamp of g: a hash of its VEVENTs without their DTSTAMP, and of the zone its
// floating times are read in.
func (g *group) stamp(floating string) (string, error) {
	events := make([]ical.Event, 0, 1+len(g.overrides))
	if g.series != nil {
		events = append(events, *g.series)
	}
	for _, o := range g.overrides {
		events = append(events, *o)
	}
	for i := range events {
		events[i].Stamp = time.Time{}
	}
	b, err := json.Marshal(struct {
		Version, Floating string
		Events            []ical.Event
	}{stampVersion, floating, events})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16]), nil
}

// batchSize is how many UIDs one transaction writes: one fsync for each of them made a large file
// import a quarter as fast (BenchmarkImport).
const batchSize = 50

// change is the write of one UID: its event (a series' parent) and the overrides of its occurrences.
type change struct {
	source    string // the calendar's (Importer.calendar)
	uid       string
	link      storage.ExternalLink // the last run's; zero for a UID new to the store
	stamp     string
	in        *storage.EventInput
	overrides []*ical.Event
	floating  string
}

// prepare returns the change a UID's VEVENTs make, nil when they did not change since the last run.
func prepare(g *group, source, floating string, l storage.ExternalLink) (*change, error) {
	stamp, err := g.stamp(floating)
	if err != nil {
		return nil, err
	}
	if l.Doc.ID != 0 && l.Stamp == stamp {
		return nil, nil
	}
	in, err := eventInput(g.main(), floating)
	if err != nil {
		return nil, err
	}
	c := &change{source: source, uid: g.uid, link: l, stamp: stamp, in: in, floating: floating}
	if g.series != nil {
		lines := append([]string{}, g.series.Recurrence...)
		in.Recurrence = &lines
		c.overrides = g.overrides
	} // else the override stands for the event itself
	return c, nil
}

// commit writes changes in one transaction, each UID whole with its link, and counts their outcomes.
// When the store refuses one of them, each is written again alone, so that only that one fails. It
// returns an error only when the run must stop.
func (im *Importer) commit(ctx context.Context, changes []*change, rep *mirror.Report) error {
	if len(changes) == 0 {
		return nil
	}
	err := im.Store.Bulk(ctx, im.Actor, func(b *storage.Bulk) error {
		for _, c := range changes {
			if err := im.put(b, c); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case err == nil:
		for _, c := range changes {
			if c.link.Doc.ID != 0 {
				rep.Count(mirror.Updated)
			} else {
				rep.Count(mirror.Added)
			}
		}
		return nil
	case !storage.Refused(err):
		return err
	case len(changes) == 1:
		rep.Fail("event", changes[0].uid, err)
		return nil
	}
	for _, c := range changes {
		if err := im.commit(ctx, []*change{c}, rep); err != nil {
			return err
		}
	}
	return nil
}

// put writes one UID's event, its exceptions and its link.
func (im *Importer) put(b *storage.Bulk, c *change) error {
	var e *storage.Event
	var err error
	if c.link.Doc.ID != 0 {
		e, _, err = b.PutEvent(c.link.Doc.ID, im.Lang, c.in)
	} else {
		e, err = b.CreateEvent(im.Lang, c.in)
	}
	if err != nil {
		return err
	}
	for _, o := range c.overrides {
		if err := im.writeOverride(b, e, o, c.floating); err != nil {
			return err
		}
	}
	return b.Link(c.source, c.uid, storage.Doc{Kind: storage.DocEvent, ID: e.ID}, c.stamp)
}

// writeOverride edits the occurrence of series parent that o replaces, which makes it an exception.
func (im *Importer) writeOverride(b *storage.Bulk, parent *storage.Event, o *ical.Event, floating string) error {
	at, err := occurrenceAt(o.RecurrenceID, parent)
	if err != nil {
		return err
	}
	id, err := b.Occurrence(parent.ID, at)
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("%w: RECURRENCE-ID %s names no occurrence of the series", storage.ErrInvalid, o.RecurrenceID.Format(time.RFC3339))
	}
	if err != nil {
		return err
	}
	in, err := eventInput(o, floating)
	if err != nil {
		return err
	}
	_, _, err = b.PutEvent(id, im.Lang, in)
	return err
}

// occurrenceAt is the instant by which the occurrence of series that a RECURRENCE-ID names is found
// (storage.Bulk.Occurrence matches the date in the series' zone). A floating RECURRENCE-ID, an
// all-day series' date among them, is a wall clock in the series' zone, whatever its offset; and an
// all-day series' occurrence is the date its RECURRENCE-ID names in its own zone, so that Exchange's
// midnight in a Windows zone finds its date in a series kept in another.
func occurrenceAt(rid time.Time, series *storage.Event) (time.Time, error) {
	if rid.Location() != ical.Floating && !series.AllDay {
		return rid, nil
	}
	zone, err := datetime.ParseZone(series.Timezone)
	if err != nil {
		return time.Time{}, err
	}
	h, m, s := rid.Clock()
	if series.AllDay {
		h, m, s = 0, 0, 0
	}
	return time.Date(rid.Year(), rid.Month(), rid.Day(), h, m, s, 0, zone.Loc), nil
}

// trashGone trashes and unlinks the event of every UID of calendar source that the file no longer has
// (or now has as cancelled).
func (im *Importer) trashGone(ctx context.Context, source string, linked map[string]storage.ExternalLink, seen map[string]bool, rep *mirror.Report) error {
	for uid, l := range linked {
		if seen[uid] {
			continue
		}
		err := im.Store.Bulk(ctx, im.Actor, func(b *storage.Bulk) error {
			if err := b.Trash(l.Doc); err != nil {
				return err
			}
			return b.Unlink(source, uid)
		})
		switch {
		case err == nil:
			rep.Count(mirror.Trashed)
		case storage.Refused(err):
			rep.Fail("event", uid, err)
		default:
			return err
		}
	}
	return nil
}
