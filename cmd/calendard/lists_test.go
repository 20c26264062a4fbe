package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

// End-to-end tests of the list routes: GET events, venues, organizers, categories and tags (docs/API.md "Lists", "Events list parameters", "Venue and organizer list parameters", "Category and tag list parameters"),
// with _fields (1.5), the list headers (1.7), parameter coercion and errors (2.4–2.6), the language of lists
// (3.8) and per-caller visibility (7.5, 8). The clock is frozen at 2026-11-22T10:15:30Z (a Sunday), so on a UTC
// site the default window of the events list is 2026-11-22 00:00:00 … 2028-11-22 23:59:59.

const (
	eventsPath = "/calendar/events/v1/events"
	nsURL      = testOrigin + "/calendar/events/v1"
)

// listFixture is one server seeded through the API with records of every kind the list routes distinguish.
// rec maps a short name to an event, venue or organizer ID (one shared sequence), term to a category or tag ID.
type listFixture struct {
	s                    *server
	editor, connie, cody string // Basic credentials: an editor and two contributors
	sub                  string // a subscriber: no edit_posts
	roles                map[string]storage.Role
	rec                  map[string]uint64
	term                 map[string]uint64
}

// add creates a record or term as auth and remembers its ID under name; wantStatus, when not "", is the
// status the new record must have (a precondition of the list cases, not a list assertion).
func (f *listFixture) add(t *testing.T, name, auth, path string, body map[string]any, wantStatus string) {
	t.Helper()
	res := f.s.do(req{method: "POST", path: path, auth: auth, body: body})
	if res.status != http.StatusCreated {
		t.Fatalf("fixture %s: POST %s: status %d\n%s", name, path, res.status, res.body)
	}
	obj := res.json(t)
	if wantStatus != "" && obj["status"] != wantStatus {
		t.Fatalf("fixture %s: status %v, want %s", name, obj["status"], wantStatus)
	}
	id := uint64(obj["id"].(float64))
	if strings.HasSuffix(path, categoriesPath) || strings.HasSuffix(path, tagsPath) {
		f.term[name] = id
	} else {
		f.rec[name] = id
	}
}

func (f *listFixture) trash(t *testing.T, name, auth, path string) {
	t.Helper()
	if res := f.s.do(req{method: "DELETE", path: path + "/" + utoa(f.rec[name]), auth: auth}); res.status != http.StatusOK {
		t.Fatalf("fixture: trash %s: %d %s", name, res.status, res.body)
	}
}

// ids returns the record IDs of names, in order.
func (f *listFixture) ids(names ...string) []uint64 {
	out := make([]uint64, len(names))
	for i, n := range names {
		id, ok := f.rec[n]
		if !ok {
			panic("no fixture record " + n)
		}
		out[i] = id
	}
	return out
}

// terms returns the term IDs of names, in order.
func (f *listFixture) terms(names ...string) []uint64 {
	out := make([]uint64, len(names))
	for i, n := range names {
		id, ok := f.term[n]
		if !ok {
			panic("no fixture term " + n)
		}
		out[i] = id
	}
	return out
}

func (f *listFixture) id(name string) string {
	if id, ok := f.rec[name]; ok {
		return utoa(id)
	}
	if id, ok := f.term[name]; ok {
		return utoa(id)
	}
	panic("no fixture name " + name)
}

// seedLists builds the shared fixture. Publication dates (`date`) default to the frozen now; a few records
// get an explicit earlier one so that "by publication date" and "by ID" orders differ.
//
// Events (start instants in UTC; "anon" = listed for anonymous callers in the default window):
//
//	past          2026-11-20 10:00  Jazz, venue oldtheatre, organizer beta, date 2026-06-01  — before the window
//	yoga          2026-11-22 08:00  Sports, outdoor, venue lyon                               — anon (today, started)
//	latenight     UTC+5 2026-11-22 03:00 = 2026-11-21 22:00 UTC, Jazz                         — before the window
//	westside      UTC-5 2026-11-21 20:00 = 2026-11-22 01:00 UTC, venue dawn                    — anon, first
//	concerts      2026-12-05 18:00  Jazz, live+outdoor, paris, alpha, featured                 — anon
//	cafe          UTC+5 2026-12-05 10:00 = 05:00 UTC, Music, free, nogeo                        — anon
//	football      2026-12-05 07:00  Sports, outdoor, lyon, alpha, featured                      — anon
//	zebra, poetry 2027-01-15 19:00 (same start; zebra created first), zebra in ballet           — anon
//	endgala       2028-11-22 23:00                                                              — anon, last day
//	beyond        2028-11-23 00:30                                                              — after the window
//	far           UTC+5 2032-06-02 02:00 = 2032-06-01 21:00 UTC, date 2026-01-01 (docs/API.md "Events list parameters" example)
//	draft, private, future (date 2027-01-01), trashed, hidden (hide_from_listings), fr1, fr2 (fr),
//	de1 (de), conniedraft, conniepending, scrapped (trashed by contributor connie), codydraft (contributor cody)
func seedLists(t *testing.T) *listFixture {
	t.Helper()
	s := startServer(t)
	f := &listFixture{s: s, rec: map[string]uint64{}, term: map[string]uint64{}}
	f.editor = s.user("edna", storage.RoleEditor)
	f.connie = s.user("connie", storage.RoleContributor)
	f.cody = s.user("cody", storage.RoleContributor)
	f.sub = s.user("sid", storage.RoleSubscriber)
	f.roles = map[string]storage.Role{adminAuth: storage.RoleAdministrator, f.editor: storage.RoleEditor,
		f.connie: storage.RoleContributor, f.cody: storage.RoleContributor, f.sub: storage.RoleSubscriber}

	// Terms: categories 1–7, tags 8–11 (one shared term sequence).
	f.add(t, "music", adminAuth, categoriesPath, map[string]any{"name": "Music", "description": "All kinds of music"}, "")
	f.add(t, "jazz", adminAuth, categoriesPath, map[string]any{"name": "Jazz", "description": "Swing and bebop", "parent": f.term["music"]}, "")
	f.add(t, "sports", adminAuth, categoriesPath, map[string]any{"name": "Sports", "description": "Games and races"}, "")
	f.add(t, "arts", adminAuth, categoriesPath, map[string]any{"name": "Arts", "description": "Dance and stage"}, "")
	f.add(t, "ballet", adminAuth, categoriesPath, map[string]any{"name": "ballet", "description": "Classical dance", "parent": f.term["arts"]}, "")
	f.add(t, "bygone", adminAuth, categoriesPath, map[string]any{"name": "Bygone"}, "")
	f.add(t, "drafts", adminAuth, categoriesPath, map[string]any{"name": "Drafts Only"}, "")
	for _, name := range []string{"live", "free", "outdoor", "unused"} {
		f.add(t, name, adminAuth, tagsPath, map[string]any{"name": name}, "")
	}

	// Venues, in this ID order.
	venue := func(name string, body map[string]any) { f.add(t, name, adminAuth, venuesPath, body, "publish") }
	venue("paris", map[string]any{"venue": "Paris Hall", "city": "Paris", "geo_lat": 48.8566, "geo_lng": 2.3522, "date": "2026-01-10 09:00:00"})
	venue("lyon", map[string]any{"venue": "Lyon Arena", "city": "Lyon", "geo_lat": 45.764, "geo_lng": 4.8357, "date": "2026-03-01 09:00:00"})
	venue("nogeo", map[string]any{"venue": "Nowhere Club", "address": "1 Main Street", "zip": "10001", "date": "2026-02-01 09:00:00"})
	venue("dawn", map[string]any{"venue": "Dawn Hall"})
	venue("oldtheatre", map[string]any{"venue": "Old Theatre"})
	venue("gala", map[string]any{"venue": "Gala House"})
	venue("launchpad", map[string]any{"venue": "Launch Pad"})
	venue("loft", map[string]any{"venue": "Secret Loft", "description": "Underground <b>jazz</b> loft"})
	venue("rehearsal", map[string]any{"venue": "Rehearsal Room"})
	venue("ghost", map[string]any{"venue": "Ghost Venue"})
	venue("idle", map[string]any{"venue": "Idle Venue"})
	venue("barn", map[string]any{"venue": "Old Barn"})

	// Organizers.
	org := func(name string, body map[string]any) { f.add(t, name, adminAuth, organizersPath, body, "publish") }
	org("alpha", map[string]any{"organizer": "Alpha Productions", "email": "hello@alpha.example", "date": "2026-02-01 00:00:00"})
	org("beta", map[string]any{"organizer": "Beta Bookings", "phone": "+1 555 0101"})
	org("gamma", map[string]any{"organizer": "Gamma Group"})
	org("delta", map[string]any{"organizer": "Delta Crew"})
	org("zeta", map[string]any{"organizer": "Zeta Events"})
	org("retired", map[string]any{"organizer": "Retired Org"})

	cats := func(names ...string) []uint64 { return f.terms(names...) }
	event := func(name, auth, path, status string, body map[string]any) {
		if _, ok := body["end_date"]; !ok {
			body["end_date"] = body["start_date"]
		}
		f.add(t, name, auth, path, body, status)
	}
	event("past", adminAuth, eventsPath, "publish", map[string]any{"title": "Past Jazz Brunch", "start_date": "2026-11-20 10:00:00",
		"end_date": "2026-11-20 12:00:00", "categories": cats("jazz"), "venue": f.rec["oldtheatre"], "organizer": f.ids("beta"),
		"date": "2026-06-01 00:00:00"})
	event("yoga", adminAuth, eventsPath, "publish", map[string]any{"title": "Early Bird Yoga", "start_date": "2026-11-22 08:00:00",
		"end_date": "2026-11-22 09:00:00", "categories": cats("sports"), "tags": cats("outdoor"), "venue": f.rec["lyon"]})
	event("latenight", adminAuth, eventsPath, "publish", map[string]any{"title": "Late Night Jazz", "timezone": "UTC+5",
		"start_date": "2026-11-22 03:00:00", "end_date": "2026-11-22 04:00:00", "categories": cats("jazz")})
	event("westside", adminAuth, eventsPath, "publish", map[string]any{"title": "Westside Warmup", "timezone": "UTC-5",
		"start_date": "2026-11-21 20:00:00", "end_date": "2026-11-21 22:00:00", "venue": f.rec["dawn"]})
	event("concerts", adminAuth, eventsPath, "publish", map[string]any{"title": "Jazz Concerts in the Park",
		"description": "An evening of smooth jazz music.", "start_date": "2026-12-05 18:00:00", "end_date": "2026-12-05 21:00:00",
		"categories": cats("jazz"), "tags": cats("live", "outdoor"), "venue": f.rec["paris"], "organizer": f.ids("alpha"), "featured": true})
	event("cafe", adminAuth, eventsPath, "publish", map[string]any{"title": "Café Crème Morning", "description": "Breakfast with a live band.",
		"timezone": "UTC+5", "start_date": "2026-12-05 10:00:00", "end_date": "2026-12-05 11:00:00", "categories": cats("music"),
		"tags": cats("free"), "venue": f.rec["nogeo"]})
	event("football", adminAuth, eventsPath, "publish", map[string]any{"title": "Football Final", "description": "Half-time show with a jazz band.",
		"start_date": "2026-12-05 07:00:00", "end_date": "2026-12-05 09:00:00", "categories": cats("sports"), "tags": cats("outdoor"),
		"venue": f.rec["lyon"], "organizer": f.ids("alpha"), "featured": true})
	event("zebra", adminAuth, eventsPath, "publish", map[string]any{"title": "Zebra Theatre Night", "description": "<span>Stage</span> drama",
		"start_date": "2027-01-15 19:00:00", "end_date": "2027-01-15 21:00:00", "categories": cats("ballet")})
	event("poetry", adminAuth, eventsPath, "publish", map[string]any{"title": "Alpha Poetry Slam", "excerpt": "Spoken word open mic.",
		"start_date": "2027-01-15 19:00:00", "end_date": "2027-01-15 20:00:00"})
	event("endgala", adminAuth, eventsPath, "publish", map[string]any{"title": "End of Window Gala", "start_date": "2028-11-22 23:00:00",
		"end_date": "2028-11-22 23:30:00"})
	event("beyond", adminAuth, eventsPath, "publish", map[string]any{"title": "Beyond Window Fair", "start_date": "2028-11-23 00:30:00",
		"end_date": "2028-11-23 02:00:00"})
	event("far", adminAuth, eventsPath, "publish", map[string]any{"title": "Far Future Concert", "timezone": "UTC+5",
		"start_date": "2032-06-02 02:00:00", "end_date": "2032-06-02 04:00:00", "date": "2026-01-01 00:00:00"})
	event("draft", adminAuth, eventsPath, "draft", map[string]any{"title": "Draft Rehearsal", "status": "draft",
		"start_date": "2027-02-01 10:00:00", "categories": cats("drafts"), "venue": f.rec["rehearsal"]})
	event("private", adminAuth, eventsPath, "private", map[string]any{"title": "Private Gala", "status": "private",
		"start_date": "2027-03-01 19:00:00", "categories": cats("sports"), "venue": f.rec["gala"], "organizer": f.ids("zeta")})
	event("future", adminAuth, eventsPath, "future", map[string]any{"title": "Scheduled Launch", "date": "2027-01-01 00:00:00",
		"start_date": "2027-04-01 10:00:00", "venue": f.rec["launchpad"]})
	event("trashed", adminAuth, eventsPath, "publish", map[string]any{"title": "Trashed Party", "start_date": "2027-05-01 20:00:00",
		"categories": cats("bygone"), "venue": f.rec["ghost"], "organizer": f.ids("delta")})
	event("hidden", adminAuth, eventsPath, "publish", map[string]any{"title": "Hidden Jazz Meetup", "hide_from_listings": true,
		"start_date": "2027-01-10 18:00:00", "categories": cats("music"), "tags": cats("live"), "venue": f.rec["loft"]})

	// French records: lists of other languages never show them (3.8).
	f.add(t, "salle", adminAuth, "/fr"+venuesPath, map[string]any{"venue": "Salle Lumière"}, "publish")
	f.add(t, "orgfr", adminAuth, "/fr"+organizersPath, map[string]any{"organizer": "Organisateur Lumière"}, "publish")
	event("fr1", adminAuth, "/fr"+eventsPath, "publish", map[string]any{"title": "Concert Lumière", "start_date": "2027-02-10 20:00:00",
		"categories": cats("music"), "venue": f.rec["salle"], "organizer": f.ids("orgfr")})
	event("fr2", adminAuth, "/fr"+eventsPath, "publish", map[string]any{"title": "Fête de la Musique", "start_date": "2027-06-21 18:00:00"})
	event("de1", adminAuth, eventsPath+"?translation_language=de", "publish", map[string]any{"title": "Konzerte im Café Müller",
		"start_date": "2027-03-10 19:00:00"})

	// Contributors: their records are drafts (or pending), readable by themselves and editors only (7.5).
	f.add(t, "cellar", f.connie, venuesPath, map[string]any{"venue": "Connie Cellar"}, "draft")
	f.add(t, "crew", f.connie, organizersPath, map[string]any{"organizer": "Connie Crew"}, "draft")
	event("conniedraft", f.connie, eventsPath, "draft", map[string]any{"title": "Connie Jazz Jam", "start_date": "2027-02-15 20:00:00",
		"categories": cats("jazz"), "venue": f.rec["cellar"], "organizer": f.ids("crew")})
	event("conniepending", f.connie, eventsPath, "pending", map[string]any{"title": "Connie Pending Show", "status": "publish",
		"start_date": "2027-02-20 20:00:00", "venue": f.rec["idle"]})
	event("scrapped", f.connie, eventsPath, "draft", map[string]any{"title": "Connie Scrapped Idea", "start_date": "2027-06-01 20:00:00"})
	event("codydraft", f.cody, eventsPath, "draft", map[string]any{"title": "Cody Draft Party", "start_date": "2027-02-25 20:00:00"})

	f.trash(t, "trashed", adminAuth, eventsPath)
	f.trash(t, "scrapped", f.connie, eventsPath)
	f.trash(t, "barn", adminAuth, venuesPath)
	f.trash(t, "retired", adminAuth, organizersPath)
	return f
}

// listCase is one list request and what docs/API.md "Lists" says it answers. For a 200, want holds the item IDs in
// order (record names for events/venues/organizers, term names for categories/tags), and total defaults to
// len(want); rest_url, next_rest_url and previous_rest_url are compared exactly ("" = must be absent; a
// rest_url of "*" is not compared).
type listCase struct {
	name       string
	auth       string
	path       string // route path and query, e.g. eventsPath + "?per_page=2"
	wantStatus int    // 0 = 200
	wantCode   string
	wantParams []string // rest_invalid_param: the keys of data.params
	want       []string
	total      int
	perPage    int // 0 = 100
	restURL    string
	next, prev string
	lang       string // language of every listed record; "" = en
	golden     string
	check      func(t *testing.T, body map[string]any)
}

// runListCases runs the cases against one list route; key is the envelope key of the items.
func (f *listFixture) runListCases(t *testing.T, key string, cases []listCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f.checkList(t, key, tc)
		})
	}
}

func (f *listFixture) checkList(t *testing.T, key string, tc listCase) {
	t.Helper()
	status := tc.wantStatus
	if status == 0 {
		status = http.StatusOK
	}
	res := f.s.do(req{method: "GET", path: tc.path, auth: tc.auth})
	checkResponse(t, res, routeCase{r: req{method: "GET", path: tc.path}, wantStatus: status, wantCode: tc.wantCode,
		wantParams: tc.wantParams, golden: tc.golden})
	// 1.7: Allow lists the methods whose route-level check passes for this caller.
	if got, want := res.header.Get("Allow"), f.allow(key, tc.auth); got != want {
		t.Errorf("Allow %q, want %q (docs/API.md, Responses, Authentication and permissions)", got, want)
	}
	// 11: lists carry no ETag; 1.7: authenticated responses carry the WordPress Cache-Control.
	if etag := res.header.Get("ETag"); etag != "" {
		t.Errorf("list response with ETag %q (docs/API.md, Responses)", etag)
	}
	wantCache := "no-cache" // docs/API.md "Responses"
	if tc.auth != "" {
		wantCache = authCacheControl
	}
	if got := res.header.Get("Cache-Control"); got != wantCache {
		t.Errorf("Cache-Control %q, want %q (docs/API.md, Responses)", got, wantCache)
	}
	if status != http.StatusOK {
		for _, h := range []string{"X-TEC-Total", "X-TEC-TotalPages"} {
			if v, ok := res.header[http.CanonicalHeaderKey(h)]; ok {
				t.Errorf("%d response with %s: %v (docs/API.md, Responses: successful list responses only)", status, h, v)
			}
		}
		return
	}
	body := res.json(t)

	// Envelope keys and their order (5.1).
	want := []string{key, "rest_url"}
	if key == "categories" || key == "tags" {
		want = []string{"rest_url", "total", "total_pages", key}
	}
	if tc.next != "" {
		want = append(want, "next_rest_url")
	}
	if tc.prev != "" {
		want = append(want, "previous_rest_url")
	}
	if key != "categories" && key != "tags" {
		want = append(want, "total", "total_pages")
	}
	if diff := cmp.Diff(want, topKeys(t, res.body)); diff != "" {
		t.Errorf("envelope keys (-want +got) (docs/API.md, Lists):\n%s", diff)
	}
	for k, v := range map[string]string{"rest_url": tc.restURL, "next_rest_url": tc.next, "previous_rest_url": tc.prev} {
		if got, _ := body[k].(string); got != v && !(k == "rest_url" && v == "*") {
			t.Errorf("%s = %q\n      want %q (docs/API.md, Lists)", k, got, v)
		}
	}

	// Totals: integers, ⌈total/per_page⌉, echoed in the headers.
	total := tc.total
	if total == 0 {
		total = len(tc.want)
	}
	perPage := tc.perPage
	if perPage == 0 {
		perPage = 100
	}
	pages := (total + perPage - 1) / perPage
	if got, ok := body["total"].(float64); !ok || got != float64(total) {
		t.Errorf("total = %v, want %d", body["total"], total)
	}
	if got, ok := body["total_pages"].(float64); !ok || got != float64(pages) {
		t.Errorf("total_pages = %v, want %d", body["total_pages"], pages)
	}
	if got := res.header.Get("X-TEC-Total"); got != strconv.Itoa(total) {
		t.Errorf("X-TEC-Total %q, want %d (docs/API.md, Lists)", got, total)
	}
	if got := res.header.Get("X-TEC-TotalPages"); got != strconv.Itoa(pages) {
		t.Errorf("X-TEC-TotalPages %q, want %d (docs/API.md, Lists)", got, pages)
	}

	// Items, in order.
	items, ok := body[key].([]any)
	if !ok {
		t.Fatalf("%s is %T, want an array", key, body[key])
	}
	var wantIDs []uint64
	if key == "categories" || key == "tags" {
		wantIDs = f.terms(tc.want...)
	} else {
		wantIDs = f.ids(tc.want...)
	}
	gotIDs := make([]uint64, len(items))
	for i, it := range items {
		m, _ := it.(map[string]any)
		id, _ := m["id"].(float64)
		gotIDs[i] = uint64(id)
		if key != "categories" && key != "tags" {
			if _, ok := m["json_ld"]; ok {
				t.Errorf("item %d has json_ld (docs/API.md, The event object)", gotIDs[i])
			}
			lang := tc.lang
			if lang == "" {
				lang = "en"
			}
			if l, ok := m["language"]; ok && l != lang {
				t.Errorf("item %d has language %v, want only %s (docs/API.md, Languages)", gotIDs[i], l, lang)
			}
		}
	}
	names := f.rec
	if key == "categories" || key == "tags" {
		names = f.term
	}
	if diff := cmp.Diff(describe(names, wantIDs), describe(names, gotIDs)); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if tc.check != nil {
		tc.check(t, body)
	}
}

// describe turns IDs back into fixture names ("concerts#23"), so item diffs are readable.
func describe(names map[string]uint64, ids []uint64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "#" + utoa(id)
		for name, nid := range names {
			if nid == id {
				out[i] = name + out[i]
			}
		}
	}
	return out
}

// allow is the Allow header of a list route for a caller (1.7, 7.4, 7.6).
func (f *listFixture) allow(key, auth string) string {
	role, ok := f.roles[auth]
	if !ok {
		return "GET"
	}
	switch key {
	case "categories":
		if role == storage.RoleContributor || role == storage.RoleSubscriber {
			return "GET"
		}
	case "tags":
		if role != storage.RoleAdministrator && role != storage.RoleEditor {
			return "GET"
		}
	default:
		if role == storage.RoleSubscriber {
			return "GET"
		}
	}
	return "GET, POST"
}

// topKeys returns the keys of a JSON object in document order.
func topKeys(t testing.TB, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("body is not an object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// listItemsOf returns the items of a list body.
func listItemsOf(body map[string]any, key string) []map[string]any {
	raw, _ := body[key].([]any)
	out := make([]map[string]any, len(raw))
	for i, it := range raw {
		out[i], _ = it.(map[string]any)
	}
	return out
}

// The anonymous default window, in list order: local start, then ID (5.2).
var defaultEvents = []string{"westside", "yoga", "football", "cafe", "concerts", "zebra", "poetry", "endgala"}

func with(list []string, extra ...string) []string {
	return append(append([]string(nil), list...), extra...)
}

// TestLists runs the scenario tables of every list route against one shared fixture (building it is
// the slow part); the tables only read, so they run in parallel.
func TestLists(t *testing.T) {
	t.Parallel()
	f := seedLists(t)
	for _, group := range []struct {
		name string
		run  func(t *testing.T, f *listFixture)
	}{
		{"events", testListEvents},
		{"venues and organizers", testListVenuesAndOrganizers},
		{"terms", testListTerms},
	} {
		t.Run(group.name, func(t *testing.T) {
			t.Parallel()
			group.run(t, f)
		})
	}
}
