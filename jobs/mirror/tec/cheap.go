package tec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
)

// errHidden says the site does not serve its /wp/v2 routes to us: the complete walk must do.
var errHidden = errors.New("tec: /wp/v2 routes hidden")

// mark is the highest modification instant the links of kind k hold that is not ahead of now: what
// the next cheap run asks /wp/v2 for changes since. A scheduled post's modification is its publication
// date, ahead of now: as the mark it would hide every edit made until then. ok is false without one (no
// record yet, stamps of another form).
func (r *run) mark(k kind) (since time.Time, ok bool) {
	mark, now := "", r.opts.Now().UTC().Format(dbLayout)
	for key, l := range r.linked {
		// An embedded record's modification is none of /wp/v2's list's (it lists no such record).
		if st := parseStamp(l.Stamp); strings.HasPrefix(key, k.name+":") && !st.embedded && st.modified > mark && st.modified <= now {
			mark = st.modified
		}
	}
	since, err := time.ParseInLocation(dbLayout, mark, time.UTC)
	return since, err == nil
}

// cheap asks /wp/v2 what changed since the last run's mark and which IDs it lists, and fetches
// through the single route what changed, what the store does not hold although the site lists it (a
// record refused before, one that became visible without a newer modification) and what /wp/v2 listed
// at the last cheap run and no longer does (an event that ended, or one deleted). It trashes only what
// those single routes say is gone: /wp/v2's silence says nothing. It returns errHidden when the site
// does not serve the routes.
func (r *run) cheap(ctx context.Context, k kind) error {
	since, ok := r.mark(k)
	if !ok {
		return errHidden
	}
	q := url.Values{"per_page": {strconv.Itoa(wpPerPage)}, "orderby": {"modified"}, "order": {"asc"},
		"_fields": {"id,modified_gmt"}, "modified_after": {since.Add(-r.im.overlap()).Format(time.RFC3339)}}
	if r.private() {
		q.Set("status", "any")
	}
	r.opts.Progress.Begin(r.root.URL+" "+k.list+" changed", 0)
	type entry struct {
		ID       uint64 `json:"id"`
		Modified string `json:"modified_gmt"`
	}
	var changed []entry
	err := r.pages(ctx, r.root.URL+"/wp/v2/"+k.wp+"?"+q.Encode(), wpPerPage, func(body []byte) (int, error) {
		var page []entry
		if err := json.Unmarshal(body, &page); err != nil {
			return 0, fmt.Errorf("/wp/v2/%s: %w", k.wp, err)
		}
		changed = append(changed, page...)
		return len(page), nil
	})
	if r.refusedPrivate(err) {
		return r.cheap(ctx, k)
	}
	if err != nil {
		return hidden(err)
	}
	ids := map[string]bool{}
	q = url.Values{"per_page": {strconv.Itoa(wpPerPage)}, "orderby": {"id"}, "order": {"asc"}, "_fields": {"id"}}
	if r.private() {
		q.Set("status", "any")
	}
	err = r.pages(ctx, r.root.URL+"/wp/v2/"+k.wp+"?"+q.Encode(), wpPerPage, func(body []byte) (int, error) {
		var page []entry
		if err := json.Unmarshal(body, &page); err != nil {
			return 0, fmt.Errorf("/wp/v2/%s: %w", k.wp, err)
		}
		for _, e := range page {
			ids[k.key(e.ID)] = true
		}
		return len(page), nil
	})
	if err != nil {
		return hidden(err)
	}
	var fetch []uint64
	queued := map[string]bool{}
	queue := func(key string) {
		if !queued[key] && !r.counted[key] {
			queued[key] = true
			fetch = append(fetch, k.idOf(key))
		}
	}
	for _, e := range changed {
		key := k.key(e.ID)
		// Skip what the store holds at that modification, unless read so soon after it that an edit
		// in the same second may hide behind it (stamp).
		if l, ok := r.linked[key]; ok {
			if st := parseStamp(l.Stamp); st.modified == gmtStamp(e.Modified) && !st.recent {
				continue
			}
		}
		queue(key)
	}
	var unknown, departed []string
	for key := range ids {
		if _, ok := r.linked[key]; !ok {
			unknown = append(unknown, key)
		}
	}
	for key := range r.im.listed[r.state(k)] {
		if _, ok := r.linked[key]; ok && !ids[key] {
			departed = append(departed, key)
		}
	}
	slices.SortFunc(unknown, func(a, b string) int { return cmpID(k, a, b) })
	slices.SortFunc(departed, func(a, b string) int { return cmpID(k, a, b) })
	for _, key := range append(unknown, departed...) {
		queue(key)
	}
	r.opts.Progress.SetTotal(len(fetch))
	for _, id := range fetch {
		if err := r.fetch(ctx, k, id); err != nil {
			return err
		}
	}
	r.im.listed[r.state(k)] = ids
	for key := range r.linked {
		if strings.HasPrefix(key, k.name+":") && !r.counted[key] {
			r.counted[key] = true
			r.rep.Count(mirror.Unchanged)
		}
	}
	return nil
}

func cmpID(k kind, a, b string) int {
	x, y := k.idOf(a), k.idOf(b)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// hidden turns the answers of a site that does not serve /wp/v2 to us into errHidden.
func hidden(err error) error {
	var se *mirror.StatusError
	if errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
		return errHidden
	}
	return err
}
