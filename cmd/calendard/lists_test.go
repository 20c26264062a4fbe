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

// End-to-end tests of the list routes: GET events, venues, organizers, categories and tags (CONTRACT 5.1–5.5),
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
//	far           UTC+5 2032-06-02 02:00 = 2032-06-01 21:00 UTC, date 2026-01-01 (CONTRACT 5.2 example)
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

// listCase is one list request and what CONTRACT 5 says it answers. For a 200, want holds the item IDs in
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
		t.Errorf("Allow %q, want %q (CONTRACT 1.7, 7.6)", got, want)
	}
	// 11: lists carry no ETag; 1.7: authenticated responses carry the WordPress Cache-Control.
	if etag := res.header.Get("ETag"); etag != "" {
		t.Errorf("list response with ETag %q (CONTRACT 11)", etag)
	}
	wantCache := "no-cache" // CONTRACT 11
	if tc.auth != "" {
		wantCache = authCacheControl
	}
	if got := res.header.Get("Cache-Control"); got != wantCache {
		t.Errorf("Cache-Control %q, want %q (CONTRACT 1.7, 11)", got, wantCache)
	}
	if status != http.StatusOK {
		for _, h := range []string{"X-TEC-Total", "X-TEC-TotalPages"} {
			if v, ok := res.header[http.CanonicalHeaderKey(h)]; ok {
				t.Errorf("%d response with %s: %v (CONTRACT 1.7: successful list responses only)", status, h, v)
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
		t.Errorf("envelope keys (-want +got) (CONTRACT 5.1):\n%s", diff)
	}
	for k, v := range map[string]string{"rest_url": tc.restURL, "next_rest_url": tc.next, "previous_rest_url": tc.prev} {
		if got, _ := body[k].(string); got != v && !(k == "rest_url" && v == "*") {
			t.Errorf("%s = %q\n      want %q (CONTRACT 5.1)", k, got, v)
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
		t.Errorf("X-TEC-Total %q, want %d (CONTRACT 5.1)", got, total)
	}
	if got := res.header.Get("X-TEC-TotalPages"); got != strconv.Itoa(pages) {
		t.Errorf("X-TEC-TotalPages %q, want %d (CONTRACT 5.1)", got, pages)
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
				t.Errorf("item %d has json_ld (CONTRACT 3.7)", gotIDs[i])
			}
			lang := tc.lang
			if lang == "" {
				lang = "en"
			}
			if l, ok := m["language"]; ok && l != lang {
				t.Errorf("item %d has language %v, want only %s (CONTRACT 3.8)", gotIDs[i], l, lang)
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

func testListEvents(t *testing.T, f *listFixture) {
	u := func(q string) string { return nsURL + "/events/" + q }
	id := f.id
	// Editors see every non-trashed status; contributors publish plus their own records (5.5, 7.5).
	editorDefault := []string{"westside", "yoga", "football", "cafe", "concerts", "zebra", "poetry",
		"draft", "conniedraft", "conniepending", "codydraft", "private", "future", "endgala"}

	f.runListCases(t, "events", []listCase{
		// Default window: start of today … today + 24 months, on the start instant; local start order (5.2).
		{name: "default window", path: eventsPath, want: defaultEvents, restURL: u(""), golden: "list_events_default"},
		{name: "trailing slash", path: eventsPath + "/", want: defaultEvents, restURL: u("")},
		{name: "unknown parameters are ignored and not echoed", path: eventsPath + "?foo=bar&strict_dates=1&starts_after=2030-01-01",
			want: defaultEvents, restURL: u("")},
		{name: "explicit day: local start order, not instant order", path: eventsPath + "?start_date=2026-12-05&end_date=2026-12-05",
			want: []string{"football", "cafe", "concerts"}, restURL: u("?start_date=2026-12-05+00%3A00%3A00&end_date=2026-12-05+23%3A59%3A59")},
		{name: "times are widened to whole days", path: eventsPath + "?start_date=2026-12-05+18:30:00&end_date=2026-12-05+06:00",
			want: []string{"football", "cafe", "concerts"}, restURL: u("?start_date=2026-12-05+00%3A00%3A00&end_date=2026-12-05+23%3A59%3A59")},
		{name: "same start: ID breaks the tie", path: eventsPath + "?start_date=2027-01-15&end_date=2027-01-15",
			want: []string{"zebra", "poetry"}, restURL: u("?start_date=2027-01-15+00%3A00%3A00&end_date=2027-01-15+23%3A59%3A59")},
		{name: "UTC+5 event listed on its UTC day", path: eventsPath + "?start_date=2032-06-01&end_date=2032-06-01",
			want: []string{"far"}, restURL: u("?start_date=2032-06-01+00%3A00%3A00&end_date=2032-06-01+23%3A59%3A59")},
		{name: "UTC+5 event not listed on its local day", path: eventsPath + "?start_date=2032-06-02&end_date=2032-06-02",
			restURL: u("?start_date=2032-06-02+00%3A00%3A00&end_date=2032-06-02+23%3A59%3A59")},
		{name: "yesterday holds the UTC+5 event of today's local date", path: eventsPath + "?start_date=yesterday&end_date=yesterday",
			want: []string{"latenight"}, restURL: u("?start_date=2026-11-21+00%3A00%3A00&end_date=2026-11-21+23%3A59%3A59")},
		{name: "tomorrow as lower bound", path: eventsPath + "?start_date=tomorrow",
			want: []string{"football", "cafe", "concerts", "zebra", "poetry", "endgala"}, restURL: u("?start_date=2026-11-23+00%3A00%3A00")},
		{name: "tomorrow as upper bound", path: eventsPath + "?end_date=tomorrow",
			want: []string{"westside", "yoga"}, restURL: u("?end_date=2026-11-23+23%3A59%3A59")},
		{name: "the window ends on the last day", path: eventsPath + "?start_date=2028-11-22&end_date=2028-11-23",
			want: []string{"endgala", "beyond"}, restURL: u("?start_date=2028-11-22+00%3A00%3A00&end_date=2028-11-23+23%3A59%3A59")},
		{name: "later end_date widens the default window", path: eventsPath + "?end_date=2040-01-01",
			want: with(defaultEvents, "beyond", "far"), restURL: u("?end_date=2040-01-01+23%3A59%3A59")},
		{name: "a later start_date still ends the default window", path: eventsPath + "?start_date=2030-01-01",
			restURL: u("?start_date=2030-01-01+00%3A00%3A00")},
		{name: "past events need an explicit start", path: eventsPath + "?start_date=2026-11-20&end_date=2026-11-20",
			want: []string{"past"}, restURL: u("?start_date=2026-11-20+00%3A00%3A00&end_date=2026-11-20+23%3A59%3A59")},
		{name: "a value with a zone is converted to the site zone", path: eventsPath + "?start_date=2026-12-06T02:00:00%2B05:00&end_date=2026-12-05",
			want: []string{"football", "cafe", "concerts"}, restURL: u("?start_date=2026-12-05+00%3A00%3A00&end_date=2026-12-05+23%3A59%3A59")},
		{name: "Unix timestamps", path: eventsPath + "?start_date=1796472000&end_date=1796472000", want: []string{"football", "cafe", "concerts"},
			restURL: u("?start_date=2026-12-05+00%3A00%3A00&end_date=2026-12-05+23%3A59%3A59")},
		{name: "relative offset", path: eventsPath + "?end_date=%2B1+week", want: []string{"westside", "yoga"},
			restURL: u("?end_date=2026-11-29+23%3A59%3A59")},
		{name: "start after end is empty, not an error", path: eventsPath + "?start_date=2027-01-01&end_date=2026-12-01",
			restURL: u("?start_date=2027-01-01+00%3A00%3A00&end_date=2026-12-01+23%3A59%3A59")},
		{name: "unparseable start_date", path: eventsPath + "?start_date=someday", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"start_date"}},
		{name: "empty end_date", path: eventsPath + "?end_date=", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"end_date"}},

		// Search (5.2): words after analysis, prefixes, phrases, negation, stop words.
		{name: "search a word", path: eventsPath + "?search=football", want: []string{"football"}, restURL: u("?search=football")},
		{name: "search a stemmed form", path: eventsPath + "?search=concert", want: []string{"concerts"}, restURL: u("?search=concert")},
		{name: "search a plural finds the singular", path: eventsPath + "?search=concerts&start_date=2032-06-01&end_date=2032-06-01",
			want: []string{"far"}, restURL: u("?start_date=2032-06-01+00%3A00%3A00&end_date=2032-06-01+23%3A59%3A59&search=concerts")},
		{name: "search a prefix, any case", path: eventsPath + "?search=JAZ", want: []string{"football", "concerts"}, restURL: u("?search=JAZ")},
		{name: "search without the accent", path: eventsPath + "?search=cafe", want: []string{"cafe"}, restURL: u("?search=cafe")},
		{name: "search with the accent", path: eventsPath + "?search=caf%C3%A9+cr%C3%A8me", want: []string{"cafe"},
			restURL: u("?search=caf%C3%A9+cr%C3%A8me")},
		{name: "search the excerpt", path: eventsPath + "?search=spoken", want: []string{"poetry"}, restURL: u("?search=spoken")},
		{name: "search ignores markup", path: eventsPath + "?search=span", restURL: u("?search=span")},
		{name: "search ignores venues", path: eventsPath + "?search=lyon", restURL: u("?search=lyon")},
		{name: "search a phrase", path: eventsPath + "?search=%22jazz+band%22", want: []string{"football"}, restURL: u("?search=%22jazz+band%22")},
		{name: "search a phrase in the wrong order", path: eventsPath + "?search=%22band+jazz%22", restURL: u("?search=%22band+jazz%22")},
		{name: "search every word", path: eventsPath + "?search=jazz+evening", want: []string{"concerts"}, restURL: u("?search=jazz+evening")},
		{name: "search with a comma separator", path: eventsPath + "?search=jazz%2Cfootball", want: []string{"football"},
			restURL: u("?search=jazz%2Cfootball")},
		{name: "search with a literal plus", path: eventsPath + "?search=band%2Bhalf", want: []string{"football"}, restURL: u("?search=band%2Bhalf")},
		{name: "search a negated word", path: eventsPath + "?search=jazz+-football", want: []string{"concerts"}, restURL: u("?search=jazz+-football")},
		{name: "search only a negation", path: eventsPath + "?search=-jazz", want: []string{"westside", "yoga", "cafe", "zebra", "poetry", "endgala"},
			restURL: u("?search=-jazz")},
		{name: "search only stop words matches everything", path: eventsPath + "?search=the+of", want: defaultEvents, restURL: u("?search=the+of")},
		{name: "stop words are ignored next to other words", path: eventsPath + "?search=the+football", want: []string{"football"},
			restURL: u("?search=the+football")},
		{name: "search a folded prefix", path: eventsPath + "?search=CR%C3%88", want: []string{"cafe"}, restURL: u("?search=CR%C3%88")},
		{name: "one character is no prefix", path: eventsPath + "?search=j", restURL: u("?search=j")},
		{name: "search a phrase with stop words", path: eventsPath + "?search=%22concerts+in+the+park%22", want: []string{"concerts"},
			restURL: u("?search=%22concerts+in+the+park%22")},
		{name: "search a stemmed phrase", path: eventsPath + "?search=%22jazz+concert%22", want: []string{"concerts"},
			restURL: u("?search=%22jazz+concert%22")},
		{name: "search a negated phrase", path: eventsPath + "?search=jazz+-%22jazz+band%22", want: []string{"concerts"},
			restURL: u("?search=jazz+-%22jazz+band%22")},
		{name: "search a hyphenated word", path: eventsPath + "?search=half-time", want: []string{"football"}, restURL: u("?search=half-time")},
		{name: "a negated stop word is ignored", path: eventsPath + "?search=-the", want: defaultEvents, restURL: u("?search=-the")},
		{name: "search without match", path: eventsPath + "?search=zzzz", restURL: u("?search=zzzz"), golden: "list_events_empty"},
		{name: "search never shows hidden events", auth: f.editor, path: eventsPath + "?search=meetup", restURL: u("?search=meetup")},
		{name: "search does not reveal drafts", path: eventsPath + "?search=connie", restURL: u("?search=connie")},
		{name: "search finds own drafts", auth: f.connie, path: eventsPath + "?search=connie", want: []string{"conniedraft", "conniepending"},
			restURL: u("?search=connie")},
		{name: "empty search", path: eventsPath + "?search=", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"search"}},

		// Categories and tags (5.2).
		{name: "category by slug includes its children", path: eventsPath + "?categories=music", want: []string{"cafe", "concerts"},
			restURL: u("?categories=music")},
		{name: "child category by ID", path: eventsPath + "?categories=" + id("jazz"), want: []string{"concerts"},
			restURL: u("?categories=" + id("jazz"))},
		{name: "categories by slug and ID, OR", path: eventsPath + "?categories=sports," + id("ballet"),
			want: []string{"yoga", "football", "zebra"}, restURL: u("?categories=sports%2C" + id("ballet"))},
		{name: "grandparent category", path: eventsPath + "?categories=arts", want: []string{"zebra"}, restURL: u("?categories=arts")},
		{name: "unknown category slug", path: eventsPath + "?categories=music,nope", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"categories"}, golden: "list_events_bad_category"},
		{name: "unknown category ID", path: eventsPath + "?categories=999", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"categories"}},
		{name: "a tag is not a category", path: eventsPath + "?categories=" + id("live"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"categories"}},
		{name: "empty categories", path: eventsPath + "?categories=", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"categories"}},
		{name: "tags OR", path: eventsPath + "?tags=live,free", want: []string{"cafe", "concerts"}, restURL: u("?tags=live%2Cfree")},
		{name: "tags as a bracket array", path: eventsPath + "?tags[]=" + id("outdoor") + "&tags[]=free",
			want: []string{"yoga", "football", "cafe", "concerts"}, restURL: u("?tags=" + id("outdoor") + "%2Cfree")},
		{name: "unknown tag", path: eventsPath + "?tags=nope", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"tags"}},
		{name: "a category is not a tag", path: eventsPath + "?tags=" + id("music"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"tags"}},
		{name: "unused tag", path: eventsPath + "?tags=unused", restURL: u("?tags=unused")},

		// Venue and organizer (5.2).
		{name: "venue", path: eventsPath + "?venue=" + id("paris"), want: []string{"concerts"}, restURL: u("?venue=" + id("paris"))},
		{name: "venues OR", path: eventsPath + "?venue=" + id("lyon") + "," + id("paris"), want: []string{"yoga", "football", "concerts"},
			restURL: u("?venue=" + id("lyon") + "%2C" + id("paris"))},
		{name: "unknown venue", path: eventsPath + "?venue=999999", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"venue"}},
		{name: "a trashed venue exists", path: eventsPath + "?venue=" + id("barn"), restURL: u("?venue=" + id("barn"))},
		{name: "a venue of another language exists", path: eventsPath + "?venue=" + id("salle"), restURL: u("?venue=" + id("salle"))},
		{name: "an organizer is not a venue", path: eventsPath + "?venue=" + id("alpha"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"venue"}},
		{name: "organizer", path: eventsPath + "?organizer=" + id("alpha"), want: []string{"football", "concerts"},
			restURL: u("?organizer=" + id("alpha"))},
		{name: "organizer of past events only", path: eventsPath + "?organizer=" + id("beta"), restURL: u("?organizer=" + id("beta"))},
		{name: "organizers OR, editor", auth: f.editor, path: eventsPath + "?organizer=" + id("alpha") + "," + id("zeta"),
			want: []string{"football", "concerts", "private"}, restURL: u("?organizer=" + id("alpha") + "%2C" + id("zeta"))},
		{name: "unknown organizer", path: eventsPath + "?organizer=999999", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"organizer"}},
		{name: "a venue is not an organizer", path: eventsPath + "?organizer=" + id("paris"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"organizer"}},

		// Featured (5.2): booleans echo as 1/0.
		{name: "featured", path: eventsPath + "?featured=true", want: []string{"football", "concerts"}, restURL: u("?featured=1")},
		{name: "not featured", path: eventsPath + "?featured=no", want: []string{"westside", "yoga", "cafe", "zebra", "poetry", "endgala"},
			restURL: u("?featured=0")},
		{name: "featured not a boolean", path: eventsPath + "?featured=maybe", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"featured"}},

		// Status and visibility (5.5, 7.5).
		{name: "anonymous may ask for publish", path: eventsPath + "?status=publish", want: defaultEvents, restURL: u("?status=publish")},
		{name: "anonymous asking for drafts", path: eventsPath + "?status=draft", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"status"}, golden: "list_events_status_anonymous"},
		{name: "anonymous asking for publish and drafts", path: eventsPath + "?status=publish,draft", wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"status"}},
		{name: "unknown status", auth: f.editor, path: eventsPath + "?status=gone", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"status"}},
		{name: "empty status", auth: f.editor, path: eventsPath + "?status=", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"status"}},
		{name: "editor default sees every non-trashed status", auth: f.editor, path: eventsPath, want: editorDefault, restURL: u("")},
		{name: "administrator default", auth: adminAuth, path: eventsPath, want: editorDefault, restURL: u("")},
		{name: "contributor default sees own unpublished", auth: f.connie, path: eventsPath,
			want:    []string{"westside", "yoga", "football", "cafe", "concerts", "zebra", "poetry", "conniedraft", "conniepending", "endgala"},
			restURL: u("")},
		{name: "other contributor", auth: f.cody, path: eventsPath,
			want: with(defaultEvents[:7], "codydraft", "endgala"), restURL: u("")},
		{name: "editor drafts and private", auth: f.editor, path: eventsPath + "?status=draft,+private",
			want: []string{"draft", "conniedraft", "codydraft", "private"}, restURL: u("?status=draft%2Cprivate")},
		{name: "contributor drafts are own only", auth: f.connie, path: eventsPath + "?status=draft", want: []string{"conniedraft"},
			restURL: u("?status=draft")},
		{name: "trash only when asked", auth: f.editor, path: eventsPath + "?status=trash", want: []string{"trashed", "scrapped"},
			restURL: u("?status=trash")},
		{name: "trash and publish", auth: f.editor, path: eventsPath + "?status=publish,trash",
			want:    []string{"westside", "yoga", "football", "cafe", "concerts", "zebra", "poetry", "trashed", "scrapped", "endgala"},
			restURL: u("?status=publish%2Ctrash")},
		{name: "contributor sees own trash only", auth: f.connie, path: eventsPath + "?status=trash", want: []string{"scrapped"},
			restURL: u("?status=trash")},
		{name: "other contributor sees no trash", auth: f.cody, path: eventsPath + "?status=trash", restURL: u("?status=trash")},
		{name: "subscriber default", auth: f.sub, path: eventsPath, want: defaultEvents, restURL: u("")},
		{name: "subscriber may ask for publish", auth: f.sub, path: eventsPath + "?status=publish", want: defaultEvents, restURL: u("?status=publish")},
		{name: "subscriber asking for drafts", auth: f.sub, path: eventsPath + "?status=draft", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"status"}},
		{name: "subscriber sees no private events", auth: f.sub, path: eventsPath + "?include=" + id("private"), restURL: u("?include=" + id("private"))},
		{name: "future status", auth: f.editor, path: eventsPath + "?status=future", want: []string{"future"}, restURL: u("?status=future")},
		{name: "pending status", auth: f.editor, path: eventsPath + "?status=pending", want: []string{"conniepending"}, restURL: u("?status=pending")},

		// include (5.2): date bounds ignored, publication-date order.
		{name: "include ignores the default window", path: eventsPath + "?include=" + id("beyond") + "," + id("far") + "," + id("concerts") + "," + id("past"),
			want:    []string{"far", "past", "concerts", "beyond"},
			restURL: u("?include=" + id("beyond") + "%2C" + id("far") + "%2C" + id("concerts") + "%2C" + id("past"))},
		{name: "include ignores explicit dates", path: eventsPath + "?include=" + id("far") + "," + id("yoga") + "&start_date=2030-01-01&end_date=2030-01-02",
			want:    []string{"far", "yoga"},
			restURL: u("?start_date=2030-01-01+00%3A00%3A00&end_date=2030-01-02+23%3A59%3A59&include=" + id("far") + "%2C" + id("yoga"))},
		{name: "include never shows hidden events", auth: f.editor, path: eventsPath + "?include=" + id("hidden"), restURL: u("?include=" + id("hidden"))},
		{name: "include does not reveal drafts", path: eventsPath + "?include=" + id("draft"), restURL: u("?include=" + id("draft"))},
		{name: "include shows drafts to editors", auth: f.editor, path: eventsPath + "?include=" + id("draft"), want: []string{"draft"},
			restURL: u("?include=" + id("draft"))},
		{name: "include leaves out trash", auth: f.editor, path: eventsPath + "?include=" + id("trashed"), restURL: u("?include=" + id("trashed"))},
		{name: "include combines with other filters", path: eventsPath + "?include=" + id("concerts") + "," + id("cafe") + "&tags=free",
			want: []string{"cafe"}, restURL: u("?tags=free&include=" + id("concerts") + "%2C" + id("cafe"))},
		{name: "include paged by publication date", path: eventsPath + "?include=" + id("concerts") + "," + id("far") + "," + id("past") + "&per_page=1&page=2",
			want: []string{"past"}, total: 3, perPage: 1,
			restURL: u("?per_page=1&include=" + id("concerts") + "%2C" + id("far") + "%2C" + id("past") + "&page=2"),
			next:    u("?per_page=1&include=" + id("concerts") + "%2C" + id("far") + "%2C" + id("past") + "&page=3"),
			prev:    u("?per_page=1&include=" + id("concerts") + "%2C" + id("far") + "%2C" + id("past"))},
		{name: "include an unknown ID", path: eventsPath + "?include=999999", restURL: u("?include=999999")},
		{name: "include with signs", path: eventsPath + "?include=%2B" + id("far") + ",+%2B" + id("yoga"), want: []string{"far", "yoga"},
			restURL: u("?include=" + id("far") + "%2C" + id("yoga"))},
		{name: "include negative", path: eventsPath + "?include=-1", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"include"}},
		{name: "include zero", path: eventsPath + "?include=0", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"include"}},
		{name: "include not a number", path: eventsPath + "?include=abc", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"include"}},
		{name: "include too many", path: eventsPath + "?include=" + strings.Repeat("1,", 100) + "1", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"include"}},

		// post_parent (5.2).
		{name: "post_parent of an existing event", path: eventsPath + "?post_parent=" + id("concerts"), restURL: u("?post_parent=" + id("concerts"))},
		{name: "post_parent unknown", path: eventsPath + "?post_parent=999999", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"post_parent"}},
		{name: "post_parent a venue", path: eventsPath + "?post_parent=" + id("paris"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"post_parent"}},

		// geoloc (5.2). Paris Hall–Lyon Arena is 391.5 km; (48.8566, 2.6) is 18.1 km from Paris Hall.
		{name: "geoloc without a point", path: eventsPath + "?geoloc=true", want: []string{"yoga", "football", "concerts"}, restURL: u("?geoloc=1")},
		{name: "geoloc default radius", path: eventsPath + "?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.3522", want: []string{"concerts"},
			restURL: u("?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.3522")},
		{name: "geoloc radius 400", path: eventsPath + "?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=400",
			want: []string{"yoga", "football", "concerts"}, restURL: u("?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=400")},
		{name: "geoloc radius 380", path: eventsPath + "?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=380",
			want: []string{"concerts"}, restURL: u("?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=380")},
		{name: "geoloc 18 km away, radius 20", path: eventsPath + "?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.6&geoloc_radius=20",
			want: []string{"concerts"}, restURL: u("?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.6&geoloc_radius=20")},
		{name: "geoloc 18 km away, radius 15", path: eventsPath + "?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.6&geoloc_radius=15",
			restURL: u("?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.6&geoloc_radius=15")},
		{name: "geoloc around Lyon", path: eventsPath + "?geoloc=yes&geoloc_lng=4.8357&geoloc_lat=45.764", want: []string{"yoga", "football"},
			restURL: u("?geoloc=1&geoloc_lat=45.764&geoloc_lng=4.8357")},
		{name: "geoloc false ignores the point", path: eventsPath + "?geoloc=0&geoloc_lat=48.8566&geoloc_lng=2.3522", want: defaultEvents,
			restURL: u("?geoloc=0&geoloc_lat=48.8566&geoloc_lng=2.3522")},
		{name: "geoloc without longitude", path: eventsPath + "?geoloc=1&geoloc_lat=48.8566", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geoloc_lng"}, golden: "list_events_geoloc_missing"},
		{name: "geoloc without latitude", path: eventsPath + "?geoloc=1&geoloc_lng=2.3522", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geoloc_lat"}},
		{name: "latitude out of range", path: eventsPath + "?geoloc=1&geoloc_lat=91&geoloc_lng=2", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geoloc_lat"}},
		{name: "latitude out of range without geoloc", path: eventsPath + "?geoloc_lat=-90.5", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geoloc_lat"}},
		{name: "longitude out of range", path: eventsPath + "?geoloc=1&geoloc_lat=1&geoloc_lng=181", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geoloc_lng"}},
		{name: "latitude not a number", path: eventsPath + "?geoloc_lat=abc", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geoloc_lat"}},
		{name: "radius zero", path: eventsPath + "?geoloc=1&geoloc_radius=0", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geoloc_radius"}},
		{name: "radius too large", path: eventsPath + "?geoloc=1&geoloc_radius=20001", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geoloc_radius"}},

		// Paging (5.1).
		{name: "per_page clamped to 100", path: eventsPath + "?per_page=500", want: defaultEvents, restURL: u("?per_page=100")},
		{name: "the largest per_page clamped", path: eventsPath + "?per_page=9223372036854775807", want: defaultEvents, restURL: u("?per_page=100")},
		{name: "per_page beyond 64 bits", path: eventsPath + "?per_page=9223372036854775808", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"per_page"}},
		{name: "first page", path: eventsPath + "?per_page=3", want: []string{"westside", "yoga", "football"}, total: 8, perPage: 3,
			restURL: u("?per_page=3"), next: u("?per_page=3&page=2")},
		{name: "middle page", path: eventsPath + "?page=2&per_page=3&_fields=id,title", want: []string{"cafe", "concerts", "zebra"}, total: 8, perPage: 3,
			restURL: u("?per_page=3&page=2"), next: u("?per_page=3&page=3"), prev: u("?per_page=3"),
			golden: "list_events_page2", check: fieldsOnly("events", "id", "title")},
		{name: "last page", path: eventsPath + "?per_page=3&page=3", want: []string{"poetry", "endgala"}, total: 8, perPage: 3,
			restURL: u("?per_page=3&page=3"), prev: u("?per_page=3&page=2")},
		{name: "page past the end", path: eventsPath + "?per_page=3&page=4", wantStatus: 404, wantCode: "event-archive-page-not-found",
			golden: "list_events_page_not_found"},
		{name: "page 2 of nothing", path: eventsPath + "?search=zzzz&page=2", wantStatus: 404, wantCode: "event-archive-page-not-found"},
		{name: "parameters echoed in table order, page last", path: eventsPath + "?page=2&featured=1&per_page=1&start_date=2026-12-01&translation_language=en",
			want: []string{"concerts"}, total: 2, perPage: 1,
			restURL: u("?per_page=1&start_date=2026-12-01+00%3A00%3A00&featured=1&translation_language=en&page=2"),
			prev:    u("?per_page=1&start_date=2026-12-01+00%3A00%3A00&featured=1&translation_language=en")},
		{name: "a repeated plain key keeps the last", path: eventsPath + "?per_page=5&per_page=3", want: []string{"westside", "yoga", "football"},
			total: 8, perPage: 3, restURL: u("?per_page=3"), next: u("?per_page=3&page=2")},
		{name: "integers with sign and blanks", path: eventsPath + "?per_page=%2B3+&page=+2", want: []string{"cafe", "concerts", "zebra"},
			total: 8, perPage: 3, restURL: u("?per_page=3&page=2"), next: u("?per_page=3&page=3"), prev: u("?per_page=3")},
		{name: "per_page zero", path: eventsPath + "?per_page=0", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"per_page"}},
		{name: "per_page negative", path: eventsPath + "?per_page=-1", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"per_page"}},
		{name: "per_page fractional", path: eventsPath + "?per_page=1.5", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"per_page"}},
		{name: "page zero", path: eventsPath + "?page=0", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"page"}},
		{name: "the largest page", path: eventsPath + "?page=2147483647", wantStatus: 404, wantCode: "event-archive-page-not-found"},
		{name: "page too large", path: eventsPath + "?page=2147483648", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"page"}},
		{name: "every invalid parameter reported together", path: eventsPath + "?per_page=0&categories=nope&status=draft&page=x",
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"per_page", "categories", "status", "page"}},

		// _fields (1.5): items are filtered, the envelope is not, and _fields is not echoed.
		{name: "_fields", path: eventsPath + "?_fields=id,title,nope", want: defaultEvents, restURL: u(""), check: fieldsOnly("events", "id", "title")},
		{name: "_fields nested", path: eventsPath + "?venue=" + id("lyon") + "&_fields=id,venue.city", want: []string{"yoga", "football"},
			restURL: u("?venue=" + id("lyon")), golden: "list_events_fields"},

		// Languages (3.8): only the selected language; translation_language echoed before page.
		{name: "translation_language", path: eventsPath + "?translation_language=fr", want: []string{"fr1", "fr2"}, lang: "fr",
			restURL: u("?translation_language=fr"), golden: "list_events_fr"},
		{name: "language prefix", path: "/fr" + eventsPath, want: []string{"fr1", "fr2"}, lang: "fr",
			restURL: testOrigin + "/fr/calendar/events/v1/events/"},
		{name: "translation_language beats the prefix", path: "/fr" + eventsPath + "?translation_language=en", want: defaultEvents,
			restURL: testOrigin + "/fr/calendar/events/v1/events/?translation_language=en"},
		{name: "translation_language equal to the prefix is echoed", path: "/fr" + eventsPath + "?translation_language=fr", want: []string{"fr1", "fr2"},
			lang: "fr", restURL: testOrigin + "/fr/calendar/events/v1/events/?translation_language=fr"},
		{name: "translation_language with pages", path: eventsPath + "?page=2&translation_language=fr&per_page=1", want: []string{"fr2"},
			lang: "fr", total: 2, perPage: 1,
			restURL: u("?per_page=1&translation_language=fr&page=2"), prev: u("?per_page=1&translation_language=fr")},
		{name: "French search", path: eventsPath + "?translation_language=fr&search=fete", want: []string{"fr2"}, lang: "fr",
			restURL: u("?search=fete&translation_language=fr")},
		{name: "categories are shared across languages", path: eventsPath + "?translation_language=fr&categories=music", want: []string{"fr1"},
			lang: "fr", restURL: u("?categories=music&translation_language=fr")},
		{name: "French stop words only", path: eventsPath + "?translation_language=fr&search=de+la", want: []string{"fr1", "fr2"}, lang: "fr",
			restURL: u("?search=de+la&translation_language=fr")},
		{name: "German stemming", path: "/de" + eventsPath + "?search=konzert", want: []string{"de1"}, lang: "de",
			restURL: testOrigin + "/de/calendar/events/v1/events/?search=konzert"},
		{name: "German folding", path: "/de" + eventsPath + "?search=muller+cafe", want: []string{"de1"}, lang: "de",
			restURL: testOrigin + "/de/calendar/events/v1/events/?search=muller+cafe"},
		{name: "German umlaut", path: "/de" + eventsPath + "?search=M%C3%BCller", want: []string{"de1"}, lang: "de",
			restURL: testOrigin + "/de/calendar/events/v1/events/?search=M%C3%BCller"},
		{name: "a language without events", path: "/it" + eventsPath, lang: "it", restURL: testOrigin + "/it/calendar/events/v1/events/"},
		{name: "unknown language", path: eventsPath + "?translation_language=xx", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"translation_language"}},
	})

	t.Run("item rest URLs follow the record language", func(t *testing.T) {
		body := f.s.do(req{method: "GET", path: eventsPath + "?translation_language=fr"}).json(t)
		for _, it := range listItemsOf(body, "events") {
			want := testOrigin + "/fr/calendar/events/v1/events/" + strconv.Itoa(int(it["id"].(float64)))
			if it["rest_url"] != want {
				t.Errorf("rest_url %v, want %s (CONTRACT 1.8)", it["rest_url"], want)
			}
		}
	})
	t.Run("items equal the single GET without json_ld", func(t *testing.T) {
		body := f.s.do(req{method: "GET", path: eventsPath + "?include=" + id("concerts")}).json(t)
		items := listItemsOf(body, "events")
		if len(items) != 1 {
			t.Fatalf("items %v", items)
		}
		single := withoutLD(f.s.get(eventsPath + "/" + id("concerts")))
		// A single GET embeds the venue's and organizers' json_ld too (3.2); lists never do (3.7).
		withoutLD(single["venue"].(map[string]any))
		for _, o := range single["organizer"].([]any) {
			withoutLD(o.(map[string]any))
		}
		if diff := cmp.Diff(single, items[0]); diff != "" {
			t.Errorf("list item differs from GET (-get +list):\n%s", diff)
		}
	})
	t.Run("_fields keep the normal order", func(t *testing.T) {
		res := f.s.do(req{method: "GET", path: eventsPath + "?_fields=title,id&include=" + id("yoga")})
		if want := `{"events":[{"id":` + id("yoga") + `,"title":"Early Bird Yoga"}],`; !strings.HasPrefix(string(res.body), want) {
			t.Errorf("body %s, want it to start with %s (CONTRACT 1.5)", res.body, want)
		}
	})
	t.Run("GET bodies are ignored", func(t *testing.T) {
		for _, r := range []req{
			{method: "GET", path: eventsPath, body: map[string]any{"search": "zzzz", "per_page": 1}},
			{method: "GET", path: eventsPath, body: "search=zzzz&per_page=1", contentType: "application/x-www-form-urlencoded"},
		} {
			body := f.s.do(r).json(t)
			if body["total"] != float64(len(defaultEvents)) || body["rest_url"] != u("") {
				t.Errorf("GET with a %s body: total %v, rest_url %v (CONTRACT 2.1)", r.contentType, body["total"], body["rest_url"])
			}
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		get := f.s.do(req{method: "GET", path: eventsPath + "?per_page=3"})
		head := f.s.do(req{method: "HEAD", path: eventsPath + "?per_page=3"})
		if head.status != 200 || len(head.body) != 0 {
			t.Fatalf("HEAD: %d %q", head.status, head.body)
		}
		for _, h := range []string{"X-TEC-Total", "X-TEC-TotalPages", "Content-Type", "Link", "Allow"} {
			if head.header.Get(h) != get.header.Get(h) {
				t.Errorf("HEAD %s %q, GET %q (CONTRACT 1.5)", h, head.header.Get(h), get.header.Get(h))
			}
		}
	})
	t.Run("CORS exposes the totals", func(t *testing.T) {
		res := f.s.do(req{method: "GET", path: eventsPath, header: map[string]string{"Origin": "https://app.example"}})
		if got := res.header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "X-TEC-Total") || !strings.Contains(got, "X-TEC-TotalPages") {
			t.Errorf("Access-Control-Expose-Headers %q (CONTRACT 1.7)", got)
		}
	})
}

// fieldsOnly checks that every item of the list has exactly the given keys, in that order (1.5).
func fieldsOnly(key string, fields ...string) func(t *testing.T, body map[string]any) {
	return func(t *testing.T, body map[string]any) {
		t.Helper()
		for _, it := range listItemsOf(body, key) {
			var got []string
			for k := range it {
				got = append(got, k)
			}
			if len(got) != len(fields) {
				t.Errorf("item keys %v, want exactly %v (CONTRACT 1.5)", got, fields)
				continue
			}
			for _, k := range fields {
				if _, ok := it[k]; !ok {
					t.Errorf("item keys %v, want exactly %v (CONTRACT 1.5)", got, fields)
				}
			}
		}
	}
}

func testListVenuesAndOrganizers(t *testing.T, f *listFixture) {
	v := func(q string) string { return nsURL + "/venues/" + q }
	o := func(q string) string { return nsURL + "/organizers/" + q }
	id := f.id
	// Publication date descending, then ID descending (5.3). Venues with the frozen now as date come
	// first, newest ID first; then lyon (2026-03-01), nogeo (2026-02-01), paris (2026-01-10).
	venuesAnon := []string{"idle", "ghost", "rehearsal", "loft", "launchpad", "gala", "oldtheatre", "dawn", "lyon", "nogeo", "paris"}
	orgsAnon := []string{"zeta", "delta", "gamma", "beta", "alpha"}

	f.runListCases(t, "venues", []listCase{
		{name: "default", path: venuesPath, want: venuesAnon, restURL: v(""), golden: "list_venues_default"},
		{name: "editor sees drafts, not trash", auth: f.editor, path: venuesPath, want: with([]string{"cellar"}, venuesAnon...), restURL: v("")},
		{name: "contributor sees own draft", auth: f.connie, path: venuesPath, want: with([]string{"cellar"}, venuesAnon...), restURL: v("")},
		{name: "other contributor", auth: f.cody, path: venuesPath, want: venuesAnon, restURL: v("")},
		{name: "trash when asked", auth: f.editor, path: venuesPath + "?status=trash", want: []string{"barn"}, restURL: v("?status=trash")},
		{name: "drafts when asked", auth: f.editor, path: venuesPath + "?status=draft", want: []string{"cellar"}, restURL: v("?status=draft")},
		{name: "contributor drafts", auth: f.connie, path: venuesPath + "?status=draft", want: []string{"cellar"}, restURL: v("?status=draft")},
		{name: "other contributor's drafts", auth: f.cody, path: venuesPath + "?status=draft", restURL: v("?status=draft")},
		{name: "contributor sees no one else's trash", auth: f.connie, path: venuesPath + "?status=trash", restURL: v("?status=trash")},
		{name: "subscriber", auth: f.sub, path: venuesPath, want: venuesAnon, restURL: v("")},
		{name: "subscriber asking for drafts", auth: f.sub, path: venuesPath + "?status=draft", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"status"}},
		{name: "only_with_upcoming, subscriber", auth: f.sub, path: venuesPath + "?only_with_upcoming=1", want: []string{"lyon", "nogeo", "paris"},
			restURL: v("?only_with_upcoming=1")},
		{name: "anonymous asking for trash", path: venuesPath + "?status=trash", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"status"}},
		{name: "anonymous asking for publish", path: venuesPath + "?status=publish", want: venuesAnon, restURL: v("?status=publish")},
		{name: "search name and city", path: venuesPath + "?search=paris", want: []string{"paris"}, restURL: v("?search=paris")},
		{name: "search address", path: venuesPath + "?search=main+street", want: []string{"nogeo"}, restURL: v("?search=main+street")},
		{name: "search zip", path: venuesPath + "?search=10001", want: []string{"nogeo"}, restURL: v("?search=10001")},
		{name: "search description words, not markup", path: venuesPath + "?search=underground+jazz", want: []string{"loft"},
			restURL: v("?search=underground+jazz")},
		{name: "search markup", path: venuesPath + "?search=b", restURL: v("?search=b")},
		{name: "search prefix", path: venuesPath + "?search=hal", want: []string{"dawn", "paris"}, restURL: v("?search=hal")},
		{name: "search negation", path: venuesPath + "?search=-hall", want: []string{"idle", "ghost", "rehearsal", "loft", "launchpad", "gala",
			"oldtheatre", "lyon", "nogeo"}, restURL: v("?search=-hall")},
		{name: "search without match", path: venuesPath + "?search=zzzz", restURL: v("?search=zzzz")},
		{name: "search does not reveal drafts", path: venuesPath + "?search=cellar", restURL: v("?search=cellar")},
		{name: "empty search", path: venuesPath + "?search=", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"search"}},
		{name: "event", path: venuesPath + "?event=" + id("concerts"), want: []string{"paris"}, restURL: v("?event=" + id("concerts"))},
		{name: "event of any status", path: venuesPath + "?event=" + id("draft"), want: []string{"rehearsal"}, restURL: v("?event=" + id("draft"))},
		{name: "event in the trash keeps its venue", path: venuesPath + "?event=" + id("trashed"), want: []string{"ghost"},
			restURL: v("?event=" + id("trashed"))},
		{name: "event without venue", path: venuesPath + "?event=" + id("poetry"), restURL: v("?event=" + id("poetry"))},
		{name: "event of another language", path: venuesPath + "?event=" + id("fr1"), restURL: v("?event=" + id("fr1"))},
		{name: "event of another language, in its language", path: venuesPath + "?event=" + id("fr1") + "&translation_language=fr",
			want: []string{"salle"}, lang: "fr", restURL: v("?event=" + id("fr1") + "&translation_language=fr")},
		{name: "unknown event", path: venuesPath + "?event=999999", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"event"}},
		{name: "a venue is not an event", path: venuesPath + "?event=" + id("paris"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"event"}},
		// has_events: publish, future and private events count; drafts and trash do not (5.3).
		{name: "has_events", path: venuesPath + "?has_events=1", want: []string{"loft", "launchpad", "gala", "oldtheatre", "dawn", "lyon", "nogeo", "paris"},
			restURL: v("?has_events=1")},
		{name: "has_events truthy word", path: venuesPath + "?has_events=yes", want: []string{"loft", "launchpad", "gala", "oldtheatre", "dawn", "lyon", "nogeo", "paris"},
			restURL: v("?has_events=1")},
		{name: "has_events false", path: venuesPath + "?has_events=false", want: []string{"idle", "ghost", "rehearsal"}, restURL: v("?has_events=0")},
		{name: "has_events other word is false", path: venuesPath + "?has_events=nope", want: []string{"idle", "ghost", "rehearsal"},
			restURL: v("?has_events=0")},
		{name: "has_events false, contributor", auth: f.connie, path: venuesPath + "?has_events=0", want: []string{"cellar", "idle", "ghost", "rehearsal"},
			restURL: v("?has_events=0")},
		// only_with_upcoming: start instant ≥ now, not hidden, publish (plus future/private for edit_posts).
		{name: "only_with_upcoming", path: venuesPath + "?only_with_upcoming=1", want: []string{"lyon", "nogeo", "paris"},
			restURL: v("?only_with_upcoming=1")},
		{name: "only_with_upcoming, editor", auth: f.editor, path: venuesPath + "?only_with_upcoming=on", want: []string{"launchpad", "gala", "lyon", "nogeo", "paris"},
			restURL: v("?only_with_upcoming=1")},
		{name: "only_with_upcoming, contributor", auth: f.connie, path: venuesPath + "?only_with_upcoming=true",
			want: []string{"launchpad", "gala", "lyon", "nogeo", "paris"}, restURL: v("?only_with_upcoming=1")},
		{name: "only_with_upcoming false is no filter", path: venuesPath + "?only_with_upcoming=0", want: venuesAnon, restURL: v("?only_with_upcoming=0")},
		{name: "per_page clamped", path: venuesPath + "?per_page=101", want: venuesAnon, restURL: v("?per_page=100")},
		{name: "second page", path: venuesPath + "?per_page=4&page=2", want: []string{"launchpad", "gala", "oldtheatre", "dawn"}, total: 11, perPage: 4,
			restURL: v("?per_page=4&page=2"), next: v("?per_page=4&page=3"), prev: v("?per_page=4")},
		{name: "page past the end", path: venuesPath + "?per_page=4&page=4", wantStatus: 404, wantCode: "venue-archive-page-not-found"},
		{name: "per_page zero", path: venuesPath + "?per_page=0", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"per_page"}},
		{name: "_fields", path: venuesPath + "?_fields=id,venue&search=lyon", want: []string{"lyon"}, restURL: v("?search=lyon"),
			check: func(t *testing.T, body map[string]any) {
				want := []map[string]any{{"id": float64(f.rec["lyon"]), "venue": "Lyon Arena"}}
				if diff := cmp.Diff(want, listItemsOf(body, "venues")); diff != "" {
					t.Errorf("items (-want +got):\n%s", diff)
				}
			}},
		{name: "translation_language", path: venuesPath + "?translation_language=fr", want: []string{"salle"}, lang: "fr",
			restURL: v("?translation_language=fr")},
		{name: "language prefix", path: "/fr" + venuesPath, want: []string{"salle"}, lang: "fr", restURL: testOrigin + "/fr/calendar/events/v1/venues/"},
	})

	f.runListCases(t, "organizers", []listCase{
		{name: "default", path: organizersPath, want: orgsAnon, restURL: o(""), golden: "list_organizers_default"},
		{name: "editor", auth: f.editor, path: organizersPath, want: with([]string{"crew"}, orgsAnon...), restURL: o("")},
		{name: "contributor", auth: f.connie, path: organizersPath, want: with([]string{"crew"}, orgsAnon...), restURL: o("")},
		{name: "other contributor", auth: f.cody, path: organizersPath, want: orgsAnon, restURL: o("")},
		{name: "subscriber", auth: f.sub, path: organizersPath, want: orgsAnon, restURL: o("")},
		{name: "trash when asked", auth: f.editor, path: organizersPath + "?status=trash", want: []string{"retired"}, restURL: o("?status=trash")},
		{name: "anonymous asking for drafts", path: organizersPath + "?status=draft", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"status"}},
		{name: "unknown status", auth: f.editor, path: organizersPath + "?status=archived", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"status"}},
		{name: "search name", path: organizersPath + "?search=bookings", want: []string{"beta"}, restURL: o("?search=bookings")},
		{name: "search phone", path: organizersPath + "?search=555", want: []string{"beta"}, restURL: o("?search=555")},
		{name: "search email", path: organizersPath + "?search=hello", want: []string{"alpha"}, restURL: o("?search=hello")},
		{name: "event", path: organizersPath + "?event=" + id("concerts"), want: []string{"alpha"}, restURL: o("?event=" + id("concerts"))},
		{name: "event of a private event", path: organizersPath + "?event=" + id("private"), want: []string{"zeta"},
			restURL: o("?event=" + id("private"))},
		{name: "unknown event", path: organizersPath + "?event=0", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"event"}},
		{name: "has_events", path: organizersPath + "?has_events=1", want: []string{"zeta", "beta", "alpha"}, restURL: o("?has_events=1")},
		{name: "has_events false: trashed events do not count", path: organizersPath + "?has_events=0", want: []string{"delta", "gamma"},
			restURL: o("?has_events=0")},
		{name: "only_with_upcoming", path: organizersPath + "?only_with_upcoming=1", want: []string{"alpha"}, restURL: o("?only_with_upcoming=1")},
		{name: "only_with_upcoming, editor", auth: f.editor, path: organizersPath + "?only_with_upcoming=1", want: []string{"zeta", "alpha"},
			restURL: o("?only_with_upcoming=1")},
		{name: "has_events and search", path: organizersPath + "?search=group&has_events=0", want: []string{"gamma"},
			restURL: o("?search=group&has_events=0")},
		{name: "first page", path: organizersPath + "?per_page=2", want: []string{"zeta", "delta"}, total: 5, perPage: 2,
			restURL: o("?per_page=2"), next: o("?per_page=2&page=2")},
		{name: "last page", path: organizersPath + "?per_page=2&page=3", want: []string{"alpha"}, total: 5, perPage: 2,
			restURL: o("?per_page=2&page=3"), prev: o("?per_page=2&page=2")},
		{name: "page past the end", path: organizersPath + "?per_page=2&page=4", wantStatus: 404, wantCode: "organizer-archive-page-not-found",
			golden: "list_organizers_page_not_found"},
		{name: "empty first page", path: organizersPath + "?search=nobody", restURL: o("?search=nobody")},
		{name: "translation_language", path: organizersPath + "?translation_language=fr&per_page=1", want: []string{"orgfr"}, lang: "fr",
			perPage: 1, restURL: o("?per_page=1&translation_language=fr")},
	})
}

func testListTerms(t *testing.T, f *listFixture) {
	c := func(q string) string { return nsURL + "/categories/" + q }
	tg := func(q string) string { return nsURL + "/tags/" + q }
	id := f.id
	// Published events per term (any language): music 3 (cafe, hidden, fr1), jazz 3 (past, latenight,
	// concerts), sports 2 (yoga, football), ballet 1 (zebra), arts 0 with a counted child, bygone 0 (trashed
	// event only), drafts 0 (draft event only).
	visible := []string{"arts", "ballet", "jazz", "music", "sports"}

	f.runListCases(t, "categories", []listCase{
		{name: "default: by name, empty hidden, empty parent shown", path: categoriesPath, want: visible, restURL: c(""),
			golden: "list_categories_default"},
		{name: "same for a contributor", auth: f.connie, path: categoriesPath, want: visible, restURL: c("")},
		{name: "same for an editor", auth: f.editor, path: categoriesPath, want: visible, restURL: c("")},
		{name: "same for a subscriber", auth: f.sub, path: categoriesPath, want: visible, restURL: c("")},
		{name: "hide_empty false", path: categoriesPath + "?hide_empty=false", want: []string{"arts", "ballet", "bygone", "drafts", "jazz", "music", "sports"},
			restURL: c("?hide_empty=0")},
		{name: "order desc", path: categoriesPath + "?order=desc", want: []string{"sports", "music", "jazz", "ballet", "arts"}, restURL: c("?order=desc")},
		{name: "order is case-insensitive", path: categoriesPath + "?order=DESC", want: []string{"sports", "music", "jazz", "ballet", "arts"},
			restURL: c("?order=DESC")},
		{name: "orderby id desc", path: categoriesPath + "?orderby=id&order=desc", want: []string{"ballet", "arts", "sports", "jazz", "music"},
			restURL: c("?order=desc&orderby=id")},
		{name: "orderby slug", path: categoriesPath + "?orderby=slug", want: visible, restURL: c("?orderby=slug")},
		{name: "orderby description", path: categoriesPath + "?orderby=description", want: []string{"music", "ballet", "arts", "sports", "jazz"},
			restURL: c("?orderby=description")},
		{name: "orderby count, ties by ID", path: categoriesPath + "?orderby=count", want: []string{"arts", "ballet", "sports", "music", "jazz"},
			restURL: c("?orderby=count")},
		{name: "orderby count desc, ties by ID", path: categoriesPath + "?orderby=count&order=desc", want: []string{"music", "jazz", "sports", "ballet", "arts"},
			restURL: c("?order=desc&orderby=count")},
		{name: "orderby term_group", path: categoriesPath + "?orderby=term_group", want: []string{"music", "jazz", "sports", "arts", "ballet"},
			restURL: c("?orderby=term_group")},
		{name: "orderby include", path: categoriesPath + "?orderby=include&include=" + id("sports") + "," + id("music") + "," + id("ballet"),
			want: []string{"sports", "music", "ballet"}, restURL: c("?include=" + id("sports") + "%2C" + id("music") + "%2C" + id("ballet") + "&orderby=include")},
		{name: "orderby include without include", path: categoriesPath + "?orderby=include", want: []string{"music", "jazz", "sports", "arts", "ballet"},
			restURL: c("?orderby=include")},
		{name: "orderby include_slugs", path: categoriesPath + "?orderby=include_slugs&slug=sports,music", want: []string{"sports", "music"},
			restURL: c("?orderby=include_slugs&slug=sports%2Cmusic")},
		{name: "orderby include_slugs without slug", path: categoriesPath + "?orderby=include_slugs", want: []string{"music", "jazz", "sports", "arts", "ballet"},
			restURL: c("?orderby=include_slugs")},
		{name: "orderby invalid", path: categoriesPath + "?orderby=date", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"orderby"}},
		{name: "orderby is case-sensitive", path: categoriesPath + "?orderby=NAME", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"orderby"}},
		{name: "orderby empty", path: categoriesPath + "?orderby=", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"orderby"}},
		{name: "order invalid", path: categoriesPath + "?order=up", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"order"}},
		{name: "order empty", path: categoriesPath + "?order=", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"order"}},
		{name: "include, by name", path: categoriesPath + "?include=" + id("sports") + "," + id("music") + "," + id("ballet"),
			want: []string{"ballet", "music", "sports"}, restURL: c("?include=" + id("sports") + "%2C" + id("music") + "%2C" + id("ballet"))},
		{name: "include empty terms", path: categoriesPath + "?include=" + id("bygone") + "," + id("drafts") + "&hide_empty=0",
			want: []string{"bygone", "drafts"}, restURL: c("?include=" + id("bygone") + "%2C" + id("drafts") + "&hide_empty=0")},
		{name: "include still hides empty terms", path: categoriesPath + "?include=" + id("bygone"), restURL: c("?include=" + id("bygone"))},
		{name: "include unknown", path: categoriesPath + "?include=999", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"include"}},
		{name: "include a tag", path: categoriesPath + "?include=" + id("live"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"include"}},
		{name: "exclude", path: categoriesPath + "?exclude=" + id("jazz") + "," + id("sports"), want: []string{"arts", "ballet", "music"},
			restURL: c("?exclude=" + id("jazz") + "%2C" + id("sports"))},
		{name: "exclude unknown", path: categoriesPath + "?exclude=999", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"exclude"}},
		{name: "parent 0 is the top level", path: categoriesPath + "?parent=0", want: []string{"arts", "music", "sports"}, restURL: c("?parent=0")},
		{name: "parent 0 with empty", path: categoriesPath + "?parent=0&hide_empty=0", want: []string{"arts", "bygone", "drafts", "music", "sports"},
			restURL: c("?hide_empty=0&parent=0")},
		{name: "children", path: categoriesPath + "?parent=" + id("music"), want: []string{"jazz"}, restURL: c("?parent=" + id("music"))},
		{name: "parent unknown", path: categoriesPath + "?parent=999", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"parent"}},
		{name: "parent negative", path: categoriesPath + "?parent=-1", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"parent"}},
		{name: "post", path: categoriesPath + "?post=" + id("concerts"), want: []string{"jazz"}, restURL: c("?post=" + id("concerts"))},
		{name: "event", path: categoriesPath + "?event=" + id("yoga"), want: []string{"sports"}, restURL: c("?event=" + id("yoga"))},
		{name: "event wins over post", path: categoriesPath + "?post=" + id("cafe") + "&event=" + id("concerts"), want: []string{"jazz"},
			restURL: c("?post=" + id("cafe") + "&event=" + id("concerts"))},
		{name: "post of a draft event", path: categoriesPath + "?post=" + id("draft") + "&hide_empty=0", want: []string{"drafts"},
			restURL: c("?hide_empty=0&post=" + id("draft"))},
		{name: "post of a trashed event", path: categoriesPath + "?post=" + id("trashed") + "&hide_empty=0", want: []string{"bygone"},
			restURL: c("?hide_empty=0&post=" + id("trashed"))},
		{name: "post without categories", path: categoriesPath + "?post=" + id("poetry"), restURL: c("?post=" + id("poetry"))},
		{name: "post unknown", path: categoriesPath + "?post=999999", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"post"}},
		{name: "post a venue", path: categoriesPath + "?post=" + id("paris"), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"post"}},
		{name: "event unknown", path: categoriesPath + "?event=999999&post=" + id("concerts"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"event"}},
		{name: "slug", path: categoriesPath + "?slug=music,jazz", want: []string{"jazz", "music"}, restURL: c("?slug=music%2Cjazz")},
		{name: "slug without match", path: categoriesPath + "?slug=nothing", restURL: c("?slug=nothing")},
		{name: "slug empty", path: categoriesPath + "?slug=", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"slug"}},
		{name: "search name substring, any case", path: categoriesPath + "?search=AZ", want: []string{"jazz"}, restURL: c("?search=AZ")},
		{name: "search substring", path: categoriesPath + "?search=us", want: []string{"music"}, restURL: c("?search=us")},
		{name: "search slug", path: categoriesPath + "?search=drafts-o&hide_empty=0", want: []string{"drafts"}, restURL: c("?search=drafts-o&hide_empty=0")},
		{name: "search empty", path: categoriesPath + "?search=", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"search"}},
		{name: "hide_empty not a boolean", path: categoriesPath + "?hide_empty=perhaps", wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"hide_empty"}},
		{name: "translation_language has no effect", path: categoriesPath + "?translation_language=fr", want: visible, restURL: c("?translation_language=fr")},
		{name: "language prefix", path: "/fr" + categoriesPath, want: visible, restURL: testOrigin + "/fr/calendar/events/v1/categories/",
			check: func(t *testing.T, body map[string]any) {
				for _, it := range listItemsOf(body, "categories") {
					urls, _ := it["urls"].(map[string]any)
					if self, _ := urls["self"].(string); !strings.HasPrefix(self, testOrigin+"/fr/calendar/events/v1/categories/") {
						t.Errorf("urls.self %q keeps no prefix (CONTRACT 1.8)", self)
					}
				}
			}},
		{name: "_fields", path: categoriesPath + "?_fields=id,count&orderby=id", want: []string{"music", "jazz", "sports", "arts", "ballet"},
			restURL: c("?orderby=id"), check: func(t *testing.T, body map[string]any) {
				count := func(name string, n int) map[string]any {
					return map[string]any{"id": float64(f.term[name]), "count": float64(n)}
				}
				want := []map[string]any{count("music", 3), count("jazz", 3), count("sports", 2), count("arts", 0), count("ballet", 1)}
				if diff := cmp.Diff(want, listItemsOf(body, "categories")); diff != "" {
					t.Errorf("items (-want +got):\n%s", diff)
				}
			}},
		{name: "first page", path: categoriesPath + "?per_page=2", want: []string{"arts", "ballet"}, total: 5, perPage: 2,
			restURL: c("?per_page=2"), next: c("?per_page=2&page=2")},
		{name: "middle page", path: categoriesPath + "?per_page=2&page=2", want: []string{"jazz", "music"}, total: 5, perPage: 2,
			restURL: c("?per_page=2&page=2"), next: c("?per_page=2&page=3"), prev: c("?per_page=2"), golden: "list_categories_page2"},
		{name: "last page", path: categoriesPath + "?page=3&per_page=2", want: []string{"sports"}, total: 5, perPage: 2,
			restURL: c("?per_page=2&page=3"), prev: c("?per_page=2&page=2")},
		{name: "page past the end", path: categoriesPath + "?per_page=2&page=4", wantStatus: 404, wantCode: "term-archive-page-not-found",
			golden: "list_terms_page_not_found"},
		{name: "per_page clamped", path: categoriesPath + "?per_page=1000", want: visible, restURL: c("?per_page=100")},
		{name: "per_page zero", path: categoriesPath + "?per_page=0", wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"per_page"}},
		{name: "empty first page", path: categoriesPath + "?search=zzz", restURL: c("?search=zzz")},
	})

	f.runListCases(t, "tags", []listCase{
		{name: "default", path: tagsPath, want: []string{"free", "live", "outdoor"}, restURL: tg(""), golden: "list_tags_default"},
		{name: "editor", auth: f.editor, path: tagsPath, want: []string{"free", "live", "outdoor"}, restURL: tg("")},
		{name: "contributor", auth: f.connie, path: tagsPath, want: []string{"free", "live", "outdoor"}, restURL: tg("")},
		{name: "hide_empty false", path: tagsPath + "?hide_empty=0", want: []string{"free", "live", "outdoor", "unused"}, restURL: tg("?hide_empty=0")},
		{name: "orderby count desc", path: tagsPath + "?orderby=count&order=desc", want: []string{"outdoor", "live", "free"},
			restURL: tg("?order=desc&orderby=count")},
		{name: "post", path: tagsPath + "?post=" + id("concerts"), want: []string{"live", "outdoor"}, restURL: tg("?post=" + id("concerts"))},
		{name: "event wins over post", path: tagsPath + "?event=" + id("cafe") + "&post=" + id("concerts"), want: []string{"free"},
			restURL: tg("?post=" + id("concerts") + "&event=" + id("cafe"))},
		{name: "parent is not a tag parameter", path: tagsPath + "?parent=999", want: []string{"free", "live", "outdoor"}, restURL: tg("")},
		{name: "include a category", path: tagsPath + "?include=" + id("music"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"include"}},
		{name: "exclude", path: tagsPath + "?exclude=" + id("live"), want: []string{"free", "outdoor"}, restURL: tg("?exclude=" + id("live"))},
		{name: "slug is normalised", path: tagsPath + "?slug=LIVE", want: []string{"live"}, restURL: "*"},
		{name: "search", path: tagsPath + "?search=door", want: []string{"outdoor"}, restURL: tg("?search=door")},
		{name: "second page", path: tagsPath + "?per_page=2&page=2", want: []string{"outdoor"}, total: 3, perPage: 2,
			restURL: tg("?per_page=2&page=2"), prev: tg("?per_page=2")},
		{name: "page past the end", path: tagsPath + "?page=2", wantStatus: 404, wantCode: "term-archive-page-not-found"},
		{name: "no parent key on tags", path: tagsPath + "?include=" + id("free"), want: []string{"free"}, restURL: tg("?include=" + id("free")),
			check: func(t *testing.T, body map[string]any) {
				for _, it := range listItemsOf(body, "tags") {
					if _, ok := it["parent"]; ok {
						t.Errorf("tag with parent key (CONTRACT 3.5)")
					}
				}
			}},
	})

	t.Run("every caller gets the same term list", func(t *testing.T) {
		anon := f.s.do(req{method: "GET", path: categoriesPath})
		for _, auth := range []string{f.sub, f.connie, f.editor, adminAuth} {
			if got := f.s.do(req{method: "GET", path: categoriesPath, auth: auth}); string(got.body) != string(anon.body) {
				t.Errorf("body differs for %s:\n%s\nanonymous:\n%s", strings.Split(auth, ":")[0], got.body, anon.body)
			}
		}
	})
}

// TestListReadYourWrites: a write returns only after the index applied it, so the next list shows it
// (CONTRACT 5.3 freshness, 0.3 acknowledged writes).
func TestListReadYourWrites(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	editor := s.user("edna", storage.RoleEditor)
	list := func(t *testing.T, auth, path string) []float64 {
		t.Helper()
		res := s.do(req{method: "GET", path: path, auth: auth})
		if res.status != 200 {
			t.Fatalf("GET %s: %d %s", path, res.status, res.body)
		}
		body := res.json(t)
		key := strings.TrimPrefix(strings.SplitN(path, "?", 2)[0], "/calendar/events/v1/")
		ids := []float64{}
		for _, it := range listItemsOf(body, key) {
			ids = append(ids, it["id"].(float64))
		}
		if total := body["total"].(float64); int(total) != len(ids) {
			t.Errorf("GET %s: total %v for %d items", path, total, len(ids))
		}
		return ids
	}
	expect := func(t *testing.T, auth, path string, want ...uint64) {
		t.Helper()
		w := make([]float64, len(want))
		for i, id := range want {
			w[i] = float64(id)
		}
		if diff := cmp.Diff(w, list(t, auth, path)); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", path, diff)
		}
	}
	patch := func(t *testing.T, path string, body map[string]any) {
		t.Helper()
		if res := s.do(req{method: "PATCH", path: path, auth: adminAuth, body: body}); res.status != 200 {
			t.Fatalf("PATCH %s: %d %s", path, res.status, res.body)
		}
	}

	dance := s.create(categoriesPath, map[string]any{"name": "Dance"})
	cat := s.create(categoriesPath, map[string]any{"name": "Salsa", "parent": dance})
	ev := s.create(eventsPath, map[string]any{"title": "Tango Evening", "start_date": "2026-12-01 20:00:00", "end_date": "2026-12-01 22:00:00"})
	evPath := eventsPath + "/" + utoa(ev)
	var venue, org uint64
	steps := []struct {
		name  string
		write func(t *testing.T)
		check func(t *testing.T)
	}{
		{"create shows at once", func(t *testing.T) {}, func(t *testing.T) {
			expect(t, "", eventsPath, ev)
			expect(t, "", eventsPath+"?search=tango", ev)
			expect(t, "", categoriesPath)
		}},
		{"retitle is searchable at once", func(t *testing.T) { patch(t, evPath, map[string]any{"title": "Rumba Evening"}) }, func(t *testing.T) {
			expect(t, "", eventsPath+"?search=rumba", ev)
			expect(t, "", eventsPath+"?search=tango")
		}},
		{"category count follows", func(t *testing.T) { patch(t, evPath, map[string]any{"categories": []any{cat}}) }, func(t *testing.T) {
			expect(t, "", categoriesPath, dance, cat) // the empty parent shows because of its child
			expect(t, "", eventsPath+"?categories=salsa", ev)
			expect(t, "", eventsPath+"?categories=dance", ev)
		}},
		{"re-parenting follows", func(t *testing.T) { patch(t, categoriesPath+"/"+utoa(cat), map[string]any{"parent": 0}) }, func(t *testing.T) {
			expect(t, "", categoriesPath, cat)
			expect(t, "", categoriesPath+"?parent=0", cat)
			expect(t, "", eventsPath+"?categories=dance")
		}},
		{"venue geo follows", func(t *testing.T) {
			venue = s.create(venuesPath, map[string]any{"venue": "Dance Hall", "geo_lat": 10, "geo_lng": 10})
			patch(t, evPath, map[string]any{"venue": venue})
		}, func(t *testing.T) {
			expect(t, "", eventsPath+"?geoloc=1", ev)
			expect(t, "", eventsPath+"?geoloc=1&geoloc_lat=10&geoloc_lng=10.1", ev)
			expect(t, "", venuesPath+"?has_events=1", venue)
			expect(t, "", venuesPath+"?only_with_upcoming=1", venue)
		}},
		{"moved venue coordinates follow", func(t *testing.T) {
			patch(t, venuesPath+"/"+utoa(venue), map[string]any{"geo_lat": 20, "geo_lng": 20})
		}, func(t *testing.T) {
			expect(t, "", eventsPath+"?geoloc=1&geoloc_lat=10&geoloc_lng=10.1")
			expect(t, "", eventsPath+"?geoloc=1&geoloc_lat=20&geoloc_lng=20", ev)
		}},
		{"cleared coordinates follow", func(t *testing.T) {
			patch(t, venuesPath+"/"+utoa(venue), map[string]any{"geo_lat": "", "geo_lng": ""})
		}, func(t *testing.T) {
			expect(t, "", eventsPath+"?geoloc=1")
		}},
		{"draft leaves the public lists", func(t *testing.T) { patch(t, evPath, map[string]any{"status": "draft"}) }, func(t *testing.T) {
			expect(t, "", eventsPath)
			expect(t, editor, eventsPath, ev)
			expect(t, "", categoriesPath)
			expect(t, "", venuesPath+"?has_events=1")
			expect(t, "", venuesPath+"?has_events=0", venue)
		}},
		{"hidden leaves every list", func(t *testing.T) {
			patch(t, evPath, map[string]any{"status": "publish", "hide_from_listings": true})
		}, func(t *testing.T) {
			expect(t, editor, eventsPath)
			expect(t, "", eventsPath+"?include="+utoa(ev))
			expect(t, "", venuesPath+"?only_with_upcoming=1")
			expect(t, "", venuesPath+"?has_events=1", venue)
		}},
		{"trash leaves the lists", func(t *testing.T) {
			patch(t, evPath, map[string]any{"hide_from_listings": false})
			if res := s.do(req{method: "DELETE", path: evPath, auth: adminAuth}); res.status != 200 {
				t.Fatalf("delete: %d %s", res.status, res.body)
			}
		}, func(t *testing.T) {
			expect(t, editor, eventsPath)
			expect(t, editor, eventsPath+"?status=trash", ev)
			expect(t, "", venuesPath+"?has_events=1")
			expect(t, "", categoriesPath)
		}},
		{"a trashed venue is unlinked", func(t *testing.T) {
			patch(t, evPath, map[string]any{"status": "publish"})
			if res := s.do(req{method: "DELETE", path: venuesPath + "/" + utoa(venue), auth: adminAuth}); res.status != 200 {
				t.Fatalf("delete venue: %d %s", res.status, res.body)
			}
		}, func(t *testing.T) {
			expect(t, "", eventsPath, ev)
			expect(t, "", eventsPath+"?venue="+utoa(venue))
			expect(t, "", venuesPath+"?event="+utoa(ev))
			expect(t, "", venuesPath)
			expect(t, editor, venuesPath+"?status=trash", venue)
		}},
		{"new venue and organizer list at once", func(t *testing.T) {
			org = s.create(organizersPath, map[string]any{"organizer": "Fresh Org"})
		}, func(t *testing.T) {
			expect(t, "", organizersPath, org)
			expect(t, "", organizersPath+"?search=fresh", org)
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.write(t)
			st.check(t)
		})
	}
}

// TestListSiteTimeZone: date bounds are days of the site zone, compared with start instants (5.2).
// Europe/Paris is UTC+1 in November: today there is 2026-11-21T23:00Z … 2026-11-22T22:59:59Z.
func TestListSiteTimeZone(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CALENDAR_SITE_TIMEZONE=Europe/Paris")
	f := &listFixture{s: s, rec: map[string]uint64{}, term: map[string]uint64{}, roles: map[string]storage.Role{}}
	for _, e := range []struct{ name, start string }{
		{"before", "2026-11-21 22:30:00"}, // 23:30 Paris, yesterday there
		{"after", "2026-11-21 23:30:00"},  // 00:30 Paris, today there
		{"last", "2028-11-22 22:30:00"},   // 23:30 Paris on the last day of the window
		{"beyond", "2028-11-22 23:30:00"}, // 00:30 Paris the day after
	} {
		f.add(t, e.name, adminAuth, eventsPath, map[string]any{"title": e.name, "timezone": "UTC", "start_date": e.start, "end_date": e.start}, "publish")
	}
	u := func(q string) string { return nsURL + "/events/" + q }
	f.runListCases(t, "events", []listCase{
		{name: "default window in the site zone", path: eventsPath, want: []string{"after", "last"}, restURL: u("")},
		{name: "explicit day in the site zone", path: eventsPath + "?start_date=2026-11-21&end_date=2026-11-21", want: []string{"before"},
			restURL: u("?start_date=2026-11-21+00%3A00%3A00&end_date=2026-11-21+23%3A59%3A59")},
		{name: "an instant is converted to the site zone", path: eventsPath + "?start_date=2026-11-21T23:30:00Z&end_date=2028-11-23T00:00:00%2B00:00",
			want: []string{"after", "last", "beyond"}, restURL: u("?start_date=2026-11-22+00%3A00%3A00&end_date=2028-11-23+23%3A59%3A59")},
		{name: "today", path: eventsPath + "?start_date=today&end_date=today", want: []string{"after"},
			restURL: u("?start_date=2026-11-22+00%3A00%3A00&end_date=2026-11-22+23%3A59%3A59")},
	})
}
