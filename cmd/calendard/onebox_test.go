package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// End-to-end tests of the one-box search, GET {ns}/search (docs/API.md "One-box search").

const searchPath = "/calendar/events/v1/search"

// oneBoxKinds are the kinds of the one box's answer, in its order, each with the path of its list.
var oneBoxKinds = []struct{ key, path string }{
	{"events", eventsPath}, {"venues", venuesPath}, {"organizers", organizersPath},
	{"categories", categoriesPath}, {"tags", tagsPath},
}

// oneBox asks the one box for search under the language prefix lp as auth, with per_type when it is
// not 0 and the parameters extra ("&…"), and asks each kind's list for the same search with per_page
// set to per_type and the same extra. Each kind's array must be its list's, byte for byte, and its
// total the list's X-TEC-Total; the keys come in the answer's order. It returns the answer's totals
// and the answer.
func oneBox(t *testing.T, s *server, lp, auth, search string, perType int, extra string) (map[string]int, *response) {
	t.Helper()
	query := "?search=" + url.QueryEscape(search)
	perPage := 5
	if perType != 0 {
		query += "&per_type=" + strconv.Itoa(perType)
		perPage = perType
	}
	res := s.do(req{method: "GET", path: lp + searchPath + query + extra, auth: auth})
	if res.status != http.StatusOK {
		t.Fatalf("GET %s%s%s: %d %s", lp, searchPath, query+extra, res.status, res.body)
	}
	var box map[string]json.RawMessage
	if err := json.Unmarshal(res.body, &box); err != nil {
		t.Fatal(err)
	}
	var totals map[string]int
	if err := json.Unmarshal(box["totals"], &totals); err != nil {
		t.Fatalf("totals: %v\n%s", err, res.body)
	}
	if keys := topKeys(t, res.body); !slices.Equal(keys, []string{"events", "venues", "organizers", "categories", "tags", "totals"}) {
		t.Errorf("%s: keys %v", query, keys)
	}
	for _, k := range oneBoxKinds {
		path := lp + k.path + "?search=" + url.QueryEscape(search) + "&per_page=" + strconv.Itoa(perPage) + extra
		list := s.do(req{method: "GET", path: path, auth: auth})
		if list.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, list.status, list.body)
		}
		var items map[string]json.RawMessage
		if err := json.Unmarshal(list.body, &items); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(box[k.key], items[k.key]) {
			t.Errorf("%s%s%s: %s differ from GET %s\none box: %s\nlist:    %s", lp, query, extra, k.key, path, box[k.key], items[k.key])
		}
		if want, _ := strconv.Atoi(list.header.Get("X-TEC-Total")); totals[k.key] != want {
			t.Errorf("%s%s%s: totals.%s %d, X-TEC-Total of GET %s %d", lp, query, extra, k.key, totals[k.key], path, want)
		}
	}
	return totals, res
}

// seedJazz writes the one box's calendar: jazz in the events, venues, organizers, categories and tags,
// six English published jazz events and a French one in the default window, beside an English one in
// the past, a draft event, a draft venue and a blues event. It returns the English jazz events
// anonymous callers find.
func seedJazz(t *testing.T, s *server) int {
	t.Helper()
	night := concert() // Jazz Night: Salle Pleyel, Org A, Music and Jazz, live
	night["start_date"], night["end_date"] = "2027-06-10 20:00:00", "2027-06-10 22:00:00"
	s.create(eventsPath, night)
	for i := range 5 {
		s.create(eventsPath, map[string]any{"title": "Jazz session " + strconv.Itoa(i+1), "start_date": "2027-0" + strconv.Itoa(i+1) + "-10 20:00:00",
			"end_date": "2027-0" + strconv.Itoa(i+1) + "-10 22:00:00", "venue": map[string]any{"venue": "Jazz Cellar"},
			"organizer": []any{map[string]any{"organizer": "Jazz Society"}}, "tags": "jazz-jam"})
	}
	s.create(eventsPath, map[string]any{"title": "Blues evening", "start_date": "2027-02-01 20:00:00", "end_date": "2027-02-01 23:00:00",
		"description": "Not the other music", "categories": "Blues"})
	s.create(eventsPath, map[string]any{"title": "Old jazz", "start_date": "2020-02-01 20:00:00", "end_date": "2020-02-01 23:00:00"})
	s.create(eventsPath, map[string]any{"title": "Jazz draft", "status": "draft", "start_date": "2027-02-02 20:00:00", "end_date": "2027-02-02 23:00:00"})
	s.create(eventsPath+"?translation_language=fr", map[string]any{"title": "Soirée jazz", "start_date": "2027-03-01 20:00:00",
		"end_date": "2027-03-01 23:00:00", "venue": map[string]any{"venue": "Caveau de la Huchette"}, "categories": "Jazz"})
	s.create(venuesPath, map[string]any{"venue": "Jazz Loft", "status": "draft"})
	return 6
}

// TestSearchAll: each kind of the one box's answer is its list's first page for the same search, byte
// for byte, with the list's total: per role, under a language prefix or translation_language, with
// _fields, for per_type's bounds, highlighted, and for a search answered with typo tolerance.
func TestSearchAll(t *testing.T) {
	s := startServer(t)
	published := seedJazz(t, s)

	totals, res := oneBox(t, s, "", "", "jazz", 1, "")
	want := map[string]int{"events": published, "venues": 1, "organizers": 1, "categories": 1, "tags": 1}
	if !maps.Equal(totals, want) {
		t.Errorf("anonymous jazz: totals %v, want %v", totals, want)
	}
	if res.header.Get("X-Calendar-Search") != "" || res.header.Get("ETag") == "" {
		t.Errorf("anonymous jazz: X-Calendar-Search %q, ETag %q", res.header.Get("X-Calendar-Search"), res.header.Get("ETag"))
	}
	golden(t, "search_all", res.body)

	// An editor sees the draft event and the draft venue; per_type's default shows five of the seven.
	totals, res = oneBox(t, s, "", adminAuth, "jazz", 0, "")
	if totals["events"] != published+1 || totals["venues"] != 2 {
		t.Errorf("administrator jazz: totals %v, want %d events and 2 venues", totals, published+1)
	}
	if n := strings.Count(string(res.body), `"title":"Jazz`); n != 5 {
		t.Errorf("administrator jazz: %d events of per_type 5", n)
	}

	// The French site finds the French records, under its prefix and with translation_language.
	for _, lp := range []string{"/fr", ""} {
		extra := ""
		if lp == "" {
			extra = "&translation_language=fr"
		}
		totals, res = oneBox(t, s, lp, "", "jazz", 0, extra)
		if want := map[string]int{"events": 1, "venues": 0, "organizers": 0, "categories": 1, "tags": 1}; !maps.Equal(totals, want) ||
			!strings.Contains(string(res.body), "Soirée jazz") || !strings.Contains(string(res.body), testOrigin+"/fr/") {
			t.Errorf("%s jazz%s: totals %v, want %v\n%s", lp, extra, totals, want, res.body)
		}
	}

	for _, tc := range []struct {
		name, lp, auth, search string
		perType                int
		extra                  string
	}{
		{name: "per_type 20 as an editor", auth: adminAuth, search: "jazz", perType: 20},
		{name: "a prefix", search: "ja"},
		{name: "a venue's name", search: "pleyel"},
		{name: "words of no record", search: "xylophone"},
		{name: "_fields", search: "jazz", extra: "&_fields=id,title,venue,name"},
		{name: "an unknown parameter", search: "jazz", extra: "&utm_source=mail"},
		{name: "German, with nothing", lp: "/de", search: "jazz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oneBox(t, s, tc.lp, tc.auth, tc.search, tc.perType, tc.extra)
		})
	}

	// highlight=true goes to the lists that highlight: their items gain search_highlight, the terms'
	// lists are as they are.
	_, res = oneBox(t, s, "", "", "jaz", 0, "&highlight=true")
	if n := strings.Count(string(res.body), `"search_highlight":{"title":"<mark>Jazz</mark>`); n != 5 {
		t.Errorf("jaz, highlighted: %d events' titles marked, want 5\n%s", n, res.body)
	}
	if !strings.Contains(string(res.body), `"search_highlight":{"venue":"<mark>Jazz</mark> Cellar"}`) {
		t.Errorf("jaz, highlighted: no venue marked\n%s", res.body)
	}

	// A search that finds nothing as typed is answered with typo tolerance, and says so.
	totals, res = oneBox(t, s, "", "", "concret", 0, "")
	if totals["events"] != 1 || res.header.Get("X-Calendar-Search") != "typo-tolerant" {
		t.Errorf("concret: totals %v, X-Calendar-Search %q; want Jazz Night, typo-tolerant", totals, res.header.Get("X-Calendar-Search"))
	}
}

// TestSearchAllPerRole: the one box shows each caller what the lists show them (docs/API.md "Lists"),
// over the permission matrix's records, whose titles all hold "Perm": anonymous callers published
// records only, an author their own drafts besides, an editor every status but the trash.
func TestSearchAllPerRole(t *testing.T) {
	s := startServer(t)
	f := newPermFixture(t, s, nil)
	for _, tc := range permLists {
		if tc.query != "" {
			continue // the one box takes no status
		}
		t.Run(tc.role, func(t *testing.T) {
			totals, res := oneBox(t, f.server(t), "", f.auth[tc.role], "perm", 20, "")
			want := permExpandList(tc.want)
			for _, k := range []string{"events", "venues", "organizers"} {
				if totals[k] != len(want) {
					t.Errorf("%s: totals.%s %d, want %d (%s)", tc.role, k, totals[k], len(want), tc.want)
				}
			}
			var box struct{ Events, Venues, Organizers []struct{ ID uint64 } }
			if err := json.Unmarshal(res.body, &box); err != nil {
				t.Fatal(err)
			}
			for k, items := range map[string][]struct{ ID uint64 }{"events": box.Events, "venues": box.Venues, "organizers": box.Organizers} {
				for _, it := range items {
					if l := f.labels[it.ID]; !slices.Contains(want, l) {
						t.Errorf("%s: %s %d (%s) shown, not in %s", tc.role, k, it.ID, l, tc.want)
					}
				}
			}
		})
	}
}

// TestSearchAllValidation: a missing or empty search and a per_type out of 1–20 are the contract's
// 400s, naming the parameter, whatever the method; nothing of it is a list's own error.
func TestSearchAllValidation(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct {
		query, code, param, detail string
	}{
		{"", "rest_missing_callback_param", "search", ""},
		{"?per_type=3", "rest_missing_callback_param", "search", ""},
		{"?search=", "rest_invalid_param", "search", "rest_invalid_param"},
		{"?search=%20%09", "rest_invalid_param", "search", "rest_invalid_param"},
		{"?search[]=a&search[]=b", "rest_invalid_param", "search", "rest_invalid_type"},
		{"?search=jazz&per_type=0", "rest_invalid_param", "per_type", "rest_invalid_param"},
		{"?search=jazz&per_type=21", "rest_invalid_param", "per_type", "rest_invalid_param"},
		{"?search=jazz&per_type=five", "rest_invalid_param", "per_type", "rest_invalid_type"},
		{"?search=jazz&translation_language=xx", "rest_invalid_param", "translation_language", "rest_not_in_enum"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := s.do(req{method: "GET", path: searchPath + tc.query})
			body := res.json(t)
			if tc.query == "" {
				golden(t, "search_all_missing", res.body)
			}
			if res.status != http.StatusBadRequest || body["code"] != tc.code {
				t.Fatalf("status %d, code %v; want 400 %s\n%s", res.status, body["code"], tc.code, res.body)
			}
			data := body["data"].(map[string]any)
			if tc.detail == "" {
				if !slices.Equal(data["params"].([]any), []any{tc.param}) {
					t.Errorf("data.params %v, want [%s]", data["params"], tc.param)
				}
				return
			}
			if _, ok := data["params"].(map[string]any)[tc.param]; !ok {
				t.Errorf("data.params %v does not name %s", data["params"], tc.param)
			}
			if got := data["details"].(map[string]any)[tc.param].(map[string]any)["code"]; got != tc.detail {
				t.Errorf("data.details.%s.code %v, want %s", tc.param, got, tc.detail)
			}
		})
	}
	if res := s.do(req{method: "POST", path: searchPath + "?search=jazz", auth: adminAuth}); res.status != http.StatusNotFound || res.header.Get("Allow") != "GET" {
		t.Errorf("POST: %d, Allow %q; want 404 rest_no_route with Allow GET", res.status, res.header.Get("Allow"))
	}
}

// TestSearchAllCache: the one box's answers go through the list cache: asked again, even with a
// parameter it does not take, the answer is a hit, and the same body; any write drops it, and the next
// answer shows the write. The ETag of an answer answers 304 to If-None-Match while it holds, in the
// encoding asked for, and HEAD has GET's headers.
func TestSearchAllCache(t *testing.T) {
	s := startServer(t)
	seedJazz(t, s)
	counts := func() (hits, misses float64) {
		m := scrape(t, s.ts.URL+"/metrics")
		hits, _ = m.value("calendard_cache_hits_total", "cache", "lists")
		misses, _ = m.value("calendard_cache_misses_total", "cache", "lists")
		return hits, misses
	}
	get := func(query string, header map[string]string) *response {
		t.Helper()
		return s.do(req{method: "GET", path: searchPath + query, header: header})
	}
	hits0, misses0 := counts()
	first := get("?search=jazz", nil)
	again := get("?search=jazz&utm_source=mail", nil)
	hits, misses := counts()
	if first.status != 200 || !bytes.Equal(again.body, first.body) || hits-hits0 != 1 || misses-misses0 != 1 {
		t.Fatalf("twice: %d, same body %v; %v hits and %v misses, want 1 and 1", first.status, bytes.Equal(again.body, first.body), hits-hits0, misses-misses0)
	}
	etag := first.header.Get("ETag")
	if res := get("?search=jazz", map[string]string{"If-None-Match": etag}); res.status != http.StatusNotModified || len(res.body) != 0 || res.header.Get("ETag") != etag {
		t.Errorf("If-None-Match the ETag: %d with %d bytes, ETag %q; want 304 with %q", res.status, len(res.body), res.header.Get("ETag"), etag)
	}
	gz := get("?search=jazz", map[string]string{"Accept-Encoding": "gzip"})
	if gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("ETag") == etag {
		t.Fatalf("gzip: Content-Encoding %q, ETag %q (plain %q)", gz.header.Get("Content-Encoding"), gz.header.Get("ETag"), etag)
	}
	if res := get("?search=jazz", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": gz.header.Get("ETag")}); res.status != http.StatusNotModified {
		t.Errorf("If-None-Match the gzip ETag: %d, want 304", res.status)
	}
	head := s.do(req{method: "HEAD", path: searchPath + "?search=jazz"})
	if head.status != 200 || len(head.body) != 0 || head.header.Get("ETag") != etag || head.header.Get("Content-Length") != strconv.Itoa(len(first.body)) {
		t.Errorf("HEAD: %d, %d bytes, ETag %q, Content-Length %q; want GET's headers", head.status, len(head.body), head.header.Get("ETag"), head.header.Get("Content-Length"))
	}

	// A write drops the answer: the next one is computed again, shows the new event, and has a new
	// ETag, which the old one no longer matches.
	s.create(eventsPath, map[string]any{"title": "Jazz picnic", "start_date": "2026-12-01 12:00:00", "end_date": "2026-12-01 15:00:00"})
	hits0, misses0 = counts()
	after := get("?search=jazz", map[string]string{"If-None-Match": etag})
	hits, misses = counts()
	if after.status != 200 || !strings.Contains(string(after.body), "Jazz picnic") || after.header.Get("ETag") == etag || hits != hits0 || misses-misses0 != 1 {
		t.Errorf("after a write: %d, shows the write %v, ETag %q (was %q); %v hits, %v misses, want a miss",
			after.status, strings.Contains(string(after.body), "Jazz picnic"), after.header.Get("ETag"), etag, hits-hits0, misses-misses0)
	}
}

// TestSearchAllDescribed: the namespace index and /doc describe the one box's route, its parameters
// and its answer.
func TestSearchAllDescribed(t *testing.T) {
	s := startServer(t)
	var index struct {
		Routes map[string]struct {
			Methods   []string
			Endpoints []struct {
				Args map[string]struct {
					Type     string
					Default  any
					Required bool
				}
			}
		}
	}
	if err := json.Unmarshal(s.do(req{method: "GET", path: "/calendar/events/v1"}).body, &index); err != nil {
		t.Fatal(err)
	}
	rt, ok := index.Routes[searchPath]
	if !ok || !slices.Equal(rt.Methods, []string{"GET"}) || len(rt.Endpoints) != 1 {
		t.Fatalf("namespace index: %s is %+v", searchPath, rt)
	}
	args := rt.Endpoints[0].Args
	if a := args["search"]; a.Type != "string" || !a.Required {
		t.Errorf("index: search is %+v, want a required string", a)
	}
	if a := args["per_type"]; a.Type != "integer" || a.Default != float64(5) || a.Required {
		t.Errorf("index: per_type is %+v, want an optional integer, default 5", a)
	}
	if a := args["highlight"]; a.Type != "boolean" || a.Default != false || a.Required {
		t.Errorf("index: highlight is %+v, want an optional boolean, default false", a)
	}
	if _, ok := args["translation_language"]; !ok || len(args) != 4 {
		t.Errorf("index: args %v, want search, per_type, highlight and translation_language", args)
	}

	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name string }
			Responses  map[string]struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]struct {
							Items struct {
								Ref string `json:"$ref"`
							}
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(s.do(req{method: "GET", path: "/calendar/events/v1/doc"}).body, &doc); err != nil {
		t.Fatal(err)
	}
	op, ok := doc.Paths["/search"]["get"]
	if !ok || len(op.Parameters) != 4 {
		t.Fatalf("/doc: GET /search is %+v", op)
	}
	props := op.Responses["200"].Content["application/json"].Schema.Properties
	for key, ref := range map[string]string{"events": "Event", "venues": "Venue", "organizers": "Organizer", "categories": "Term", "tags": "Term"} {
		if got := props[key].Items.Ref; got != "#/components/schemas/"+ref {
			t.Errorf("/doc: the 200's %s are %q, want %s", key, got, ref)
		}
	}
	if _, ok := props["totals"]; !ok {
		t.Error("/doc: the 200 has no totals")
	}
	for _, status := range []string{"304", "400"} {
		if _, ok := op.Responses[status]; !ok {
			t.Errorf("/doc: GET /search does not document %s", status)
		}
	}
}
