// Package tectest is a fake The Events Calendar site for tests and benchmarks: one REST root serving
// tribe/events/v1's lists and single routes and WordPress core's /wp/v2 post lists, in the
// reference's shapes and with its deviations from calendard (docs/API.md "Differences from The Events Calendar").
//
// Records are put as the JSON objects calendard itself answers (its shape is the reference's), and
// served the way the reference would: the category taxonomy is tribe_events_cat, websites and costs
// are HTML-escaped, unpublished records report zero UTC dates, lists stop at 50 per page, the events
// list hides past events unless asked with an early start_date (its bounds compare the event's end),
// and records that are not published are shown only to the site's user (HTTP Basic); asking a list for
// them without that user's credentials is a 400 rest_invalid_param, as on the reference.
//
// It is as unkind as a real site (WordPress 7 with The Events Calendar 6.17), whose importer must not
// trust what a real one does not promise:
//
//   - /wp/v2/tribe_events lists only the events that have not ended, whatever its status, orderby and
//     modified_after (TEC filters WordPress's query of its post type), status=draft included.
//     Venues and organizers are listed there as usual.
//   - Drafts and pending records have an empty slug (WordPress gives a post its slug when it is
//     published).
//   - Posts of every type take their IDs from one counter, which every update also moves (a
//     revision each), so the IDs the site will use next are not predictable from its records.
//   - Credentials of no user are a 401 invalid_username, a wrong application password a 401
//     incorrect_password, on every route.
//   - A record taken out of the trash (Restore) is a draft, whatever it was before.
//   - The term lists' X-TEC-Total and X-TEC-TotalPages (and the body's total, total_pages,
//     next_rest_url) count only the terms some event uses, so they can say one page when there are
//     two; the lists are sorted by name, so a parent can come on a later page than its children.
//   - An event without a website reports its own page URL as its website, and a partial update on
//     the site (Update) sets an omitted website to "".
//   - An event embeds its venue and organizers whatever their status, while their own routes answer
//     an unpublished one 403 to anonymous requests.
//   - A term, venue or organizer the site does not have (deleted for good) is a 400
//     rest_invalid_param on its id from its single route, not a 404 (WordPress validates the id
//     against the route's type first); a trashed event is a 403 event-no-longer-available to
//     everyone, its editors included. The events route answers the ID of a post of another type (a
//     venue, a revision) 400 rest-invalid-event-id, and one no post has (never used, or deleted for
//     good) 404 rest-event-not-found.
//   - An event hidden from listings that has ended is on no list: the events list leaves out hidden
//     events, /wp/v2 ended ones. Only its own route serves it.
//   - The term lists leave out the terms no published event uses (hide_empty, on unless asked with
//     hide_empty=0), though a parent of a used term stays listed.
//   - A record's single route adds its json_ld, which the lists leave out.
//   - A scheduled (future) post's modification time is its publication date, ahead of now: the
//     highest modified_gmt /wp/v2 reports may lie in the future.
package tectest

import (
	"cmp"
	"encoding/json"
	"html"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Kinds of records, as the list routes name them.
const (
	Events     = "events"
	Venues     = "venues"
	Organizers = "organizers"
	Categories = "categories"
	Tags       = "tags"
)

// wpRoutes maps the /wp/v2 post routes to the kinds they list.
var wpRoutes = map[string]string{"tribe_events": Events, "tribe_venue": Venues, "tribe_organizer": Organizers}

const (
	zeroDate = "0000-00-00 00:00:00"
	dbLayout = "2006-01-02 15:04:05"
)

// Site is the fake site. Its exported fields may be set before it serves and its methods called from
// any goroutine. Mount it at a REST root: Handler serves paths below /wp-json.
type Site struct {
	// User and Password are the credentials that see unpublished records.
	User, Password string
	// Subscriber and SubscriberPassword are valid credentials of a user who may not see unpublished
	// records: the site answers them as it answers anonymous requests, but 403 rather than 401 on the
	// single route of an unpublished record.
	Subscriber, SubscriberPassword string
	// Zone is the site's time zone (default UTC), the zone of its local dates.
	Zone *time.Location
	// Now is the site's clock, for the events list's default lower bound (default time.Now).
	Now func() time.Time
	// HideWP makes the /wp/v2 routes answer 404, as on a site that removed them.
	HideWP bool

	mu      sync.Mutex
	records map[string]map[uint64]*record
	// lastID is WordPress's one counter of post IDs (events, venues, organizers, revisions,
	// attachments…).
	lastID uint64
	// deleted holds the IDs of posts deleted for good, which no longer exist as posts of any type.
	deleted map[uint64]bool
	// sorted caches each kind's records by ID until a Put or Delete changes them: a benchmark's large
	// site would otherwise sort them for every page.
	sorted   map[string][]*record
	failNext []string
	// Requests counts every request; Details the single-record requests.
	Requests, Details atomic.Int64
}

type record struct {
	id               uint64
	name             string // a term's, which its list is sorted by
	status           string
	hidden           bool // hide_from_listings: the reference's events list leaves it out (docs/API.md "Events list parameters")
	modified         time.Time
	startDate, endDt string
	terms            []uint64 // an event's categories and tags
	venue            uint64   // an event's venue
	organizers       []uint64 // an event's organizers
	raw              json.RawMessage
	// served is an event as served, with its venue and organizers embedded, until one of them changes.
	served json.RawMessage
	// src is the object as put, before the site's rendering: what an Update changes.
	src map[string]any
}

// New returns an empty site in UTC.
func New() *Site {
	return &Site{Zone: time.UTC, Now: time.Now, records: map[string]map[uint64]*record{}, sorted: map[string][]*record{}, deleted: map[uint64]bool{}}
}

// Put adds or replaces a record of kind from its JSON object in calendard's (the reference's) shape
// and returns its ID. Its id, status and modified_utc are read from it; modified is when the site last
// saved it (default: now). A record (not a term) without an id is a new post, which takes the next ID
// of the site's one counter.
func (s *Site) Put(kind string, obj map[string]any) uint64 {
	return s.put(kind, clone(obj), false)
}

// Update changes fields of a record as a partial update through the site's REST API does: the
// others are kept, except an event's website, which the reference sets to "" when omitted (docs/API.md
// "Differences from The Events Calendar"); modified becomes now unless fields say otherwise. It returns false when the site has
// no such record.
func (s *Site) Update(kind string, id uint64, fields map[string]any) bool {
	s.mu.Lock()
	rec := s.records[kind][id]
	s.mu.Unlock()
	if rec == nil {
		return false
	}
	obj := clone(rec.src)
	if kind == Events {
		obj["website"] = ""
	}
	delete(obj, "modified_utc")
	for k, v := range clone(fields) {
		obj[k] = v
	}
	s.put(kind, obj, true)
	return true
}

// Trash moves a record to the trash, as trashing it on the site does: the lists leave it out and its
// single route answers it, status trash, to the site's user only.
func (s *Site) Trash(kind string, id uint64) bool {
	return s.Update(kind, id, map[string]any{"status": "trash"})
}

// Restore takes a record out of the trash as WordPress does: as a draft, whatever it was before.
func (s *Site) Restore(kind string, id uint64) bool {
	return s.Update(kind, id, map[string]any{"status": "draft"})
}

func (s *Site) put(kind string, obj map[string]any, update bool) uint64 {
	post := kind != Categories && kind != Tags
	id := uint64(number(obj["id"]))
	s.mu.Lock()
	if post {
		switch {
		case id == 0:
			s.lastID++
			id = s.lastID
			obj["id"] = id
		case update:
			// An update's revision takes the next ID; a creation makes none.
			s.lastID = max(s.lastID, id) + 1
		default:
			s.lastID = max(s.lastID, id)
		}
	}
	s.mu.Unlock()
	status, _ := obj["status"].(string)
	modified, err := time.ParseInLocation(dbLayout, str(obj["modified_utc"]), time.UTC)
	if err != nil || obj["modified_utc"] == zeroDate {
		modified = s.Now().UTC().Truncate(time.Second)
		obj["modified_utc"] = modified.Format(dbLayout)
	}
	src := clone(obj)
	if post {
		if w, _ := obj["website"].(string); kind == Events && w == "" && !update {
			// Without a website of its own, the reference reports the event's page URL.
			obj["website"] = obj["url"]
		}
		if status == "future" {
			// WordPress inserts a post with a date of its own modified at that date.
			if d, err := time.ParseInLocation(dbLayout, str(obj["date_utc"]), time.UTC); err == nil {
				modified = d
				obj["modified_utc"] = d.Format(dbLayout)
			}
		}
		if status == "draft" || status == "pending" {
			// The reference reports zero UTC dates on records never published, and local ones in its zone.
			obj["date_utc"], obj["modified_utc"] = zeroDate, zeroDate
			obj["modified"] = modified.In(s.Zone).Format(dbLayout)
		}
		if status == "draft" || status == "pending" {
			// WordPress gives a post its slug when it is published.
			obj["slug"] = ""
		}
		if w, ok := obj["website"].(string); ok {
			obj["website"] = html.EscapeString(w)
		}
		if c, ok := obj["cost"].(string); ok {
			obj["cost"] = html.EscapeString(c) // its formatted cost goes through esc_html
		}
	}
	renameTaxonomy(obj)
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(err) // a test's own literal
	}
	hidden, _ := obj["hide_from_listings"].(bool)
	rec := &record{id: id, name: str(obj["name"]), status: status, hidden: hidden, modified: modified,
		startDate: str(obj["start_date"]), endDt: str(obj["end_date"]), terms: termIDs(obj), raw: raw, src: src}
	if kind == Events {
		if v, ok := obj["venue"].(map[string]any); ok {
			rec.venue = uint64(number(v["id"]))
		}
		orgs, _ := obj["organizer"].([]any)
		for _, o := range orgs {
			if m, ok := o.(map[string]any); ok {
				rec.organizers = append(rec.organizers, uint64(number(m["id"])))
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.records[kind] == nil {
		s.records[kind] = map[uint64]*record{}
	}
	delete(s.sorted, kind)
	s.records[kind][id] = rec
	if kind == Venues || kind == Organizers {
		s.reembed()
	}
	return id
}

// reembed drops the events' served forms, which embed venues and organizers. The caller holds s.mu.
func (s *Site) reembed() {
	for _, e := range s.records[Events] {
		e.served = nil
	}
}

// serve is a record as its routes serve it: an event embeds its venue and organizers as their own
// routes answer them (the reference embeds them whatever their status, so a published event shows a
// draft venue to whoever may read the event); one the site no longer has stays a bare reference.
func (s *Site) serve(kind string, rec *record) json.RawMessage {
	if kind != Events || rec.venue == 0 && len(rec.organizers) == 0 {
		return rec.raw
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec.served != nil {
		return rec.served
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(rec.raw, &obj); err != nil {
		panic(err) // marshalled by put
	}
	if v := s.records[Venues][rec.venue]; v != nil {
		obj["venue"] = v.raw
	}
	if len(rec.organizers) > 0 {
		orgs := make([]json.RawMessage, len(rec.organizers))
		for i, id := range rec.organizers {
			orgs[i] = strconv.AppendUint([]byte(`{"id":`), id, 10)
			orgs[i] = append(orgs[i], '}')
			if o := s.records[Organizers][id]; o != nil {
				orgs[i] = o.raw
			}
		}
		obj["organizer"], _ = json.Marshal(orgs)
	}
	served, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	rec.served = served
	return served
}

// termIDs are the IDs of an event's categories and tags.
func termIDs(obj map[string]any) []uint64 {
	var ids []uint64
	for _, field := range []string{"categories", "tags"} {
		terms, _ := obj[field].([]any)
		for _, t := range terms {
			if m, ok := t.(map[string]any); ok {
				ids = append(ids, uint64(number(m["id"])))
			}
		}
	}
	return ids
}

// Delete removes a record, as deleting it for good on the site does.
func (s *Site) Delete(kind string, id uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kind != Categories && kind != Tags {
		s.deleted[id] = true
	}
	delete(s.records[kind], id)
	delete(s.sorted, kind)
	if kind == Venues || kind == Organizers {
		s.reembed()
	}
}

// FailOnce makes the next request whose path and query contain part answer 503, once.
func (s *Site) FailOnce(part string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext = append(s.failNext, part)
}

// ServeHTTP serves the root's routes under /wp-json.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	target := r.URL.RequestURI()
	s.mu.Lock()
	for i, part := range s.failNext {
		if strings.Contains(target, part) {
			s.failNext = slices.Delete(s.failNext, i, i+1)
			s.mu.Unlock()
			writeError(w, http.StatusServiceUnavailable, "unavailable", "Try again later.")
			return
		}
	}
	s.mu.Unlock()
	if code, message, ok := s.refusedCredentials(r); ok {
		writeError(w, http.StatusUnauthorized, code, message)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/wp-json")
	switch rest, tribe := strings.CutPrefix(path, "/tribe/events/v1/"); {
	case !ok:
		writeError(w, http.StatusNotFound, "not_found", "Not a REST route.")
	case path == "/" || path == "":
		s.index(w)
	case tribe:
		kind, id, single := strings.Cut(rest, "/")
		if single {
			s.Details.Add(1)
			s.single(w, r, kind, id)
			return
		}
		s.list(w, r, kind)
	case strings.HasPrefix(path, "/wp/v2/") && !s.HideWP:
		kind, ok := wpRoutes[strings.TrimPrefix(path, "/wp/v2/")]
		if !ok {
			writeError(w, http.StatusNotFound, "rest_no_route", "No route was found matching the URL and request method.")
			return
		}
		s.wpList(w, r, kind)
	default:
		writeError(w, http.StatusNotFound, "rest_no_route", "No route was found matching the URL and request method.")
	}
}

func (s *Site) index(w http.ResponseWriter) {
	_, offset := s.Now().In(s.Zone).Zone()
	writeJSON(w, map[string]any{"name": "Fake TEC site", "timezone_string": s.Zone.String(), "gmt_offset": float64(offset) / 3600})
}

// authenticated reports whether the request carries the site user's credentials.
func (s *Site) authenticated(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	return ok && s.User != "" && u == s.User && p == s.Password
}

// refusedCredentials is WordPress's answer to credentials of no user, or with a wrong application
// password, on every route: ok is false for a request without credentials or with a user's own.
func (s *Site) refusedCredentials(r *http.Request) (code, message string, ok bool) {
	u, _, basic := r.BasicAuth()
	switch {
	case !basic || s.authenticated(r) || s.subscriber(r):
		return "", "", false
	case u != s.User && u != s.Subscriber:
		return "invalid_username", "<strong>Error:</strong> Unknown username. Check again or try your email address.", true
	}
	return "incorrect_password", "The provided password is an invalid application password.", true
}

// subscriber reports whether the request carries the subscriber's credentials.
func (s *Site) subscriber(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	return ok && s.Subscriber != "" && u == s.Subscriber && p == s.SubscriberPassword
}

// refuseStatus answers the reference's 400 to a list asked for statuses beyond publish by a user who
// may not see them (anonymous, a subscriber), and reports whether it did.
func (s *Site) refuseStatus(w http.ResponseWriter, r *http.Request, statuses []string) bool {
	if s.authenticated(r) || !slices.ContainsFunc(statuses, func(st string) bool { return st != "publish" }) {
		return false
	}
	writeError(w, http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): status")
	return true
}

func (s *Site) single(w http.ResponseWriter, r *http.Request, kind, id string) {
	n, err := strconv.ParseUint(id, 10, 64)
	s.mu.Lock()
	rec := s.records[kind][n]
	post := n > 0 && n <= s.lastID && !s.deleted[n]
	s.mu.Unlock()
	switch {
	case (err != nil || rec == nil) && kind == Events && post:
		// A post of another type: a venue, an organizer, a revision, an attachment.
		writeError(w, http.StatusBadRequest, "rest-invalid-event-id", "The specified ID is not a valid event.")
	case (err != nil || rec == nil) && kind == Events:
		writeError(w, http.StatusNotFound, "rest-event-not-found", "The requested event could not be found")
	case err != nil || rec == nil:
		// WordPress's validation of the id parameter: not one of the route's type.
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"code":"rest_invalid_param","message":"Invalid parameter(s): id","data":{"status":400,"params":{"id":"Invalid parameter."}}}`))
	case kind == Events && rec.status == "trash":
		writeError(w, http.StatusForbidden, "event-no-longer-available", "This event is no longer available")
	case kind != Categories && kind != Tags && rec.status != "publish" && (s.subscriber(r) || kind != Events && !s.authenticated(r)):
		// As measured: 403 to a user who may not read it, and to anonymous for a venue or organizer.
		writeError(w, http.StatusForbidden, "rest_forbidden", "Sorry, you are not allowed to do that.")
	case kind != Categories && kind != Tags && rec.status != "publish" && !s.authenticated(r):
		writeError(w, http.StatusUnauthorized, "rest_forbidden", "Sorry, you are not allowed to do that.")
	default:
		body := s.serve(kind, rec)
		if kind != Categories && kind != Tags {
			// A record's own route adds its schema.org JSON-LD, which the lists leave out.
			body = slices.Concat(body[:len(body)-1], []byte(`,"json_ld":{"@context":"http://schema.org","@type":"Thing"}}`))
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = w.Write(body)
	}
}

// visible lists a kind's records the request may see, with the statuses it asked for: records by
// ID, terms by name.
func (s *Site) visible(r *http.Request, kind string, statuses []string) []*record {
	if len(statuses) == 0 || !s.authenticated(r) {
		statuses = []string{"publish"}
	}
	s.mu.Lock()
	all, ok := s.sorted[kind]
	if !ok {
		for _, rec := range s.records[kind] {
			all = append(all, rec)
		}
		slices.SortFunc(all, func(a, b *record) int {
			return cmp.Or(cmp.Compare(strings.ToLower(a.name), strings.ToLower(b.name)), cmp.Compare(a.id, b.id))
		})
		s.sorted[kind] = all
	}
	s.mu.Unlock()
	var out []*record
	for _, rec := range all {
		if kind == Categories || kind == Tags || slices.Contains(statuses, rec.status) {
			out = append(out, rec)
		}
	}
	return out
}

// used counts the terms of recs that some published event uses: what the reference's term lists
// report as their total, while they list every term.
func (s *Site) used(recs []*record) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	inUse := map[uint64]bool{}
	for _, e := range s.records[Events] {
		if e.status == "publish" {
			for _, id := range e.terms {
				inUse[id] = true
			}
		}
	}
	n := 0
	for _, rec := range recs {
		if inUse[rec.id] {
			n++
		}
	}
	return n
}

// listed is the set of terms of a taxonomy its list shows with hide_empty: those a published event
// uses, and their ancestors.
func (s *Site) listed(kind string) map[uint64]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	shown := map[uint64]bool{}
	for _, e := range s.records[Events] {
		if e.status != "publish" {
			continue
		}
		for _, id := range e.terms {
			for t := s.records[kind][id]; t != nil && !shown[t.id]; t = s.records[kind][uint64(number(t.src["parent"]))] {
				shown[t.id] = true
			}
		}
	}
	return shown
}

func (s *Site) list(w http.ResponseWriter, r *http.Request, kind string) {
	q := r.URL.Query()
	var statuses []string
	if v := q.Get("status"); v != "" {
		statuses = strings.Split(v, ",")
	}
	if s.refuseStatus(w, r, statuses) {
		return
	}
	recs := s.visible(r, kind, statuses)
	if kind == Events {
		// The reference's bounds compare the event's end, and its default lower bound is yesterday.
		from := q.Get("start_date")
		if from == "" {
			from = s.Now().In(s.Zone).AddDate(0, 0, -1).Format("2006-01-02") + " 00:00:00"
		}
		to := q.Get("end_date")
		recs = slices.DeleteFunc(recs, func(e *record) bool { return e.hidden || e.endDt < from || to != "" && e.startDate > to })
	}
	perPage := min(atoiOr(q.Get("per_page"), 10), 50)
	page := atoiOr(q.Get("page"), 1)
	pages := (len(recs) + perPage - 1) / perPage
	terms := kind == Categories || kind == Tags
	if page > max(pages, 1) && !terms {
		writeError(w, http.StatusNotFound, "event-archive-page-not-found", "The requested event archive page does not exist")
		return
	}
	if terms && q.Get("hide_empty") != "0" && q.Get("hide_empty") != "false" {
		shown := s.listed(kind)
		recs = slices.DeleteFunc(recs, func(t *record) bool { return !shown[t.id] })
	}
	total := len(recs)
	if terms {
		// The totals lie (see the package doc); a page past the end is an empty list.
		total = s.used(recs)
	}
	totalPages := (total + perPage - 1) / perPage
	items := recs[min((page-1)*perPage, len(recs)):min(page*perPage, len(recs))]
	self := *r.URL
	w.Header().Set("X-TEC-Total", strconv.Itoa(total))
	w.Header().Set("X-TEC-TotalPages", strconv.Itoa(totalPages))
	body := map[string]any{kind: s.raws(kind, items), "rest_url": self.String(), "total": total, "total_pages": totalPages}
	if page < totalPages {
		q.Set("page", strconv.Itoa(page+1))
		self.RawQuery = q.Encode()
		body["next_rest_url"] = self.String()
	}
	writeJSON(w, body)
}

func (s *Site) wpList(w http.ResponseWriter, r *http.Request, kind string) {
	q := r.URL.Query()
	statuses := []string{"publish"}
	st := q.Get("status")
	switch {
	case st == "any":
		statuses = []string{"publish", "future", "draft", "pending", "private"}
	case st != "":
		statuses = strings.Split(st, ",")
	}
	if s.refuseStatus(w, r, statuses) {
		return
	}
	recs := slices.Clone(s.visible(r, kind, []string{"publish", "future", "draft", "pending", "private"}))
	recs = slices.DeleteFunc(recs, func(rec *record) bool { return !slices.Contains(statuses, rec.status) })
	if kind == Events {
		// TEC lets WordPress list only the events that have not ended (the fake compares their end
		// with the site's clock in its zone).
		now := s.Now().In(s.Zone).Format(dbLayout)
		recs = slices.DeleteFunc(recs, func(e *record) bool { return e.endDt < now })
	}
	slices.SortFunc(recs, func(a, b *record) int { return cmp.Compare(a.id, b.id) })
	if v := q.Get("modified_after"); v != "" {
		after, err := time.Parse(time.RFC3339, v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): modified_after")
			return
		}
		recs = slices.DeleteFunc(recs, func(rec *record) bool { return !rec.modified.After(after) })
	}
	if q.Get("orderby") == "modified" {
		slices.SortStableFunc(recs, func(a, b *record) int { return a.modified.Compare(b.modified) })
	}
	perPage := atoiOr(q.Get("per_page"), 10)
	if perPage > 100 {
		writeError(w, http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): per_page")
		return
	}
	page := atoiOr(q.Get("page"), 1)
	pages := (len(recs) + perPage - 1) / perPage
	if page > max(pages, 1) {
		writeError(w, http.StatusBadRequest, "rest_post_invalid_page_number", "The page number requested is larger than the number of pages available.")
		return
	}
	fields := strings.Split(q.Get("_fields"), ",")
	out := []map[string]any{}
	for _, rec := range recs[min((page-1)*perPage, len(recs)):min(page*perPage, len(recs))] {
		item := map[string]any{"id": rec.id}
		if slices.Contains(fields, "modified_gmt") {
			item["modified_gmt"] = rec.modified.Format("2006-01-02T15:04:05")
		}
		out = append(out, item)
	}
	w.Header().Set("X-WP-Total", strconv.Itoa(len(recs)))
	w.Header().Set("X-WP-TotalPages", strconv.Itoa(pages))
	writeJSON(w, out)
}

func (s *Site) raws(kind string, recs []*record) []json.RawMessage {
	out := make([]json.RawMessage, len(recs))
	for i, r := range recs {
		out[i] = s.serve(kind, r)
	}
	return out
}

// renameTaxonomy gives categories, and an event's embedded ones, the reference's taxonomy name.
func renameTaxonomy(obj map[string]any) {
	if obj["taxonomy"] == "calendar_events_cat" {
		obj["taxonomy"] = "tribe_events_cat"
	}
	if cats, ok := obj["categories"].([]any); ok {
		for _, c := range cats {
			if m, ok := c.(map[string]any); ok {
				renameTaxonomy(m)
			}
		}
	}
}

func clone(obj map[string]any) map[string]any {
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return out
}

func number(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case uint64:
		return float64(n)
	case string:
		f, _ := strconv.ParseFloat(n, 64)
		return f
	}
	return 0
}

func str(v any) string { s, _ := v.(string); return s }

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return def
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(v) // a client gone is the client's problem
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": code, "message": message, "data": map[string]any{"status": status}})
}
