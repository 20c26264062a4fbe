package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
						t.Errorf("urls.self %q keeps no prefix (docs/API.md, Responses)", self)
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
						t.Errorf("tag with parent key (docs/API.md, The term object)")
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
