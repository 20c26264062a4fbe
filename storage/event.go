package storage

import (
	"context"
	"fmt"
	"slices"

	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/slug"
)

// EventInput is an event create or update request with its values' types checked; nil means "not
// sent" (docs/API.md "Updates"). Its values are as sent: the write applies the input rules (normalize.go).
type EventInput struct {
	PostInput
	Excerpt *string
	Slug    *string
	// Timezone is a zone name (CleanZone); "" means the site zone.
	Timezone   *string
	AllDay     *bool
	Start, End *datetime.Expr
	// Cost holds the items as sent (CleanCost); an empty slice clears the cost.
	Cost    *[]string
	Website *string
	// NoWebsite forgets the stored website, as on an event that never had one: the response shows the
	// event's page URL (docs/API.md "The event object"), where Website "" on an update stores an empty one. It is an
	// importer's, for a source's event without a website; Website is then ignored.
	NoWebsite        bool
	ShowMap          *bool
	ShowMapLink      *bool
	HideFromListings *bool
	Sticky           *bool
	Featured         *bool
	// Categories and Tags hold items as sent: all digits is a term ID, anything else a slug or name.
	Categories *[]string
	Tags       *[]string
	// Venue nil: unchanged; a VenueRef with ID 0 and no New: no venue.
	Venue      *VenueRef
	Organizers *[]OrganizerRef
	// Recurrence makes the event a series' parent: RFC 5545 RRULE, RDATE and EXDATE lines, as Google
	// Calendar's recurrence[] (series.go); an empty slice ends the series. An occurrence takes none.
	Recurrence *[]string
}

// VenueRef links an existing venue (ID) or creates one (New).
type VenueRef struct {
	ID  uint64
	New *VenueInput
}

// OrganizerRef links an existing organizer (ID) or creates one (New).
type OrganizerRef struct {
	ID  uint64
	New *OrganizerInput
}

// CreateEvent creates an event in language lang on behalf of a. Returns a *FieldError (kind
// ErrInvalid or ErrLinkedPost) for a value the store rejects, ErrConflict when translation_of's group
// already has this language, ErrCannotEditOthers for an author the caller may not choose.
func (db *DB) CreateEvent(ctx context.Context, a Actor, lang Lang, in *EventInput) (*Event, error) {
	var e *Event
	err := db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		var err error
		if e, err = w.createEvent(0, lang, in); err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, fail(OpCreate, DocEvent, 0, err)
	}
	return e, nil
}

// createEvent creates an event with ID id, or the next free ID when id is 0 (newPost).
func (w *writer) createEvent(id uint64, lang Lang, in *EventInput) (*Event, error) {
	in, err := in.normalized(w.a)
	if err != nil {
		return nil, err
	}
	p, err := w.newPost(TypeEvent, lang, id)
	if err != nil {
		return nil, err
	}
	e := &Event{Post: p, Timezone: w.db.siteZone.Name}
	if err := w.applyEvent(e, in, true); err != nil {
		return nil, err
	}
	base := slug.Normalize(e.Title)
	if in.Slug != nil {
		base = slug.Normalize(*in.Slug)
	}
	if err := w.finishCreate(&e.Post, base, in.TranslationOf); err != nil {
		return nil, err
	}
	if err := w.linkEvent(nil, e); err != nil {
		return nil, err
	}
	if _, err = w.save(e, nil, nil); err != nil || len(e.Recurrence) == 0 {
		return e, err
	}
	return e, w.syncSeries(e, false)
}

// UpdateEvent applies a partial update to event id. Returns ErrNotFound, ErrWrongType (the ID is
// another record type), ErrForbidden (a cannot edit it, or trash it through status), and the errors of
// CreateEvent.
func (db *DB) UpdateEvent(ctx context.Context, a Actor, id uint64, in *EventInput) (*Event, error) {
	in, err := in.normalized(a)
	if err != nil {
		return nil, fail(OpUpdate, DocEvent, id, err)
	}
	var e *Event
	err = db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		var changed bool
		var err error
		// An update that changes nothing writes nothing, change log included.
		if e, changed, err = w.updateEvent(id, in); err != nil || !changed {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, fail(OpUpdate, DocEvent, id, err)
	}
	return e, nil
}

// updateEvent applies a normalised update to event id and reports whether it changed anything.
func (w *writer) updateEvent(id uint64, in *EventInput) (e *Event, changed bool, err error) {
	if e, err = loadWritable[Event](w, TypeEvent, id, Actor.CanEdit); err != nil {
		return nil, false, err
	}
	old, stored := *e, snapshot(e)
	if err := checkRecurrence(e, in); err != nil {
		return nil, false, err
	}
	if err := w.applyEvent(e, in, false); err != nil {
		return nil, false, err
	}
	if in.Slug != nil && e.Status != StatusTrash {
		if err := w.claimSlug(&e.Post, slug.Normalize(*in.Slug)); err != nil {
			return nil, false, err
		} else if e.Slug == "" {
			return nil, false, invalid("slug", "must not be empty")
		}
	}
	if e.Parent != 0 {
		if err := w.afterOccurrenceWrite(&old, e, stored); err != nil {
			return nil, false, err
		}
	}
	// An unchanged event touches neither links nor term counts: a due scheduled event reads as
	// published, so linkEvent would count it as published although it stays stored as scheduled, and
	// PublishDue would count it again.
	if changed, err = w.save(e, &old.Post, stored); err != nil || !changed {
		return e, false, err
	}
	if err := w.linkEvent(&old, e); err != nil {
		return nil, false, err
	}
	if len(e.Recurrence) > 0 || len(old.Recurrence) > 0 {
		retext := old.Title != e.Title || old.Excerpt != e.Excerpt || old.Description != e.Description
		return e, true, w.syncSeries(e, retext)
	}
	return e, true, nil
}

// TrashEvent moves event id to the trash. Returns ErrNotFound, ErrWrongType, ErrForbidden (a may not
// delete it) or ErrTrashed.
func (db *DB) TrashEvent(ctx context.Context, a Actor, id uint64) (*Event, error) {
	var e *Event
	err := db.update(ctx, func(tx kv.RwTx) error {
		var err error
		e, err = db.newWriter(tx, a).trashWritable(id)
		return err
	})
	if err != nil {
		return nil, fail(OpTrash, DocEvent, id, err)
	}
	return e, nil
}

// trashWritable trashes event id, which w's actor must be allowed to delete, and flushes w.
func (w *writer) trashWritable(id uint64) (*Event, error) {
	e, err := loadWritable[Event](w, TypeEvent, id, Actor.CanDelete)
	if err != nil {
		return nil, err
	}
	if err := w.trashEvent(e); err != nil {
		return nil, err
	}
	return e, w.flush()
}

// trashEvent moves e, loaded for a write, to the trash with what the series rules make of it: an
// occurrence's day excluded from its parent, a parent's series trashed with it.
func (w *writer) trashEvent(e *Event) error {
	old := *e
	if err := w.trash(&e.Post); err != nil {
		return err
	}
	if e.Parent != 0 {
		if _, err := w.excludeDay(e, true); err != nil {
			return err
		}
	}
	if err := w.linkEvent(&old, e); err != nil {
		return err
	}
	if _, err := w.save(e, &old.Post, nil); err != nil {
		return err
	}
	if len(e.Recurrence) > 0 {
		return w.syncSeries(e, false)
	}
	return nil
}

// applyEvent applies in to e: business rules of docs/API.md "Event fields", "Statuses".
func (w *writer) applyEvent(e *Event, in *EventInput, create bool) error {
	if err := w.applyPost(&e.Post, &in.PostInput, create); err != nil {
		return err
	}
	setIf(&e.Excerpt, in.Excerpt)
	setIf(&e.AllDay, in.AllDay)
	setIf(&e.ShowMap, in.ShowMap)
	setIf(&e.ShowMapLink, in.ShowMapLink)
	setIf(&e.HideFromListings, in.HideFromListings)
	setIf(&e.Sticky, in.Sticky)
	setIf(&e.Featured, in.Featured)
	switch {
	case in.NoWebsite:
		e.Website = nil
	case in.Website != nil:
		e.Website = in.Website
		if create && *in.Website == "" {
			e.Website = nil // on create "" means none yet, so the page URL is shown (docs/API.md "The event object")
		}
	}
	if in.Cost != nil {
		e.Cost = slices.Clone(*in.Cost)
		if len(e.Cost) == 0 {
			e.Cost = nil
		}
	}
	if err := w.applyDates(e, in); err != nil {
		return err
	}
	if in.Recurrence != nil {
		changed := !slices.Equal(e.Recurrence, *in.Recurrence)
		e.Recurrence = slices.Clone(*in.Recurrence)
		if len(e.Recurrence) == 0 {
			e.Recurrence = nil
		}
		// An UNTIL of another type than the start is refused from a client, but an import takes it
		// as apps read it (parseRule), and a client sending such a rule back unchanged keeps it.
		if changed && !w.bulk {
			if err := checkUntil(e.Recurrence, e.AllDay); err != nil {
				return err
			}
		}
	}
	var err error
	if in.Categories != nil {
		if e.Categories, err = w.resolveTerms(TaxCategory, *in.Categories); err != nil {
			return err
		}
	}
	if in.Tags != nil {
		if e.Tags, err = w.resolveTerms(TaxTag, *in.Tags); err != nil {
			return err
		}
	}
	if in.Venue != nil {
		if e.VenueID, err = w.resolveVenue(e.Lang, *in.Venue); err != nil {
			return err
		}
	}
	if in.Organizers != nil {
		e.OrganizerIDs = nil
		for _, ref := range *in.Organizers {
			id, err := w.resolveOrganizer(e.Lang, ref)
			if err != nil {
				return err
			}
			if !slices.Contains(e.OrganizerIDs, id) {
				e.OrganizerIDs = append(e.OrganizerIDs, id)
			}
		}
	}
	return nil
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// applyDates implements docs/API.md "Event fields": wall clocks are kept in the event's zone and the UTC instants
// derived from them.
func (w *writer) applyDates(e *Event, in *EventInput) error {
	if in.Timezone != nil {
		e.Timezone = *in.Timezone
		if e.Timezone == "" {
			e.Timezone = w.db.siteZone.Name
		}
	}
	zone, err := datetime.ParseZone(e.Timezone)
	if err != nil {
		return fmt.Errorf("stored zone %q: %w", e.Timezone, err)
	}
	for _, d := range []struct {
		field string
		expr  *datetime.Expr
		dst   *string
	}{{"start_date", in.Start, &e.Start}, {"end_date", in.End, &e.End}} {
		if d.expr == nil {
			continue
		}
		t, err := d.expr.Eval(zone.Loc, w.now)
		if err != nil {
			return invalid(d.field, "%v", err)
		}
		*d.dst = datetime.WallOf(t).String()
	}
	start, err := datetime.ParseWall(e.Start)
	if err != nil {
		return fmt.Errorf("stored start %q: %w", e.Start, err)
	}
	end, err := datetime.ParseWall(e.End)
	if err != nil {
		return fmt.Errorf("stored end %q: %w", e.End, err)
	}
	if e.AllDay {
		start.Hour, start.Min, start.Sec = 0, 0, 0
		end.Hour, end.Min, end.Sec = 23, 59, 59
	}
	e.StartUTC, e.EndUTC = start.In(zone.Loc).UTC(), end.In(zone.Loc).UTC()
	if e.EndUTC.Before(e.StartUTC) {
		end, e.EndUTC = start, e.StartUTC
	}
	// Store the wall clocks as resolved, so a time skipped by a DST gap reads as the moved one.
	e.Start, e.End = datetime.WallOf(e.StartUTC.In(zone.Loc)).String(), datetime.WallOf(e.EndUTC.In(zone.Loc)).String()
	return nil
}

// linkEvent keeps reverse links and term counts in step with an event's new state (old is nil on
// create) and logs the documents whose derived state depends on the event.
func (w *writer) linkEvent(old, e *Event) error {
	var oldE Event
	if old != nil {
		oldE = *old
	}
	if err := w.relink(bLinkVenue, e.ID, nonZero(oldE.VenueID), nonZero(e.VenueID)); err != nil {
		return err
	}
	if err := w.relink(bLinkOrg, e.ID, oldE.OrganizerIDs, e.OrganizerIDs); err != nil {
		return err
	}
	oldTerms, newTerms := oldE.termIDs(), e.termIDs()
	if err := w.relink(bLinkTerm, e.ID, oldTerms, newTerms); err != nil {
		return err
	}
	// A scheduled event joins its terms' counts at its date, without a write (dueTermCounts): a write
	// that schedules or unschedules one logs its terms, so that what embeds their counts is rendered
	// again and learns the date.
	if old != nil && old.storedStatus() == StatusFuture {
		w.touchTerms(old)
	}
	if e.Status == StatusFuture {
		w.touchTerms(e)
	}
	// Counts follow stored statuses: a due scheduled event that reads as published is not yet counted
	// (reads add it, dueTermCounts).
	wasPublished := old != nil && old.storedStatus() == StatusPublish
	isPublished := e.Status == StatusPublish
	for _, id := range oldTerms {
		if wasPublished && !(isPublished && slices.Contains(newTerms, id)) {
			if err := w.addCount(id, -1); err != nil {
				return err
			}
		}
	}
	for _, id := range newTerms {
		if isPublished && !(wasPublished && slices.Contains(oldTerms, id)) {
			if err := w.addCount(id, +1); err != nil {
				return err
			}
		}
	}
	// Venues and organizers carry flags derived from their events (has_events, upcoming).
	for _, id := range append(nonZero(oldE.VenueID), nonZero(e.VenueID)...) {
		w.touch(DocVenue, id)
	}
	for _, id := range append(slices.Clone(oldE.OrganizerIDs), e.OrganizerIDs...) {
		w.touch(DocOrganizer, id)
	}
	return nil
}

func (w *writer) touchTerms(e *Event) {
	for _, id := range e.Categories {
		w.touch(DocCategory, id)
	}
	for _, id := range e.Tags {
		w.touch(DocTag, id)
	}
}

func nonZero(id uint64) []uint64 {
	if id == 0 {
		return nil
	}
	return []uint64{id}
}

// relink replaces the reverse links from the ids in old to event by those in now.
func (w *writer) relink(bucket []byte, event uint64, old, now []uint64) error {
	for _, id := range old {
		if !slices.Contains(now, id) {
			if err := w.tx.Delete(bucket, pair(id, event)); err != nil {
				return err
			}
		}
	}
	for _, id := range now {
		if err := w.tx.Put(bucket, pair(id, event), nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) addCount(termID uint64, delta int) error {
	for _, tax := range []Taxonomy{TaxCategory, TaxTag} {
		t, err := get[Term](w.tx, termBucket(tax), termID)
		if err == ErrNotFound {
			continue
		}
		if err != nil {
			return err
		}
		t.Count = max(0, t.Count+delta)
		w.touch(termDocKind(tax), termID)
		return put(w.tx, termBucket(tax), termID, t)
	}
	return nil
}

// Event returns event id with everything its response embeds. Returns ErrNotFound or ErrWrongType.
func (db *DB) Event(ctx context.Context, id uint64) (*Event, *Related, error) {
	var e *Event
	var rel *Related
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		var err error
		if e, err = readPost[Event](db.cache, tx, TypeEvent, id, db.now()); err != nil {
			return err
		}
		rel = db.newRelated()
		return rel.addEvent(tx, e, db.now())
	})
	return e, rel, fail(OpGet, DocEvent, id, err)
}

// EventBySlug finds the event of language lang with slug s, preferring a non-trashed one and otherwise
// the most recently trashed (docs/API.md "Statuses"). Returns ErrNotFound.
func (db *DB) EventBySlug(ctx context.Context, lang Lang, s string) (*Event, *Related, error) {
	var e *Event
	var rel *Related
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		id, err := idBySlug(tx, TypeEvent, lang, s)
		if err != nil {
			return err
		}
		if e, err = readPost[Event](db.cache, tx, TypeEvent, id, db.now()); err != nil {
			return err
		}
		rel = db.newRelated()
		return rel.addEvent(tx, e, db.now())
	})
	return e, rel, fail(OpGetBySlug, DocEvent, 0, err)
}
