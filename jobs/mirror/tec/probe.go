package tec

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/storage"
)

// probe asks the events route for each post ID that no list has shown, from the one after the
// highest an earlier probe asked (the root's storage.Origin) to ProbeBeyond past the highest ID a
// list showed. An event hidden from listings that has ended is on no list of the site (TEC's events
// list leaves hidden events out, /wp/v2 ended ones); WordPress hands out the IDs of every post type
// from one counter, so the IDs between the records are revisions, attachments, pages, records the
// user may not see and such events, which only their own route tells apart. One request an ID,
// probeWorkers at a time, a page of them written in one transaction. A probe cut short keeps the
// mark where it was: the next walk asks again.
func (r *run) probe(ctx context.Context) error {
	origin, err := r.im.Store.Origin(ctx, r.root.URL)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	known := map[uint64]bool{}
	var top uint64
	note := func(id uint64) {
		known[id] = true
		top = max(top, id)
	}
	posts := []kind{venues, organizers, events}
	notePost := func(key string) {
		for _, k := range posts {
			if strings.HasPrefix(key, k.name+":") {
				note(k.idOf(key))
			}
		}
	}
	for key := range r.linked {
		notePost(key)
	}
	for key := range r.counted {
		notePost(key)
	}
	for _, k := range posts {
		for key := range r.im.listed[r.state(k)] {
			note(k.idOf(key))
		}
	}
	for id, k := range r.siblings {
		if k != storage.DocCategory && k != storage.DocTag {
			note(id)
		}
	}
	var ids []uint64
	for id := origin.Probed + 1; id <= top+ProbeBeyond; id++ {
		if !known[id] {
			ids = append(ids, id)
		}
	}
	r.opts.Progress.Begin(r.root.URL+" events probed", len(ids))
	found := 0
	for page := range slices.Chunk(ids, tecPerPage) {
		bodies, err := r.probePage(ctx, page)
		if err != nil {
			return err
		}
		var changes []*change
		for _, body := range bodies {
			if body == nil || !r.ours(body) {
				continue
			}
			found++
			changes = append(changes, r.embeds(body)...)
			if _, c := r.prepare(events, body); c != nil {
				changes = append(changes, c)
			}
		}
		if err := r.commit(ctx, changes); err != nil {
			return err
		}
		r.opts.Progress.Add(len(page))
	}
	if found > 0 {
		r.rep.Note("%s: %d events on no list of the site (hidden from listings, and ended) found by asking the events route for %d post IDs", r.root.URL, found, len(ids))
	}
	if top <= origin.Probed {
		return nil
	}
	origin.Source, origin.Probed = r.root.URL, top
	return r.im.Store.Bulk(ctx, r.im.Actor, func(b *storage.Bulk) error { return b.PutOrigin(r.root.URL, origin) })
}

// probePage asks the events route for each of ids, probeWorkers at a time, and returns the bodies of
// the events it serves, nil for an ID that is not an event served to us (a revision or another type:
// 400; deleted: 404; unpublished or trashed: 401, 403; in the trash: its status).
func (r *run) probePage(ctx context.Context, ids []uint64) ([][]byte, error) {
	bodies := make([][]byte, len(ids))
	errs := make([]error, len(ids))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(probeWorkers, len(ids)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				bodies[i], errs[i] = r.single(ctx, events, ids[i])
			}
		}()
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		var se *mirror.StatusError
		switch {
		case err == nil:
			var st struct {
				Status string `json:"status"`
			}
			if json.Unmarshal(bodies[i], &st) == nil && st.Status == "trash" {
				bodies[i] = nil
			}
		case errors.Is(err, errGone) || errors.As(err, &se) && se.Status < 500 && se.Status != http.StatusTooManyRequests:
			bodies[i] = nil
		default:
			return nil, err
		}
	}
	return bodies, nil
}

// ours reports whether a probed event is this root's: a site of several roots (one per language)
// serves every language's events from each root's single route, and names a record's language in
// its translations map; a record that does not is the root's own.
func (r *run) ours(body []byte) bool {
	var p post
	if json.Unmarshal(body, &p) != nil {
		return true // prepare reports it
	}
	id, ok := p.Translations[string(r.root.Lang)]
	return len(p.Translations) == 0 || ok && id == p.ID
}
