package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

func promoter() map[string]any {
	return map[string]any{
		"organizer":   "Live Nation",
		"description": "Concert <i>promoter</i>.",
		"phone":       "+1 555 0100",
		"email":       "info@livenation.example",
		"website":     "https://livenation.example",
	}
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

// TestOrganizerDuplicateAvoidance: docs/API.md "Venue and organizer fields".
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

// TestOrganizerUpdateIsPartial: docs/API.md "Updates" for organizers.
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
