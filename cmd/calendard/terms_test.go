package main

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/calendard/calendard/storage"
)

// End-to-end tests of the single-term category and tag routes (docs/API.md "The term object", "Category and tag fields", "Categories and tags", "Updates", "Statuses", "Authentication and permissions",
// 11). Lists are out of scope here.

const (
	categoriesPath = "/calendar/events/v1/categories"
	tagsPath       = "/calendar/events/v1/tags"
)

// termURLs is the urls object of a term (3.5); up is "" for a top-level term.
func termURLs(route string, id, up uint64) map[string]any {
	urls := map[string]any{
		"self":       testOrigin + route + "/" + utoa(id),
		"collection": testOrigin + route,
	}
	if up != 0 {
		urls["up"] = testOrigin + route + "/" + utoa(up)
	}
	return urls
}

// gig creates a published event carrying the given terms and returns its ID.
func gig(s *server, terms map[string]any) uint64 {
	body := map[string]any{"title": "Gig", "start_date": "2030-01-01 20:00:00", "end_date": "2030-01-01 22:00:00"}
	for k, v := range terms {
		body[k] = v
	}
	return s.create("/calendar/events/v1/events", body)
}

func TestCategoryCreateAndGet(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	res := s.do(req{method: "POST", path: categoriesPath, auth: adminAuth, body: map[string]any{"name": " Music ", "description": "All <em>music</em>"}})
	checkResponse(t, res, routeCase{r: req{method: "POST", path: categoriesPath}, wantStatus: 201, golden: "category_create",
		wantHeader: map[string]string{"Location": testOrigin + categoriesPath + "/1"}})
	jazz := s.create(categoriesPath, map[string]any{"name": "Jazz", "parent": 1})
	get := s.do(req{method: "GET", path: categoriesPath + "/" + utoa(jazz)})
	checkResponse(t, get, routeCase{r: req{method: "GET"}, wantStatus: 200, golden: "category_get",
		wantHeader: map[string]string{"Vary": "Authorization", "Cache-Control": "no-cache"}})
	etag := get.header.Get("ETag")
	if len(etag) != 66 {
		t.Errorf("ETag %q is not a quoted SHA-256 (docs/API.md, Responses)", etag)
	}
	p := categoriesPath + "/" + utoa(jazz)
	runRouteCases(t, s, []routeCase{
		{name: "if-none-match", r: req{method: "GET", path: p, header: map[string]string{"If-None-Match": etag}}, wantStatus: 304,
			wantHeader: map[string]string{"ETag": etag}},
		{name: "if-none-match stale", r: req{method: "GET", path: p, header: map[string]string{"If-None-Match": `"0"`}}, wantStatus: 200,
			wantHeader: map[string]string{"ETag": etag}},
		{name: "head with if-none-match", r: req{method: "HEAD", path: p, header: map[string]string{"If-None-Match": etag}}, wantStatus: 304},
		{name: "_fields", r: req{method: "GET", path: p + "?_fields=id,urls.self"}, wantStatus: 200,
			want:   map[string]any{"id": jazz, "urls": map[string]any{"self": testOrigin + p}},
			absent: []string{"name", "slug", "count", "parent", "url", "meta", "taxonomy", "description"}},
		{name: "top level", r: req{method: "GET", path: categoriesPath + "/1"}, wantStatus: 200,
			want: map[string]any{"parent": 0, "url": testOrigin + "/events/category/music/", "urls": termURLs(categoriesPath, 1, 0)}},
		{name: "language prefix is kept in REST URLs only", r: req{method: "GET", path: "/fr" + p}, wantStatus: 200,
			want: map[string]any{"url": testOrigin + "/events/category/music/jazz/", "urls": map[string]any{
				"self": testOrigin + "/fr" + p, "collection": testOrigin + "/fr" + categoriesPath, "up": testOrigin + "/fr" + categoriesPath + "/1"}}},
		{name: "translation_language is validated", r: req{method: "GET", path: p + "?translation_language=xx"}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"translation_language"}},
		{name: "translation_language is ignored", r: req{method: "GET", path: p + "?translation_language=de"}, wantStatus: 200, golden: "category_get"},
		{name: "create under a prefix", r: req{method: "POST", path: "/nl" + categoriesPath, auth: adminAuth, body: map[string]any{"name": "Pop", "parent": 1}},
			wantStatus: 201, wantHeader: map[string]string{"Location": testOrigin + "/nl" + categoriesPath + "/3"},
			want: map[string]any{"id": 3, "url": testOrigin + "/events/category/music/pop/", "urls": map[string]any{
				"self": testOrigin + "/nl" + categoriesPath + "/3", "collection": testOrigin + "/nl" + categoriesPath, "up": testOrigin + "/nl" + categoriesPath + "/1"}}},
		{name: "unknown id", r: req{method: "GET", path: categoriesPath + "/999"}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}, golden: "category_unknown_id"},
		{name: "id zero", r: req{method: "GET", path: categoriesPath + "/0"}, wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "category id on the tag route", r: req{method: "GET", path: tagsPath + "/1"}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}},
		{name: "no by-slug route", r: req{method: "GET", path: categoriesPath + "/by-slug/music"}, wantStatus: 404, wantCode: "rest_no_route"},
		{name: "no by-slug route for tags", r: req{method: "DELETE", path: tagsPath + "/by-slug/music", auth: adminAuth}, wantStatus: 404,
			wantCode: "rest_no_route"},
	})
}

// TestCategoryCreateRules: names, parents and slugs on create (3.9.4, 3.10.2, 4.5).
func TestCategoryCreateRules(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	music := s.create(categoriesPath, map[string]any{"name": "Music"}) // 1
	jazz := s.create(categoriesPath, map[string]any{"name": "Jazz", "parent": music})
	tag := s.create(tagsPath, map[string]any{"name": "Live"})
	author := s.user("arthur", storage.RoleAuthor)
	contributor := s.user("carla", storage.RoleContributor)
	create := func(body any) req { return req{method: "POST", path: categoriesPath, auth: adminAuth, body: body} }
	next := tag + 1
	runRouteCases(t, s, []routeCase{
		{name: "same name", r: create(map[string]any{"name": "MUSIC"}), wantStatus: 400, wantCode: "term_exists", golden: "category_exists",
			wantData: map[string]any{"term_id": music}},
		{name: "same name trimmed", r: create(map[string]any{"name": " music ", "parent": 0}), wantStatus: 400, wantCode: "term_exists",
			wantData: map[string]any{"term_id": music}},
		{name: "same name, same parent", r: create(map[string]any{"name": "jazz", "parent": music}), wantStatus: 400, wantCode: "term_exists",
			wantData: map[string]any{"term_id": jazz}},
		{name: "same name under another parent", r: create(map[string]any{"name": "Jazz"}), wantStatus: 201,
			want:       map[string]any{"id": next, "name": "Jazz", "slug": "jazz-2", "parent": 0, "url": testOrigin + "/events/category/jazz-2/"},
			wantHeader: map[string]string{"Location": testOrigin + categoriesPath + "/" + utoa(next)}},
		{name: "now it exists at the top too", r: create(map[string]any{"name": "JAZZ", "parent": "0"}), wantStatus: 400, wantCode: "term_exists",
			wantData: map[string]any{"term_id": next}},
		{name: "a tag with the name does not count", r: create(map[string]any{"name": "Live", "parent": jazz}), wantStatus: 201,
			want: map[string]any{"id": next + 1, "slug": "live", "parent": jazz, "url": testOrigin + "/events/category/music/jazz/live/",
				"urls": termURLs(categoriesPath, next+1, jazz)}},
		{name: "explicit slug collision", r: create(map[string]any{"name": "Rock", "slug": "Music"}), wantStatus: 201,
			want: map[string]any{"id": next + 2, "slug": "music-2"}},
		{name: "generated slug collision", r: create(map[string]any{"name": "Jazz!", "parent": next}), wantStatus: 201,
			want: map[string]any{"id": next + 3, "slug": "jazz-3", "name": "Jazz!"}},
		{name: "slug is normalised", r: create(map[string]any{"name": "Électro / Pop", "slug": " Électro  Straße "}), wantStatus: 201,
			want: map[string]any{"id": next + 4, "slug": "electro-strasse", "name": "Électro / Pop"}},
		{name: "unknown parent", r: create(map[string]any{"name": "Orphan", "parent": 999}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"parent"}, golden: "category_unknown_parent"},
		{name: "tag as parent", r: create(map[string]any{"name": "Orphan", "parent": tag}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"parent"}},
		{name: "negative parent", r: create(map[string]any{"name": "Orphan", "parent": -1}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"parent"}},
		{name: "parent not an integer", r: create(map[string]any{"name": "Orphan", "parent": "first"}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"parent"}, wantDetails: map[string]string{"parent": "rest_invalid_type"}},
		{name: "missing name", r: create(map[string]any{"description": "x"}), wantStatus: 400, wantCode: "rest_missing_callback_param",
			wantParams: []string{"name"}, golden: "category_missing"},
		{name: "blank name", r: create(map[string]any{"name": "  "}), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"name"}},
		{name: "invalid fields together", r: create(map[string]any{"name": strings.Repeat("n", 201), "description": "", "slug": ""}),
			wantStatus: 400, wantCode: "rest_invalid_param", golden: "category_invalid",
			wantParams: []string{"name", "description", "slug"}, wantDetails: map[string]string{"name": "rest_too_long"}},
		{name: "description too long", r: create(map[string]any{"name": "Long", "description": strings.Repeat("d", 65536)}),
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"description"}, wantDetails: map[string]string{"description": "rest_too_long"}},
		{name: "name of the wrong type", r: create(map[string]any{"name": map[string]any{"en": "x"}}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"name"}, wantDetails: map[string]string{"name": "rest_invalid_type"}},
		{name: "name limit is inclusive", r: create(map[string]any{"name": strings.Repeat("ń", 200)}), wantStatus: 201},
		{name: "slug of nothing is the term ID", r: create(map[string]any{"name": "???"}), wantStatus: 201,
			want: map[string]any{"id": next + 6, "slug": utoa(next + 6), "url": testOrigin + "/events/category/" + utoa(next+6) + "/"}},
		{name: "explicit slug of nothing is the term ID, not the name's", r: create(map[string]any{"name": "Punk", "slug": "!!!"}), wantStatus: 201,
			want: map[string]any{"id": next + 7, "slug": utoa(next + 7)}},
		{name: "anonymous", r: req{method: "POST", path: categoriesPath, body: map[string]any{"name": "Anon"}}, wantStatus: 401,
			wantCode: "rest_forbidden", golden: "category_forbidden"},
		{name: "anonymous without name is 400 first", r: req{method: "POST", path: categoriesPath, body: map[string]any{}}, wantStatus: 400,
			wantCode: "rest_missing_callback_param", wantParams: []string{"name"}},
		{name: "contributor", r: req{method: "POST", path: categoriesPath, auth: contributor, body: map[string]any{"name": "Contrib"}}, wantStatus: 403,
			wantCode: "rest_forbidden"},
		{name: "author may create categories", r: req{method: "POST", path: categoriesPath, auth: author, body: map[string]any{
			"name": "<b>Blues</b>", "parent": music, "description": `<script>x()</script><em onclick="y()">sad</em>`}},
			wantStatus: 201, want: map[string]any{"name": "Blues", "slug": "blues", "parent": music, "count": 0, "description": "<em>sad</em>"}},
		{name: "author may not create tags", r: req{method: "POST", path: tagsPath, auth: author, body: map[string]any{"name": "Blues"}},
			wantStatus: 403, wantCode: "rest_forbidden", golden: "tag_forbidden"},
	})
}

// TestCategoryUpdate: partial updates, slugs and re-parenting (4.5, 4.7, 1.8).
func TestCategoryUpdate(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	music := s.create(categoriesPath, map[string]any{"name": "Music", "description": "All music"})
	jazz := s.create(categoriesPath, map[string]any{"name": "Jazz", "parent": music})
	bebop := s.create(categoriesPath, map[string]any{"name": "Bebop", "parent": jazz, "description": "Fast"})
	rock := s.create(categoriesPath, map[string]any{"name": "Rock"})
	author := s.user("arthur", storage.RoleAuthor)
	contributor := s.user("carla", storage.RoleContributor)
	bp := categoriesPath + "/" + utoa(bebop)
	patch := func(path string, body any) req { return req{method: "PATCH", path: path, auth: adminAuth, body: body} }

	before := s.get(bp)
	steps := []struct {
		name    string
		r       req
		changed map[string]any
	}{
		{"description only", patch(bp, map[string]any{"description": "Very fast"}), map[string]any{"description": "Very fast"}},
		{"duplicate name is allowed, slug kept", req{method: "PUT", path: bp, auth: adminAuth, body: map[string]any{"name": "Rock"}},
			map[string]any{"name": "Rock"}},
		{"no fields", req{method: "POST", path: bp, auth: adminAuth, body: map[string]any{"taxonomy": "post_tag", "count": 9, "id": rock}}, nil},
		{"nulls are absent", patch(bp, map[string]any{"name": nil, "parent": nil, "description": nil, "slug": nil}), nil},
		{"own slug", patch(bp, map[string]any{"slug": "bebop"}), nil},
		{"new slug is normalised", patch(bp, map[string]any{"slug": "Be Bop!"}),
			map[string]any{"slug": "be-bop", "url": testOrigin + "/events/category/music/jazz/be-bop/"}},
		{"trimmed name", patch(bp, map[string]any{"name": " Rock\t"}), nil},
		{"re-parent", patch(bp, map[string]any{"parent": rock}),
			map[string]any{"parent": rock, "url": testOrigin + "/events/category/rock/be-bop/", "urls": termURLs(categoriesPath, bebop, rock)}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res := s.do(st.r)
			if res.status != http.StatusOK {
				t.Fatalf("status %d\n%s", res.status, res.body)
			}
			after := res.json(t)
			wantChanged(t, before, after, st.changed)
			before = after
		})
	}
	golden(t, "category_update", s.do(req{method: "GET", path: bp}).body)

	jp := categoriesPath + "/" + utoa(jazz)
	runRouteCases(t, s, []routeCase{
		{name: "explicit slug of another term", r: patch(bp, map[string]any{"slug": "Music"}), wantStatus: 400, wantCode: "duplicate_term_slug",
			golden: "category_duplicate_slug"},
		{name: "slug of nothing is the term ID", r: patch(categoriesPath+"/"+utoa(rock), map[string]any{"slug": "!!!"}), wantStatus: 200,
			want: map[string]any{"slug": utoa(rock)}},
		{name: "parent as a string with blanks", r: patch(categoriesPath+"/"+utoa(rock), map[string]any{"parent": " 0 ", "slug": "rock"}), wantStatus: 200,
			want: map[string]any{"slug": "rock", "parent": 0}},
		{name: "parent with a fraction", r: patch(bp, map[string]any{"parent": 1.5}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"parent"}},
		{name: "empty name", r: patch(bp, map[string]any{"name": ""}), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"name"}},
		{name: "empty slug", r: patch(bp, map[string]any{"slug": ""}), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"slug"}},
		{name: "empty description", r: patch(bp, map[string]any{"description": ""}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"description"}, golden: "category_empty_description"},
		{name: "empty parent", r: patch(bp, map[string]any{"parent": ""}), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"parent"}},
		{name: "itself as parent", r: patch(bp, map[string]any{"parent": bebop}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"parent"}},
		{name: "a descendant as parent", r: patch(categoriesPath+"/"+utoa(music), map[string]any{"parent": jazz}), wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"parent"}},
		{name: "unknown parent", r: patch(bp, map[string]any{"parent": 999}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"parent"}},
		{name: "unchanged after failed updates", r: req{method: "GET", path: bp}, wantStatus: 200, golden: "category_update"},
		{name: "unknown id is 400 before permission", r: req{method: "PATCH", path: categoriesPath + "/999", body: map[string]any{"name": "x"}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "tag route with a category id", r: req{method: "PATCH", path: tagsPath + "/" + utoa(jazz), auth: adminAuth, body: map[string]any{"name": "x"}},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "anonymous", r: req{method: "PATCH", path: bp, body: map[string]any{"name": "x"}}, wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "contributor", r: req{method: "PUT", path: bp, auth: contributor, body: map[string]any{"name": "x"}}, wantStatus: 403,
			wantCode: "rest_forbidden"},
		{name: "author", r: req{method: "POST", path: bp, auth: author, body: map[string]any{"description": "By an author"}}, wantStatus: 200,
			want: map[string]any{"description": "By an author"}},
		{name: "moving an ancestor moves the descendants' URLs", r: patch(categoriesPath+"/"+utoa(rock), map[string]any{"parent": jazz}), wantStatus: 200,
			want: map[string]any{"url": testOrigin + "/events/category/music/jazz/rock/"}},
		{name: "descendant URL follows", r: req{method: "GET", path: bp}, wantStatus: 200,
			want: map[string]any{"url": testOrigin + "/events/category/music/jazz/rock/be-bop/"}},
		{name: "back to the top with parent 0", r: patch(jp, map[string]any{"parent": 0}), wantStatus: 200,
			want: map[string]any{"parent": 0, "url": testOrigin + "/events/category/jazz/", "urls": termURLs(categoriesPath, jazz, 0)}},
		{name: "descendant URL follows again", r: req{method: "GET", path: bp}, wantStatus: 200,
			want: map[string]any{"url": testOrigin + "/events/category/jazz/rock/be-bop/", "urls": termURLs(categoriesPath, bebop, rock)}},
	})
}

// TestCategoryDelete: permanent deletion, re-parenting of children, second delete (4.5, 4.8).
func TestCategoryDelete(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	music := s.create(categoriesPath, map[string]any{"name": "Music", "description": "All music"})
	jazz := s.create(categoriesPath, map[string]any{"name": "Jazz", "parent": music, "description": "Improvised"})
	bebop := s.create(categoriesPath, map[string]any{"name": "Bebop", "parent": jazz})
	swing := s.create(categoriesPath, map[string]any{"name": "Swing", "parent": jazz})
	event := gig(s, map[string]any{"categories": []any{jazz, bebop}})
	contributor := s.user("carla", storage.RoleContributor)
	jp := categoriesPath + "/" + utoa(jazz)
	runRouteCases(t, s, []routeCase{
		{name: "count of published events", r: req{method: "GET", path: jp}, wantStatus: 200, want: map[string]any{"count": 1}},
		{name: "anonymous", r: req{method: "DELETE", path: jp}, wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "contributor", r: req{method: "DELETE", path: jp, auth: contributor}, wantStatus: 403, wantCode: "rest_forbidden"},
		{name: "delete answers with the term as it was", r: req{method: "DELETE", path: jp, auth: adminAuth}, wantStatus: 200,
			golden: "category_delete", want: map[string]any{"id": jazz, "count": 1, "parent": music,
				"url": testOrigin + "/events/category/music/jazz/", "urls": termURLs(categoriesPath, jazz, music)}},
		{name: "gone", r: req{method: "GET", path: jp}, wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "second delete", r: req{method: "DELETE", path: jp, auth: adminAuth}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}, golden: "category_delete_again"},
		{name: "update after delete", r: req{method: "PATCH", path: jp, auth: adminAuth, body: map[string]any{"name": "x"}}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"id"}},
		{name: "child re-parented", r: req{method: "GET", path: categoriesPath + "/" + utoa(bebop)}, wantStatus: 200,
			want: map[string]any{"parent": music, "url": testOrigin + "/events/category/music/bebop/", "urls": termURLs(categoriesPath, bebop, music),
				"count": 1}},
		{name: "other child re-parented", r: req{method: "GET", path: categoriesPath + "/" + utoa(swing)}, wantStatus: 200,
			want: map[string]any{"parent": music, "url": testOrigin + "/events/category/music/swing/"}},
		{name: "delete the top", r: req{method: "DELETE", path: categoriesPath + "/" + utoa(music), auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"id": music, "parent": 0, "count": 0}},
		{name: "children move to the top", r: req{method: "GET", path: categoriesPath + "/" + utoa(swing)}, wantStatus: 200,
			want: map[string]any{"parent": 0, "url": testOrigin + "/events/category/swing/", "urls": termURLs(categoriesPath, swing, 0)}},
		{name: "slug is free again", r: req{method: "POST", path: categoriesPath, auth: adminAuth, body: map[string]any{"name": "Jazz"}}, wantStatus: 201,
			want: map[string]any{"slug": "jazz", "parent": 0}},
	})
	ev := s.get("/calendar/events/v1/events/" + utoa(event))
	cats, _ := ev["categories"].([]any)
	if len(cats) != 1 || cats[0].(map[string]any)["id"] != float64(bebop) {
		t.Errorf("event categories after deleting %d: %v, want only %d", jazz, cats, bebop)
	}
}

func TestTagRoutes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	res := s.do(req{method: "POST", path: tagsPath, auth: adminAuth, body: map[string]any{"name": "Live Music", "description": "Played <b>live</b>", "parent": 5}})
	checkResponse(t, res, routeCase{r: req{method: "POST", path: tagsPath}, wantStatus: 201, golden: "tag_create",
		wantHeader: map[string]string{"Location": testOrigin + tagsPath + "/1"}, absent: []string{"parent"}})
	draft := s.create("/calendar/events/v1/events", map[string]any{"title": "Draft", "status": "draft", "tags": "1",
		"start_date": "2030-01-01 20:00:00", "end_date": "2030-01-01 22:00:00"})
	_ = draft
	gig(s, map[string]any{"tags": "live music"}) // resolves by name (4.6): no new tag
	get := s.do(req{method: "GET", path: tagsPath + "/1"})
	checkResponse(t, get, routeCase{r: req{method: "GET"}, wantStatus: 200, golden: "tag_get", absent: []string{"parent"},
		want: map[string]any{"count": 1}})
	etag := get.header.Get("ETag")
	author := s.user("arthur", storage.RoleAuthor)
	cat := s.create(categoriesPath, map[string]any{"name": "Music"})
	tp := tagsPath + "/1"
	create := func(body any) req { return req{method: "POST", path: tagsPath, auth: adminAuth, body: body} }
	runRouteCases(t, s, []routeCase{
		{name: "if-none-match", r: req{method: "GET", path: tp, header: map[string]string{"If-None-Match": etag}}, wantStatus: 304},
		{name: "authenticated get", r: req{method: "GET", path: tp, auth: adminAuth, header: map[string]string{"If-None-Match": etag}}, wantStatus: 304,
			wantHeader: map[string]string{"ETag": etag}},
		{name: "same name", r: create(map[string]any{"name": "LIVE MUSIC"}), wantStatus: 400, wantCode: "term_exists", golden: "tag_exists",
			wantData: map[string]any{"term_id": 1}},
		{name: "a category with the name does not count", r: create(map[string]any{"name": "music"}), wantStatus: 201,
			want: map[string]any{"name": "music", "slug": "music", "taxonomy": "post_tag", "url": testOrigin + "/tag/music/"}, absent: []string{"parent"}},
		{name: "generated slug collision", r: create(map[string]any{"name": "Live-Music!"}), wantStatus: 201,
			want: map[string]any{"slug": "live-music-2"}},
		{name: "explicit slug collision", r: create(map[string]any{"name": "Concerts", "slug": "music"}), wantStatus: 201,
			want: map[string]any{"slug": "music-2"}},
		{name: "missing name", r: create(map[string]any{"slug": "x"}), wantStatus: 400, wantCode: "rest_missing_callback_param",
			wantParams: []string{"name"}, golden: "tag_missing"},
		{name: "too long", r: create(map[string]any{"name": strings.Repeat("t", 201)}), wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"name"}, wantDetails: map[string]string{"name": "rest_too_long"}},
		{name: "empty description on create", r: create(map[string]any{"name": "New", "description": ""}), wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"description"}},
		{name: "category id", r: req{method: "GET", path: tagsPath + "/" + utoa(cat)}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}, golden: "tag_unknown_id"},
		{name: "update", r: req{method: "PATCH", path: tp, auth: adminAuth, body: map[string]any{"name": "Live", "parent": 999}}, wantStatus: 200,
			golden: "tag_update", absent: []string{"parent"}},
		{name: "duplicate slug on update", r: req{method: "PATCH", path: tp, auth: adminAuth, body: map[string]any{"slug": "music"}}, wantStatus: 400,
			wantCode: "duplicate_term_slug", golden: "tag_duplicate_slug"},
		{name: "empty description on update", r: req{method: "PATCH", path: tp, auth: adminAuth, body: map[string]any{"description": ""}}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: []string{"description"}},
		{name: "author may not update tags", r: req{method: "PATCH", path: tp, auth: author, body: map[string]any{"name": "x"}}, wantStatus: 403,
			wantCode: "rest_forbidden"},
		{name: "author may not delete tags", r: req{method: "DELETE", path: tp, auth: author}, wantStatus: 403, wantCode: "rest_forbidden"},
		{name: "anonymous delete", r: req{method: "DELETE", path: tp}, wantStatus: 401, wantCode: "rest_forbidden"},
		{name: "delete", r: req{method: "DELETE", path: tp, auth: adminAuth}, wantStatus: 200, golden: "tag_delete", absent: []string{"parent"}},
		{name: "second delete", r: req{method: "DELETE", path: tp, auth: adminAuth}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"id"}},
		{name: "slug is free again", r: create(map[string]any{"name": "Live Music"}), wantStatus: 201, want: map[string]any{"slug": "live-music"}},
	})
}

// TestConcurrentWritesToOneRecord: writes racing on one record each answer as if they had arrived one
// after the other (200, or the answer for a record already deleted or trashed), never 500.
func TestConcurrentWritesToOneRecord(t *testing.T) {
	s := startServer(t)
	type race struct {
		name     string
		create   func(i int) string // returns the record's path
		a, b     req
		allowedA []int
		allowedB []int
	}
	term := func(i int) string {
		return categoriesPath + "/" + utoa(s.create(categoriesPath, map[string]any{"name": "Race " + strconv.Itoa(i)}))
	}
	event := func(i int) string {
		return "/calendar/events/v1/events/" + utoa(s.create("/calendar/events/v1/events",
			map[string]any{"title": "Race " + strconv.Itoa(i), "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00"}))
	}
	races := []race{
		{"term deleted twice", term, req{method: "DELETE"}, req{method: "DELETE"}, []int{200, 400}, []int{200, 400}},
		{"term updated and deleted", term, req{method: "PATCH", body: map[string]any{"description": "x"}}, req{method: "DELETE"},
			[]int{200, 400}, []int{200}},
		{"event trashed twice", event, req{method: "DELETE"}, req{method: "DELETE"}, []int{200, 410}, []int{200, 410}},
	}
	for _, rc := range races {
		for i := range 20 {
			path := rc.create(i)
			var wg sync.WaitGroup
			res := make([]*response, 2)
			for j, r := range []req{rc.a, rc.b} {
				r.path, r.auth = path, adminAuth
				wg.Go(func() { res[j] = s.do(r) })
			}
			wg.Wait()
			for j, allowed := range [][]int{rc.allowedA, rc.allowedB} {
				if !slices.Contains(allowed, res[j].status) {
					t.Fatalf("%s, request %d: %d %s, want one of %v", rc.name, j, res[j].status, res[j].body, allowed)
				}
			}
			if rc.a.method == "DELETE" && rc.b.method == "DELETE" && (res[0].status == 200) == (res[1].status == 200) {
				t.Fatalf("%s: %d and %d, want exactly one 200", rc.name, res[0].status, res[1].status)
			}
		}
	}
}
