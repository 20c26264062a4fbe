// Package tec mirrors a The Events Calendar (WordPress) site into the store through the site's REST
// API: its events, venues, organizers, categories and tags keep their IDs and slugs (WordPress post and
// term IDs share our ID spaces, CONTRACT 0.1).
//
// # Basics
//
// Importer is a mirror.Source. Each Sync walks every root (one per language on a multilingual site):
//
//   - terms: every page of tribe/events/v1/categories and /tags, compared whole (they are few);
//   - venues, organizers, events: when the store already holds the root's records of that kind and
//     the site serves WordPress's own routes (/wp/v2/tribe_venue, /tribe_organizer, /tribe_events),
//     a cheap run: one list of what was modified since the last run's mark (the highest stamp stored,
//     less Overlap for clock skew), a detail fetch of just those through tribe/events/v1, and the list
//     of every ID (100 per page) to find what the site deleted or unpublished. Otherwise, or when the
//     site hides those routes (401, 403, 404), the full walk of tribe/events/v1's lists.
//
// Each record is written whole together with its link (storage.Bulk.Link), a page of them in one
// transaction (one fsync a page rather than one a record; a record the store refuses sends its page
// back one record per transaction). The link's stamp is the record's modification instant in UTC: the
// next run skips a record whose stamp has not moved, and the highest stamp is the mark the next cheap
// run asks from. There is no other state, so an interrupted run simply continues at the next one.
//
// A record the site no longer shows (deleted, trashed, unpublished for the caller) is trashed here and
// unlinked; a term is deleted. Authorship is not carried over: the site's user IDs are not ours, so
// every imported record belongs to the importing actor (calendard's first administrator).
//
// # Caveats
//
// Anonymous requests see only public records; with Getter credentials (an application password of an
// editor) drafts, pending, private and scheduled records come too (status=… on the lists, status=any
// on /wp/v2). Translation groups are joined only where the site says which records translate which
// (a `translations` map, as calendard and Polylang's REST fields give); WPML exposes none over REST.
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
	"github.com/calendard/calendard/storage"
)

// Root is one of a site's REST roots (…/wp-json) and the language its records are imported into.
type Root struct {
	URL  string
	Lang storage.Lang
}

// Importer mirrors a TEC site. Set its fields before the first Sync.
type Importer struct {
	Store mirror.Store
	// Actor writes the records and becomes their author.
	Actor storage.Actor
	// Roots are the site's roots; the first is the site's own, whose name the importer carries.
	Roots []Root
	// Get fetches the pages; its credentials decide what the site shows.
	Get *mirror.Getter
	// Overlap is taken off the last run's mark when asking what changed since (DefaultOverlap).
	Overlap time.Duration
}

// Paging and bounds of the requests.
const (
	// tecPerPage is the reference's largest page (Appendix F 1).
	tecPerPage = 50
	// wpPerPage is WordPress core's largest page.
	wpPerPage = 100
	// DefaultOverlap covers saves on the site whose modification time trails the clock by up to that
	// much (a long request, a clock a little behind).
	DefaultOverlap = 10 * time.Minute
	// allTime bounds the events list: the reference's default lower bound hides past events.
	allTimeStart = "1900-01-01 00:00:00"
	allTimeEnd   = "2999-12-31 23:59:59"
	// privateStatuses is what an authenticated run asks the lists for beyond what anonymous sees.
	privateStatuses = "publish,future,draft,pending,private"
)

// kind is one of the record types the site serves.
type kind struct {
	name    string // link key prefix and report kind
	list    string // tribe/events/v1 list route, and its JSON key
	wp      string // /wp/v2 route of the same posts
	docKind storage.DocKind
}

var (
	venues     = kind{"venue", "venues", "tribe_venue", storage.DocVenue}
	organizers = kind{"organizer", "organizers", "tribe_organizer", storage.DocOrganizer}
	events     = kind{"event", "events", "tribe_events", storage.DocEvent}
	categories = kind{"category", "categories", "", storage.DocCategory}
	tags       = kind{"tag", "tags", "", storage.DocTag}
)

func (k kind) key(id uint64) string { return k.name + ":" + strconv.FormatUint(id, 10) }

// Name is the first root's URL.
func (im *Importer) Name() string { return im.Roots[0].URL }

// run is the state of one Sync on one root.
type run struct {
	im     *Importer
	root   Root
	opts   mirror.Options
	rep    *mirror.Report
	linked map[string]storage.ExternalLink
	site   *time.Location
	// siblings maps the IDs other roots hold (their languages' records) to their type, for
	// translation groups.
	siblings map[uint64]storage.DocKind
	// counted holds the link keys whose outcome the report has.
	counted map[string]bool
}

// Sync mirrors every root once (mirror.Source).
func (im *Importer) Sync(ctx context.Context, opts mirror.Options) (*mirror.Report, error) {
	opts = opts.WithDefaults()
	rep := &mirror.Report{Source: im.Name()}
	before := im.Get.Requests()
	defer func() { rep.Requests = im.Get.Requests() - before }()
	siblings := map[uint64]storage.DocKind{}
	for _, root := range im.Roots {
		linked, err := im.Store.Linked(ctx, root.URL)
		if err != nil {
			return rep, err
		}
		r := &run{im: im, root: root, opts: opts, rep: rep, linked: linked, siblings: siblings, counted: map[string]bool{}}
		if err := r.sync(ctx); err != nil {
			return rep, fmt.Errorf("tec: %s: %w", root.URL, err)
		}
		for _, l := range linked {
			siblings[l.Doc.ID] = l.Doc.Kind
		}
		if linked, err = im.Store.Linked(ctx, root.URL); err != nil {
			return rep, err
		}
		for _, l := range linked {
			siblings[l.Doc.ID] = l.Doc.Kind
		}
	}
	return rep, nil
}

func (r *run) sync(ctx context.Context) error {
	var err error
	if r.site, err = r.siteZone(ctx); err != nil {
		return err
	}
	for _, tax := range []storage.Taxonomy{storage.TaxCategory, storage.TaxTag} {
		if err := r.syncTerms(ctx, tax); err != nil {
			return err
		}
	}
	// Venues and organizers before the events that link them.
	for _, k := range []kind{venues, organizers, events} {
		first := !r.has(k)
		err := errHidden
		if !first {
			err = r.cheap(ctx, k)
		}
		if errors.Is(err, errHidden) {
			err = r.full(ctx, k)
			if err == nil && first && k == events {
				err = r.afterFirstWalk(ctx, k)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// afterFirstWalk completes a first full walk of kind k with a cheap pass where the site serves
// /wp/v2: the events list leaves out events hidden from listings (CONTRACT 5.2), and the pass fetches
// what /wp/v2 lists that the walk did not write (the records the walk wrote are counted already).
func (r *run) afterFirstWalk(ctx context.Context, k kind) error {
	linked, err := r.im.Store.Linked(ctx, r.root.URL)
	if err != nil {
		return err
	}
	r.linked = linked
	if err := r.cheap(ctx, k); !errors.Is(err, errHidden) {
		return err
	}
	return nil
}

// errHidden says the site does not serve its /wp/v2 routes to us: the full walk must do.
var errHidden = errors.New("tec: /wp/v2 routes hidden")

// has reports whether the store holds records of kind k from this root.
func (r *run) has(k kind) bool {
	for key := range r.linked {
		if strings.HasPrefix(key, k.name+":") {
			return true
		}
	}
	return false
}

// siteZone reads the site's zone from its REST index (timezone_string, else gmt_offset): the zone of
// the local `modified` date of unpublished records. A site that does not say is taken as UTC.
func (r *run) siteZone(ctx context.Context) (*time.Location, error) {
	resp, err := r.im.Get.Get(ctx, r.root.URL+"/")
	if err != nil {
		return nil, err
	}
	var idx struct {
		Timezone string          `json:"timezone_string"`
		Offset   json.RawMessage `json:"gmt_offset"`
	}
	if err := json.Unmarshal(resp.Body, &idx); err != nil {
		return nil, fmt.Errorf("site index: %w", err)
	}
	if idx.Timezone != "" {
		if loc, err := time.LoadLocation(idx.Timezone); err == nil {
			return loc, nil
		}
	}
	if h, err := strconv.ParseFloat(strings.Trim(string(idx.Offset), `"`), 64); err == nil && h != 0 {
		return time.FixedZone("site", int(h*3600)), nil
	}
	return time.UTC, nil
}

// pages fetches every page of a list, handing each page's body to fn, following the page count of
// the headers (X-TEC-TotalPages, X-WP-TotalPages) or, without one, next_rest_url.
func (r *run) pages(ctx context.Context, first string, fn func(body []byte) error) error {
	next := first
	for page := 1; next != ""; page++ {
		resp, err := r.im.Get.Get(ctx, next)
		if err != nil {
			return err
		}
		if err := fn(resp.Body); err != nil {
			return err
		}
		next = ""
		total := cmpHeader(resp.Header, "X-TEC-TotalPages", "X-WP-TotalPages")
		switch {
		case total > 0 && page < total:
			next = withPage(first, page+1)
		case total == 0:
			var body struct {
				Next string `json:"next_rest_url"`
			}
			if json.Unmarshal(resp.Body, &body) == nil && body.Next != "" && body.Next != first {
				next = body.Next
			}
		}
	}
	return nil
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
	if r.im.Get.User != "" && k != categories && k != tags {
		q.Set("status", privateStatuses)
	}
	return r.root.URL + "/tribe/events/v1/" + k.list + "?" + q.Encode()
}

// full walks every page of kind k's list, writes what changed and trashes what is gone.
func (r *run) full(ctx context.Context, k kind) error {
	r.opts.Progress.Begin(r.root.URL+" "+k.list, 0)
	seen := map[string]bool{}
	err := r.pages(ctx, r.listURL(k), func(body []byte) error {
		var page map[string]json.RawMessage
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("%s list: %w", k.list, err)
		}
		var items []json.RawMessage
		if raw, ok := page[k.list]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return fmt.Errorf("%s list: %w", k.list, err)
			}
		}
		var total int
		_ = json.Unmarshal(page["total"], &total)
		r.opts.Progress.SetTotal(total)
		var changes []*change
		for _, raw := range items {
			id, c := r.prepare(k, raw)
			if id != 0 {
				seen[k.key(id)] = true
			}
			if c != nil {
				changes = append(changes, c)
			}
		}
		if err := r.commit(ctx, changes); err != nil {
			return err
		}
		r.opts.Progress.Add(len(items))
		return nil
	})
	if err != nil {
		return err
	}
	if err := r.recheck(ctx, k, seen); err != nil {
		return err
	}
	return r.trashGone(ctx, k, seen)
}

// recheck asks the single route for every record of kind k this root linked that the full walk did
// not list: the events list leaves out events hidden from listings (CONTRACT 5.2), which are still on
// the site and must not be trashed. A record the single route still serves is written as it is and
// counted as seen; one request per record missing from the lists, which is few between two runs.
// (An event hidden from listings before its first import is beyond the full walk's reach; only the
// /wp/v2 routes list it.)
func (r *run) recheck(ctx context.Context, k kind, seen map[string]bool) error {
	var missing []uint64
	for key := range r.linked {
		if strings.HasPrefix(key, k.name+":") && !seen[key] {
			id, _ := strconv.ParseUint(strings.TrimPrefix(key, k.name+":"), 10, 64)
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	for _, id := range missing {
		body, err := r.single(ctx, k, id)
		switch {
		case errors.Is(err, errGone):
			continue // trashGone sees to it
		case err != nil:
			return err
		}
		seen[k.key(id)] = true
		if _, c := r.prepare(k, body); c != nil {
			if err := r.commit(ctx, []*change{c}); err != nil {
				return err
			}
		}
	}
	return nil
}

// errGone is single's answer for a record the site does not serve us (any 4xx but 429).
var errGone = errors.New("not served by the site")

// single fetches one record of kind k through tribe/events/v1's single route.
func (r *run) single(ctx context.Context, k kind, id uint64) ([]byte, error) {
	resp, err := r.im.Get.Get(ctx, fmt.Sprintf("%s/tribe/events/v1/%s/%d", r.root.URL, k.list, id))
	var se *mirror.StatusError
	if errors.As(err, &se) && se.Status < 500 && se.Status != http.StatusTooManyRequests {
		return nil, fmt.Errorf("%w: %w", errGone, err)
	}
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// cheap asks /wp/v2 what changed since the last run's mark, fetches only that, and trashes what the
// list of every ID no longer has. It returns errHidden when the site does not serve the route.
func (r *run) cheap(ctx context.Context, k kind) error {
	mark := ""
	for key, l := range r.linked {
		if strings.HasPrefix(key, k.name+":") && l.Stamp > mark {
			mark = l.Stamp
		}
	}
	since, err := time.ParseInLocation(dbLayout, mark, time.UTC)
	if err != nil {
		return errHidden // a stamp of another form: walk everything once
	}
	overlap := r.im.Overlap
	if overlap == 0 {
		overlap = DefaultOverlap
	}
	q := url.Values{"per_page": {strconv.Itoa(wpPerPage)}, "orderby": {"modified"}, "order": {"asc"},
		"_fields": {"id,modified_gmt"}, "modified_after": {since.Add(-overlap).Format(time.RFC3339)}}
	if r.im.Get.User != "" {
		q.Set("status", "any")
	}
	r.opts.Progress.Begin(r.root.URL+" "+k.list+" changed", 0)
	type entry struct {
		ID       uint64 `json:"id"`
		Modified string `json:"modified_gmt"`
	}
	var changed []entry
	err = r.pages(ctx, r.root.URL+"/wp/v2/"+k.wp+"?"+q.Encode(), func(body []byte) error {
		var page []entry
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("/wp/v2/%s: %w", k.wp, err)
		}
		changed = append(changed, page...)
		return nil
	})
	if err != nil {
		return hidden(err)
	}
	ids := map[string]bool{}
	q = url.Values{"per_page": {strconv.Itoa(wpPerPage)}, "orderby": {"id"}, "order": {"asc"}, "_fields": {"id"}}
	if r.im.Get.User != "" {
		q.Set("status", "any")
	}
	err = r.pages(ctx, r.root.URL+"/wp/v2/"+k.wp+"?"+q.Encode(), func(body []byte) error {
		var page []entry
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("/wp/v2/%s: %w", k.wp, err)
		}
		for _, e := range page {
			ids[k.key(e.ID)] = true
		}
		return nil
	})
	if err != nil {
		return hidden(err)
	}
	// Fetch what changed since the mark, and what the store does not hold although the site lists it
	// (a record refused before, one that became visible without a newer modification).
	var fetch []uint64
	queued := map[string]bool{}
	for _, e := range changed {
		key := k.key(e.ID)
		if l, ok := r.linked[key]; queued[key] || r.counted[key] || !ids[key] || ok && l.Stamp == gmtStamp(e.Modified) {
			// Listed twice while paging, met by a walk of this run (afterFirstWalk), gone since (the
			// trash pass sees to it), or the overlap's.
			continue
		}
		queued[key] = true
		fetch = append(fetch, e.ID)
	}
	var unknown []uint64
	for key := range ids {
		if _, ok := r.linked[key]; !ok && !queued[key] && !r.counted[key] {
			id, _ := strconv.ParseUint(strings.TrimPrefix(key, k.name+":"), 10, 64)
			unknown = append(unknown, id)
		}
	}
	slices.Sort(unknown)
	fetch = append(fetch, unknown...)
	r.opts.Progress.SetTotal(len(fetch))
	for _, id := range fetch {
		body, err := r.single(ctx, k, id)
		switch {
		case errors.Is(err, errGone):
			// Listed by /wp/v2 but not served to us by TEC (a post type TEC hides, a record gone
			// since): nothing to write, and the ID list decides whether it stays.
			r.rep.Fail(k.name, strconv.FormatUint(id, 10), err)
			r.counted[k.key(id)] = true
			continue
		case err != nil:
			return err
		}
		if _, c := r.prepare(k, body); c != nil {
			if err := r.commit(ctx, []*change{c}); err != nil {
				return err
			}
		}
		r.opts.Progress.Add(1)
	}
	for key := range ids {
		if _, ok := r.linked[key]; ok && !r.counted[key] {
			r.rep.Count(mirror.Unchanged)
		}
	}
	return r.trashGone(ctx, k, ids)
}

// hidden turns the answers of a site that does not serve /wp/v2 to us into errHidden.
func hidden(err error) error {
	var se *mirror.StatusError
	if errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
		return errHidden
	}
	return err
}

// change is a record to write, with the stamp its link gets.
type change struct {
	k     kind
	id    uint64
	stamp string
	put   func(*storage.Bulk) (bool, error)
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
	r.counted[key] = true
	stamp, err := p.stamp(r.site)
	if err != nil {
		r.rep.Fail(k.name, id, err)
		return p.ID, nil
	}
	if l, ok := r.linked[key]; ok && l.Stamp == stamp {
		r.rep.Count(mirror.Unchanged)
		return p.ID, nil
	}
	put, err := r.putter(k, raw, &p)
	if err != nil {
		r.rep.Fail(k.name, id, err)
		return p.ID, nil
	}
	return p.ID, &change{k: k, id: p.ID, stamp: stamp, put: put}
}

// commit writes changes with their links in one transaction (rolled back in a dry run) and counts
// their outcomes: one fsync for a page of records instead of one each, and every record whole. When
// the store refuses one of them, each is written again alone, so that only that one fails. It returns
// an error only when the run must stop; a refused record is a failure in the report.
func (r *run) commit(ctx context.Context, changes []*change) error {
	if len(changes) == 0 {
		return nil
	}
	created := make([]bool, len(changes))
	err := mirror.Write(ctx, r.im.Store, r.im.Actor, r.opts.DryRun, func(b *storage.Bulk) error {
		for i, c := range changes {
			var err error
			if created[i], err = c.put(b); err != nil {
				return err
			}
			if err := b.Link(r.root.URL, c.k.key(c.id), storage.Doc{Kind: c.k.docKind, ID: c.id}, c.stamp); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case err == nil:
	case mirror.Refused(err) && len(changes) > 1:
		for _, c := range changes {
			if err := r.commit(ctx, []*change{c}); err != nil {
				return err
			}
		}
		return nil
	case mirror.Refused(err):
		r.rep.Fail(changes[0].k.name, strconv.FormatUint(changes[0].id, 10), err)
		return nil
	default:
		return err
	}
	for _, c := range created {
		if c {
			r.rep.Count(mirror.Added)
		} else {
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
		return func(b *storage.Bulk) (bool, error) {
			_, created, err := b.PutEvent(p.ID, r.root.Lang, in)
			return created, err
		}, nil
	case venues:
		in, err := decoded(raw, (*venue).input)
		if err != nil {
			return nil, err
		}
		in.TranslationOf = r.translationOf(p, storage.DocVenue)
		return func(b *storage.Bulk) (bool, error) { return b.PutVenue(p.ID, r.root.Lang, in) }, nil
	default:
		in, err := decoded(raw, (*organizer).input)
		if err != nil {
			return nil, err
		}
		in.TranslationOf = r.translationOf(p, storage.DocOrganizer)
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

// trashGone trashes and unlinks every record of kind k this root linked that the site no longer lists
// (seen holds the link keys it does).
func (r *run) trashGone(ctx context.Context, k kind, seen map[string]bool) error {
	for key, l := range r.linked {
		if !strings.HasPrefix(key, k.name+":") || seen[key] {
			continue
		}
		err := r.remove(ctx, key, func(b *storage.Bulk) error { return b.Trash(l.Doc) })
		switch {
		case err == nil:
			r.rep.Count(mirror.Trashed)
		case mirror.Refused(err):
			r.rep.Fail(k.name, strings.TrimPrefix(key, k.name+":"), err)
		default:
			return err
		}
	}
	return nil
}

// remove runs del (trashing or deleting what key links) and unlinks key in one transaction, rolled
// back in a dry run.
func (r *run) remove(ctx context.Context, key string, del func(*storage.Bulk) error) error {
	return mirror.Write(ctx, r.im.Store, r.im.Actor, r.opts.DryRun, func(b *storage.Bulk) error {
		if err := del(b); err != nil {
			return err
		}
		return b.Unlink(r.root.URL, key)
	})
}
