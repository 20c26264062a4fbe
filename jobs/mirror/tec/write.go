package tec

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/storage"
)

// change is a record to write, with the stamp its link gets; without put, only its link's stamp
// changes (the record is as the store holds it).
type change struct {
	k     kind
	id    uint64
	stamp string
	put   func(*storage.Bulk) (bool, error)
	// recount says the report counted the record unchanged earlier in the run (an embedded record,
	// which its own kind's turn keeps), which its write corrects.
	recount bool
}

// prepare reads one record (a list item or a single response) and returns its ID (0 when unreadable)
// and the change to write, or nil when there is none: unchanged since the last run (counted), or
// unreadable (a failure in the report).
func (r *run) prepare(k kind, raw []byte) (uint64, *change) {
	var p post
	if err := json.Unmarshal(raw, &p); err != nil || p.ID == 0 {
		r.rep.Fail(k.name, "?", fmt.Errorf("unreadable record: %v", err))
		return 0, nil
	}
	id, key := strconv.FormatUint(p.ID, 10), k.key(p.ID)
	r.counted[key], r.own[key] = true, true
	modified, err := p.modifiedUTC(r.site)
	if err != nil {
		r.rep.Fail(k.name, id, err)
		return p.ID, nil
	}
	st := stamp{modified: modified, digest: digest(raw)}
	if t, err := time.ParseInLocation(dbLayout, modified, time.UTC); err == nil {
		st.recent = r.opts.Now().Sub(t) < r.im.overlap()
	}
	if l, ok := r.linked[key]; ok {
		if parseStamp(l.Stamp).digest == st.digest {
			r.rep.Count(mirror.Unchanged)
			if l.Stamp == st.String() {
				return p.ID, nil
			}
			return p.ID, &change{k: k, id: p.ID, stamp: st.String()}
		}
	}
	put, err := r.putter(k, raw, &p)
	if err != nil {
		r.rep.Fail(k.name, id, err)
		return p.ID, nil
	}
	return p.ID, &change{k: k, id: p.ID, stamp: st.String(), put: put}
}

// commit writes changes with their links in one transaction and counts their outcomes: one fsync for
// a page of records instead of one each, and every record whole. When the store refuses one of them,
// each is written again alone, so that only that one fails. It returns an error only when the run
// must stop; a refused record is a failure in the report.
func (r *run) commit(ctx context.Context, changes []*change) error {
	if len(changes) == 0 {
		return nil
	}
	created := make([]bool, len(changes))
	err := r.im.Store.Bulk(ctx, r.im.Actor, func(b *storage.Bulk) error {
		for i, c := range changes {
			if c.put != nil {
				var err error
				if created[i], err = c.put(b); err != nil {
					return err
				}
			}
			if err := b.Link(r.root.URL, c.k.key(c.id), storage.Doc{Kind: c.k.docKind, ID: c.id}, c.stamp); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case err == nil:
	case storage.Refused(err) && len(changes) > 1:
		for _, c := range changes {
			if err := r.commit(ctx, []*change{c}); err != nil {
				return err
			}
		}
		return nil
	case storage.Refused(err):
		r.rep.Fail(changes[0].k.name, strconv.FormatUint(changes[0].id, 10), err)
		return nil
	default:
		return err
	}
	for i, c := range changes {
		if c.recount && c.put != nil {
			r.rep.Unchanged--
		}
		switch {
		case c.put == nil: // counted unchanged by prepare
		case created[i]:
			r.rep.Count(mirror.Added)
		default:
			r.rep.Count(mirror.Updated)
		}
	}
	return nil
}

// putter decodes a record of kind k and returns the write that puts it into the store.
func (r *run) putter(k kind, raw []byte, p *post) (func(*storage.Bulk) (bool, error), error) {
	switch k {
	case events:
		in, err := decoded(raw, (*event).input)
		if err != nil {
			return nil, err
		}
		in.TranslationOf = r.translationOf(p, storage.DocEvent)
		if in.Date == nil {
			in.Date = p.localDate(r.site)
		}
		key := k.key(p.ID)
		_, linked := r.linked[key]
		return func(b *storage.Bulk) (bool, error) {
			if !linked && in.Title != nil {
				// An event an earlier version trashed for leaving a list, and forgot.
				if _, err := b.Reclaim(r.root.URL, key, p.ID, *in.Title); err != nil {
					return false, err
				}
			}
			_, created, err := b.PutEvent(p.ID, r.root.Lang, in)
			return created, err
		}, nil
	case venues:
		in, err := decoded(raw, (*venue).input)
		if err != nil {
			return nil, err
		}
		in.TranslationOf = r.translationOf(p, storage.DocVenue)
		if in.Date == nil {
			in.Date = p.localDate(r.site)
		}
		return func(b *storage.Bulk) (bool, error) { return b.PutVenue(p.ID, r.root.Lang, in) }, nil
	default:
		in, err := decoded(raw, (*organizer).input)
		if err != nil {
			return nil, err
		}
		in.TranslationOf = r.translationOf(p, storage.DocOrganizer)
		if in.Date == nil {
			in.Date = p.localDate(r.site)
		}
		return func(b *storage.Bulk) (bool, error) { return b.PutOrganizer(p.ID, r.root.Lang, in) }, nil
	}
}

// decoded decodes a record of the site into R and converts it into our input with input.
func decoded[R, I any](raw []byte, input func(*R) (*I, error)) (*I, error) {
	var rec R
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, err
	}
	return input(&rec)
}

// translationOf is the record of another root that p says it translates, if that root's import holds
// it; the store joins a new record to its group (an existing one keeps its group).
func (r *run) translationOf(p *post, k storage.DocKind) *uint64 {
	for lang, id := range p.Translations {
		if lang != string(r.root.Lang) && r.siblings[id] == k {
			return &id
		}
	}
	return nil
}

// trash trashes and unlinks what key (of kind k) links, as the site said it is gone.
func (r *run) trash(ctx context.Context, k kind, key string) error {
	r.counted[key] = true
	l := r.linked[key]
	err := r.remove(ctx, key, func(b *storage.Bulk) error { return b.Trash(l.Doc) })
	switch {
	case err == nil:
		r.rep.Count(mirror.Trashed)
	case storage.Refused(err):
		r.rep.Fail(k.name, strings.TrimPrefix(key, k.name+":"), err)
	default:
		return err
	}
	return nil
}

// remove runs del (trashing or deleting what key links) and unlinks key in one transaction.
func (r *run) remove(ctx context.Context, key string, del func(*storage.Bulk) error) error {
	return r.im.Store.Bulk(ctx, r.im.Actor, func(b *storage.Bulk) error {
		if err := del(b); err != nil {
			return err
		}
		return b.Unlink(r.root.URL, key)
	})
}
