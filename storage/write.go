package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/slug"
)

// PostInput holds the fields every record type accepts. A nil pointer means "not sent" (docs/API.md "Updates").
type PostInput struct {
	Title       *string
	Description *string
	Author      *uint64
	// Date is the publication instant (the handler resolves `date` and `date_utc` into it).
	Date   *time.Time
	Status *Status
	Image  *ImageRef
	// TranslationOf joins the new record to another record's translation group (create only).
	TranslationOf *uint64
}

// ImageRef designates an image by attachment ID or URL; the zero value clears the image.
type ImageRef struct {
	ID  uint64
	URL string
	// SourceID, with URL, is the attachment ID an import's source gives the image: a URL registered
	// for the first time keeps it when no record has it, so that it does not take an ID the source's
	// records hold.
	SourceID uint64
}

// rec is implemented by the three record types.
type rec interface{ post() *Post }

func (e *Event) post() *Post     { return &e.Post }
func (v *Venue) post() *Post     { return &v.Post }
func (o *Organizer) post() *Post { return &o.Post }

// writer carries one write transaction and the context every rule needs.
type writer struct {
	db  *DB
	tx  kv.RwTx
	a   Actor
	now time.Time
	// changed collects change-log entries, deduplicated, written once at the end.
	changed map[[2]uint64]bool
	order   [][2]uint64
	// bulk is set in Bulk, the importers' way in, which mirrored records do not refuse.
	bulk bool
	// created holds the records and terms this transaction created, which an import may link
	// (Bulk.Link).
	created map[Doc]bool
}

func (db *DB) newWriter(tx kv.RwTx, a Actor) *writer {
	return &writer{db: db, tx: tx, a: a, now: db.now().UTC().Truncate(time.Second), changed: map[[2]uint64]bool{}, created: map[Doc]bool{}}
}

// checkMirrored refuses a write to a mirrored record outside Bulk when the store guards them.
func (w *writer) checkMirrored(d Doc) error {
	if w.db.guardMirrored && !w.bulk && w.tx.Get(bExternalDocs, docKey(d)) != nil {
		return ErrMirrored
	}
	return nil
}

func (w *writer) touch(kind DocKind, id uint64) {
	k := [2]uint64{uint64(kind), id}
	if !w.changed[k] {
		w.changed[k] = true
		w.order = append(w.order, k)
	}
}

func (w *writer) flush() error {
	for _, k := range w.order {
		if err := logChange(w.tx, DocKind(k[0]), k[1]); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) nextPostID() (uint64, error) { return w.nextID(bSeqPosts) }

// nextID takes the next ID of the sequence seq (bSeqPosts, bSeqTerms): at least the store's
// LocalIDBase, where a sequence below it jumps (a store that mirrors a site from now on keeps its
// earlier IDs, and hands out new ones from the base).
func (w *writer) nextID(seq []byte) (uint64, error) {
	if base := w.db.localIDBase; base > 0 && w.tx.Sequence(seq) < base-1 {
		if err := w.tx.SetSequence(seq, base-1); err != nil {
			return 0, err
		}
	}
	return w.tx.NextSequence(seq)
}

// loadPost loads record id of type t for a write, reporting ErrNotFound or ErrWrongType.
func loadPost[T any](tx kv.Getter, t PostType, id uint64, now time.Time) (*T, error) {
	return readPost[T](nil, tx, t, id, now)
}

// readPost loads record id of type t through the decoded-record cache c (nil: no cache).
func readPost[T any](c *recordCache, tx kv.Getter, t PostType, id uint64, now time.Time) (*T, error) {
	raw := tx.Get(postBucket(t), u64(id))
	if raw == nil {
		if _, terr := postTypeOf(tx, id); terr == nil {
			return nil, ErrWrongType
		}
		return nil, ErrNotFound
	}
	r, err := decode[T](c, id, raw)
	if err != nil {
		return nil, err
	}
	any(r).(rec).post().promote(now)
	return r, nil
}

// applyPost applies the common fields to p. old is nil on create.
func (w *writer) applyPost(p *Post, in *PostInput, create bool) error {
	if in.Title != nil {
		p.Title = *in.Title
	}
	if in.Description != nil {
		p.Description = *in.Description
	}
	if in.Author != nil && *in.Author != p.Author {
		if *in.Author != w.a.UserID && !w.a.Can(CapEditOthersPosts) {
			return ErrCannotEditOthers
		}
		if _, err := get[User](w.tx, bUsers, *in.Author); err == ErrNotFound {
			return invalid("author", "no user has ID %d", *in.Author)
		} else if err != nil {
			return err
		}
		p.Author = *in.Author
	}
	if in.Image != nil {
		id, err := w.resolveImage(*in.Image)
		if err != nil {
			return err
		}
		p.ImageID = id
	}
	if in.Date != nil {
		p.Date = in.Date.UTC().Truncate(time.Second)
		p.DateSet = true
	}
	return w.applyStatus(p, in, create)
}

// applyStatus implements docs/API.md "Statuses" and the scale-back of 7.6.
func (w *writer) applyStatus(p *Post, in *PostInput, create bool) error {
	requested := p.Status
	switch {
	case in.Status != nil:
		requested = *in.Status
	case create && w.a.Can(CapPublishPosts):
		requested = StatusPublish
	case create:
		requested = StatusDraft
	}
	if requested == StatusTrash {
		if create {
			return invalid("status", "a record cannot be created in the trash")
		}
		if p.Status != StatusTrash {
			if !w.a.CanDelete(p) {
				return ErrForbidden
			}
			return w.trash(p)
		}
		return nil
	}
	if !w.a.Can(CapPublishPosts) && (requested == StatusPublish || requested == StatusFuture || requested == StatusPrivate) &&
		(in.Status != nil || create) {
		requested = StatusPending
	}
	if in.Status == nil && in.Date == nil && !create {
		return nil // nothing that the rules depend on changed
	}
	if (requested == StatusPublish || requested == StatusFuture) && !p.DateSet {
		p.Date = w.now // first publication without a chosen date: published now (docs/API.md "Statuses")
	}
	switch {
	case requested == StatusPublish && !due(p.Date, w.now):
		requested = StatusFuture
	case requested == StatusFuture && due(p.Date, w.now):
		requested = StatusPublish
	}
	if requested == StatusPublish || requested == StatusFuture {
		p.DateSet = true
	}
	if p.Status == StatusTrash {
		return w.restore(p, requested)
	}
	p.Status = requested
	return nil
}

// trash moves p to the trash (docs/API.md "Statuses"): its slug stops blocking others and it leaves its group.
func (w *writer) trash(p *Post) error {
	if p.Status == StatusTrash {
		return ErrTrashed
	}
	p.TrashedFrom, p.Status, p.TrashedAt = p.Status, StatusTrash, w.now
	if err := w.releaseSlug(p); err != nil {
		return err
	}
	key := append(trashSlugKey(p.Slug), u64(p.ID)...)
	if err := w.tx.Put(trashSlugBucket(p.Type, p.Lang), key, u64(uint64(w.now.UnixNano()))); err != nil {
		return err
	}
	if p.Group != 0 {
		w.touchGroup(p.Group)
		if err := w.tx.Delete(bGroups, groupKey(p.Group, p.Lang)); err != nil {
			return err
		}
		p.Group = 0
	}
	return nil
}

// restore takes p out of the trash with the given status; it gets a group of its own and a slug made
// unique again.
func (w *writer) restore(p *Post, status Status) error {
	if err := w.tx.Delete(trashSlugBucket(p.Type, p.Lang), append(trashSlugKey(p.Slug), u64(p.ID)...)); err != nil {
		return err
	}
	p.Status, p.TrashedFrom, p.TrashedAt = status, "", time.Time{}
	if err := w.joinGroup(p, 0); err != nil {
		return err
	}
	return w.claimSlug(p, p.Slug)
}

func trashSlugKey(s string) []byte { return append([]byte(s), 0) }

func groupKey(group uint64, l Lang) []byte { return append(u64(group), l...) }

// joinGroup puts p into the translation group of record `of` (0: a new group of its own).
func (w *writer) joinGroup(p *Post, group uint64) error {
	if group == 0 {
		id, err := w.tx.NextSequence(bSeqGroups)
		if err != nil {
			return err
		}
		group = id
	} else if w.tx.Get(bGroups, groupKey(group, p.Lang)) != nil {
		return ErrConflict
	}
	p.Group = group
	w.touchGroup(group)
	return w.tx.Put(bGroups, groupKey(group, p.Lang), u64(p.ID))
}

// touchGroup logs a change for every member of a group, whose `translations` just changed. It reads
// the members by key, a language at a time, rather than walking the group's keys: inside a write,
// an optimistic backend checks a key read for conflicts by itself, and a range only when guarded
// (storage/kv). The languages go in key order, the order of the group's keys.
func (w *writer) touchGroup(group uint64) {
	for _, l := range langsByKey {
		v := w.tx.Get(bGroups, groupKey(group, l))
		if v == nil {
			continue
		}
		id := beUint(v)
		if t, err := postTypeOf(w.tx, id); err == nil {
			w.touch(docKind(t), id)
		}
	}
}

// groupMembers lists the non-trashed records of a group.
func groupMembers(tx kv.Tx, group uint64) []uint64 {
	var ids []uint64
	c := tx.Cursor(bGroups)
	prefix := u64(group)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		ids = append(ids, beUint(v))
	}
	return ids
}

// translationGroup checks docs/API.md "Languages"'s rules for translation_of and returns the group to join.
func (w *writer) translationGroup(t PostType, of uint64) (uint64, error) {
	r, err := w.anyPost(t, of)
	if err != nil {
		return 0, invalid("translation_of", "no %s has ID %d", t, of)
	}
	p := r.post()
	switch {
	case p.Status == StatusTrash:
		return 0, invalid("translation_of", "%s %d is in the trash", t, of)
	case !w.a.CanRead(p):
		return 0, invalid("translation_of", "%s %d is not readable", t, of)
	}
	return p.Group, nil
}

func (w *writer) anyPost(t PostType, id uint64) (rec, error) {
	switch t {
	case TypeEvent:
		return loadPost[Event](w.tx, t, id, w.now)
	case TypeVenue:
		return loadPost[Venue](w.tx, t, id, w.now)
	default:
		return loadPost[Organizer](w.tx, t, id, w.now)
	}
}

// claimSlug gives p the first free slug derived from base among its type and language (docs/API.md
// "Event fields"); an empty base falls back to the record ID.
func (w *writer) claimSlug(p *Post, base string) error {
	if base == "" {
		base = utoa(p.ID)
	}
	b := slugBucket(p.Type, p.Lang)
	candidate := base
	for n := 2; ; n++ {
		owner := w.tx.Get(b, []byte(candidate))
		if owner == nil || beUint(owner) == p.ID {
			break
		}
		candidate = slug.WithSuffix(base, n)
	}
	if p.Slug != "" && p.Slug != candidate && p.Status != StatusTrash {
		if err := w.releaseSlug(p); err != nil {
			return err
		}
	}
	p.Slug = candidate
	return w.tx.Put(b, []byte(candidate), u64(p.ID))
}

func (w *writer) releaseSlug(p *Post) error {
	b := slugBucket(p.Type, p.Lang)
	if owner := w.tx.Get(b, []byte(p.Slug)); owner != nil && beUint(owner) == p.ID {
		return w.tx.Delete(b, []byte(p.Slug))
	}
	return nil
}

func nameKey(name string) []byte { return append([]byte(strings.ToLower(strings.TrimSpace(name))), 0) }

func (w *writer) indexName(p *Post, old string) error {
	b := nameBucket(p.Type, p.Lang)
	if old != "" {
		if err := w.tx.Delete(b, append(nameKey(old), u64(p.ID)...)); err != nil {
			return err
		}
	}
	return w.tx.Put(b, append(nameKey(p.Title), u64(p.ID)...), nil)
}

// sameName finds ids of type t and language l whose name equals name (trimmed, case-insensitive),
// lowest first, inside a write: a guarded range read (see the package doc's Caveats).
func sameName(tx kv.RwTx, t PostType, l Lang, name string) []uint64 {
	var ids []uint64
	prefix := nameKey(name)
	c := tx.GuardedCursor(nameBucket(t, l))
	for k, _ := c.Seek(prefix); k != nil && len(k) == len(prefix)+8 && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ids = append(ids, binary.BigEndian.Uint64(k[len(prefix):]))
	}
	return ids
}

// resolveImage implements docs/API.md "Event fields" for a validated reference.
func (w *writer) resolveImage(ref ImageRef) (uint64, error) {
	switch {
	case ref.ID != 0:
		if w.tx.Get(bImages, u64(ref.ID)) == nil {
			return 0, invalid("image", "%d is not the ID of an image", ref.ID)
		}
		return ref.ID, nil
	case ref.URL == "":
		return 0, nil
	case !w.a.Can(CapUploadFiles):
		return 0, invalid("image", "attaching an image by URL needs the upload_files capability")
	}
	if id := w.tx.Get(bImageURLs, []byte(ref.URL)); id != nil {
		return beUint(id), nil
	}
	id, err := w.imageID(ref.SourceID)
	if err != nil {
		return 0, err
	}
	if err := put(w.tx, bImages, id, Image{ID: id, URL: ref.URL}); err != nil {
		return 0, err
	}
	return id, w.tx.Put(bImageURLs, []byte(ref.URL), u64(id))
}

// imageID is the ID of a new image: the source's when it is free (the post sequence moving past it),
// the next one otherwise.
func (w *writer) imageID(source uint64) (uint64, error) {
	if _, err := postTypeOf(w.tx, source); source == 0 || err == nil {
		return w.nextPostID()
	}
	if source > w.tx.Sequence(bSeqPosts) {
		if err := w.tx.SetSequence(bSeqPosts, source); err != nil {
			return 0, err
		}
	}
	return source, nil
}

// save writes r if it differs from stored, its stored form (snapshot; nil: always write), stamping
// Modified; it reports whether it wrote. old is r as loaded before the change, nil on create.
func (w *writer) save(r rec, old *Post, stored []byte) (bool, error) {
	p := r.post()
	modified := p.Modified
	p.Modified = time.Time{}
	v, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	if stored != nil && bytes.Equal(v, stored) {
		p.Modified = modified
		return false, nil
	}
	p.Modified = w.now
	return true, w.write(r, old)
}

// write stores r and logs it; old is r as loaded before the change, nil on create. Every record is
// stored through it, so that it can keep the scheduled bucket exact (schedule).
func (w *writer) write(r rec, old *Post) error {
	p := r.post()
	if old == nil {
		p.NeverPublic = true
	}
	if p.effectiveStatus() == StatusPublish || old != nil && old.effectiveStatus() == StatusPublish {
		p.NeverPublic = false
	}
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	w.touch(docKind(p.Type), p.ID)
	if err := w.tx.Put(postBucket(p.Type), u64(p.ID), v); err != nil {
		return err
	}
	return schedule(w.tx, old, r)
}

// snapshot is the stored form of r without its Modified stamp, for save's change detection.
func snapshot(r rec) []byte {
	p := r.post()
	modified := p.Modified
	p.Modified = time.Time{}
	v, _ := json.Marshal(r)
	p.Modified = modified
	return v
}

// newPost fills the fields every created record starts with.
// newPost starts a record of type t in lang with ID id, or the next ID of the post sequence when id is
// 0. A given ID must be free; the sequence moves past it, so IDs handed out later never collide with
// one a source chose (Bulk.PutEvent).
func (w *writer) newPost(t PostType, lang Lang, id uint64) (Post, error) {
	var err error
	if _, taken := postTypeOf(w.tx, id); id != 0 && taken == nil {
		return Post{}, ErrWrongType // another record has it: callers check first, so only a bug lands here
	}
	switch {
	case id == 0:
		if id, err = w.nextPostID(); err != nil {
			return Post{}, err
		}
	case id > w.tx.Sequence(bSeqPosts):
		if err := w.tx.SetSequence(bSeqPosts, id); err != nil {
			return Post{}, err
		}
	}
	w.created[Doc{Kind: docKind(t), ID: id}] = true
	return Post{ID: id, Type: t, Lang: lang, Author: w.a.UserID, Date: w.now}, nil
}

// finishCreate gives a new record its slug, group and name index entry.
func (w *writer) finishCreate(p *Post, slugBase string, translationOf *uint64) error {
	group := uint64(0)
	if translationOf != nil {
		g, err := w.translationGroup(p.Type, *translationOf)
		if err != nil {
			return err
		}
		group = g
	}
	if err := w.joinGroup(p, group); err != nil {
		return err
	}
	if err := w.claimSlug(p, slugBase); err != nil {
		return err
	}
	return w.indexName(p, "")
}
