package tec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/calendard/calendard/jobs/mirror"
)

// pages fetches every page of a list of perPage items a page, handing each page's body to fn, which
// returns how many items it held. The headers' page counts (X-TEC-TotalPages, X-WP-TotalPages) and
// next_rest_url are not to be trusted to say where a list ends (TEC's term lists undercount), so the
// walk goes on while a page comes back full, or while they say there is more (a site that serves
// fewer than perPage a page), and ends at a short page or at the answer of a page past the end (404,
// or WordPress's 400 rest_post_invalid_page_number).
func (r *run) pages(ctx context.Context, first string, perPage int, fn func(body []byte) (int, error)) error {
	var prev []byte
	for page := 1; ; page++ {
		u := first
		if page > 1 {
			u = withPage(first, page)
		}
		resp, err := r.im.Get.Get(ctx, u)
		if page > 1 && pastEnd(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if page > 1 && bytes.Equal(resp.Body, prev) {
			return fmt.Errorf("GET %s: the site answers page %d as page %d", u, page, page-1)
		}
		prev = resp.Body
		n, err := fn(resp.Body)
		if err != nil {
			return err
		}
		var body struct {
			Next string `json:"next_rest_url"`
		}
		_ = json.Unmarshal(resp.Body, &body)
		more := page < cmpHeader(resp.Header, "X-TEC-TotalPages", "X-WP-TotalPages") || body.Next != ""
		if n == 0 || n < perPage && !more {
			return nil
		}
	}
}

// pastEnd reports whether err is a list's answer to a page past its end.
func pastEnd(err error) bool {
	var se *mirror.StatusError
	return errors.As(err, &se) && (se.Status == http.StatusNotFound ||
		se.Status == http.StatusBadRequest && strings.Contains(se.Body, "rest_post_invalid_page_number"))
}

// cmpHeader is the first of the named headers holding a number, or 0.
func cmpHeader(h http.Header, names ...string) int {
	for _, n := range names {
		if v, err := strconv.Atoi(h.Get(n)); err == nil {
			return v
		}
	}
	return 0
}

func withPage(u string, page int) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	q := p.Query()
	q.Set("page", strconv.Itoa(page))
	p.RawQuery = q.Encode()
	return p.String()
}

// listURL is the first page of a tribe/events/v1 list of kind k with everything the caller may see.
func (r *run) listURL(k kind) string {
	q := url.Values{"per_page": {strconv.Itoa(tecPerPage)}}
	if k == events {
		q.Set("start_date", allTimeStart)
		q.Set("end_date", allTimeEnd)
	}
	if r.private() && k != categories && k != tags {
		q.Set("status", privateStatuses)
	}
	if k == categories || k == tags {
		q.Set("hide_empty", "0") // the site leaves out by default what no published event uses
	}
	return r.root.URL + "/tribe/events/v1/" + k.list + "?" + q.Encode()
}

// walk goes through every page of kind k's list and writes what changed; once the walk is complete,
// it asks the single route of each linked record the walk did not meet (confirm). A walk that fails
// returns before asking, so that it trashes nothing.
func (r *run) walk(ctx context.Context, k kind) error {
	r.opts.Progress.Begin(r.root.URL+" "+k.list, 0)
	seen := map[string]bool{}
	err := r.pages(ctx, r.listURL(k), tecPerPage, func(body []byte) (int, error) {
		var page map[string]json.RawMessage
		if err := json.Unmarshal(body, &page); err != nil {
			return 0, fmt.Errorf("%s list: %w", k.list, err)
		}
		var items []json.RawMessage
		if raw, ok := page[k.list]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return 0, fmt.Errorf("%s list: %w", k.list, err)
			}
		}
		var total int
		_ = json.Unmarshal(page["total"], &total)
		r.opts.Progress.SetTotal(total)
		var changes []*change
		for _, raw := range items {
			if k == events {
				changes = append(changes, r.embeds(raw)...)
			}
			id, c := r.prepare(k, raw)
			if id != 0 {
				seen[k.key(id)] = true
			}
			if c != nil {
				changes = append(changes, c)
			}
		}
		if err := r.commit(ctx, changes); err != nil {
			return 0, err
		}
		r.opts.Progress.Add(len(items))
		return len(items), nil
	})
	if r.refusedPrivate(err) {
		return r.walk(ctx, k)
	}
	if err != nil {
		return err
	}
	var missing []uint64
	for key := range r.linked {
		if strings.HasPrefix(key, k.name+":") && !seen[key] {
			missing = append(missing, k.idOf(key))
		}
	}
	return r.confirm(ctx, k, missing)
}

// confirm asks the single route of each record of kind k in ids (records a list no longer has) and
// does what it answers: a record still served is written as it is (an event hidden from listings,
// one that has ended), one the site says is gone is trashed. One request a record, which is few
// between two runs.
func (r *run) confirm(ctx context.Context, k kind, ids []uint64) error {
	slices.Sort(ids)
	for _, id := range ids {
		if err := r.fetch(ctx, k, id); err != nil {
			return err
		}
	}
	return nil
}
