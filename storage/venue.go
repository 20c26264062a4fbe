package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/calendard/calendard/storage/kv"
)

// VenueInput is a validated venue create or update request; nil means "not sent".
type VenueInput struct {
	PostInput
	// Slug is kept by an import that keeps its source's slugs; the API derives it from the name.
	Slug                                         *string
	ShowMap, ShowMapLink                         *bool
	Address, City, Country, Province, State, Zip *string
	Phone, StateProvince, Website                *string
	Geo                                          *Geo
	// ClearGeo removes the coordinates (both sent as "").
	ClearGeo bool
}

// CreateVenue creates a venue in language lang, or returns an existing one it duplicates (docs/API.md
// "Venue and organizer fields"), reporting which with existed. Errors as CreateEvent.
func (db *DB) CreateVenue(ctx context.Context, a Actor, lang Lang, in *VenueInput) (v *Venue, existed bool, err error) {
	err = db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		id, err := w.createVenue(0, lang, in)
		if err != nil {
			return err
		}
		v, err = loadPost[Venue](tx, TypeVenue, id, w.now)
		existed = !w.changed[[2]uint64{uint64(DocVenue), id}]
		if err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, false, fail(OpCreate, DocVenue, 0, err)
	}
	return v, existed, nil
}

// createVenue creates a venue, or returns the one it duplicates (docs/API.md "Venue and organizer fields"); with an ID
// (id > 0, an import keeping a source's IDs) it creates that record, the source's identity winning
// over a name it shares with another.
func (w *writer) createVenue(id uint64, lang Lang, in *VenueInput) (uint64, error) {
	in, err := in.normalized(w.a)
	if err != nil {
		return 0, err
	}
	if dup, ok := w.duplicate(TypeVenue, lang, in.Title, in.Description); ok && id == 0 {
		return dup, nil
	}
	p, err := w.newPost(TypeVenue, lang, id)
	if err != nil {
		return 0, err
	}
	v := &Venue{Post: p, ShowMap: true, ShowMapLink: true}
	if err := w.applyVenue(v, in, true); err != nil {
		return 0, err
	}
	if v.StateProvince == "" {
		switch c := strings.TrimSpace(v.Country); {
		case v.State != "" && (c == "" || c == "US" || c == "United States"):
			v.StateProvince = v.State
		default:
			v.StateProvince = v.Province
		}
	}
	if err := w.finishCreate(&v.Post, placeSlug(in.Slug, v.Title), in.TranslationOf); err != nil {
		return 0, err
	}
	_, err = w.save(v, nil, nil)
	return v.ID, err
}

// UpdateVenue applies a partial update. Returns ErrNotFound (no venue has the ID), ErrForbidden, and
// the errors of CreateVenue.
func (db *DB) UpdateVenue(ctx context.Context, a Actor, id uint64, in *VenueInput) (*Venue, error) {
	in, err := in.normalized(a)
	if err != nil {
		return nil, fail(OpUpdate, DocVenue, id, err)
	}
	return updatePlace(ctx, db, a, TypeVenue, id, func(w *writer, v *Venue) error { return w.applyVenue(v, in, false) })
}

// TrashVenue moves a venue to the trash and unlinks it from every event. Returns ErrNotFound,
// ErrForbidden or ErrTrashed.
func (db *DB) TrashVenue(ctx context.Context, a Actor, id uint64) (*Venue, error) {
	return trashPlace[Venue](ctx, db, a, TypeVenue, id)
}

// Venue returns venue id with what its response refers to. Returns ErrNotFound when no venue has the ID.
func (db *DB) Venue(ctx context.Context, id uint64) (*Venue, *Related, error) {
	return readPlace[Venue](ctx, db, TypeVenue, id, "")
}

// VenueBySlug finds a venue by slug within a language (docs/API.md "Statuses"). Returns ErrNotFound.
func (db *DB) VenueBySlug(ctx context.Context, lang Lang, s string) (*Venue, *Related, error) {
	return readPlace[Venue](ctx, db, TypeVenue, 0, lang, s)
}

func (w *writer) applyVenue(v *Venue, in *VenueInput, create bool) error {
	if err := w.applyPost(&v.Post, &in.PostInput, create); err != nil {
		return err
	}
	for _, f := range []struct{ dst, src *string }{
		{&v.Address, in.Address}, {&v.City, in.City}, {&v.Country, in.Country}, {&v.Province, in.Province},
		{&v.State, in.State}, {&v.Zip, in.Zip}, {&v.Phone, in.Phone}, {&v.StateProvince, in.StateProvince},
		{&v.Website, in.Website},
	} {
		setIf(f.dst, f.src)
	}
	setIf(&v.ShowMap, in.ShowMap)
	setIf(&v.ShowMapLink, in.ShowMapLink)
	if err := w.updateSlug(&v.Post, in.Slug, create); err != nil {
		return err
	}
	if in.ClearGeo {
		v.Geo = nil
	}
	if in.Geo != nil {
		g := *in.Geo
		v.Geo = &g
	}
	if in.ClearGeo || in.Geo != nil {
		// Every event at this venue carries its position in the index.
		for _, id := range linkedIDs(w.tx, bLinkVenue, v.ID) {
			w.touch(DocEvent, id)
		}
	}
	return nil
}

// duplicate finds the record docs/API.md "Venue and organizer fields" says a create must return instead of creating one.
func (w *writer) duplicate(t PostType, lang Lang, name, description *string) (uint64, bool) {
	if name == nil {
		return 0, false
	}
	desc := ""
	if description != nil {
		desc = strings.ToLower(strings.TrimSpace(*description))
	}
	for _, id := range sameName(w.tx, t, lang, *name) {
		r, err := w.anyPost(t, id)
		if err != nil {
			continue
		}
		p := r.post()
		if p.Status == StatusTrash || !w.a.CanRead(p) {
			continue
		}
		if desc != "" && strings.ToLower(strings.TrimSpace(p.Description)) != desc {
			continue
		}
		return id, true
	}
	return 0, false
}

// unlinkEvents removes the link from every event to a trashed venue or organizer (docs/API.md "Statuses"); the
// events' other links stay.
func (w *writer) unlinkEvents(bucket []byte, id uint64) error {
	for _, eid := range linkedIDs(w.tx, bucket, id) {
		e, err := loadPost[Event](w.tx, TypeEvent, eid, w.now)
		if err != nil {
			return err
		}
		old, stored := *e, snapshot(e)
		if string(bucket) == string(bLinkVenue) {
			e.VenueID = 0
		} else {
			e.OrganizerIDs = removeID(e.OrganizerIDs, id)
		}
		if err := w.linkEvent(&old, e); err != nil {
			return err
		}
		if _, err := w.save(e, &old.Post, stored); err != nil {
			return err
		}
	}
	return nil
}

func removeID(ids []uint64, id uint64) []uint64 {
	var out []uint64
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// resolveVenue implements docs/API.md "Event fields" for an event's venue.
func (w *writer) resolveVenue(lang Lang, ref VenueRef) (uint64, error) {
	switch {
	case ref.New != nil:
		id, err := w.createVenue(0, lang, ref.New)
		return id, nested("venue", err)
	case ref.ID == 0:
		return 0, nil
	}
	return ref.ID, w.linkable(TypeVenue, "venue", lang, ref.ID)
}

// linkable checks that record id of type t may be linked from an event of language lang.
func (w *writer) linkable(t PostType, field string, lang Lang, id uint64) error {
	r, err := w.anyPost(t, id)
	if err == ErrNotFound || err == ErrWrongType {
		return invalid(field, "%d is not the ID of a %s", id, t)
	}
	if err != nil {
		return err
	}
	p := r.post()
	reason := ""
	switch {
	case p.Status == StatusTrash:
		reason = "is in the trash"
	case p.Lang != lang:
		reason = "belongs to another language"
	case !w.a.CanRead(p):
		reason = "is not readable"
	default:
		return nil
	}
	return &FieldError{Field: field, Reason: fmt.Sprintf("%s %d %s", t, id, reason), Kind: ErrLinkedPost}
}

// nested renames a field error of an inline-created record after the event field that carried it.
func nested(field string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) && fe.Kind == nil {
		return &FieldError{Field: field, Reason: fe.Field + ": " + fe.Reason}
	}
	return err
}
