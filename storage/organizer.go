package storage

import (
	"context"

	"github.com/calendard/calendard/storage/kv"
)

// OrganizerInput is a validated organizer create or update request; nil means "not sent".
type OrganizerInput struct {
	PostInput
	// Slug is as VenueInput's.
	Slug                  *string
	Phone, Website, Email *string
}

// CreateOrganizer creates an organizer in language lang, or returns an existing one it duplicates
// (docs/API.md "Venue and organizer fields"), reporting which with existed. Errors as CreateEvent.
func (db *DB) CreateOrganizer(ctx context.Context, a Actor, lang Lang, in *OrganizerInput) (o *Organizer, existed bool, err error) {
	err = db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		id, err := w.createOrganizer(0, lang, in)
		if err != nil {
			return err
		}
		existed = !w.changed[[2]uint64{uint64(DocOrganizer), id}]
		if o, err = loadPost[Organizer](tx, TypeOrganizer, id, w.now); err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, false, fail(OpCreate, DocOrganizer, 0, err)
	}
	return o, existed, nil
}

// createOrganizer creates a organizer, or returns the one it duplicates (docs/API.md "Venue and organizer fields"); with an ID
// (id > 0, an import keeping a source's IDs) it creates that record, the source's identity winning
// over a name it shares with another.
func (w *writer) createOrganizer(id uint64, lang Lang, in *OrganizerInput) (uint64, error) {
	in, err := in.normalized(w.a)
	if err != nil {
		return 0, err
	}
	if dup, ok := w.duplicate(TypeOrganizer, lang, in.Title, in.Description); ok && id == 0 {
		return dup, nil
	}
	p, err := w.newPost(TypeOrganizer, lang, id)
	if err != nil {
		return 0, err
	}
	o := &Organizer{Post: p}
	if err := w.applyOrganizer(o, in, true); err != nil {
		return 0, err
	}
	if err := w.finishCreate(&o.Post, placeSlug(in.Slug, o.Title), in.TranslationOf); err != nil {
		return 0, err
	}
	_, err = w.save(o, nil, nil)
	return o.ID, err
}

func (w *writer) applyOrganizer(o *Organizer, in *OrganizerInput, create bool) error {
	if err := w.applyPost(&o.Post, &in.PostInput, create); err != nil {
		return err
	}
	setIf(&o.Phone, in.Phone)
	setIf(&o.Website, in.Website)
	setIf(&o.Email, in.Email)
	return w.updateSlug(&o.Post, in.Slug, create)
}

// resolveOrganizer implements docs/API.md "Event fields" for one of an event's organizers.
func (w *writer) resolveOrganizer(lang Lang, ref OrganizerRef) (uint64, error) {
	if ref.New != nil {
		id, err := w.createOrganizer(0, lang, ref.New)
		return id, nested("organizer", err)
	}
	return ref.ID, w.linkable(TypeOrganizer, "organizer", lang, ref.ID)
}

// UpdateOrganizer applies a partial update. Returns ErrNotFound (no organizer has the ID), ErrForbidden,
// and the errors of CreateOrganizer.
func (db *DB) UpdateOrganizer(ctx context.Context, a Actor, id uint64, in *OrganizerInput) (*Organizer, error) {
	in, err := in.normalized(a)
	if err != nil {
		return nil, fail(OpUpdate, DocOrganizer, id, err)
	}
	return updatePlace(ctx, db, a, TypeOrganizer, id, func(w *writer, o *Organizer) error { return w.applyOrganizer(o, in, false) })
}

// TrashOrganizer moves an organizer to the trash and unlinks it from every event (only it: the events'
// other organizers stay). Returns ErrNotFound, ErrForbidden or ErrTrashed.
func (db *DB) TrashOrganizer(ctx context.Context, a Actor, id uint64) (*Organizer, error) {
	return trashPlace[Organizer](ctx, db, a, TypeOrganizer, id)
}

// Organizer returns organizer id with what its response refers to. Returns ErrNotFound.
func (db *DB) Organizer(ctx context.Context, id uint64) (*Organizer, *Related, error) {
	return readPlace[Organizer](ctx, db, TypeOrganizer, id, "")
}

// OrganizerBySlug finds an organizer by slug within a language. Returns ErrNotFound.
func (db *DB) OrganizerBySlug(ctx context.Context, lang Lang, s string) (*Organizer, *Related, error) {
	return readPlace[Organizer](ctx, db, TypeOrganizer, 0, lang, s)
}
