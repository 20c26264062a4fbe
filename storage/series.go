package storage

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/slug"
)

// Series. An event whose Recurrence holds a rule is a series' parent and its first occurrence. Every
// further occurrence inside SeriesWindow is an event of its own, materialised by the write that
// changed the parent, in the same transaction: its own ID, the slug `<parent-slug>-YYYY-MM-DD`, the
// parent's fields with the dates moved to its day in the event's zone (19:00 stays 19:00 across a
// daylight-saving change), Parent set to the parent's ID. So lists, search, counts and permissions
// treat occurrences as the events they are, and nothing is expanded at request time.
//
// The rules, each applied by the one write that triggers it (syncSeries):
//   - a write of the parent brings every occurrence that was not edited on its own (Detached) in step
//     with it, creates the missing ones, and moves to the trash the future ones the rule no longer
//     gives but the detached ones; occurrences before now stay, as history;
//   - a write of an occurrence detaches it: the series keeps it as it is from then on;
//   - trashing an occurrence adds its day to the parent's exclusions (an EXDATE line), and restoring
//     it takes the day out again (or detaches it, when its day was not excluded);
//   - trashing the parent trashes the series, restoring it restores the occurrences trashed with it,
//     and removing the rule (an empty recurrence) trashes every occurrence;
//   - the parent's write permission covers its occurrences, and an occurrence's trash permission the
//     parent's exclusions.
//
// Translations: a series is one language's. Each occurrence has a translation group of its own, and
// a translation of the parent (translation_of) is an event of its own, a series of its own when it
// carries a rule.
//
// An importer writes a series as the API does: the parent with its Recurrence (Bulk.PutEvent), then
// an exception (RECURRENCE-ID) as a write of the occurrence Bulk.Occurrence names.

// DefaultSeriesMonths is the default of Options.SeriesPast and Options.SeriesHorizon.
const DefaultSeriesMonths = 24

// DefaultSeriesMaxText is the default of Options.SeriesMaxText: 8 MiB lets a daily series over the
// default window of four years (1,461 occurrences) carry 5.7 KB of text, and a weekly one 40 KB, while
// one write can no longer add the 93 MB a daily series with a 65 KB description did.
const DefaultSeriesMaxText = 8 << 20

// checkSeriesText refuses a series whose occurrences would copy more than the store's SeriesMaxText
// bytes of its parent p's text: each occurrence holds the parent's title, excerpt and description.
func (db *DB) checkSeriesText(p *Event, occurrences int) error {
	each := len(p.Title) + len(p.Excerpt) + len(p.Description)
	if occurrences*each <= db.seriesMaxText {
		return nil
	}
	return invalid("recurrence", "%d occurrences would each copy the %d bytes of the title, excerpt and description, "+
		"more than the %d bytes a series may copy: shorten the text or the rule", occurrences, each, db.seriesMaxText)
}

// SeriesWindow is the span whose occurrences a series starting at start materialises at now: from the
// later of the start and SeriesPast months before now, to SeriesHorizon months after the later of now
// and the start.
func (db *DB) SeriesWindow(start, now time.Time) (from, to time.Time) {
	from = now.AddDate(0, -db.seriesPast, 0)
	if start.After(from) {
		from = start
	}
	to = now
	if start.After(to) {
		to = start
	}
	return from, to.AddDate(0, db.seriesHorizon, 0)
}

// occurrenceSlug is the slug an occurrence on day of a series whose parent has slug parent starts from.
func occurrenceSlug(parent string, day time.Time) string {
	return slug.Normalize(parent + "-" + day.Format(dayLayout))
}

// checkRecurrence validates a recurrence update of e before it is applied: an occurrence takes no rule.
func checkRecurrence(e *Event, in *EventInput) error {
	if in.Recurrence != nil && len(*in.Recurrence) > 0 && e.Parent != 0 {
		return invalid("recurrence", "event %d is an occurrence of series %d: edit the series' rule there", e.ID, e.Parent)
	}
	return nil
}

// cleanRecurrence drops blank lines and surrounding spaces.
func cleanRecurrence(lines []string) []string {
	out := []string{}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// startIn returns e's start as an instant in its zone.
func (w *writer) startIn(e *Event) (time.Time, error) {
	zone, err := datetime.ParseZone(e.Timezone)
	if err != nil {
		return time.Time{}, err
	}
	return e.StartUTC.In(zone.Loc), nil
}

// syncSeries brings the occurrences of parent p in step with it (the rules above); p has been saved.
// retext says that p's searched text (title, excerpt, description) changed: every occurrence is then
// logged, rewritten or not, because the index keeps one copy of a series' text for the occurrences
// whose text is the parent's, and must decide again for each whether it still is.
func (w *writer) syncSeries(p *Event, retext bool) error {
	start, err := w.startIn(p)
	if err != nil {
		return err
	}
	if len(p.Recurrence) > 0 {
		err = w.tx.Put(bParents, u64(p.ID), nil)
	} else {
		err = w.tx.Delete(bParents, u64(p.ID))
	}
	if err != nil {
		return err
	}
	var want []time.Time
	var r *rule
	live := p.Status != StatusTrash && len(p.Recurrence) > 0
	if live {
		if r, err = parseRule(p.Recurrence, start); err != nil {
			return err
		}
		from, to := w.db.SeriesWindow(start, w.now)
		if want, err = r.occurrences(start, from, to); err != nil {
			return err
		}
		if err := w.db.checkSeriesText(p, len(want)); err != nil {
			return err
		}
	}
	byDay := map[string]*Event{}
	occurrences := linkedIDs(w.tx, bSeries, p.ID)
	for _, id := range occurrences {
		c, err := loadPost[Event](w.tx, TypeEvent, id, w.now)
		if err != nil {
			return err
		}
		byDay[c.day()] = c
	}
	for _, t := range want {
		day := t.Format(dayLayout)
		c := byDay[day]
		delete(byDay, day)
		if c == nil {
			err = w.createOccurrence(p, t)
		} else {
			err = w.refreshOccurrence(p, c, t)
		}
		if err != nil {
			return err
		}
	}
	// The days left, in order, so that the change log is the same for the same write.
	for _, day := range slices.Sorted(maps.Keys(byDay)) {
		c := byDay[day]
		if live && c.Detached && c.Status == StatusTrash && !r.exdays[day] {
			// An exception the series trashed (with the parent, or with its rule) comes back with it.
			if err := w.refreshOccurrence(p, c, time.Time{}); err != nil {
				return err
			}
			continue
		}
		if c.Status == StatusTrash || (live && (c.Detached || c.StartUTC.Before(w.now))) {
			continue
		}
		old := *c
		if err := w.trash(&c.Post); err != nil {
			return err
		}
		if err := w.linkEvent(&old, c); err != nil {
			return err
		}
		if _, err := w.save(c, &old.Post, nil); err != nil {
			return err
		}
	}
	if retext {
		for _, id := range occurrences {
			w.touch(DocEvent, id)
		}
	}
	return nil
}

// FirstExcluded reports whether e is a series' parent whose own day, the series' first, an EXDATE
// takes out: the parent then holds the series (its rule, its fields for the occurrences) but is no
// event that day, so lists and feeds leave it out as they do an event hidden from listings, and it
// stays reachable by ID and slug. A line that does not read excludes nothing.
func (e *Event) FirstExcluded() bool {
	var exdates []string
	for _, s := range e.Recurrence {
		if l, err := parseLine(s); err == nil && l.name == "EXDATE" {
			exdates = append(exdates, s)
		}
	}
	if len(exdates) == 0 {
		return false
	}
	zone, err := datetime.ParseZone(e.Timezone)
	if err != nil {
		return false
	}
	start := e.StartUTC.In(zone.Loc)
	r, err := parseRule(exdates, start)
	return err == nil && r.exdays[start.Format(dayLayout)]
}

// day is the local date of occurrence c's rule-given start, which names it in its series.
func (c *Event) day() string {
	day, _, _ := strings.Cut(c.Occurrence, " ")
	return day
}

// shape gives occurrence c parent p's fields, its dates moved to t; c keeps its identity.
func shape(c, p *Event, t time.Time) {
	id := c.Post
	*c = *p
	c.ID, c.Group, c.Slug, c.Modified = id.ID, id.Group, id.Slug, id.Modified
	c.Status, c.TrashedFrom, c.TrashedAt, c.promoted = id.Status, id.TrashedFrom, id.TrashedAt, false
	if p.Status != StatusTrash {
		c.Status = p.storedStatus()
	}
	c.Cost, c.Categories, c.Tags = slices.Clone(p.Cost), slices.Clone(p.Categories), slices.Clone(p.Tags)
	c.OrganizerIDs = slices.Clone(p.OrganizerIDs)
	c.Recurrence, c.Parent, c.Detached = nil, p.ID, false
	c.Occurrence = datetime.WallOf(t).String()
	// The occurrence lasts as long as the parent on the wall clock, from its own start: 19:00–21:00
	// stays so across a daylight-saving change, and an RDATE at another time of day (one in UTC, read
	// in the event's zone) keeps the length too.
	loc := t.Location()
	length := civil(p.EndUTC.In(loc)).Sub(civil(p.StartUTC.In(loc)))
	end := datetime.WallOf(civil(t).Add(length)).In(loc)
	c.StartUTC, c.EndUTC = t.UTC(), end.UTC()
	c.Start, c.End = datetime.WallOf(t).String(), datetime.WallOf(end).String()
}

// civil is t's wall clock read as if it were UTC, where wall clocks add and subtract without zone
// changes.
func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// createOccurrence materialises the occurrence of parent p starting at t.
func (w *writer) createOccurrence(p *Event, t time.Time) error {
	post, err := w.newPost(TypeEvent, p.Lang, 0)
	if err != nil {
		return err
	}
	c := &Event{Post: post}
	c.Status = p.storedStatus()
	shape(c, p, t)
	if err := w.finishCreate(&c.Post, occurrenceSlug(p.Slug, t), nil); err != nil {
		return err
	}
	if err := w.tx.Put(bSeries, pair(p.ID, c.ID), nil); err != nil {
		return err
	}
	if err := w.linkEvent(nil, c); err != nil {
		return err
	}
	_, err = w.save(c, nil, nil)
	return err
}

// refreshOccurrence brings occurrence c, due at t, in step with parent p: out of the trash the
// series put it in, and unless detached, with p's fields and slug (t is unused for a detached one).
func (w *writer) refreshOccurrence(p, c *Event, t time.Time) error {
	old, stored := *c, snapshot(c)
	if c.Status == StatusTrash {
		status := c.TrashedFrom
		if !c.Detached {
			status = p.storedStatus()
		}
		if err := w.restore(&c.Post, status); err != nil {
			return err
		}
	}
	if !c.Detached {
		shape(c, p, t)
		if err := w.claimSlug(&c.Post, occurrenceSlug(p.Slug, t)); err != nil {
			return err
		}
		if old.Title != c.Title {
			if err := w.indexName(&c.Post, old.Title); err != nil {
				return err
			}
		}
	}
	if changed, err := w.save(c, &old.Post, stored); err != nil || !changed {
		return err
	}
	return w.linkEvent(&old, c)
}

// afterOccurrenceWrite applies the series rules to a write of occurrence c (old: as loaded before):
// trashing excludes its day from the parent, and restoring includes it again, or detaches it when the
// day was not excluded (the rule no longer gives it, or the parent is in the trash), so that the
// series keeps it; any other change detaches it. It runs before c is saved.
func (w *writer) afterOccurrenceWrite(old, c *Event, stored []byte) error {
	switch {
	case old.Status != StatusTrash && c.Status == StatusTrash:
		_, err := w.excludeDay(c, true)
		return err
	case old.Status == StatusTrash && c.Status != StatusTrash:
		included, err := w.excludeDay(c, false)
		c.Detached = c.Detached || !included
		return err
	case !c.Detached && !bytes.Equal(snapshot(c), stored):
		c.Detached = true
	}
	return nil
}

// excludeDay adds occurrence c's day to its parent's exclusions, or takes it out (exclude false), and
// reports whether the parent changed.
func (w *writer) excludeDay(c *Event, exclude bool) (bool, error) {
	p, err := loadPost[Event](w.tx, TypeEvent, c.Parent, w.now)
	if err == ErrNotFound {
		return false, nil // the parent is gone: nothing to exclude it from
	}
	if err != nil {
		return false, err
	}
	start, err := w.startIn(p)
	if err != nil {
		return false, err
	}
	original, err := datetime.ParseWall(c.Occurrence)
	if err != nil {
		return false, err
	}
	at := original.In(start.Location())
	old, stored := *p, snapshot(p)
	p.Recurrence = withoutDay(p.Recurrence, at.Format(dayLayout), start)
	if exclude {
		p.Recurrence = append(p.Recurrence, exdateLine(p, at))
	}
	return w.save(p, &old.Post, stored)
}

// exdateLine is the EXDATE naming the occurrence at t of parent p: a date for an all-day event, else
// the wall clock with its TZID, or the UTC instant when the zone has no IANA name (UTC+2): a TZID the
// rule parser cannot load would make the parent's recurrence unreadable, and the series uneditable.
func exdateLine(p *Event, t time.Time) string {
	switch {
	case p.AllDay:
		return "EXDATE;VALUE=DATE:" + t.Format("20060102")
	case t.Location() != time.UTC && t.Location().String() == p.Timezone && ianaZone(p.Timezone):
		return "EXDATE;TZID=" + p.Timezone + ":" + t.Format("20060102T150405")
	}
	return "EXDATE:" + t.UTC().Format("20060102T150405Z")
}

// ianaZone reports whether name is a zone of the IANA database, as a TZID must be.
func ianaZone(name string) bool {
	_, err := time.LoadLocation(name)
	return err == nil
}

// withoutDay removes day from every EXDATE of lines (read for a series starting at start), dropping
// the lines left empty; other lines, and those it cannot read, stay as they are.
func withoutDay(lines []string, day string, start time.Time) []string {
	out := make([]string, 0, len(lines))
	for _, s := range lines {
		l, err := parseLine(s)
		if err != nil || l.name != "EXDATE" {
			out = append(out, s)
			continue
		}
		var keep []string
		for _, v := range strings.Split(l.value, ",") {
			r, err := parseRule([]string{l.name + ";" + strings.Join(l.params, ";") + ":" + v}, start)
			if len(l.params) == 0 {
				r, err = parseRule([]string{"EXDATE:" + v}, start)
			}
			if err != nil || !r.exdays[day] {
				keep = append(keep, v)
			}
		}
		switch {
		case len(keep) == len(strings.Split(l.value, ",")):
			out = append(out, s)
		case len(keep) > 0:
			l.value = strings.Join(keep, ",")
			out = append(out, l.String())
		}
	}
	return out
}

// TrashOccurrence cancels the occurrence of series parent on day (its local date, YYYY-MM-DD, as its
// slug ends), on behalf of a: the first, the parent's own, by an EXDATE of the parent's start, which
// takes the parent out of the lists (FirstExcluded) and leaves the series as it is; any other by moving
// its record to the trash, as TrashEvent does. It returns the event cancelled: the parent, or the
// occurrence. Taking that EXDATE out of the parent's recurrence brings the first occurrence back.
//
// Returns ErrNotFound, ErrWrongType, ErrForbidden and ErrMirrored as TrashEvent does, ErrTrashed when
// the series or that occurrence is cancelled already, and a *FieldError of `occurrence` when parent
// is no series' parent or its series has no occurrence on day.
func (db *DB) TrashOccurrence(ctx context.Context, a Actor, parent uint64, day string) (*Event, error) {
	var e *Event
	err := db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		p, err := loadWritable[Event](w, TypeEvent, parent, Actor.CanDelete)
		switch {
		case err != nil:
			return err
		case p.Parent != 0:
			return invalid("occurrence", "event %d is an occurrence of series %d: delete it without occurrence", parent, p.Parent)
		case len(p.Recurrence) == 0:
			return invalid("occurrence", "event %d is not the parent of a series", parent)
		case p.Status == StatusTrash:
			return ErrTrashed
		}
		start, err := w.startIn(p)
		if err != nil {
			return err
		}
		if day == start.Format(dayLayout) {
			if p.FirstExcluded() {
				return ErrTrashed
			}
			old, stored := *p, snapshot(p)
			p.Recurrence = append(p.Recurrence, exdateLine(p, start))
			if _, err := w.save(p, &old.Post, stored); err != nil {
				return err
			}
			e = p
			return w.flush()
		}
		c, err := w.occurrenceOn(parent, day, func(*Event) bool { return true })
		if errors.Is(err, ErrNotFound) {
			return invalid("occurrence", "series %d has no occurrence on %s", parent, day)
		}
		if err != nil {
			return err
		}
		e, err = w.trashWritable(c.ID)
		return err
	})
	if err != nil {
		return nil, fail(OpTrash, DocEvent, parent, err)
	}
	return e, nil
}

// Occurrence returns the ID of the occurrence of series parent whose rule-given start falls on the
// day of at in the event's zone: what an importer edits to write an exception (RECURRENCE-ID).
// Returns ErrNotFound when the series has none that day (outside its window, or excluded).
func (b *Bulk) Occurrence(parent uint64, at time.Time) (uint64, error) {
	p, err := loadPost[Event](b.w.tx, TypeEvent, parent, b.w.now)
	if err != nil {
		return 0, err
	}
	start, err := b.w.startIn(p)
	if err != nil {
		return 0, err
	}
	c, err := b.w.occurrenceOn(parent, at.In(start.Location()).Format(dayLayout), func(c *Event) bool { return c.Status != StatusTrash })
	if err != nil {
		return 0, err
	}
	return c.ID, nil
}

// occurrenceOn returns the first occurrence of series parent on day (the local date of its rule-given
// start) that keep accepts, or ErrNotFound.
func (w *writer) occurrenceOn(parent uint64, day string, keep func(*Event) bool) (*Event, error) {
	for _, id := range linkedIDs(w.tx, bSeries, parent) {
		c, err := loadPost[Event](w.tx, TypeEvent, id, w.now)
		if err != nil {
			return nil, err
		}
		if c.day() == day && keep(c) {
			return c, nil
		}
	}
	return nil, ErrNotFound
}

// ExtendSeries materialises the occurrences that came inside the window of every series since their
// last write: the horizon job runs it daily, so endless rules keep SeriesHorizon months ahead. It
// never trashes past occurrences. Each series is its own transaction, and one that fails (its rule
// gives too many occurrences for a window made larger since it was written) does not stop the others:
// it returns how many series it wrote and the failures joined.
func (db *DB) ExtendSeries(ctx context.Context) (int, error) {
	var parents []uint64
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		c := tx.Cursor(bParents)
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			parents = append(parents, beUint(k))
		}
		return nil
	})
	if err != nil {
		return 0, fail(OpUpdate, DocEvent, 0, err)
	}
	n := 0
	var errs []error
	for _, id := range parents {
		wrote := false
		err := db.update(ctx, func(tx kv.RwTx) error {
			w := db.newWriter(tx, Actor{})
			p, err := loadPost[Event](tx, TypeEvent, id, w.now)
			if err != nil || len(p.Recurrence) == 0 || p.Status == StatusTrash {
				return err
			}
			if err := w.syncSeries(p, false); err != nil {
				return err
			}
			wrote = len(w.order) > 0
			return w.flush()
		})
		switch {
		case ctx.Err() != nil:
			return n, ctx.Err()
		case err != nil && err != ErrNotFound:
			errs = append(errs, fail(OpUpdate, DocEvent, id, err))
		case err == nil && wrote:
			n++
		}
	}
	return n, errors.Join(errs...)
}
