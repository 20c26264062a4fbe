package storage

import (
	"context"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/slug"
)

// record is a pointer to one of the record types, for the paths they share.
type record[T any] interface {
	*T
	rec
}

// loadWritable loads record id of type t for a write the actor must be allowed by may (Actor.CanEdit
// or Actor.CanDelete). Returns ErrNotFound, ErrWrongType or ErrForbidden.
func loadWritable[T any, P record[T]](w *writer, t PostType, id uint64, may func(Actor, *Post) bool) (P, error) {
	loaded, err := loadPost[T](w.tx, t, id, w.now)
	if err != nil {
		return nil, err
	}
	r := P(loaded)
	if !may(w.a, r.post()) {
		return nil, ErrForbidden
	}
	if err := w.checkMirrored(Doc{Kind: docKind(t), ID: id}); err != nil {
		return nil, err
	}
	// An occurrence is its series': written through it, it would change what the import keeps in line
	// with the source (its parent's exclusions, its own fields), and a sync would not undo it.
	if e, ok := any(r).(*Event); ok && e.Parent != 0 {
		if err := w.checkMirrored(Doc{Kind: DocEvent, ID: e.Parent}); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// notFound folds ErrWrongType into ErrNotFound: venue and organizer routes do not tell the two apart
// (docs/API.md "Venues and organizers").
func notFound(err error) error {
	if err == ErrWrongType {
		return ErrNotFound
	}
	return err
}

func linkBucket(t PostType) []byte {
	if t == TypeVenue {
		return bLinkVenue
	}
	return bLinkOrg
}

func updatePlace[T any, P record[T]](ctx context.Context, db *DB, a Actor, t PostType, id uint64, apply func(*writer, P) error) (P, error) {
	var r P
	err := db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		var changed bool
		var err error
		if r, changed, err = updatePlaceIn[T](w, t, id, apply); err != nil || !changed {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, fail(OpUpdate, t.DocKind(), id, err)
	}
	return r, nil
}

// updatePlaceIn applies an update to venue or organizer id in w's transaction and reports whether it
// changed anything.
func updatePlaceIn[T any, P record[T]](w *writer, t PostType, id uint64, apply func(*writer, P) error) (r P, changed bool, err error) {
	if r, err = loadWritable[T, P](w, t, id, Actor.CanEdit); err != nil {
		return nil, false, notFound(err)
	}
	p := r.post()
	old, stored := *p, snapshot(r)
	if err := apply(w, r); err != nil {
		return nil, false, err
	}
	if p.Title != old.Title {
		if err := w.indexName(p, old.Title); err != nil {
			return nil, false, err
		}
	}
	if old.Status != StatusTrash && p.Status == StatusTrash {
		if err := w.unlinkEvents(linkBucket(t), id); err != nil {
			return nil, false, err
		}
	}
	changed, err = w.save(r, &old, stored)
	return r, changed, err
}

func trashPlace[T any, P record[T]](ctx context.Context, db *DB, a Actor, t PostType, id uint64) (P, error) {
	var r P
	err := db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		var err error
		if r, err = loadWritable[T, P](w, t, id, Actor.CanDelete); err != nil {
			return notFound(err)
		}
		old := *r.post()
		if err := w.trash(r.post()); err != nil {
			return err
		}
		if err := w.unlinkEvents(linkBucket(t), id); err != nil {
			return err
		}
		if _, err := w.save(r, &old, nil); err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, fail(OpTrash, t.DocKind(), id, err)
	}
	return r, nil
}

// readPlace loads a venue or organizer by ID, or by slug within lang when slugs are given.
func readPlace[T any, P record[T]](ctx context.Context, db *DB, t PostType, id uint64, lang Lang, slugs ...string) (P, *Related, error) {
	var r P
	rel := db.newRelated()
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		var err error
		if len(slugs) > 0 {
			if id, err = idBySlug(tx, t, lang, slugs[0]); err != nil {
				return err
			}
		}
		loaded, err := readPost[T](db.cache, tx, t, id, db.now())
		if err != nil {
			return notFound(err)
		}
		r = P(loaded)
		return rel.addPost(tx, r.post(), db.now())
	})
	if len(slugs) > 0 {
		return r, rel, fail(OpGetBySlug, t.DocKind(), 0, err)
	}
	return r, rel, fail(OpGet, t.DocKind(), id, err)
}

// placeSlug is the slug base of a new venue or organizer: the slug sent (an import's), else its name's.
func placeSlug(sent *string, title string) string {
	if sent != nil {
		return slug.Normalize(*sent)
	}
	return slug.Normalize(title)
}

// updateSlug gives an updated venue or organizer the slug sent, if any (an import's); a new one gets
// it from finishCreate, a trashed one when it is restored.
func (w *writer) updateSlug(p *Post, sent *string, create bool) error {
	if create || sent == nil || p.Status == StatusTrash {
		return nil
	}
	return w.claimSlug(p, slug.Normalize(*sent))
}
