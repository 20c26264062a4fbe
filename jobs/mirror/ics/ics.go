// Package ics imports an iCalendar file or feed (RFC 5545) into the store: `calendard import ics`,
// its --follow mirror, and the same inside serve (issue 14). It is a mirror.Source.
//
// # Basics
//
// Each UID of the file is one event of ours, linked to it (storage.Bulk.Link) so that the next run
// updates the same event instead of creating another, and trashes the event of a UID the file no
// longer has. A UID's VEVENTs — the event, or a series with its RRULE/RDATE/EXDATE lines and the
// overrides of single occurrences (RECURRENCE-ID) — are written in one transaction: the series'
// parent with its `recurrence`, then each override as an edit of the occurrence it replaces, which
// makes it an exception the series keeps. The link's stamp is a hash of what the file says of the
// UID, so a run skips every UID whose VEVENTs did not change (DTSTAMP aside: Google and Outlook
// write the time of the export there, which changes on every download).
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
package ics

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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
	// From is the file's path or the feed's http(s) URL. It names the source's links, so the same
	// file read through another path is another source.
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
	cal, err := im.read(ctx)
	if im.Get != nil {
		rep.Requests = im.Get.Requests()
	}
	var skipped ical.EventErrors
	switch {
	case errors.As(err, &skipped):
		for _, e := range skipped {
			id := e.UID
			if id == "" {
				id = fmt.Sprintf("line %d", e.Line)
			}
			rep.Fail("event", id, e.Err)
		}
	case err != nil:
		return rep, err
	}
	linked, err := im.Store.Linked(ctx, im.From)
	if err != nil {
		return rep, err
	}
	floating := ""
	if z, err := datetime.ParseZone(cal.TimeZone); err == nil {
		floating = z.Name
	}
	groups := byUID(cal.Events)
	opts.Progress.Begin("events", len(groups))
	seen := make(map[string]bool, len(groups))
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if g.main().Status == "CANCELLED" {
			opts.Progress.Add(1)
			continue
		}
		seen[g.uid] = true
		o, err := im.write(ctx, g, floating, linked[g.uid], opts.DryRun)
		switch {
		case err == nil:
			rep.Count(o)
		case mirror.Refused(err):
			rep.Fail("event", g.uid, err)
		default:
			return rep, err
		}
		opts.Progress.Add(1)
	}
	return rep, im.trashGone(ctx, linked, seen, rep, opts.DryRun)
}

// read fetches and decodes the file.
func (im *Importer) read(ctx context.Context) (*ical.Calendar, error) {
	if strings.HasPrefix(im.From, "http://") || strings.HasPrefix(im.From, "https://") {
		get := im.Get
		if get == nil {
			get = &mirror.Getter{}
		}
		res, err := get.Get(ctx, im.From)
		if err != nil {
			return nil, err
		}
		return ical.Decode(bytes.NewReader(res.Body), im.Limits)
	}
	f, err := os.Open(im.From)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ical.Decode(f, im.Limits)
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

// write puts the UID's event, its series and its exceptions in one transaction, and links it.
func (im *Importer) write(ctx context.Context, g *group, floating string, l storage.ExternalLink, dryRun bool) (mirror.Outcome, error) {
	stamp, err := g.stamp(floating)
	if err != nil {
		return 0, err
	}
	if l.Doc.ID != 0 && l.Stamp == stamp {
		return mirror.Unchanged, nil
	}
	main := g.main()
	in, err := eventInput(main, floating)
	if err != nil {
		return 0, err
	}
	overrides := g.overrides
	if g.series != nil {
		lines := append([]string{}, g.series.Recurrence...)
		in.Recurrence = &lines
	} else {
		overrides = nil // the override stands for the event itself
	}
	outcome := mirror.Updated
	err = im.Store.Bulk(ctx, im.Actor, func(b *storage.Bulk) error {
		var e *storage.Event
		var err error
		if l.Doc.ID != 0 {
			e, _, err = b.PutEvent(l.Doc.ID, im.Lang, in)
		} else {
			outcome = mirror.Added
			e, err = b.CreateEvent(im.Lang, in)
		}
		if err != nil {
			return err
		}
		for _, o := range overrides {
			if err := im.writeOverride(b, e.ID, o, floating); err != nil {
				return err
			}
		}
		if err := b.Link(im.From, g.uid, storage.Doc{Kind: storage.DocEvent, ID: e.ID}, stamp); err != nil {
			return err
		}
		if dryRun {
			return mirror.ErrDryRun
		}
		return nil
	})
	if errors.Is(err, mirror.ErrDryRun) {
		err = nil
	}
	return outcome, err
}

// writeOverride edits the occurrence of series parent that o replaces, which makes it an exception.
func (im *Importer) writeOverride(b *storage.Bulk, parent uint64, o *ical.Event, floating string) error {
	id, err := b.Occurrence(parent, o.RecurrenceID)
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

// trashGone trashes and unlinks the event of every UID the last run linked that the file no longer
// has (or now has as cancelled).
func (im *Importer) trashGone(ctx context.Context, linked map[string]storage.ExternalLink, seen map[string]bool, rep *mirror.Report, dryRun bool) error {
	for uid, l := range linked {
		if seen[uid] {
			continue
		}
		err := im.Store.Bulk(ctx, im.Actor, func(b *storage.Bulk) error {
			if err := b.Trash(l.Doc); err != nil {
				return err
			}
			if err := b.Unlink(im.From, uid); err != nil {
				return err
			}
			if dryRun {
				return mirror.ErrDryRun
			}
			return nil
		})
		switch {
		case err == nil || errors.Is(err, mirror.ErrDryRun):
			rep.Count(mirror.Trashed)
		case mirror.Refused(err):
			rep.Fail("event", uid, err)
		default:
			return err
		}
	}
	return nil
}
