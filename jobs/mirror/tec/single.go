package tec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/calendard/calendard/jobs/mirror"
)

// errGone is single's answer for a record the site says is not there for us: deleted (404, 410; for
// a term, venue or organizer, WordPress's 400 rest_invalid_param on the id, which it answers for an
// ID that is not one of the route's type), or unpublished or private (401, 403, which WordPress
// answers for a post the user may not read).
var errGone = errors.New("not served by the site")

// single fetches one record of kind k through tribe/events/v1's single route.
func (r *run) single(ctx context.Context, k kind, id uint64) ([]byte, error) {
	resp, err := r.im.Get.Get(ctx, fmt.Sprintf("%s/tribe/events/v1/%s/%d", r.root.URL, k.list, id))
	var se *mirror.StatusError
	if errors.As(err, &se) && (slices.Contains([]int{http.StatusNotFound, http.StatusGone, http.StatusUnauthorized, http.StatusForbidden}, se.Status) ||
		se.Status == http.StatusBadRequest && strings.Contains(se.Body, `"rest_invalid_param"`) && strings.Contains(se.Body, `"params":{"id"`)) {
		return nil, fmt.Errorf("%w: %w", errGone, err)
	}
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// fetch gets record id of kind k through its single route and follows the site's answer: a record
// served is written when it changed; one the site says is gone or in its trash is trashed here when
// linked, and reported as a failure when not (a record /wp/v2 lists that TEC does not serve us);
// another refusal of that one record (a 400) is reported and the run goes on.
func (r *run) fetch(ctx context.Context, k kind, id uint64) error {
	key := k.key(id)
	body, err := r.single(ctx, k, id)
	var se *mirror.StatusError
	switch {
	case errors.Is(err, errGone):
		if l, ok := r.linked[key]; ok {
			if closed(err) && parseStamp(l.Stamp).embedded {
				// Written from an event's embedding, as its route was closed to us: still so.
				r.counted[key] = true
				r.rep.Count(mirror.Unchanged)
				return nil
			}
			return r.trash(ctx, k, key)
		}
		r.rep.Fail(k.name, strconv.FormatUint(id, 10), err)
		r.counted[key] = true
		return nil
	case errors.As(err, &se) && se.Status < 500 && se.Status != http.StatusTooManyRequests:
		r.rep.Fail(k.name, strconv.FormatUint(id, 10), err)
		r.counted[key] = true
		return nil
	case err != nil:
		return err
	}
	var st struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(body, &st) == nil && st.Status == "trash" {
		if _, ok := r.linked[key]; ok {
			return r.trash(ctx, k, key)
		}
		r.counted[key] = true
		return nil
	}
	var changes []*change
	if k == events {
		changes = r.embeds(body)
	}
	if _, c := r.prepare(k, body); c != nil {
		changes = append(changes, c)
	}
	if err := r.commit(ctx, changes); err != nil {
		return err
	}
	r.opts.Progress.Add(1)
	return nil
}

// closed reports whether err is a single route's 401 or 403: the record is there, not for us to read.
func closed(err error) bool {
	var se *mirror.StatusError
	return errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden)
}

// embeds returns the writes of the venue and organizers an event embeds (raw) that the store does not
// hold from their own routes: TEC embeds them in a published event whatever their status, while their
// own lists and routes leave out or refuse (403) an unpublished one to a user who may not read it, so
// without them the event would be refused for linking a record that is not here. Each is written as
// the embedding says (a draft venue stays a draft) with an embedded stamp, before the event, in its
// transaction. Such a record is kept while its own route stays closed to us (401, 403: it is there;
// fetch), updated at each complete walk (an edit to it changes no event's digest), and trashed as any
// other when its route answers it gone (404, 410) or trashed; once its own route serves it, it is
// theirs. A reference without the record's fields (a site that embeds IDs alone) writes nothing.
func (r *run) embeds(raw []byte) []*change {
	var e struct {
		Venue     json.RawMessage   `json:"venue"`
		Organizer []json.RawMessage `json:"organizer"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return nil
	}
	var changes []*change
	add := func(k kind, obj json.RawMessage) {
		if obj = bytes.TrimSpace(obj); len(obj) == 0 || obj[0] != '{' {
			return
		}
		var p post
		if json.Unmarshal(obj, &p) != nil || p.ID == 0 || p.Status == "" {
			return
		}
		key := k.key(p.ID)
		l, linked := r.linked[key]
		old := parseStamp(l.Stamp)
		if r.embedded[key] || r.own[key] || linked && !old.embedded {
			return
		}
		r.embedded[key] = true
		modified, err := p.modifiedUTC(r.site)
		if err != nil {
			return // the event's write reports the link it cannot make
		}
		st := stamp{modified: modified, digest: digest(obj), embedded: true}
		if linked && old.digest == st.digest {
			return
		}
		put, err := r.putter(k, obj, &p)
		if err != nil {
			r.rep.Fail(k.name, strconv.FormatUint(p.ID, 10), err)
			r.counted[key] = true
			return
		}
		changes = append(changes, &change{k: k, id: p.ID, stamp: st.String(), put: put, recount: linked && r.counted[key]})
		r.counted[key] = true
	}
	add(venues, e.Venue)
	for _, o := range e.Organizer {
		add(organizers, o)
	}
	return changes
}
