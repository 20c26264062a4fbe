package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/calendard/calendard/storage"
)

// trashTypes are the record types "calendard trash" takes, by their --type name.
var trashTypes = map[string]storage.PostType{
	"event":     storage.TypeEvent,
	"venue":     storage.TypeVenue,
	"organizer": storage.TypeOrganizer,
}

const trashUsage = "usage: calendard trash --type event|venue|organizer --id N [--data-dir D]"

// trashTarget returns the type of the record a's trash names, or why a names none.
func trashTarget(a adminArgs) (storage.PostType, error) {
	if a.Type == "" || a.ID == 0 {
		return 0, errors.New(trashUsage)
	}
	t, ok := trashTypes[a.Type]
	if !ok {
		return 0, fmt.Errorf("unknown record type %q: --type is event, venue or organizer", a.Type)
	}
	return t, nil
}

// trashRecord moves the record a names to the trash on behalf of the first administrator, through
// the same write of the store as the administrator's DELETE of it without force: trashing a series'
// parent trashes the series, a venue or organizer leaves its events, and the change log brings the
// change to every index, a running server's included. It is the way to fix the data while the API
// cannot serve, such as while the index loads.
func trashRecord(ctx context.Context, db *storage.DB, a adminArgs, stdout io.Writer) error {
	t, err := trashTarget(a)
	if err != nil {
		return err
	}
	actor, err := firstAdministrator(ctx, db)
	if err != nil {
		return err
	}
	var p *storage.Post
	series := false
	switch t {
	case storage.TypeEvent:
		var e *storage.Event
		if e, err = db.TrashEvent(ctx, actor, a.ID); err == nil {
			p, series = &e.Post, len(e.Recurrence) > 0
		}
	case storage.TypeVenue:
		var v *storage.Venue
		if v, err = db.TrashVenue(ctx, actor, a.ID); err == nil {
			p = &v.Post
		}
	case storage.TypeOrganizer:
		var o *storage.Organizer
		if o, err = db.TrashOrganizer(ctx, actor, a.ID); err == nil {
			p = &o.Post
		}
	}
	if err != nil {
		return trashError(ctx, db, t, a.ID, err)
	}
	fmt.Fprintf(stdout, "trashed %s %d %q", t, p.ID, p.Title)
	if series {
		fmt.Fprint(stdout, " and the occurrences of its series")
	}
	fmt.Fprintln(stdout)
	return nil
}

// trashError says why record id of type t could not be trashed, in the operator's terms.
func trashError(ctx context.Context, db *storage.DB, t storage.PostType, id uint64, err error) error {
	switch {
	case errors.Is(err, storage.ErrTrashed):
		return fmt.Errorf("%s %d is already in the trash", t, id)
	case errors.Is(err, storage.ErrMirrored):
		return fmt.Errorf("%s %d is mirrored from another site, its source of truth: trash it there, and the next sync brings the change here", t, id)
	case errors.Is(err, storage.ErrNotFound), errors.Is(err, storage.ErrWrongType):
		// The store does not tell a venue's ID given as an organizer's from an unknown one.
		other, lerr := recordType(ctx, db, id)
		switch {
		case lerr != nil:
			return errors.Join(err, lerr)
		case other != 0:
			return fmt.Errorf("ID %d is of type %s, not %s: run with --type %s", id, other, t, other)
		}
		return fmt.Errorf("no %s has ID %d", t, id)
	}
	return err
}

// recordType returns the type of record id among those trash takes, 0 when it is none of them.
func recordType(ctx context.Context, db *storage.DB, id uint64) (storage.PostType, error) {
	for _, t := range []storage.PostType{storage.TypeEvent, storage.TypeVenue, storage.TypeOrganizer} {
		recs, _, err := db.Load(ctx, t, []uint64{id})
		if err != nil {
			return 0, err
		}
		if len(recs.Events)+len(recs.Venues)+len(recs.Organizers) > 0 {
			return t, nil
		}
	}
	return 0, nil
}
