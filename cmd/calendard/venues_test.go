package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

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
		t.Errorf("ETag %q is not a quoted SHA-256 (docs/API.md, Responses)", etag)
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

// TestVenueDuplicateAvoidance: docs/API.md "Venue and organizer fields".
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

// TestVenueStateProvince: the stateprovince rule of docs/API.md "Venue and organizer fields".
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

// TestVenueGeo: geo_lat/geo_lng, docs/API.md "Venue and organizer fields", "Updates".
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

// TestVenueUpdateIsPartial: docs/API.md "Updates" for venues, by ID and by slug.
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
