// Package tec mirrors a The Events Calendar (WordPress) site into the store through the site's REST
// API: its events, venues, organizers, categories and tags keep their IDs and slugs (WordPress post and
// term IDs share our ID spaces, CONTRACT 0.1).
//
// # Basics
//
// Importer is a mirror.Source. Each Sync goes through every root (one per language on a multilingual
// site):
//
//   - terms: every page of tribe/events/v1/categories and /tags, compared whole (they are few);
//   - venues, organizers, events: a complete walk of tribe/events/v1's lists (every status the
//     importing user may see, events of every date) on an Importer's first run, then at least every
//     FullEvery, and whenever the site hides WordPress's own routes (/wp/v2/tribe_venue,
//     /tribe_organizer, /tribe_events: 401, 403, 404). Between walks, a cheap run: one /wp/v2 list of
//     what was modified since the last run's mark (the highest modification stored, less Overlap for
//     clock skew) and one of every ID it lists, then a detail fetch through tribe/events/v1 of what
//     changed, what is new, and what has left the /wp/v2 list since the last run.
//
// After a walk the importer also asks /wp/v2 for what it lists and the walk did not: the events hidden
// from listings, which TEC's events list leaves out while /wp/v2 lists them until they end. Once they
// have ended they are on no list, and only their own route finds them: the walk then asks it for each
// post ID no list showed (probe).
//
// Each record is written whole together with its link (storage.Bulk.Link), a page of them in one
// transaction (one fsync a page rather than one a record; a record the store refuses sends its page
// back one record per transaction). The link's stamp (see stamp) holds the record's modification
// instant and a digest of the record: the next run skips a record whose digest has not changed, and
// the highest modification is the mark the next cheap run asks from.
//
// Nothing is trashed because a list left it out: lists are partial by design (/wp/v2 lists no event
// that has ended) or by accident (a walk that failed part way). A record is trashed here, and unlinked,
// only when its single route says so: it answers 404 or 410 (deleted; a term, venue or organizer
// deleted for good is a 400 rest_invalid_param on its id), 401 or 403 (unpublished, or
// not for the importing user to see), or the record with status trash. The importer asks that route
// for each record a complete walk no longer lists, and for each record that left the /wp/v2 list since
// the last cheap run; a walk that fails asks nothing and trashes nothing. A term missing from a
// complete walk of its taxonomy whose single route answers it gone is deleted.
//
// An event embeds its venue and organizers whatever their status, and TEC's lists and routes of those
// leave out or refuse an unpublished one to a user who may not read it. Such a record is written from
// the event's embedding, as the site's status says, in the event's transaction (run.embeds); its own
// route's 401 or 403 then says nothing new, and it is kept while that route stays closed, and trashed
// as any other once the route answers it gone or trashed. Authorship is not
// carried over: the site's user IDs are not ours, so every imported record belongs to the importing
// actor (calendard's first administrator).
//
// # Caveats
//
// Anonymous requests see only public records; with Getter credentials (an application password of an
// editor) drafts, pending, private and scheduled records come too (status=… on the lists, status=any
// on /wp/v2). A user the site does not show them (a subscriber) gets 400 rest_invalid_param for asking:
// the importer then asks for the public records, and its report says so. Translation groups are
// joined only where the site says which records translate which (a `translations` map, as calendard
// and Polylang's REST fields give); WPML exposes none over REST.
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
	"sync"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/storage"
)

// Root is one of a site's REST roots (…/wp-json) and the language its records are imported into.
type Root struct {
	URL  string
	Lang storage.Lang
}

// Importer mirrors a TEC site. Set its fields before the first Sync. It keeps what the next runs
// need to know of the earlier ones (when each list was last walked whole, what /wp/v2 listed), so a
// process keeps one Importer for all its runs of a site; Syncs are serialised.
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
	// FullEvery is the longest time between two complete walks of a root's lists (DefaultFullEvery):
	// the cheap runs between them do not see what /wp/v2 does not list (an edit to an event that has
	// ended, its deletion), the walks do. The first Sync of an Importer walks.
	FullEvery time.Duration
	// Zone is the zone this service shows publication and modification dates in (the site time zone
	// of its configuration); a site in another one is a note in every run's report, as our dates would
	// read otherwise than the site's. Nil: no comparison.
	Zone *time.Location

	mu sync.Mutex
	// walked is when the last complete walk of each root's kind began, by state key.
	walked map[string]time.Time
	// listed is what /wp/v2 listed of each root's kind at the last cheap run, by state key.
	listed map[string]map[string]bool
	// public holds the roots whose site refused Get's user the unpublished records (a subscriber):
	// their runs ask for what anonymous visitors see.
	public map[string]bool
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
	// DefaultFullEvery is Importer.FullEvery's default.
	DefaultFullEvery = 24 * time.Hour
	// allTime bounds the events list: the reference's default lower bound hides past events.
	allTimeStart = "1900-01-01 00:00:00"
	allTimeEnd   = "2999-12-31 23:59:59"
	// privateStatuses is what an authenticated run asks the lists for beyond what anonymous sees.
	privateStatuses = "publish,future,draft,pending,private"
	// ProbeBeyond is how many post IDs past the highest a list showed each complete walk asks the
	// events route for: the site's newest posts may be revisions, attachments or events no list shows.
	ProbeBeyond = tecPerPage
	// probeWorkers is how many requests a probe has in flight: a site answers one in tens of ms.
	probeWorkers = 4
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

// idOf is the site's ID in a link key of kind k.
func (k kind) idOf(key string) uint64 {
	id, _ := strconv.ParseUint(strings.TrimPrefix(key, k.name+":"), 10, 64)
	return id
}

// Name is the first root's URL.
func (im *Importer) Name() string { return im.Roots[0].URL }

func (im *Importer) overlap() time.Duration { return cmpOr(im.Overlap, DefaultOverlap) }

func (im *Importer) fullEvery() time.Duration { return cmpOr(im.FullEvery, DefaultFullEvery) }

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

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
	// own holds the keys of the records read this run from their own kind's list or route; embedded
	// those of the venues and organizers events embed that embeds has looked at.
	own, embedded map[string]bool
}

// Sync mirrors every root once (mirror.Source).
func (im *Importer) Sync(ctx context.Context, opts mirror.Options) (*mirror.Report, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.walked == nil {
		im.walked, im.listed, im.public = map[string]time.Time{}, map[string]map[string]bool{}, map[string]bool{}
	}
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
		r := &run{im: im, root: root, opts: opts, rep: rep, linked: linked, siblings: siblings, counted: map[string]bool{},
			own: map[string]bool{}, embedded: map[string]bool{}}
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
		return r.refusedCredentials(err)
	}
	if r.im.public[r.root.URL] {
		r.notePublic()
	}
	if z := r.im.Zone; z != nil && !sameOffsets(z, r.site, r.opts.Now()) {
		r.rep.Note("%s: the site shows its dates in %s, this service in %s: set CALENDAR_SITE_TIMEZONE (--site-timezone) to %[2]s to show them as the site does",
			r.root.URL, r.site, z)
	}
	for _, tax := range []storage.Taxonomy{storage.TaxCategory, storage.TaxTag} {
		if err := r.syncTerms(ctx, tax); err != nil {
			return err
		}
	}
	// Venues and organizers before the events that link them.
	for _, k := range []kind{venues, organizers, events} {
		if err := r.syncKind(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// state is the key of what the Importer keeps of kind k of this root between runs.
func (r *run) state(k kind) string { return r.root.URL + "\x00" + k.name }

// syncKind brings the records of kind k in line: a cheap run when the last complete walk is recent
// enough and the site serves /wp/v2, else a complete walk.
func (r *run) syncKind(ctx context.Context, k kind) error {
	began := r.opts.Now()
	if last, ok := r.im.walked[r.state(k)]; ok && began.Sub(last) < r.im.fullEvery() {
		if err := r.cheap(ctx, k); !errors.Is(err, errHidden) {
			return err
		}
	}
	if err := r.walk(ctx, k); err != nil {
		return err
	}
	// The events list leaves out events hidden from listings (CONTRACT 5.2), which /wp/v2 lists until
	// they end; and the next cheap run must know what /wp/v2 lists now to see what leaves it. What
	// the walk met is counted already, so this fetches just the rest.
	linked, err := r.im.Store.Linked(ctx, r.root.URL)
	if err != nil {
		return err
	}
	r.linked = linked
	if err := r.cheap(ctx, k); err != nil && !errors.Is(err, errHidden) {
		return err
	}
	if k == events {
		if err := r.probe(ctx); err != nil {
			return err
		}
	}
	r.im.walked[r.state(k)] = began
	return nil
}

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
	for _, k := range []kind{venues, organizers, events} {
		for key := range r.linked {
			if strings.HasPrefix(key, k.name+":") {
				note(k.idOf(key))
			}
		}
		for key := range r.counted {
			if strings.HasPrefix(key, k.name+":") {
				note(k.idOf(key))
			}
		}
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

// errHidden says the site does not serve its /wp/v2 routes to us: the complete walk must do.
var errHidden = errors.New("tec: /wp/v2 routes hidden")

// sameOffsets reports whether zones a and b have the same offset from UTC now and half a year later,
// in and out of summer time: the dates they show are the same.
func sameOffsets(a, b *time.Location, now time.Time) bool {
	for _, t := range []time.Time{now, now.AddDate(0, 6, 0)} {
		_, x := t.In(a).Zone()
		if _, y := t.In(b).Zone(); x != y {
			return false
		}
	}
	return true
}

// refusedCredentials says what err means when it is the site refusing Get's credentials (WordPress
// answers them 401 on every route, its index included): no such user, or not an application password
// of theirs. Other errors are returned as they are.
func (r *run) refusedCredentials(err error) error {
	var se *mirror.StatusError
	if r.im.Get.User == "" || !errors.As(err, &se) || se.Status != http.StatusUnauthorized {
		return err
	}
	switch {
	case strings.Contains(se.Body, `"invalid_username"`):
		return fmt.Errorf("the site knows no user %q: check the login (invalid_username)", r.im.Get.User)
	case strings.Contains(se.Body, `"incorrect_password"`):
		return fmt.Errorf("the site refused the application password of user %q: check it, or make a new one (incorrect_password)", r.im.Get.User)
	}
	return err
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

// private reports whether the run asks for unpublished records: Get has a user, and the site has not
// refused it them.
func (r *run) private() bool { return r.im.Get.User != "" && !r.im.public[r.root.URL] }

// refusedPrivate reports whether err is the site's answer to a list asked for unpublished records by a
// user who may not see them (a subscriber): 400 rest_invalid_param on status. If so, the root's runs ask
// for public records from then on, and the report says so.
func (r *run) refusedPrivate(err error) bool {
	var se *mirror.StatusError
	if !r.private() || !errors.As(err, &se) || se.Status != http.StatusBadRequest ||
		!strings.Contains(se.Body, "rest_invalid_param") || !strings.Contains(se.Body, "status") {
		return false
	}
	r.im.public[r.root.URL] = true
	r.notePublic()
	return true
}

func (r *run) notePublic() {
	r.rep.Note("%s: the site does not show user %s its unpublished records: importing the public ones", r.root.URL, r.im.Get.User)
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
	case mirror.Refused(err):
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
