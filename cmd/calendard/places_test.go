package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

// End-to-end tests of the single-record venue and organizer routes (CONTRACT 3.3, 3.4, 3.9.2, 3.9.3,
// 4.3, 4.4, 4.7, 4.8, 4.10, 8.5, 11). Lists are out of scope here.

const (
	venuesPath       = "/calendar/events/v1/venues"
	organizersPath   = "/calendar/events/v1/organizers"
	wwwAuthenticate  = `Basic realm="calendar-events", Bearer realm="calendar-events"`
	authCacheControl = "no-cache, must-revalidate, max-age=0, no-store, private"
)

// routeCase is one request of a scenario table and what the contract says it answers. The cases of a
// table run in order against one server, so later cases may depend on earlier ones.
type routeCase struct {
	name       string
	r          req
	wantStatus int
	wantCode   string         // error code (2.6, 9); "" for a success
	golden     string         // testdata/<golden>.golden.json pins the body
	want       map[string]any // top-level keys of the body and their values (compared as decoded JSON)
	absent     []string       // top-level keys the body must not have
	// wantParams: for rest_missing_callback_param, data.params exactly (in order); for
	// rest_invalid_param, the keys of data.params (any order).
	wantParams  []string
	wantDetails map[string]string // rest_invalid_param: parameter → data.details[parameter].code
	wantData    map[string]any    // keys of data and their values (e.g. term_id)
	wantHeader  map[string]string // response headers that must have these exact values
}

func runRouteCases(t *testing.T, s *server, cases []routeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(tc.r)
			checkResponse(t, res, tc)
		})
	}
}

func checkResponse(t *testing.T, res *response, tc routeCase) {
	t.Helper()
	if res.status != tc.wantStatus {
		t.Fatalf("%s %s: status %d, want %d\n%s", tc.r.method, tc.r.path, res.status, tc.wantStatus, res.body)
	}
	for k, v := range tc.wantHeader {
		if got := res.header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if want := "<" + baseOf(tc.r.path) + `/>; rel="https://api.w.org/"`; tc.r.path != "" && res.header.Get("Link") != want {
		t.Errorf("Link %q, want %q (CONTRACT 1.7)", res.header.Get("Link"), want)
	}
	if res.status == http.StatusUnauthorized {
		if got := res.header.Get("WWW-Authenticate"); got != wwwAuthenticate {
			t.Errorf("401 with WWW-Authenticate %q, want %q (CONTRACT 1.7)", got, wwwAuthenticate)
		}
	}
	if res.status == http.StatusNotModified || tc.r.method == "HEAD" {
		if len(res.body) != 0 {
			t.Errorf("%d answer to %s with a body: %s", res.status, tc.r.method, res.body)
		}
		return
	}
	if got := res.header.Get("Content-Type"); got != "application/json; charset=UTF-8" {
		t.Errorf("Content-Type %q (CONTRACT 1.7)", got)
	}
	body := res.json(t)
	if tc.wantCode != "" || res.status >= 400 {
		checkError(t, body, tc)
	}
	wantKeys(t, body, tc.want, tc.absent...)
	if tc.golden != "" {
		golden(t, tc.golden, res.body)
	}
}

// checkError checks the error envelope of CONTRACT 2.6.
func checkError(t *testing.T, body map[string]any, tc routeCase) {
	t.Helper()
	if body["code"] != tc.wantCode {
		t.Errorf("code %v, want %q", body["code"], tc.wantCode)
	}
	if _, ok := body["message"].(string); !ok {
		t.Errorf("message %v is not a string", body["message"])
	}
	data, _ := body["data"].(map[string]any)
	if data["status"] != float64(tc.wantStatus) {
		t.Errorf("data.status = %v, want %d", data["status"], tc.wantStatus)
	}
	wantKeys(t, data, tc.wantData)
	switch tc.wantCode {
	case "rest_missing_callback_param":
		got, _ := data["params"].([]any)
		if diff := cmp.Diff(jsonValue(t, tc.wantParams), any(got)); tc.wantParams != nil && diff != "" {
			t.Errorf("data.params (-want +got):\n%s", diff)
		}
	case "rest_invalid_param":
		params, ok := data["params"].(map[string]any)
		if !ok {
			t.Fatalf("data.params %v is not an object", data["params"])
		}
		details, ok := data["details"].(map[string]any)
		if !ok {
			t.Fatalf("data.details %v is not an object", data["details"])
		}
		if tc.wantParams != nil {
			var got []string
			for k := range params {
				got = append(got, k)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.wantParams))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("data.params keys (-want +got):\n%s", diff)
			}
		}
		for name, code := range tc.wantDetails {
			d, _ := details[name].(map[string]any)
			if d["code"] != code {
				t.Errorf("data.details.%s.code = %v, want %s (details %v)", name, d["code"], code, details)
			}
		}
	}
}

// baseOf is {base} of a request path: the origin, plus the language prefix if the path has one (1.1).
func baseOf(path string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if _, ok := storage.ParseLang(first); ok {
		return testOrigin + "/" + first
	}
	return testOrigin
}

// jsonValue returns v as encoding/json decodes it into an any (numbers float64, maps map[string]any).
func jsonValue(t testing.TB, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(toJSON(t, v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// wantKeys checks that body has each key of want with that value, and none of absent.
func wantKeys(t testing.TB, body map[string]any, want map[string]any, absent ...string) {
	t.Helper()
	for k, v := range want {
		got, ok := body[k]
		if !ok {
			t.Errorf("key %q missing, want %v", k, v)
			continue
		}
		if diff := cmp.Diff(jsonValue(t, v), got); diff != "" {
			t.Errorf("key %q (-want +got):\n%s", k, diff)
		}
	}
	for _, k := range absent {
		if v, ok := body[k]; ok {
			t.Errorf("key %q present (%v), want it omitted", k, v)
		}
	}
}

// wantChanged checks that after is before with the keys of changed set and the keys of removed gone:
// everything else must be untouched (CONTRACT 4.7).
func wantChanged(t testing.TB, before, after map[string]any, changed map[string]any, removed ...string) {
	t.Helper()
	want := make(map[string]any, len(before))
	for k, v := range before {
		want[k] = v
	}
	for k, v := range changed {
		want[k] = jsonValue(t, v)
	}
	for _, k := range removed {
		delete(want, k)
	}
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("record after update (-want +got):\n%s", diff)
	}
}

// get fetches path as the administrator and decodes the object.
func (s *server) get(path string) map[string]any {
	s.t.Helper()
	res := s.do(req{method: "GET", path: path, auth: adminAuth})
	if res.status != http.StatusOK {
		s.t.Fatalf("GET %s: status %d\n%s", path, res.status, res.body)
	}
	return res.json(s.t)
}

// withoutLD drops json_ld, which only single GETs carry (3.7), so a GET can be compared with a write.
func withoutLD(m map[string]any) map[string]any {
	delete(m, "json_ld")
	return m
}

func pleyel() map[string]any {
	return map[string]any{
		"venue":         "Salle Pleyel",
		"description":   "A great <b>concert</b> hall.",
		"address":       "252 Rue du Faubourg Saint-Honoré",
		"city":          "Paris",
		"country":       "France",
		"province":      "Île-de-France",
		"zip":           "75008",
		"phone":         "+33 1 76 49 43 13",
		"website":       "https://www.sallepleyel.com",
		"geo_lat":       48.8774,
		"geo_lng":       "2.3008",
		"show_map_link": "no",
	}
}

func promoter() map[string]any {
	return map[string]any{
		"organizer":   "Live Nation",
		"description": "Concert <i>promoter</i>.",
		"phone":       "+1 555 0100",
		"email":       "info@livenation.example",
		"website":     "https://livenation.example",
	}
}

func TestVenueCreateAndGet(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	res := s.do(req{method: "POST", path: venuesPath, auth: adminAuth, body: pleyel()})
	checkResponse(t, res, routeCase{r: req{method: "POST", path: venuesPath}, wantStatus: 201, golden: "venue_create",
		wantHeader: map[string]string{"Location": testOrigin + venuesPath + "/1", "ETag": ""},
		absent:     []string{"json_ld", "rest_url", "excerpt"}})
	created := res.json(t)

	get := s.do(req{method: "GET", path: venuesPath + "/1"})
	checkResponse(t, get, routeCase{r: req{method: "GET", path: venuesPath + "/1"}, wantStatus: 200, golden: "venue_get",
		wantHeader: map[string]string{"Cache-Control": "no-cache", "Vary": "Authorization"}})
	if diff := cmp.Diff(created, withoutLD(get.json(t))); diff != "" {
		t.Errorf("GET differs from the create answer apart from json_ld (-create +get):\n%s", diff)
	}
	etag := get.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) != 66 {
		t.Errorf("ETag %q is not a quoted SHA-256 (CONTRACT 11)", etag)
	}

	runRouteCases(t, s, []routeCase{
		{name: "by slug is the same body", r: req{method: "GET", path: venuesPath + "/by-slug/salle-pleyel"}, wantStatus: 200,
			golden: "venue_get", wantHeader: map[string]string{"ETag": etag}},
		{name: "by slug is normalised", r: req{method: "GET", path: venuesPath + "/by-slug/Salle%20PLEYEL"}, wantStatus: 200,
			golden: "venue_get"},
		{name: "if-none-match", r: req{method: "GET", path: venuesPath + "/1", header: map[string]string{"If-None-Match": etag}},
			wantStatus: 304, wantHeader: map[string]string{"ETag": etag}},
		{name: "if-none-match weak and listed", r: req{method: "GET", path: venuesPath + "/1",
			header: map[string]string{"If-None-Match": `"abc", W/` + etag}}, wantStatus: 304},
		{name: "if-none-match over two lines", r: req{method: "GET", path: venuesPath + "/1",
			header: map[string]string{"If-None-Match": `"abc"` + "\n" + etag}}, wantStatus: 304},
		{name: "if-none-match star", r: req{method: "GET", path: venuesPath + "/1", header: map[string]string{"If-None-Match": "*"}},
			wantStatus: 304},
		{name: "if-none-match other tag", r: req{method: "GET", path: venuesPath + "/1", header: map[string]string{"If-None-Match": `"abc"`}},
			wantStatus: 200, wantHeader: map[string]string{"ETag": etag}},
		{name: "head", r: req{method: "HEAD", path: venuesPath + "/1"}, wantStatus: 200, wantHeader: map[string]string{"ETag": etag}},
		{name: "authenticated get", r: req{method: "GET", path: venuesPath + "/1", auth: adminAuth}, wantStatus: 200,
			wantHeader: map[string]string{"Cache-Control": authCacheControl}},
		{name: "unknown venue is never 304", r: req{method: "GET", path: venuesPath + "/99", header: map[string]string{"If-None-Match": "*"}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "create in another language", r: req{method: "POST", path: "/fr" + venuesPath, auth: adminAuth,
			body: map[string]any{"venue": "Salle Pleyel", "city": "Paris"}}, wantStatus: 201,
			wantHeader: map[string]string{"Location": testOrigin + "/fr" + venuesPath + "/2"},
			want: map[string]any{"id": 2, "language": "fr", "slug": "salle-pleyel", "url": testOrigin + "/fr/venue/salle-pleyel/",
				"show_map": true, "show_map_link": true, "translations": map[string]any{}}},
		{name: "french slug is found with the prefix", r: req{method: "GET", path: "/fr" + venuesPath + "/by-slug/salle-pleyel"}, wantStatus: 200,
			want: map[string]any{"id": 2}},
		{name: "translation_language selects the slug scope", r: req{method: "GET", path: venuesPath + "/by-slug/salle-pleyel?translation_language=fr"},
			wantStatus: 200, want: map[string]any{"id": 2}},
		{name: "by ID whatever the prefix", r: req{method: "GET", path: "/fr" + venuesPath + "/1"}, wantStatus: 200, golden: "venue_get"},
		{name: "by ID whatever translation_language", r: req{method: "GET", path: venuesPath + "/2?translation_language=en"}, wantStatus: 200,
			want: map[string]any{"id": 2, "language": "fr"}},
		{name: "bad translation_language", r: req{method: "GET", path: venuesPath + "/1?translation_language=EN"}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"translation_language"}},
		{name: "default language under a prefix", r: req{method: "POST", path: "/fr" + venuesPath + "?translation_language=en", auth: adminAuth,
			body: map[string]any{"venue": "Olympia"}}, wantStatus: 201,
			wantHeader: map[string]string{"Location": testOrigin + venuesPath + "/3"},
			want:       map[string]any{"id": 3, "language": "en", "url": testOrigin + "/venue/olympia/"}},
		{name: "slug of a venue in another language", r: req{method: "GET", path: "/de" + venuesPath + "/by-slug/salle-pleyel"},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"slug"}},
	})
}

// TestVenueDuplicateAvoidance: CONTRACT 4.10.
func TestVenueDuplicateAvoidance(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	first := s.do(req{method: "POST", path: venuesPath, auth: adminAuth, body: pleyel()})
	if first.status != http.StatusCreated {
		t.Fatalf("create: %d %s", first.status, first.body)
	}
	draft := s.create(venuesPath, map[string]any{"venue": "Backstage", "status": "draft"})
	contributor := s.user("carla", storage.RoleContributor)
	runRouteCases(t, s, []routeCase{
		{name: "same name trimmed and case-insensitive returns it unchanged",
			r:          req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "  salle PLEYEL ", "city": "Lyon", "phone": "", "show_map": false}},
			wantStatus: 201, golden: "venue_create", wantHeader: map[string]string{"Location": testOrigin + venuesPath + "/1"}},
		{name: "same name and same description",
			r:          req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Salle Pleyel", "description": " a great <B>CONCERT</b> hall. "}},
			wantStatus: 201, golden: "venue_create"},
		{name: "same name and an empty description is no description",
			r:          req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Salle Pleyel", "description": ""}},
			wantStatus: 201, golden: "venue_create"},
		{name: "a contributor gets the published one",
			r:          req{method: "POST", path: venuesPath, auth: contributor, body: map[string]any{"venue": "Salle Pleyel"}},
			wantStatus: 201, golden: "venue_create"},
		{name: "same name, other description is a new venue",
			r:          req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Salle Pleyel", "description": "Another hall."}},
			wantStatus: 201, want: map[string]any{"id": draft + 1, "slug": "salle-pleyel-2"},
			wantHeader: map[string]string{"Location": testOrigin + venuesPath + "/" + utoa(draft+1)}},
		{name: "another language is a new venue",
			r:          req{method: "POST", path: venuesPath + "?translation_language=nl", auth: adminAuth, body: map[string]any{"venue": "Salle Pleyel"}},
			wantStatus: 201, want: map[string]any{"id": draft + 2, "language": "nl", "slug": "salle-pleyel"}},
		{name: "a draft unreadable by the caller is not reused",
			r:          req{method: "POST", path: venuesPath, auth: contributor, body: map[string]any{"venue": "backstage"}},
			wantStatus: 201, want: map[string]any{"id": draft + 3, "author": "2", "status": "draft", "venue": "backstage"}},
		{name: "a draft readable by the caller is reused",
			r:          req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "BACKSTAGE"}},
			wantStatus: 201, want: map[string]any{"id": draft, "venue": "Backstage"}},
		{name: "trash the original", r: req{method: "DELETE", path: venuesPath + "/1", auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"status": "trash"}},
		{name: "a trashed venue is skipped, the next match is returned",
			r:          req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Salle Pleyel"}},
			wantStatus: 201, want: map[string]any{"id": draft + 1, "status": "publish", "description": "<p>Another hall.</p>"},
			wantHeader: map[string]string{"Location": testOrigin + venuesPath + "/" + utoa(draft+1)}},
	})
	if got := withoutLD(s.get(venuesPath + "/1")); got["city"] != "Paris" || got["phone"] != "+33 1 76 49 43 13" || got["show_map"] != true {
		t.Errorf("duplicate create changed the existing venue: %v", got)
	}
}

// TestVenueStateProvince: the stateprovince rule of CONTRACT 3.9.2.
func TestVenueStateProvince(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tests := []struct {
		name string
		body map[string]any
		want string // "" means the key is omitted (3.3)
	}{
		{"state without country", map[string]any{"state": "NY"}, "NY"},
		{"state in US", map[string]any{"state": "NY", "country": "US"}, "NY"},
		{"state in United States", map[string]any{"state": "CA", "country": "United States", "province": "ignored"}, "CA"},
		{"state elsewhere falls back to province", map[string]any{"state": "Bavaria", "country": "Germany", "province": "BY"}, "BY"},
		{"province only", map[string]any{"province": "Ontario", "country": "Canada"}, "Ontario"},
		{"state elsewhere without province", map[string]any{"state": "Bavaria", "country": "Germany"}, ""},
		{"nothing", map[string]any{"city": "Nowhere"}, ""},
		{"explicit wins", map[string]any{"state": "NY", "stateprovince": "New York"}, "New York"},
		{"explicit empty is derived", map[string]any{"state": "NY", "stateprovince": ""}, "NY"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.body["venue"] = "Venue " + utoa(uint64(i))
			res := s.do(req{method: "POST", path: venuesPath, auth: adminAuth, body: tc.body})
			c := routeCase{r: req{method: "POST", path: venuesPath}, wantStatus: 201}
			if tc.want == "" {
				c.absent = []string{"stateprovince"}
			} else {
				c.want = map[string]any{"stateprovince": tc.want}
			}
			checkResponse(t, res, c)
		})
	}
	// json_ld addressRegion: stateprovince, else state, else province (3.7).
	bavaria := s.create(venuesPath, map[string]any{"venue": "Munich hall", "state": "Bavaria", "country": "Germany", "city": "München"})
	res := s.do(req{method: "GET", path: venuesPath + "/" + utoa(bavaria)})
	checkResponse(t, res, routeCase{r: req{method: "GET"}, wantStatus: 200, absent: []string{"stateprovince"}, want: map[string]any{
		"json_ld": map[string]any{"@type": "Place", "name": "Munich hall", "description": "", "url": testOrigin + "/venue/munich-hall/",
			"address":   map[string]any{"@type": "PostalAddress", "addressLocality": "München", "addressRegion": "Bavaria", "addressCountry": "Germany"},
			"telephone": "", "sameAs": ""}}})
	// stateprovince is derived on create only: a later state change keeps the stored value.
	id := s.create(venuesPath, map[string]any{"venue": "Derived", "state": "NY"})
	res = s.do(req{method: "PATCH", path: venuesPath + "/" + utoa(id), auth: adminAuth, body: map[string]any{"state": "NJ"}})
	checkResponse(t, res, routeCase{r: req{method: "PATCH"}, wantStatus: 200, want: map[string]any{"state": "NJ", "stateprovince": "NY"}})
}

// TestVenueGeo: geo_lat/geo_lng, CONTRACT 3.9.2 and 4.7.
func TestVenueGeo(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	id := s.create(venuesPath, map[string]any{"venue": "Dam", "geo_lat": "52.37", "geo_lng": 4.89})
	p := venuesPath + "/" + utoa(id)
	n := 0
	create := func(body map[string]any) req {
		n++
		body["venue"] = "Geo " + utoa(uint64(n)) // distinct names: no duplicate avoidance (4.10)
		return req{method: "POST", path: venuesPath, auth: adminAuth, body: body}
	}
	patch := func(body map[string]any) req { return req{method: "PATCH", path: p, auth: adminAuth, body: body} }
	runRouteCases(t, s, []routeCase{
		{name: "stored as numbers", r: req{method: "GET", path: p}, wantStatus: 200,
			want: map[string]any{"geo_lat": 52.37, "geo_lng": 4.89}},
		{name: "lat without lng", r: create(map[string]any{"geo_lat": 52.37}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geo_lng"}},
		{name: "lng without lat", r: create(map[string]any{"geo_lng": 4.89}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geo_lat"}},
		{name: "lat out of range", r: create(map[string]any{"geo_lat": 90.5, "geo_lng": 0}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geo_lat"}},
		{name: "lng out of range", r: create(map[string]any{"geo_lat": 0, "geo_lng": "-180.01"}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geo_lng"}},
		{name: "both out of range", r: create(map[string]any{"geo_lat": -91, "geo_lng": 181}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geo_lat", "geo_lng"}, golden: "venue_geo_invalid"},
		{name: "not a number", r: create(map[string]any{"geo_lat": "north", "geo_lng": true}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geo_lat", "geo_lng"}, wantDetails: map[string]string{"geo_lat": "rest_invalid_type", "geo_lng": "rest_invalid_type"}},
		{name: "bounds are inclusive", r: create(map[string]any{"geo_lat": -90, "geo_lng": "180"}), wantStatus: 201,
			want: map[string]any{"geo_lat": -90, "geo_lng": 180}},
		{name: "exponent form", r: create(map[string]any{"geo_lat": " -4.9e1 ", "geo_lng": 0}), wantStatus: 201,
			want: map[string]any{"geo_lat": -49, "geo_lng": 0}},
		{name: "update one coordinate alone", r: patch(map[string]any{"geo_lat": 10}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geo_lng"}},
		{name: "clear one coordinate alone", r: patch(map[string]any{"geo_lat": ""}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"geo_lng"}},
		{name: "unchanged after failed updates", r: req{method: "GET", path: p}, wantStatus: 200,
			want: map[string]any{"geo_lat": 52.37, "geo_lng": 4.89}},
		{name: "update both", r: patch(map[string]any{"geo_lat": 48.85, "geo_lng": "2.35"}), wantStatus: 200,
			want: map[string]any{"geo_lat": 48.85, "geo_lng": 2.35}},
		{name: "null is absent", r: patch(map[string]any{"geo_lat": nil, "geo_lng": nil, "city": "Paris"}), wantStatus: 200,
			want: map[string]any{"geo_lat": 48.85, "geo_lng": 2.35, "city": "Paris"}},
		{name: "clear both", r: patch(map[string]any{"geo_lat": "", "geo_lng": ""}), wantStatus: 200,
			absent: []string{"geo_lat", "geo_lng"}},
		{name: "cleared in json_ld too", r: req{method: "GET", path: p}, wantStatus: 200, absent: []string{"geo_lat", "geo_lng"},
			want: map[string]any{"json_ld": map[string]any{"@type": "Place", "name": "Dam", "description": "",
				"url": testOrigin + "/venue/dam/", "address": map[string]any{"@type": "PostalAddress", "addressLocality": "Paris"},
				"telephone": "", "sameAs": ""}}},
	})
}

// TestVenueUpdateIsPartial: CONTRACT 4.7 for venues, by ID and by slug.
func TestVenueUpdateIsPartial(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	id := s.create(venuesPath, pleyel())
	p := venuesPath + "/" + utoa(id)
	steps := []struct {
		name    string
		method  string
		path    string
		body    any
		changed map[string]any
		removed []string
	}{
		{"one field", "PATCH", p, map[string]any{"city": "Lyon"}, map[string]any{"city": "Lyon"}, nil},
		{"text fields are sanitised", "POST", p, map[string]any{"address": " 1 <b>Rue</b>\n\tde la  Paix "},
			map[string]any{"address": "1 Rue de la Paix"}, nil},
		{"clearing with empty strings", "PUT", p, map[string]any{"phone": "", "zip": "", "website": "", "description": ""},
			nil, []string{"phone", "zip", "website", "description"}},
		{"rename keeps the slug", "PATCH", p, map[string]any{"venue": "  Salle Pleyel Paris "},
			map[string]any{"venue": "Salle Pleyel Paris"}, nil},
		{"description rendered", "PATCH", p, map[string]any{"description": "Line one\nline two\n\nSecond"},
			map[string]any{"description": "<p>Line one<br />\nline two</p>\n<p>Second</p>"}, nil},
		{"no recognised field", "PATCH", p, map[string]any{"unknown": "x", "id": 77, "slug": "other", "url": "x"}, nil, nil},
		{"empty body", "PUT", p, nil, nil, nil},
		{"nulls are absent", "POST", p, map[string]any{"city": nil, "venue": nil, "show_map": nil}, nil, nil},
		{"by slug", "PATCH", venuesPath + "/by-slug/salle-pleyel", map[string]any{"zip": "69001"}, map[string]any{"zip": "69001"}, nil},
		{"form body", "POST", p, "country=Belgium&city=", map[string]any{"country": "Belgium"}, []string{"city"}},
	}
	before := withoutLD(s.get(p))
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := req{method: st.method, path: st.path, auth: adminAuth, body: st.body}
			if form, ok := st.body.(string); ok {
				r.body, r.contentType = form, "application/x-www-form-urlencoded"
			}
			res := s.do(r)
			if res.status != http.StatusOK {
				t.Fatalf("status %d\n%s", res.status, res.body)
			}
			after := res.json(t)
			wantChanged(t, before, after, st.changed, st.removed...)
			if got := withoutLD(s.get(p)); !cmp.Equal(got, after) {
				t.Errorf("GET differs from the update answer:\n%s", cmp.Diff(after, got))
			}
			before = after
		})
	}
	golden(t, "venue_update", s.do(req{method: "GET", path: p}).body)
}

// TestVenueShowMapTruthy: show_map/show_map_link read any scalar with the truthy rule (2.4, 3.9.2, 4.7).
func TestVenueShowMapTruthy(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	id := s.create(venuesPath, map[string]any{"venue": "Map"})
	p := venuesPath + "/" + utoa(id)
	tests := []struct {
		value any
		want  bool
	}{
		{"0", false}, {"yes", true}, {false, false}, {1, true}, {"", false}, {"On", true}, {"no", false},
		{"ENABLED", true}, {0, false}, {"y", true}, {"maybe", false}, {true, true}, {"false", false}, {2.5, true},
		{"true", true}, {"off", false}, {"1", true},
	}
	for _, tc := range tests {
		t.Run(toJSON(t, tc.value), func(t *testing.T) {
			res := s.do(req{method: "PATCH", path: p, auth: adminAuth, body: map[string]any{"show_map": tc.value, "show_map_link": tc.value}})
			checkResponse(t, res, routeCase{r: req{method: "PATCH", path: p}, wantStatus: 200,
				want: map[string]any{"show_map": tc.want, "show_map_link": tc.want}})
		})
	}
	runRouteCases(t, s, []routeCase{
		{name: "omitted keeps the value", r: req{method: "PATCH", path: p, auth: adminAuth, body: map[string]any{"city": "x"}}, wantStatus: 200,
			want: map[string]any{"show_map": true, "show_map_link": true}},
		{name: "create defaults to true", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Default"}},
			wantStatus: 201, want: map[string]any{"show_map": true, "show_map_link": true}},
		{name: "create with yes and 0", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Set", "show_map": "yes", "show_map_link": "0"}},
			wantStatus: 201, want: map[string]any{"show_map": true, "show_map_link": false}},
		{name: "an array is not a scalar", r: req{method: "PATCH", path: p, auth: adminAuth, body: map[string]any{"show_map": []any{1}}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"show_map"}},
	})
}

// TestVenueErrors: validation (2.6, 3.9.2, 10.1), permissions (7.6), unknown and foreign IDs (4.3).
func TestVenueErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	venue := s.create(venuesPath, map[string]any{"venue": "Published"})
	organizer := s.create(organizersPath, map[string]any{"organizer": "Someone"})
	draft := s.create(venuesPath, map[string]any{"venue": "Secret", "status": "draft"})
	contributor := s.user("carla", storage.RoleContributor)
	author := s.user("arthur", storage.RoleAuthor)
	own := s.do(req{method: "POST", path: venuesPath, auth: contributor, body: map[string]any{"venue": "Carla's place", "status": "publish"}}).json(t)
	ownID := utoa(uint64(own["id"].(float64)))
	vp := venuesPath + "/" + utoa(venue)
	create := func(body any) req { return req{method: "POST", path: venuesPath, auth: adminAuth, body: body} }
	runRouteCases(t, s, []routeCase{
		{name: "missing name", r: create(map[string]any{"city": "x"}), wantStatus: 400, wantCode: "rest_missing_callback_param",
			wantParams: []string{"venue"}, golden: "venue_missing"},
		{name: "null name", r: create(map[string]any{"venue": nil}), wantStatus: 400, wantCode: "rest_missing_callback_param",
			wantParams: []string{"venue"}},
		{name: "missing beats invalid", r: create(map[string]any{"city": strings.Repeat("x", 256), "geo_lat": 1}), wantStatus: 400,
			wantCode: "rest_missing_callback_param", wantParams: []string{"venue"}},
		{name: "anonymous missing is 400 first", r: req{method: "POST", path: venuesPath, body: map[string]any{}}, wantStatus: 400,
			wantCode: "rest_missing_callback_param", wantParams: []string{"venue"}},
		{name: "blank name", r: create(map[string]any{"venue": " \t "}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"venue"}},
		{name: "too long, bad types and enums together", r: create(map[string]any{
			"venue": strings.Repeat("é", 1001), "city": strings.Repeat("c", 256), "website": "https://x.example/" + strings.Repeat("p", 2031),
			"description": map[string]any{"a": 1}, "status": "gone", "geo_lat": "north", "geo_lng": 1}),
			wantStatus: 400, wantCode: "rest_invalid_param", golden: "venue_invalid",
			wantParams:  []string{"venue", "city", "website", "description", "status", "geo_lat"},
			wantDetails: map[string]string{"venue": "rest_too_long", "city": "rest_too_long", "website": "rest_too_long", "description": "rest_invalid_type", "status": "rest_not_in_enum", "geo_lat": "rest_invalid_type"}},
		{name: "limits are inclusive", r: create(map[string]any{"venue": strings.Repeat("é", 1000), "city": strings.Repeat("c", 255)}),
			wantStatus: 201},
		{name: "numbers are strings", r: create(map[string]any{"venue": 1234, "zip": 75008}), wantStatus: 201,
			want: map[string]any{"venue": "1234", "zip": "75008", "slug": "1234"}},
		{name: "website must be absolute", r: create(map[string]any{"venue": "W", "website": "www.example.org"}), wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"website"}},
		{name: "trash on create", r: create(map[string]any{"venue": "T", "status": "trash"}), wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"status"}},
		{name: "malformed json", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: `{"venue":`, contentType: "application/json"},
			wantStatus: 400, wantCode: "rest_invalid_json"},
		{name: "anonymous create", r: req{method: "POST", path: venuesPath, body: map[string]any{"venue": "Anon"}}, wantStatus: 401,
			wantCode: "rest_forbidden", golden: "venue_forbidden"},
		{name: "anonymous update", r: req{method: "PATCH", path: vp, body: map[string]any{"city": "x"}}, wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "anonymous delete", r: req{method: "DELETE", path: vp}, wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "anonymous update by slug", r: req{method: "PUT", path: venuesPath + "/by-slug/published", body: map[string]any{"city": "x"}},
			wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "contributor updates another's venue", r: req{method: "PATCH", path: vp, auth: contributor, body: map[string]any{"city": "x"}},
			wantStatus: 403, wantCode: "rest_forbidden"},
		{name: "contributor deletes another's venue", r: req{method: "DELETE", path: vp, auth: contributor}, wantStatus: 403, wantCode: "rest_forbidden"},
		{name: "contributor's publish becomes pending", r: req{method: "GET", path: venuesPath + "/" + ownID, auth: contributor}, wantStatus: 200,
			want: map[string]any{"status": "pending", "author": "2"}},
		{name: "contributor edits own pending venue", r: req{method: "PATCH", path: venuesPath + "/" + ownID, auth: contributor, body: map[string]any{"city": "Lille"}},
			wantStatus: 200, want: map[string]any{"city": "Lille", "status": "pending"}},
		{name: "author updates another's venue", r: req{method: "PATCH", path: vp, auth: author, body: map[string]any{"city": "x"}},
			wantStatus: 403, wantCode: "rest_forbidden"},
		{name: "author may create", r: req{method: "POST", path: venuesPath, auth: author, body: map[string]any{"venue": "Arthur's"}},
			wantStatus: 201, want: map[string]any{"status": "publish", "author": "3"}},
		{name: "author attributes to another", r: req{method: "POST", path: venuesPath, auth: author, body: map[string]any{"venue": "Other", "author": 1}},
			wantStatus: 403, wantCode: "rest_cannot_edit_others"},
		{name: "unknown id", r: req{method: "GET", path: venuesPath + "/999"}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}, golden: "venue_unknown_id"},
		{name: "organizer id", r: req{method: "GET", path: venuesPath + "/" + utoa(organizer)}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}},
		{name: "id beyond int64", r: req{method: "GET", path: venuesPath + "/99999999999999999999"}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}},
		{name: "update unknown id is 400 before permission", r: req{method: "PATCH", path: venuesPath + "/999", body: map[string]any{"city": "x"}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "update organizer id", r: req{method: "PATCH", path: venuesPath + "/" + utoa(organizer), auth: adminAuth, body: map[string]any{"city": "x"}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "delete unknown id", r: req{method: "DELETE", path: venuesPath + "/999", auth: adminAuth}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}},
		{name: "draft hidden from anonymous", r: req{method: "GET", path: venuesPath + "/" + utoa(draft)}, wantStatus: 403,
			wantCode: "venue-not-accessible", golden: "venue_not_accessible"},
		{name: "draft hidden from anonymous by slug", r: req{method: "GET", path: venuesPath + "/by-slug/secret"}, wantStatus: 403,
			wantCode: "venue-not-accessible"},
		{name: "draft hidden from a contributor", r: req{method: "GET", path: venuesPath + "/" + utoa(draft), auth: contributor}, wantStatus: 403,
			wantCode: "venue-not-accessible"},
		{name: "draft readable by the administrator", r: req{method: "GET", path: venuesPath + "/" + utoa(draft), auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"status": "draft", "slug": "secret"}},
		{name: "update with blank name", r: req{method: "PATCH", path: vp, auth: adminAuth, body: map[string]any{"venue": ""}}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"venue"}},
		{name: "update with bad status", r: req{method: "PATCH", path: vp, auth: adminAuth, body: map[string]any{"status": ""}}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"status"}},
		{name: "update with too long phone", r: req{method: "PATCH", path: vp, auth: adminAuth, body: map[string]any{"phone": strings.Repeat("1", 256)}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"phone"}, wantDetails: map[string]string{"phone": "rest_too_long"}},
		{name: "unchanged after failed updates", r: req{method: "GET", path: vp}, wantStatus: 200, want: map[string]any{"venue": "Published"},
			absent: []string{"city", "phone"}},
		{name: "by-slug on a category route", r: req{method: "GET", path: "/calendar/events/v1/categories/by-slug/x"}, wantStatus: 404, wantCode: "rest_no_route"},
		{name: "non-digit id", r: req{method: "GET", path: venuesPath + "/abc"}, wantStatus: 404, wantCode: "rest_no_route"},
	})
}

// TestVenueTrash: DELETE by ID and by slug (4.3, 4.8, 8.5).
func TestVenueTrash(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	id := s.create(venuesPath, pleyel())
	other := s.create(venuesPath, map[string]any{"venue": "Olympia", "status": "draft"})
	p := venuesPath + "/" + utoa(id)
	runRouteCases(t, s, []routeCase{
		{name: "delete", r: req{method: "DELETE", path: p, auth: adminAuth}, wantStatus: 200, golden: "venue_delete",
			want: map[string]any{"status": "trash"}, absent: []string{"json_ld"}},
		{name: "delete again", r: req{method: "DELETE", path: p, auth: adminAuth}, wantStatus: 410, wantCode: "venue-is-in-trash",
			golden: "venue_in_trash"},
		{name: "delete again anonymous", r: req{method: "DELETE", path: p}, wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "trashed is hidden from anonymous", r: req{method: "GET", path: p}, wantStatus: 403, wantCode: "venue-not-accessible"},
		{name: "trashed is readable by the administrator", r: req{method: "GET", path: p, auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"status": "trash"}},
		{name: "trashed slug is still found", r: req{method: "GET", path: venuesPath + "/by-slug/salle-pleyel", auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"id": id, "status": "trash"}},
		{name: "delete again by slug", r: req{method: "DELETE", path: venuesPath + "/by-slug/salle-pleyel", auth: adminAuth}, wantStatus: 410,
			wantCode: "venue-is-in-trash"},
		{name: "trashed slug does not block", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Salle Pleyel"}},
			wantStatus: 201, want: map[string]any{"id": other + 1, "slug": "salle-pleyel"}},
		{name: "slug now finds the live one", r: req{method: "GET", path: venuesPath + "/by-slug/salle-pleyel"}, wantStatus: 200,
			want: map[string]any{"id": other + 1}},
		{name: "restore", r: req{method: "PATCH", path: p, auth: adminAuth, body: map[string]any{"status": "publish"}}, wantStatus: 200,
			want: map[string]any{"status": "publish", "slug": "salle-pleyel-2"}},
		{name: "delete by slug", r: req{method: "DELETE", path: venuesPath + "/by-slug/olympia", auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"id": other, "status": "trash"}},
		{name: "delete by slug twice", r: req{method: "DELETE", path: venuesPath + "/by-slug/OLYMPIA", auth: adminAuth}, wantStatus: 410,
			wantCode: "venue-is-in-trash"},
		{name: "unknown slug get", r: req{method: "GET", path: venuesPath + "/by-slug/nowhere"}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"slug"}, golden: "venue_unknown_slug"},
		{name: "unknown slug update", r: req{method: "PATCH", path: venuesPath + "/by-slug/nowhere", auth: adminAuth, body: map[string]any{"city": "x"}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"slug"}},
		{name: "unknown slug delete", r: req{method: "DELETE", path: venuesPath + "/by-slug/nowhere", auth: adminAuth}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"slug"}},
		{name: "a force parameter changes nothing", r: req{method: "DELETE", path: venuesPath + "/" + utoa(other+1) + "?force=true", auth: adminAuth},
			wantStatus: 200, want: map[string]any{"status": "trash"}},
	})
}

func TestOrganizerCreateAndGet(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	res := s.do(req{method: "POST", path: organizersPath, auth: adminAuth, body: promoter()})
	checkResponse(t, res, routeCase{r: req{method: "POST", path: organizersPath}, wantStatus: 201, golden: "organizer_create",
		wantHeader: map[string]string{"Location": testOrigin + organizersPath + "/1"},
		absent:     []string{"json_ld", "rest_url", "excerpt", "show_map"}})
	created := res.json(t)
	get := s.do(req{method: "GET", path: organizersPath + "/1"})
	checkResponse(t, get, routeCase{r: req{method: "GET"}, wantStatus: 200, golden: "organizer_get",
		wantHeader: map[string]string{"Cache-Control": "no-cache", "Vary": "Authorization"}})
	if diff := cmp.Diff(created, withoutLD(get.json(t))); diff != "" {
		t.Errorf("GET differs from the create answer apart from json_ld (-create +get):\n%s", diff)
	}
	etag := get.header.Get("ETag")
	runRouteCases(t, s, []routeCase{
		{name: "by slug", r: req{method: "GET", path: organizersPath + "/by-slug/live-nation"}, wantStatus: 200, golden: "organizer_get",
			wantHeader: map[string]string{"ETag": etag}},
		{name: "if-none-match", r: req{method: "GET", path: organizersPath + "/1", header: map[string]string{"If-None-Match": "W/" + etag}},
			wantStatus: 304, wantHeader: map[string]string{"ETag": etag}},
		{name: "if-none-match by slug", r: req{method: "GET", path: organizersPath + "/by-slug/live-nation", header: map[string]string{"If-None-Match": etag}},
			wantStatus: 304},
		{name: "minimal organizer omits empty keys", r: req{method: "POST", path: organizersPath, auth: adminAuth, body: map[string]any{"organizer": "Solo"}},
			wantStatus: 201, want: map[string]any{"id": 2, "organizer": "Solo", "slug": "solo", "url": testOrigin + "/organizer/solo/"},
			absent: []string{"description", "image", "phone", "website", "email"}},
		{name: "minimal json_ld", r: req{method: "GET", path: organizersPath + "/2"}, wantStatus: 200,
			want: map[string]any{"json_ld": map[string]any{"@type": "Person", "name": "Solo", "description": "", "url": "",
				"telephone": "", "email": "", "sameAs": ""}}},
	})
}

// TestOrganizerDuplicateAvoidance: CONTRACT 4.10.
func TestOrganizerDuplicateAvoidance(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	first := s.do(req{method: "POST", path: organizersPath, auth: adminAuth, body: promoter()})
	if first.status != http.StatusCreated {
		t.Fatalf("create: %d %s", first.status, first.body)
	}
	runRouteCases(t, s, []routeCase{
		{name: "same name returns it unchanged",
			r:          req{method: "POST", path: organizersPath, auth: adminAuth, body: map[string]any{"organizer": " LIVE nation ", "email": "new@example.org", "phone": ""}},
			wantStatus: 201, golden: "organizer_create", wantHeader: map[string]string{"Location": testOrigin + organizersPath + "/1"}},
		{name: "same name and description",
			r:          req{method: "POST", path: organizersPath, auth: adminAuth, body: map[string]any{"organizer": "Live Nation", "description": "concert <I>PROMOTER</i>."}},
			wantStatus: 201, golden: "organizer_create"},
		{name: "other description is a new organizer",
			r:          req{method: "POST", path: organizersPath, auth: adminAuth, body: map[string]any{"organizer": "Live Nation", "description": "Ticketing."}},
			wantStatus: 201, want: map[string]any{"id": 2, "slug": "live-nation-2", "description": "<p>Ticketing.</p>"}},
		{name: "lowest id wins", r: req{method: "POST", path: organizersPath, auth: adminAuth, body: map[string]any{"organizer": "live nation"}},
			wantStatus: 201, want: map[string]any{"id": 1}},
	})
	if got := withoutLD(s.get(organizersPath + "/1")); got["email"] != "info@livenation.example" || got["phone"] != "+1 555 0100" {
		t.Errorf("duplicate create changed the existing organizer: %v", got)
	}
}

// TestOrganizerUpdateIsPartial: CONTRACT 4.7 for organizers.
func TestOrganizerUpdateIsPartial(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	id := s.create(organizersPath, promoter())
	p := organizersPath + "/" + utoa(id)
	steps := []struct {
		name    string
		method  string
		path    string
		body    map[string]any
		changed map[string]any
		removed []string
	}{
		{"one field", "PATCH", p, map[string]any{"phone": "+1 555 0199"}, map[string]any{"phone": "+1 555 0199"}, nil},
		{"email is not checked, only sanitised", "PUT", p, map[string]any{"email": " not an\nemail "}, map[string]any{"email": "not an email"}, nil},
		{"clear", "POST", p, map[string]any{"email": "", "website": "", "description": ""}, nil, []string{"email", "website", "description"}},
		{"rename keeps the slug", "PATCH", p, map[string]any{"organizer": "Live Nation Inc."}, map[string]any{"organizer": "Live Nation Inc."}, nil},
		{"by slug", "PATCH", organizersPath + "/by-slug/live-nation", map[string]any{"website": "https://ln.example"},
			map[string]any{"website": "https://ln.example"}, nil},
		{"nothing recognised", "PATCH", p, map[string]any{"show_map": true, "city": "Paris"}, nil, nil},
	}
	before := withoutLD(s.get(p))
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res := s.do(req{method: st.method, path: st.path, auth: adminAuth, body: st.body})
			if res.status != http.StatusOK {
				t.Fatalf("status %d\n%s", res.status, res.body)
			}
			after := res.json(t)
			wantChanged(t, before, after, st.changed, st.removed...)
			before = after
		})
	}
	golden(t, "organizer_update", s.do(req{method: "GET", path: p}).body)
}

// TestOrganizerErrors: validation, permissions, foreign IDs, drafts, trash and slugs (4.4).
func TestOrganizerErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	org := s.create(organizersPath, map[string]any{"organizer": "Org"})
	venue := s.create(venuesPath, map[string]any{"venue": "Hall"})
	draft := s.create(organizersPath, map[string]any{"organizer": "Hidden", "status": "pending"})
	contributor := s.user("carla", storage.RoleContributor)
	op := organizersPath + "/" + utoa(org)
	create := func(body any) req { return req{method: "POST", path: organizersPath, auth: adminAuth, body: body} }
	runRouteCases(t, s, []routeCase{
		{name: "missing name", r: create(map[string]any{"email": "x@example.org"}), wantStatus: 400, wantCode: "rest_missing_callback_param",
			wantParams: []string{"organizer"}, golden: "organizer_missing"},
		{name: "invalid fields", r: create(map[string]any{"organizer": []any{"a"}, "email": strings.Repeat("e", 256), "phone": false, "website": "example.org/page"}),
			wantStatus: 400, wantCode: "rest_invalid_param", golden: "organizer_invalid",
			wantParams:  []string{"organizer", "email", "phone", "website"},
			wantDetails: map[string]string{"organizer": "rest_invalid_type", "email": "rest_too_long", "phone": "rest_invalid_type"}},
		{name: "name too long", r: create(map[string]any{"organizer": strings.Repeat("o", 1001)}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"organizer"}, wantDetails: map[string]string{"organizer": "rest_too_long"}},
		{name: "anonymous create", r: req{method: "POST", path: organizersPath, body: map[string]any{"organizer": "Anon"}}, wantStatus: 401,
			wantCode: "rest_forbidden"},
		{name: "anonymous update", r: req{method: "POST", path: op, body: map[string]any{"phone": "1"}}, wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "anonymous delete by slug", r: req{method: "DELETE", path: organizersPath + "/by-slug/org"}, wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "contributor updates another's organizer", r: req{method: "PATCH", path: op, auth: contributor, body: map[string]any{"phone": "1"}},
			wantStatus: 403, wantCode: "rest_forbidden"},
		{name: "contributor updates by slug", r: req{method: "PATCH", path: organizersPath + "/by-slug/org", auth: contributor, body: map[string]any{"phone": "1"}},
			wantStatus: 403, wantCode: "rest_forbidden"},
		{name: "unknown id", r: req{method: "GET", path: organizersPath + "/999"}, wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "venue id", r: req{method: "GET", path: organizersPath + "/" + utoa(venue)}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}, golden: "organizer_unknown_id"},
		{name: "delete venue id", r: req{method: "DELETE", path: organizersPath + "/" + utoa(venue), auth: adminAuth}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "pending hidden from anonymous", r: req{method: "GET", path: organizersPath + "/" + utoa(draft)}, wantStatus: 403,
			wantCode: "organizer-not-accessible", golden: "organizer_not_accessible"},
		{name: "pending hidden from a contributor", r: req{method: "GET", path: organizersPath + "/by-slug/hidden", auth: contributor}, wantStatus: 403,
			wantCode: "organizer-not-accessible"},
		{name: "unknown slug", r: req{method: "GET", path: organizersPath + "/by-slug/nobody"}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"slug"}},
		{name: "update by slug", r: req{method: "PUT", path: organizersPath + "/by-slug/org", auth: adminAuth, body: map[string]any{"phone": "123"}},
			wantStatus: 200, want: map[string]any{"id": org, "phone": "123"}},
		{name: "delete by slug", r: req{method: "DELETE", path: organizersPath + "/by-slug/org", auth: adminAuth}, wantStatus: 200,
			golden: "organizer_delete", want: map[string]any{"id": org, "status": "trash"}},
		{name: "delete twice", r: req{method: "DELETE", path: op, auth: adminAuth}, wantStatus: 410, wantCode: "organizer-is-in-trash",
			golden: "organizer_in_trash"},
		{name: "delete twice by slug", r: req{method: "DELETE", path: organizersPath + "/by-slug/org", auth: adminAuth}, wantStatus: 410,
			wantCode: "organizer-is-in-trash"},
		{name: "trashed hidden from anonymous", r: req{method: "GET", path: op}, wantStatus: 403, wantCode: "organizer-not-accessible"},
	})
}

// TestVenueAndOrganizerRouting: path matching, HEAD/OPTIONS, method override, _fields and Allow on the single
// venue and organizer routes (CONTRACT 1.3, 1.5, 1.7).
func TestVenueAndOrganizerRouting(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	venue := s.create(venuesPath, pleyel())
	org := s.create(organizersPath, promoter())
	vp, op := venuesPath+"/"+utoa(venue), organizersPath+"/"+utoa(org)
	runRouteCases(t, s, []routeCase{
		{name: "trailing slash", r: req{method: "GET", path: vp + "/"}, wantStatus: 200, golden: "venue_get"},
		{name: "literal parts are case-insensitive", r: req{method: "GET", path: "/Calendar/EVENTS/v1/Venues/" + utoa(venue)}, wantStatus: 200,
			golden: "venue_get"},
		{name: "by-slug is case-insensitive", r: req{method: "GET", path: venuesPath + "/BY-SLUG/salle-pleyel/"}, wantStatus: 200, golden: "venue_get"},
		{name: "leading zeros", r: req{method: "GET", path: venuesPath + "/00" + utoa(venue)}, wantStatus: 200, golden: "venue_get"},
		{name: "signed id", r: req{method: "GET", path: venuesPath + "/+" + utoa(venue)}, wantStatus: 404, wantCode: "rest_no_route"},
		{name: "empty slug", r: req{method: "GET", path: venuesPath + "/by-slug/"}, wantStatus: 404, wantCode: "rest_no_route"},
		{name: "_fields", r: req{method: "GET", path: vp + "?_fields=venue,id,json_ld.name,nothing"}, wantStatus: 200,
			want:   map[string]any{"id": venue, "venue": "Salle Pleyel", "json_ld": map[string]any{"name": "Salle Pleyel"}},
			absent: []string{"slug", "city", "status"}},
		{name: "_fields does not filter errors", r: req{method: "GET", path: venuesPath + "/999?_fields=id"}, wantStatus: 400,
			wantCode: "rest_invalid_param", golden: "venue_unknown_id"},
		{name: "_fields on a write", r: req{method: "PATCH", path: op + "?_fields=phone", auth: adminAuth, body: map[string]any{"phone": "1"}}, wantStatus: 200,
			want: map[string]any{"phone": "1"}, absent: []string{"id", "organizer"}},
		{name: "method override header", r: req{method: "POST", path: op, auth: adminAuth, body: map[string]any{"phone": "2"},
			header: map[string]string{"X-HTTP-Method-Override": "PATCH"}}, wantStatus: 200, want: map[string]any{"phone": "2"}},
		{name: "method override query", r: req{method: "POST", path: op + "?_method=DELETE", auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"status": "trash"}},
		{name: "method override to delete twice", r: req{method: "POST", path: op, auth: adminAuth,
			header: map[string]string{"X-HTTP-Method-Override": "DELETE"}}, wantStatus: 410, wantCode: "organizer-is-in-trash"},
		{name: "anonymous options", r: req{method: "OPTIONS", path: vp}, wantStatus: 200},
	})
	allow := func(t *testing.T, r req) map[string]bool {
		res := s.do(r)
		got := map[string]bool{}
		for _, m := range strings.Split(res.header.Get("Allow"), ", ") {
			got[m] = true
		}
		return got
	}
	t.Run("allow", func(t *testing.T) {
		anon := allow(t, req{method: "GET", path: vp})
		if !anon["GET"] || anon["POST"] || anon["PUT"] || anon["PATCH"] || anon["DELETE"] {
			t.Errorf("anonymous Allow %v, want GET and no write method", anon)
		}
		admin := allow(t, req{method: "GET", path: vp, auth: adminAuth})
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if !admin[m] {
				t.Errorf("administrator Allow %v lacks %s", admin, m)
			}
		}
	})
	t.Run("options body", func(t *testing.T) {
		res := s.do(req{method: "OPTIONS", path: vp})
		body := res.json(t)
		for _, k := range []string{"namespace", "methods", "endpoints"} {
			if _, ok := body[k]; !ok {
				t.Errorf("OPTIONS body lacks %q: %s", k, res.body)
			}
		}
		if res.header.Get("Allow") == "" {
			t.Error("OPTIONS without Allow")
		}
	})
}

// TestVenueImage: the image field of venues (3.10.5) and its json_ld member (3.7).
func TestVenueImage(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	contributor := s.user("carla", storage.RoleContributor)
	res := s.do(req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Pictured", "image": "https://img.example/hall.JPG"}})
	if res.status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.status, res.body)
	}
	first := res.json(t)
	img, _ := first["image"].(map[string]any)
	imgID, _ := img["id"].(float64)
	if imgID == 0 || imgID == first["id"] {
		t.Fatalf("image %v: want an attachment with its own ID", first["image"])
	}
	image := map[string]any{"url": "https://img.example/hall.JPG", "id": imgID, "extension": "jpg"}
	vp := venuesPath + "/" + utoa(uint64(first["id"].(float64)))
	create := func(auth string, img any) req {
		return req{method: "POST", path: venuesPath, auth: auth, body: map[string]any{"venue": "V " + toJSON(t, img), "image": img}}
	}
	runRouteCases(t, s, []routeCase{
		{name: "image object", r: req{method: "GET", path: vp}, wantStatus: 200, want: map[string]any{"image": image}},
		{name: "same URL reuses the attachment", r: create(adminAuth, "https://img.example/hall.JPG"), wantStatus: 201,
			want: map[string]any{"image": image}},
		{name: "attachment ID", r: create(adminAuth, imgID), wantStatus: 201, want: map[string]any{"image": image}},
		{name: "attachment ID as a string", r: create(contributor, utoa(uint64(imgID))), wantStatus: 201, want: map[string]any{"image": image}},
		{name: "contributor may not attach by URL", r: create(contributor, "https://img.example/other.png"), wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"image"}},
		{name: "not an image path", r: create(adminAuth, "https://img.example/hall.txt"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"image"}},
		{name: "not http", r: create(adminAuth, "ftp://img.example/hall.png"), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"image"}},
		{name: "a venue ID", r: create(adminAuth, first["id"]), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"image"}},
		{name: "an unknown ID", r: create(adminAuth, 999), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"image"}},
		{name: "json_ld image", r: req{method: "GET", path: vp}, wantStatus: 200,
			want: map[string]any{"json_ld": map[string]any{"@type": "Place", "name": "Pictured", "description": "", "image": "https://img.example/hall.JPG",
				"url": testOrigin + "/venue/pictured/", "address": map[string]any{"@type": "PostalAddress"}, "telephone": "", "sameAs": ""}}},
		{name: "clear", r: req{method: "PATCH", path: vp, auth: adminAuth, body: map[string]any{"image": ""}}, wantStatus: 200, absent: []string{"image"}},
	})
}

// TestVenueAndOrganizerSanitising: names, rich text and short text of callers without unfiltered_html (Appendix C).
func TestVenueAndOrganizerSanitising(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	author := s.user("arthur", storage.RoleAuthor)
	runRouteCases(t, s, []routeCase{
		{name: "venue by an author", r: req{method: "POST", path: venuesPath, auth: author, body: map[string]any{
			"venue":       " <b>Bold</b> Hall ",
			"description": `<script>alert(1)</script><p onclick="x()">ok <a href="javascript:x()">link</a> <a href="https://a.example" title="t">fine</a></p>`,
			"city":        "<i>Paris</i>\r\n 8e",
		}}, wantStatus: 201, want: map[string]any{
			"venue":       "Bold Hall",
			"slug":        "bold-hall",
			"description": `<p>ok <a>link</a> <a href="https://a.example" title="t">fine</a></p>`,
			"city":        "Paris 8e",
		}},
		{name: "organizer by an administrator keeps markup", r: req{method: "POST", path: organizersPath, auth: adminAuth, body: map[string]any{
			"organizer": "<b>Bold</b> Org", "description": "<script>x()</script>"}}, wantStatus: 201,
			want: map[string]any{"organizer": "<b>Bold</b> Org", "slug": "bold-org", "description": "<p><script>x()</script></p>"}},
	})
}

// TestVenueSlugs: slugs of venues and organizers are generated from the name, normalised, unique per
// language and at most 200 characters (3.10.2, Appendix B).
func TestVenueSlugs(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	long := strings.Repeat("a", 300)
	runRouteCases(t, s, []routeCase{
		{name: "transliterated", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Palais de l'Élysée"}},
			wantStatus: 201, want: map[string]any{"id": 1, "slug": "palais-de-lelysee", "url": testOrigin + "/venue/palais-de-lelysee/"}},
		{name: "ß and separators", r: req{method: "POST", path: organizersPath, auth: adminAuth, body: map[string]any{"organizer": "Straße / Foo.Bar"}},
			wantStatus: 201, want: map[string]any{"id": 2, "slug": "strasse-foo-bar"}},
		{name: "nothing left is the ID", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "!!!"}},
			wantStatus: 201, want: map[string]any{"id": 3, "slug": "3", "url": testOrigin + "/venue/3/"}},
		{name: "truncated to 200", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": long}},
			wantStatus: 201, want: map[string]any{"id": 4, "slug": long[:200]}},
		{name: "suffix shortens the base", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": long, "description": "other"}},
			wantStatus: 201, want: map[string]any{"id": 5, "slug": long[:198] + "-2"}},
		{name: "found by its long slug", r: req{method: "GET", path: venuesPath + "/by-slug/" + long[:198] + "-2"}, wantStatus: 200,
			want: map[string]any{"id": 5}},
		{name: "by-slug lookup normalises the path", r: req{method: "GET", path: venuesPath + "/by-slug/PALAIS%20de%20l%27%C3%89lys%C3%A9e"}, wantStatus: 200,
			want: map[string]any{"id": 1}},
	})
}

// TestVenueTranslations: the translations key (3.1), and a trashed record leaving its group (8.5).
func TestVenueTranslations(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	en := s.create(venuesPath, map[string]any{"venue": "Town hall"})
	org := s.create(organizersPath, map[string]any{"organizer": "Org"})
	runRouteCases(t, s, []routeCase{
		{name: "translation", r: req{method: "POST", path: "/fr" + venuesPath, auth: adminAuth, body: map[string]any{"venue": "Hôtel de ville", "translation_of": en}},
			wantStatus: 201, want: map[string]any{"id": org + 1, "language": "fr", "translations": map[string]any{"en": en}}},
		{name: "the original lists it", r: req{method: "GET", path: venuesPath + "/" + utoa(en)}, wantStatus: 200,
			want: map[string]any{"translations": map[string]any{"fr": org + 1}}},
		{name: "a second french one", r: req{method: "POST", path: "/fr" + venuesPath, auth: adminAuth, body: map[string]any{"venue": "Mairie", "translation_of": en}},
			wantStatus: 409, wantCode: "translation-already-exists"},
		{name: "translation of an organizer", r: req{method: "POST", path: "/de" + venuesPath, auth: adminAuth, body: map[string]any{"venue": "Rathaus", "translation_of": org}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"translation_of"}},
		{name: "trash the translation", r: req{method: "DELETE", path: venuesPath + "/" + utoa(org+1), auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"status": "trash", "translations": map[string]any{}}},
		{name: "the original forgets it", r: req{method: "GET", path: venuesPath + "/" + utoa(en)}, wantStatus: 200,
			want: map[string]any{"translations": map[string]any{}}},
		{name: "translation_of is ignored on update", r: req{method: "PATCH", path: venuesPath + "/" + utoa(en), auth: adminAuth, body: map[string]any{"translation_of": org}},
			wantStatus: 200, want: map[string]any{"translations": map[string]any{}}},
	})
}

// TestVenueAndOrganizerTrashUnlinks: trashing a venue or organizer unlinks only it from events (8.5).
func TestVenueAndOrganizerTrashUnlinks(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	venue := s.create(venuesPath, map[string]any{"venue": "Hall"})
	o1 := s.create(organizersPath, map[string]any{"organizer": "First"})
	o2 := s.create(organizersPath, map[string]any{"organizer": "Second"})
	event := s.create("/calendar/events/v1/events", map[string]any{"title": "Gig", "start_date": "2030-01-01 20:00:00",
		"end_date": "2030-01-01 22:00:00", "venue": venue, "organizer": []any{o1, o2}})
	ep := "/calendar/events/v1/events/" + utoa(event)
	if ev := s.get(ep); ev["venue"] == nil || len(ev["organizer"].([]any)) != 2 {
		t.Fatalf("event links: venue %v organizer %v", ev["venue"], ev["organizer"])
	}
	for _, p := range []string{venuesPath + "/" + utoa(venue), organizersPath + "/" + utoa(o1)} {
		if res := s.do(req{method: "DELETE", path: p, auth: adminAuth}); res.status != http.StatusOK {
			t.Fatalf("DELETE %s: %d %s", p, res.status, res.body)
		}
	}
	ev := s.get(ep)
	if diff := cmp.Diff([]any{}, ev["venue"]); diff != "" {
		t.Errorf("venue after trashing it (-want +got):\n%s", diff)
	}
	orgs, _ := ev["organizer"].([]any)
	if len(orgs) != 1 || orgs[0].(map[string]any)["id"] != float64(o2) {
		t.Errorf("organizers after trashing %d: %v, want only %d", o1, orgs, o2)
	}
}

// TestVenueScheduled: a publish with a future date is future (8.2) and hidden from anonymous callers;
// errors are never 304 (11).
func TestVenueScheduled(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	runRouteCases(t, s, []routeCase{
		{name: "future date", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Later", "date": "2030-01-01 00:00:00"}},
			wantStatus: 201, want: map[string]any{"id": 1, "status": "future", "date": "2030-01-01 00:00:00", "date_utc": "2030-01-01 00:00:00"}},
		{name: "hidden", r: req{method: "GET", path: venuesPath + "/1", header: map[string]string{"If-None-Match": "*"}}, wantStatus: 403,
			wantCode: "venue-not-accessible"},
		{name: "requested future in the past is publish", r: req{method: "POST", path: venuesPath, auth: adminAuth,
			body: map[string]any{"venue": "Earlier", "status": "future", "date_utc": "2020-01-01 00:00:00"}},
			wantStatus: 201, want: map[string]any{"id": 2, "status": "publish", "date": "2020-01-01 00:00:00"}},
		{name: "date_utc wins over date", r: req{method: "POST", path: venuesPath, auth: adminAuth,
			body: map[string]any{"venue": "Both", "date": "2019-01-01 00:00:00", "date_utc": "2020-02-02 02:02:02"}},
			wantStatus: 201, want: map[string]any{"id": 3, "date": "2020-02-02 02:02:02", "date_utc": "2020-02-02 02:02:02"}},
	})
	// A future record is reported as publish once its date has passed (8.4); modified does not change.
	s = s.restart("CALENDAR_NOW=2030-01-01T00:00:01Z")
	runRouteCases(t, s, []routeCase{
		{name: "published on time", r: req{method: "GET", path: venuesPath + "/1"}, wantStatus: 200,
			want: map[string]any{"status": "publish", "modified": "2026-11-22 10:15:30", "modified_utc": "2026-11-22 10:15:30"}},
	})
}

// TestVenueSiteTimeZone: date and modified are in the site zone, their _utc twins in UTC (3.1).
func TestVenueSiteTimeZone(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CALENDAR_SITE_TIMEZONE=Europe/Paris")
	runRouteCases(t, s, []routeCase{
		{name: "now", r: req{method: "POST", path: organizersPath, auth: adminAuth, body: map[string]any{"organizer": "Paris"}}, wantStatus: 201,
			want: map[string]any{"date": "2026-11-22 11:15:30", "date_utc": "2026-11-22 10:15:30", "modified": "2026-11-22 11:15:30", "modified_utc": "2026-11-22 10:15:30"}},
		{name: "date in the site zone", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: map[string]any{"venue": "Summer", "date": "2020-06-01 12:00:00"}},
			wantStatus: 201, want: map[string]any{"status": "publish", "date": "2020-06-01 12:00:00", "date_utc": "2020-06-01 10:00:00"}},
	})
}

// TestVenuePermissions: record-level rules (7.5, 7.6), processing order (1.6) and body forms (2.1-2.4)
// on the venue routes.
func TestVenuePermissions(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	contributor := s.user("carla", storage.RoleContributor) // user 2
	author := s.user("arthur", storage.RoleAuthor)          // user 3
	private := s.create(venuesPath, map[string]any{"venue": "Private", "status": "private"})
	pub := s.create(venuesPath, map[string]any{"venue": "Public"})
	own := s.do(req{method: "POST", path: venuesPath, auth: contributor, body: map[string]any{"venue": "Mine"}}).json(t)
	op := venuesPath + "/" + utoa(uint64(own["id"].(float64)))
	pp := venuesPath + "/" + utoa(pub)
	runRouteCases(t, s, []routeCase{
		{name: "contributor's default status is draft", r: req{method: "GET", path: op, auth: contributor}, wantStatus: 200,
			want: map[string]any{"status": "draft", "author": "2"}},
		{name: "private hidden from an author", r: req{method: "GET", path: venuesPath + "/" + utoa(private), auth: author}, wantStatus: 403,
			wantCode: "venue-not-accessible"},
		{name: "private readable by the administrator", r: req{method: "GET", path: venuesPath + "/" + utoa(private), auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"status": "private"}},
		{name: "validation before permission: bad type", r: req{method: "PATCH", path: pp, body: map[string]any{"geo_lat": "north", "geo_lng": 0}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"geo_lat"}},
		{name: "validation before permission: too long", r: req{method: "POST", path: venuesPath, body: map[string]any{"venue": "x", "zip": strings.Repeat("9", 256)}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"zip"}},
		{name: "author sets another author", r: req{method: "PATCH", path: venuesPath + "/" + utoa(pub), auth: adminAuth, body: map[string]any{"author": 3}},
			wantStatus: 200, want: map[string]any{"author": "3"}},
		{name: "author edits own published venue", r: req{method: "PATCH", path: pp, auth: author, body: map[string]any{"city": "Gent"}},
			wantStatus: 200, want: map[string]any{"city": "Gent"}},
		{name: "unknown author", r: req{method: "PATCH", path: pp, auth: adminAuth, body: map[string]any{"author": 99}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"author"}},
		{name: "contributor trashes own draft by status", r: req{method: "PATCH", path: op, auth: contributor, body: map[string]any{"status": "trash"}},
			wantStatus: 200, want: map[string]any{"status": "trash"}},
		{name: "owner still reads it", r: req{method: "GET", path: op, auth: contributor}, wantStatus: 200, want: map[string]any{"status": "trash"}},
		{name: "contributor restores it as pending", r: req{method: "PATCH", path: op, auth: contributor, body: map[string]any{"status": "publish"}},
			wantStatus: 200, want: map[string]any{"status": "pending"}},
		{name: "contributor deletes own pending venue", r: req{method: "DELETE", path: op, auth: contributor}, wantStatus: 200,
			want: map[string]any{"status": "trash"}},
		{name: "path beats body and query", r: req{method: "PATCH", path: pp + "?id=" + utoa(private) + "&city=Query", auth: adminAuth,
			body: map[string]any{"id": private, "city": "Body"}}, wantStatus: 200, want: map[string]any{"id": pub, "city": "Body"}},
		{name: "query parameters of a write", r: req{method: "PATCH", path: pp + "?city=Query&show_map=no", auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"id": pub, "city": "Query", "show_map": false}},
		{name: "json content type with a suffix", r: req{method: "PATCH", path: pp, auth: adminAuth, body: `{"city":"Suffix"}`,
			contentType: "application/merge-patch+json"}, wantStatus: 200, want: map[string]any{"city": "Suffix"}},
		{name: "other content types are ignored", r: req{method: "POST", path: venuesPath, auth: adminAuth, body: `{"venue":"Plain"}`,
			contentType: "text/plain"}, wantStatus: 400, wantCode: "rest_missing_callback_param", wantParams: []string{"venue"}},
		{name: "non-object body", r: req{method: "PATCH", path: pp, auth: adminAuth, body: `"city"`, contentType: "application/json"},
			wantStatus: 400, wantCode: "rest_invalid_json"},
		{name: "too deep", r: req{method: "PATCH", path: pp, auth: adminAuth, body: `{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
			contentType: "application/json"}, wantStatus: 400, wantCode: "rest_invalid_json"},
		{name: "multipart", r: req{method: "PATCH", path: pp, auth: adminAuth,
			body:        "--XX\r\nContent-Disposition: form-data; name=\"city\"\r\n\r\nMultipart\r\n--XX--\r\n",
			contentType: "multipart/form-data; boundary=XX"}, wantStatus: 200, want: map[string]any{"city": "Multipart"}},
	})
}
