package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/calendard/calendard/storage/kv"
)

// Bulk creates many records in one transaction: one fsync for thousands of records instead of one
// each, which is what loading demo or benchmark data needs. Every rule of the single-record
// operations applies, and the change log is written as usual.
type Bulk struct{ w *writer }

// Bulk runs fn in one write transaction on behalf of a; nothing fn created is kept if it fails.
func (db *DB) Bulk(ctx context.Context, a Actor, fn func(*Bulk) error) error {
	err := db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		w.bulk = true
		if err := fn(&Bulk{w: w}); err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return fmt.Errorf("storage: bulk write: %w", err)
	}
	return nil
}

// CreateEvent is DB.CreateEvent inside the bulk transaction.
func (b *Bulk) CreateEvent(lang Lang, in *EventInput) (*Event, error) {
	return b.w.createEvent(0, lang, in)
}

// CreateVenue is DB.CreateVenue inside the bulk transaction; it returns the ID of the new or
// duplicated venue.
func (b *Bulk) CreateVenue(lang Lang, in *VenueInput) (uint64, error) {
	return b.w.createVenue(0, lang, in)
}

// CreateOrganizer is DB.CreateOrganizer inside the bulk transaction.
func (b *Bulk) CreateOrganizer(lang Lang, in *OrganizerInput) (uint64, error) {
	return b.w.createOrganizer(0, lang, in)
}

// CreateTerm is DB.CreateTerm inside the bulk transaction.
func (b *Bulk) CreateTerm(tax Taxonomy, in *TermInput) (*Term, error) {
	return b.w.createTerm(tax, 0, in)
}

// PutTerm is PutEvent for a category or tag: it creates term id when the taxonomy has no term with
// that ID (the term sequence moves past it) and updates it otherwise, with every rule of CreateTerm
// and UpdateTerm. A category's parent must be put first.
func (b *Bulk) PutTerm(tax Taxonomy, id uint64, in *TermInput) (created bool, err error) {
	switch _, err := get[Term](b.w.tx, termBucket(tax), id); {
	case errors.Is(err, ErrNotFound):
		_, err := b.w.createTerm(tax, id, in)
		return err == nil, err
	case err != nil:
		return false, err
	}
	if in, err = in.normalized(b.w.a); err != nil {
		return false, err
	}
	_, _, err = b.w.updateTerm(tax, id, in)
	return false, err
}

// PutEvent writes event id as an importer does: it creates the event with that very ID when no
// record has it (a TEC site's post IDs share our ID space, docs/API.md "Routes", and the post sequence moves
// past them), and updates it otherwise, with every rule of CreateEvent and UpdateEvent; created says
// which. lang applies to a new event only. Returns ErrWrongType when id is a venue or organizer.
func (b *Bulk) PutEvent(id uint64, lang Lang, in *EventInput) (e *Event, created bool, err error) {
	switch _, err := loadPost[Event](b.w.tx, TypeEvent, id, b.w.now); {
	case errors.Is(err, ErrNotFound):
		e, err := b.w.createEvent(id, lang, in)
		return e, err == nil, err
	case errors.Is(err, ErrWrongType):
		t, _ := postTypeOf(b.w.tx, id)
		return nil, false, fmt.Errorf("%w: %d is a %s here", err, id, t)
	case err != nil:
		return nil, false, err
	}
	if in, err = in.normalized(b.w.a); err != nil {
		return nil, false, err
	}
	e, _, err = b.w.updateEvent(id, in)
	return e, false, err
}

// PutVenue is PutEvent for a venue: the source's identity wins over duplicate detection (docs/API.md
// "Venue and organizer fields"), so two of its venues sharing a name stay two.
func (b *Bulk) PutVenue(id uint64, lang Lang, in *VenueInput) (created bool, err error) {
	return putPlace(b.w, TypeVenue, id, func() error {
		_, err := b.w.createVenue(id, lang, in)
		return err
	}, func() error {
		in, err := in.normalized(b.w.a)
		if err != nil {
			return err
		}
		_, _, err = updatePlaceIn[Venue](b.w, TypeVenue, id, func(w *writer, v *Venue) error { return w.applyVenue(v, in, false) })
		return err
	})
}

// PutOrganizer is PutVenue for an organizer.
func (b *Bulk) PutOrganizer(id uint64, lang Lang, in *OrganizerInput) (created bool, err error) {
	return putPlace(b.w, TypeOrganizer, id, func() error {
		_, err := b.w.createOrganizer(id, lang, in)
		return err
	}, func() error {
		in, err := in.normalized(b.w.a)
		if err != nil {
			return err
		}
		_, _, err = updatePlaceIn[Organizer](b.w, TypeOrganizer, id, func(w *writer, o *Organizer) error { return w.applyOrganizer(o, in, false) })
		return err
	})
}

// DeleteTerm is DB.DeleteTerm inside the bulk transaction.
func (b *Bulk) DeleteTerm(tax Taxonomy, id uint64) error {
	_, err := b.w.deleteTerm(tax, id)
	return err
}

// putPlace creates record id of type t when no record has that ID and updates it when one of type t
// does; another type's record is ErrWrongType.
func putPlace(w *writer, t PostType, id uint64, create, update func() error) (created bool, err error) {
	switch pt, err := postTypeOf(w.tx, id); {
	case errors.Is(err, ErrNotFound):
		return true, create()
	case err != nil:
		return false, err
	case pt != t:
		return false, fmt.Errorf("%w: %d is a %s here", ErrWrongType, id, pt)
	}
	return false, update()
}

// Trash moves the event, venue or organizer d to the trash, as an importer does when its source no
// longer has the record, with every rule of a status change to trash (a series' parent takes its
// occurrences along). A record already in the trash, or one the store does not have (a store restored
// from a backup older than the link), is left as it is: the importer then only forgets its link.
// Returns ErrWrongType for a term.
func (b *Bulk) Trash(d Doc) error {
	t, ok := d.Kind.PostType()
	if !ok {
		return ErrWrongType
	}
	if _, err := b.w.anyPost(t, d.ID); errors.Is(err, ErrNotFound) {
		return nil
	}
	trash := StatusTrash
	in := PostInput{Status: &trash}
	var err error
	switch t {
	case TypeEvent:
		_, _, err = b.PutEvent(d.ID, "", &EventInput{PostInput: in})
	case TypeVenue:
		_, err = b.PutVenue(d.ID, "", &VenueInput{PostInput: in})
	default:
		_, err = b.PutOrganizer(d.ID, "", &OrganizerInput{PostInput: in})
	}
	if errors.Is(err, ErrTrashed) {
		return nil
	}
	return err
}

// ExternalLink is what the store knows of a source's record: the document it became and the stamp
// the source gave it when it was last written (its modification time, a revision, a hash).
type ExternalLink struct {
	Doc   Doc
	Stamp string
}

// Link records that the document d is what a source knows as external (a TEC site's record, an
// iCalendar UID), so that the next import of the same source updates it instead of creating another.
// source names the source (a site's REST root, a feed's URL); external is the source's own identity;
// stamp is the source's version of the record, which the next import compares to skip what has not
// changed. Linking again replaces the previous link.
//
// Link is the guard that keeps an import from overwriting what it did not write: it returns
// ErrNotImported when the store holds d and d is neither linked to source already nor created in
// this transaction (an import that keeps its source's IDs met an ID that a record created here, or
// another source's, holds). The caller's transaction then fails, leaving that record as it was
// whatever was put into it before the Link.
func (b *Bulk) Link(source, external string, d Doc, stamp string) error {
	if err := b.ownable(source, d); err != nil {
		return err
	}
	key := externalKey(source, external)
	if err := b.unlinkDoc(key, d); err != nil {
		return err
	}
	if err := b.w.tx.Put(bExternalDocs, docKey(d), key); err != nil {
		return err
	}
	return b.w.tx.Put(bExternal, key, append(docKey(d), stamp...))
}

// ownable returns ErrNotImported, naming d and what holds its ID, when source may not link d: the
// store holds it, this transaction did not create it, and no link of source's names it.
func (b *Bulk) ownable(source string, d Doc) error {
	if b.w.created[d] || !b.w.holds(d) {
		return nil
	}
	held := b.w.tx.Get(bExternalDocs, docKey(d))
	if held != nil && bytes.HasPrefix(held, externalKey(source, "")) {
		return nil
	}
	holder := "created here"
	if held != nil {
		other, _, _ := bytes.Cut(held, []byte{0})
		holder = "imported from " + string(other)
	}
	return fmt.Errorf("%w: the source's %s %d is not written over our %s %d, %s", ErrNotImported, d.Kind, d.ID, d.Kind, d.ID, holder)
}

// Reclaim makes event id source's again when an import of an earlier version trashed it because a
// list left it out, and forgot it had been source's: the event is in the trash, no source marks it,
// and its title is title, the source's. The import then brings it back as the source has it, where
// Link would refuse it as a record created here. It reports whether it did.
func (b *Bulk) Reclaim(source, external string, id uint64, title string) (bool, error) {
	d := Doc{Kind: DocEvent, ID: id}
	if b.w.tx.Get(bExternalDocs, docKey(d)) != nil {
		return false, nil
	}
	e, err := loadPost[Event](b.w.tx, TypeEvent, id, b.w.now)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrWrongType) {
		return false, nil
	}
	if err != nil || e.Status != StatusTrash || e.Title != title {
		return false, err
	}
	return true, b.w.tx.Put(bExternalDocs, docKey(d), externalKey(source, external))
}

// holds reports whether the store holds document d.
func (w *writer) holds(d Doc) bool {
	if t, ok := d.Kind.PostType(); ok {
		return w.tx.Get(postBucket(t), u64(d.ID)) != nil
	}
	if tax, ok := d.Kind.Taxonomy(); ok {
		return w.tx.Get(termBucket(tax), u64(d.ID)) != nil
	}
	return false
}

// Unlink forgets what source knows as external, as an import does when the source says the record is
// gone. The document stays the source's (Link's guard, and the read-only rule of mirrored records):
// when the source brings the record back (a site's restore from its trash), the import updates it
// instead of refusing it as a record created here.
func (b *Bulk) Unlink(source, external string) error {
	return b.w.tx.Delete(bExternal, externalKey(source, external))
}

// unlinkDoc deletes the reverse key of the document the link key pointed to, unless it is keep.
func (b *Bulk) unlinkDoc(key []byte, keep Doc) error {
	v := b.w.tx.Get(bExternal, key)
	if len(v) < 9 {
		return nil
	}
	if old := (Doc{Kind: DocKind(v[0]), ID: binary.BigEndian.Uint64(v[1:9])}); old != keep {
		return b.w.tx.Delete(bExternalDocs, docKey(old))
	}
	return nil
}

// Linked returns every link of source (Link), by the source's identity: what an import compares with
// the source's current records to find those changed or gone.
func (db *DB) Linked(ctx context.Context, source string) (map[string]ExternalLink, error) {
	out := map[string]ExternalLink{}
	prefix := externalKey(source, "")
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		c := tx.Cursor(bExternal)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if len(v) < 9 {
				return fmt.Errorf("storage: corrupt external link %q", k)
			}
			out[string(k[len(prefix):])] = ExternalLink{Doc: Doc{Kind: DocKind(v[0]), ID: binary.BigEndian.Uint64(v[1:9])}, Stamp: string(v[9:])}
		}
		return nil
	})
	return out, err
}

// LinkCount is how many links a source has (Bulk.Link), and how many of them name an identity asked
// about (DB.LinkCounts).
type LinkCount struct{ Links, Shared int }

// LinkCounts returns, for every source with links, its number of links and how many of them have their
// source's identity among externals: what an import compares to find the source a file continues when
// it is read from somewhere new (the same calendar downloaded again under another name).
func (db *DB) LinkCounts(ctx context.Context, externals map[string]bool) (map[string]LinkCount, error) {
	out := map[string]LinkCount{}
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		// A source's links are one run of keys: each is counted in n, and kept once its run ends.
		var source string
		var n LinkCount
		c := tx.Cursor(bExternal)
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			s, external, ok := bytes.Cut(k, []byte{0})
			if !ok {
				return fmt.Errorf("storage: corrupt external link %q", k)
			}
			if string(s) != source {
				if n.Links > 0 {
					out[source] = n
				}
				source, n = string(s), LinkCount{}
			}
			n.Links++
			if externals[string(external)] {
				n.Shared++
			}
		}
		if n.Links > 0 {
			out[source] = n
		}
		return nil
	})
	return out, err
}

// Origin is what the store keeps of a place an import reads (a file's path, a feed's URL) between its
// runs: the source its records are linked under (Bulk.Link), which is not always the place itself (a
// calendar downloaded again under another name stays the calendar first imported), and the HTTP
// validators of the copy of a feed that the last complete run read, which make the next request
// conditional; for a TEC site's root, the highest post ID its imports have asked the events route for.
type Origin struct {
	Source       string `json:"source"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Probed       uint64 `json:"probed,omitempty"`
}

// Origin returns what the store keeps of the place from (Bulk.PutOrigin). Returns ErrNotFound when it
// keeps nothing.
func (db *DB) Origin(ctx context.Context, from string) (Origin, error) {
	var o Origin
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		v := tx.Get(bOrigins, []byte(from))
		if v == nil {
			return ErrNotFound
		}
		if err := json.Unmarshal(v, &o); err != nil {
			return fmt.Errorf("storage: decode origin %q: %w", from, err)
		}
		return nil
	})
	return o, err
}

// PutOrigin keeps o as what the store knows of the place from, replacing what it kept.
func (b *Bulk) PutOrigin(from string, o Origin) error {
	v, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("storage: encode origin %q: %w", from, err)
	}
	return b.w.tx.Put(bOrigins, []byte(from), v)
}

// docKey is a document's key in external_docs, and the start of its link's value: kind ‖ id.
func docKey(d Doc) []byte { return binary.BigEndian.AppendUint64([]byte{byte(d.Kind)}, d.ID) }

// externalKey is the key of a source's record: the source, a zero byte (which no URL holds), the
// source's identity.
func externalKey(source, external string) []byte {
	return append(append([]byte(source), 0), external...)
}
