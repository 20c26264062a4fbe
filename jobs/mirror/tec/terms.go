package tec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/storage"
)

// syncTerms walks every page of a taxonomy, puts the terms that changed (parents before their
// children, wherever the site's pages list them) and deletes those the site no longer has: missing
// from the complete walk, and answered gone by their single route.
func (r *run) syncTerms(ctx context.Context, tax storage.Taxonomy) error {
	k := tags
	if tax == storage.TaxCategory {
		k = categories
	}
	r.opts.Progress.Begin(r.root.URL+" "+k.list, 0)
	var all []term
	err := r.pages(ctx, r.listURL(k), tecPerPage, func(body []byte) (int, error) {
		var page map[string]json.RawMessage
		if err := json.Unmarshal(body, &page); err != nil {
			return 0, fmt.Errorf("%s list: %w", k.list, err)
		}
		var items []term
		if raw, ok := page[k.list]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return 0, fmt.Errorf("%s list: %w", k.list, err)
			}
		}
		all = append(all, items...)
		return len(items), nil
	})
	if err != nil {
		return err
	}
	r.opts.Progress.SetTotal(len(all))
	seen := map[string]bool{}
	for _, t := range all {
		seen[k.key(t.ID)] = true
	}
	// A category's parent must exist first: put the terms in passes, each taking those whose parent is
	// top level, already here, or put by an earlier pass.
	ready := func(t term) bool {
		_, linked := r.linked[k.key(t.Parent)]
		return t.Parent == 0 || linked || !seen[k.key(t.Parent)] || r.counted[k.key(t.Parent)]
	}
	for len(all) > 0 {
		var later []term
		for _, t := range all {
			if !ready(t) {
				later = append(later, t)
				continue
			}
			if err := r.putTerm(ctx, k, tax, t); err != nil {
				return err
			}
			r.opts.Progress.Add(1)
		}
		if len(later) == len(all) { // a cycle, which WordPress does not allow: report it
			for _, t := range later {
				r.rep.Fail(k.name, strconv.FormatUint(t.ID, 10), errors.New("its parent chain loops"))
			}
			break
		}
		all = later
	}
	for key, l := range r.linked {
		if !strings.HasPrefix(key, k.name+":") || seen[key] {
			continue
		}
		switch _, err := r.single(ctx, k, k.idOf(key)); {
		case err == nil: // still there, whatever the lists say: kept as it is
			r.rep.Count(mirror.Unchanged)
			continue
		case !errors.Is(err, errGone):
			return err
		}
		err := r.remove(ctx, key, func(b *storage.Bulk) error {
			if err := b.DeleteTerm(tax, l.Doc.ID); !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		r.rep.Count(mirror.Trashed)
	}
	return nil
}

// putTerm writes one term with its link when it changed.
func (r *run) putTerm(ctx context.Context, k kind, tax storage.Taxonomy, t term) error {
	key, stamp := k.key(t.ID), t.stamp()
	r.counted[key] = true
	if l, ok := r.linked[key]; ok && l.Stamp == stamp {
		r.rep.Count(mirror.Unchanged)
		return nil
	}
	return r.commit(ctx, []*change{{k: k, id: t.ID, stamp: stamp, put: func(b *storage.Bulk) (bool, error) { return b.PutTerm(tax, t.ID, t.input(tax)) }}})
}
