// Package tec mirrors a The Events Calendar (WordPress) site into the store through the site's REST
// API: its events, venues, organizers, categories and tags keep their IDs and slugs (WordPress post and
// term IDs share our ID spaces, docs/API.md "Routes").
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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	// The events list leaves out events hidden from listings (docs/API.md "Events list parameters"), which /wp/v2 lists until
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
