package storage

import (
	"bytes"
	"time"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/slug"
)

// Related holds the records a response embeds or refers to, loaded in the same read transaction as the
// records themselves, so that a response is one consistent view.
type Related struct {
	Venues     map[uint64]*Venue
	Organizers map[uint64]*Organizer
	// Terms holds the terms of the loaded events and every ancestor of their categories (for URLs).
	Terms  map[uint64]*Term
	Images map[uint64]*Image
	// Groups maps a translation group to its non-trashed members.
	Groups map[uint64][]Post

	cache, terms *recordCache
	// due counts the due scheduled events per term, read with the first term (dueTermCounts).
	now     time.Time
	due     map[uint64]int
	dueRead bool
}

func (db *DB) newRelated() *Related {
	return &Related{
		cache:      db.cache,
		terms:      db.terms,
		now:        db.now(),
		Venues:     map[uint64]*Venue{},
		Organizers: map[uint64]*Organizer{},
		Terms:      map[uint64]*Term{},
		Images:     map[uint64]*Image{},
		Groups:     map[uint64][]Post{},
	}
}

func (r *Related) addEvent(tx kv.Tx, e *Event, now time.Time) error {
	if err := r.addPost(tx, &e.Post, now); err != nil {
		return err
	}
	if e.VenueID != 0 {
		if _, ok := r.Venues[e.VenueID]; !ok {
			v, err := readPost[Venue](r.cache, tx, TypeVenue, e.VenueID, now)
			if err != nil {
				return err
			}
			r.Venues[v.ID] = v
			if err := r.addPost(tx, &v.Post, now); err != nil {
				return err
			}
		}
	}
	for _, id := range e.OrganizerIDs {
		if _, ok := r.Organizers[id]; ok {
			continue
		}
		o, err := readPost[Organizer](r.cache, tx, TypeOrganizer, id, now)
		if err != nil {
			return err
		}
		r.Organizers[id] = o
		if err := r.addPost(tx, &o.Post, now); err != nil {
			return err
		}
	}
	for _, id := range e.Categories {
		if err := r.addTerm(tx, TaxCategory, id); err != nil {
			return err
		}
	}
	for _, id := range e.Tags {
		if err := r.addTerm(tx, TaxTag, id); err != nil {
			return err
		}
	}
	return nil
}

// addPost loads what every record's response refers to: its image and its translation group.
func (r *Related) addPost(tx kv.Tx, p *Post, now time.Time) error {
	if p.ImageID != 0 {
		if _, ok := r.Images[p.ImageID]; !ok {
			img, err := get[Image](tx, bImages, p.ImageID)
			if err != nil && err != ErrNotFound {
				return err
			}
			r.Images[p.ImageID] = img
		}
	}
	if p.Group == 0 {
		return nil
	}
	if _, ok := r.Groups[p.Group]; ok {
		return nil
	}
	ids := groupMembers(tx, p.Group)
	if len(ids) == 1 && ids[0] == p.ID {
		// Alone in its group, as most records are: nothing else to decode.
		r.Groups[p.Group] = []Post{*p}
		return nil
	}
	var members []Post
	for _, id := range ids {
		t, err := postTypeOf(tx, id)
		if err != nil {
			continue
		}
		m, err := get[Post](tx, postBucket(t), id)
		if err != nil {
			return err
		}
		m.promote(now)
		members = append(members, *m)
	}
	r.Groups[p.Group] = members
	return nil
}

// addTerm loads a term and, for categories, its ancestors.
func (r *Related) addTerm(tx kv.Tx, tax Taxonomy, id uint64) error {
	for id != 0 {
		if _, ok := r.Terms[id]; ok {
			return nil
		}
		raw := tx.Get(termBucket(tax), u64(id))
		if raw == nil {
			return nil
		}
		t, err := decode[Term](r.terms, id, raw)
		if err != nil {
			return err
		}
		if !r.dueRead {
			r.due, r.dueRead = dueTermCounts(tx, r.now), true
		}
		t.Count += r.due[id]
		r.Terms[id] = t
		id = t.Parent
	}
	return nil
}

// idBySlug implements the by-slug lookup of docs/API.md "Statuses": a non-trashed record first, else the most
// recently trashed one with that slug.
func idBySlug(tx kv.Tx, t PostType, lang Lang, s string) (uint64, error) {
	s = slug.Normalize(s)
	if s == "" {
		return 0, ErrNotFound
	}
	if v := tx.Get(slugBucket(t, lang), []byte(s)); v != nil {
		return beUint(v), nil
	}
	var best, bestAt uint64
	prefix := trashSlugKey(s)
	c := tx.Cursor(trashSlugBucket(t, lang))
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8; k, v = c.Next() {
		if at := beUint(v); best == 0 || at >= bestAt {
			best, bestAt = beUint(k[len(prefix):]), at
		}
	}
	if best == 0 {
		return 0, ErrNotFound
	}
	return best, nil
}
