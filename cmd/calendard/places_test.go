package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

// End-to-end tests of the single-record venue and organizer routes (docs/API.md "The venue and organizer objects", "Venue and organizer fields",
// 4.3, 4.4, 4.7, 4.8, 4.10, 8.5, 11). Lists are out of scope here.

const (
	venuesPath       = "/calendar/events/v1/venues"
	organizersPath   = "/calendar/events/v1/organizers"
	wwwAuthenticate  = `Basic realm="calendar-events", Bearer realm="calendar-events"`
	authCacheControl = "no-cache, must-revalidate, max-age=0, no-store, private"
)

// TestVenueAndOrganizerRouting: path matching, HEAD/OPTIONS, method override, _fields and Allow on the single
// venue and organizer routes (docs/API.md "Routes", "Parameters and bodies", "Responses").
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
