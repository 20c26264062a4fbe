package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

// End-to-end tests of the language rules for events: the selected language (docs/API.md "Languages", "Routes", "Common parameters"),
// `language` and `translations` (3.1), translation groups and `translation_of` (3.8), the language part of
// record URLs (1.8), slugs per type and language (3.10.2), links within one language (4.6), per-language
// lists and search (5.2), and a trashed record leaving its group (8.5). Terms are shared (0.2, 3.8).

// langEvent is a minimal event body that starts inside the default list window (5.2), plus extra.
func langEvent(title string, extra map[string]any) map[string]any {
	b := map[string]any{"title": title, "start_date": "2027-03-01 20:00:00", "end_date": "2027-03-01 22:00:00"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// tr builds a translations object (3.1) from language, ID pairs.
func tr(pairs ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(pairs); i += 2 {
		m[pairs[i].(string)] = pairs[i+1]
	}
	return m
}

func eventPath(id uint64) string { return eventsPath + "/" + utoa(id) }

// createEvent sends r, which must create an event (201 with the keys of want), and checks the language part
// lp of its URLs (1.8): rest_url and Location are {origin}{lp}/calendar/events/v1/events/{id}, url is
// {origin}{lp}/event/{slug}/. It returns the new ID and the raw body.
func createEvent(t *testing.T, s *server, r req, lp string, want map[string]any) (uint64, []byte) {
	t.Helper()
	res := s.do(r)
	checkResponse(t, res, routeCase{r: r, wantStatus: http.StatusCreated, want: want})
	body := res.json(t)
	id := uint64(body["id"].(float64))
	restURL := testOrigin + lp + "/calendar/events/v1/events/" + utoa(id)
	if body["rest_url"] != restURL {
		t.Errorf("%s %s: rest_url %v, want %s (docs/API.md, Responses)", r.method, r.path, body["rest_url"], restURL)
	}
	if got := res.header.Get("Location"); got != restURL {
		t.Errorf("%s %s: Location %q, want %s (docs/API.md, Responses)", r.method, r.path, got, restURL)
	}
	if slug, _ := body["slug"].(string); body["url"] != testOrigin+lp+"/event/"+slug+"/" {
		t.Errorf("%s %s: url %v, want %s (docs/API.md, Responses)", r.method, r.path, body["url"], testOrigin+lp+"/event/"+slug+"/")
	}
	return id, res.body
}

// listEventIDs lists path as auth and returns the item IDs; every item must have language lang (3.8).
func listEventIDs(t *testing.T, s *server, auth, path, lang string) []uint64 {
	t.Helper()
	res := s.do(req{method: "GET", path: path, auth: auth})
	if res.status != http.StatusOK {
		t.Fatalf("GET %s: status %d\n%s", path, res.status, res.body)
	}
	ids := []uint64{}
	for _, it := range listItemsOf(res.json(t), "events") {
		id := uint64(it["id"].(float64))
		ids = append(ids, id)
		if it["language"] != lang {
			t.Errorf("GET %s: event %d has language %v, want %s (docs/API.md, Languages)", path, id, it["language"], lang)
		}
	}
	return ids
}

func wantEventIDs(t *testing.T, s *server, auth, path, lang string, want ...uint64) {
	t.Helper()
	if want == nil {
		want = []uint64{}
	}
	if diff := cmp.Diff(want, listEventIDs(t, s, auth, path, lang)); diff != "" {
		t.Errorf("GET %s: event IDs (-want +got):\n%s", path, diff)
	}
}

// TestEventTranslations: translation_of on create, the translations of every member, the language part of
// URLs, the 409 and 400 answers of 3.8, and trash leaving the group (8.5).
func TestEventTranslations(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	venue := s.create(venuesPath, map[string]any{"venue": "Hall"})
	org := s.create(organizersPath, map[string]any{"organizer": "Org"})

	en, _ := createEvent(t, s, req{method: "POST", path: eventsPath, auth: adminAuth, body: langEvent("Concert", nil)}, "",
		map[string]any{"language": "en", "translations": map[string]any{}, "slug": "concert"})
	fr, frBody := createEvent(t, s, req{method: "POST", path: "/fr" + eventsPath, auth: adminAuth,
		body: langEvent("Concert", map[string]any{"translation_of": en})}, "/fr",
		map[string]any{"language": "fr", "translations": tr("en", en), "slug": "concert"})
	golden(t, "lang_event_translation_fr", frBody)
	// translation_of a member joins the member's whole group.
	de, _ := createEvent(t, s, req{method: "POST", path: eventsPath + "?translation_language=de", auth: adminAuth,
		body: langEvent("Konzert", map[string]any{"translation_of": fr})}, "/de",
		map[string]any{"language": "de", "translations": tr("en", en, "fr", fr), "slug": "konzert"})
	solo := s.create(eventsPath, langEvent("Solo", nil))
	gone := s.create(eventsPath, langEvent("Gone", nil))
	if res := s.do(req{method: "DELETE", path: eventPath(gone), auth: adminAuth}); res.status != http.StatusOK {
		t.Fatalf("trash: %d %s", res.status, res.body)
	}

	join := func(path string, of any) req {
		return req{method: "POST", path: path, auth: adminAuth, body: langEvent("Encore", map[string]any{"translation_of": of})}
	}
	badOf := []string{"translation_of"}
	runRouteCases(t, s, []routeCase{
		{name: "the original lists both", r: req{method: "GET", path: eventPath(en)}, wantStatus: 200,
			want: map[string]any{"language": "en", "translations": tr("fr", fr, "de", de), "rest_url": nsURL + "/events/" + utoa(en),
				"url": testOrigin + "/event/concert/"}},
		{name: "fr by ID without a prefix keeps its /fr URLs", r: req{method: "GET", path: eventPath(fr)}, wantStatus: 200,
			want: map[string]any{"language": "fr", "translations": tr("en", en, "de", de),
				"rest_url": testOrigin + "/fr/calendar/events/v1/events/" + utoa(fr), "url": testOrigin + "/fr/event/concert/"}},
		{name: "de under the fr prefix keeps its /de URLs", r: req{method: "GET", path: "/fr" + eventPath(de)}, wantStatus: 200,
			want: map[string]any{"language": "de", "translations": tr("en", en, "fr", fr),
				"rest_url": testOrigin + "/de/calendar/events/v1/events/" + utoa(de), "url": testOrigin + "/de/event/konzert/"}},
		{name: "en under the de prefix has no language part", r: req{method: "GET", path: "/de" + eventPath(en)}, wantStatus: 200,
			want: map[string]any{"language": "en", "rest_url": nsURL + "/events/" + utoa(en), "url": testOrigin + "/event/concert/"}},
		{name: "an event without a group", r: req{method: "GET", path: eventPath(solo)}, wantStatus: 200,
			want: map[string]any{"language": "en", "translations": map[string]any{}}},

		{name: "a second fr translation of the group", r: join("/fr"+eventsPath, en), wantStatus: 409,
			wantCode: "translation-already-exists", golden: "lang_translation_exists"},
		{name: "a second fr translation through another member", r: join(eventsPath+"?translation_language=fr", de), wantStatus: 409,
			wantCode: "translation-already-exists"},
		{name: "translation_of an fr event in fr", r: join("/fr"+eventsPath, fr), wantStatus: 409, wantCode: "translation-already-exists"},
		{name: "translation_of an en event without a group in en", r: join(eventsPath, solo), wantStatus: 409,
			wantCode: "translation-already-exists"},
		{name: "translation_of an unknown ID", r: join("/it"+eventsPath, 999999), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: badOf},
		{name: "translation_of a venue", r: join("/it"+eventsPath, venue), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: badOf},
		{name: "translation_of an organizer", r: join("/it"+eventsPath, org), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: badOf},
		{name: "translation_of a trashed event", r: join("/it"+eventsPath, gone), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: badOf},
		{name: "translation_of not an integer", r: join("/it"+eventsPath, "first"), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: badOf},
		{name: "refused translations created nothing", r: req{method: "GET", path: "/it" + eventsPath}, wantStatus: 200,
			want: map[string]any{"events": []any{}, "total": 0}},
		{name: "refused translations left the group alone", r: req{method: "GET", path: eventPath(en)}, wantStatus: 200,
			want: map[string]any{"translations": tr("fr", fr, "de", de)}},
	})

	// 8.5: the trashed record leaves its group, and the language is free again.
	runRouteCases(t, s, []routeCase{
		{name: "trash the fr translation", r: req{method: "DELETE", path: eventPath(fr), auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"status": "trash", "language": "fr", "translations": map[string]any{}}},
		{name: "en forgets it", r: req{method: "GET", path: eventPath(en)}, wantStatus: 200, want: map[string]any{"translations": tr("de", de)}},
		{name: "de forgets it", r: req{method: "GET", path: eventPath(de)}, wantStatus: 200, want: map[string]any{"translations": tr("en", en)}},
		{name: "translation_of the trashed one", r: join("/it"+eventsPath, fr), wantStatus: 400, wantCode: "rest_invalid_param", wantParams: badOf},
	})
	fr2, _ := createEvent(t, s, req{method: "POST", path: "/fr" + eventsPath, auth: adminAuth,
		body: langEvent("Concert", map[string]any{"translation_of": de})}, "/fr",
		map[string]any{"language": "fr", "translations": tr("en", en, "de", de), "slug": "concert"})
	runRouteCases(t, s, []routeCase{
		{name: "en lists the new fr", r: req{method: "GET", path: eventPath(en)}, wantStatus: 200,
			want: map[string]any{"translations": tr("fr", fr2, "de", de)}},
		{name: "de lists the new fr", r: req{method: "GET", path: eventPath(de)}, wantStatus: 200,
			want: map[string]any{"translations": tr("en", en, "fr", fr2)}},
		{name: "restoring the old fr does not rejoin", r: req{method: "PATCH", path: eventPath(fr), auth: adminAuth,
			body: map[string]any{"status": "publish"}}, wantStatus: 200,
			want: map[string]any{"status": "publish", "language": "fr", "translations": map[string]any{}, "slug": "concert-2"}},
		{name: "the group is unchanged by the restore", r: req{method: "GET", path: eventPath(en)}, wantStatus: 200,
			want: map[string]any{"translations": tr("fr", fr2, "de", de)}},
		{name: "translation_of is ignored on update", r: req{method: "PATCH", path: eventPath(solo), auth: adminAuth,
			body: map[string]any{"translation_of": en}}, wantStatus: 200, want: map[string]any{"translations": map[string]any{}}},
		{name: "the group is unchanged by the update", r: req{method: "GET", path: eventPath(en)}, wantStatus: 200,
			want: map[string]any{"translations": tr("fr", fr2, "de", de)}},
	})
}

// TestTranslationsReadability: translations lists only the members the caller may read (3.1, 7.5), and
// translation_of must name a record the caller may read (3.8).
func TestTranslationsReadability(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	connie := s.user("connie", storage.RoleContributor)
	cody := s.user("cody", storage.RoleContributor)
	edna := s.user("edna", storage.RoleEditor)

	en := s.create(eventsPath, langEvent("Festival", nil))
	draft, _ := createEvent(t, s, req{method: "POST", path: "/fr" + eventsPath, auth: connie,
		body: langEvent("Festival", map[string]any{"translation_of": en})}, "/fr",
		map[string]any{"status": "draft", "language": "fr", "translations": tr("en", en)})

	get := func(name, auth string, id uint64, want map[string]any) routeCase {
		return routeCase{name: name, r: req{method: "GET", path: eventPath(id), auth: auth}, wantStatus: 200,
			want: map[string]any{"translations": want}}
	}
	runRouteCases(t, s, []routeCase{
		get("anonymous does not see the draft", "", en, map[string]any{}),
		get("another contributor does not see it", cody, en, map[string]any{}),
		get("its author sees it", connie, en, tr("fr", draft)),
		get("an editor sees it", edna, en, tr("fr", draft)),
		get("the administrator sees it", adminAuth, en, tr("fr", draft)),
		get("its author reads its group", connie, draft, tr("en", en)),
		{name: "translation_of a draft the caller may not read", r: req{method: "POST", path: "/de" + eventsPath, auth: cody,
			body: langEvent("Fest", map[string]any{"translation_of": draft})}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: []string{"translation_of"}},
		// The group holds a non-trashed fr record, readable or not (3.8).
		{name: "the unreadable draft still takes the language", r: req{method: "POST", path: "/fr" + eventsPath, auth: cody,
			body: langEvent("Fête", map[string]any{"translation_of": en})}, wantStatus: 409, wantCode: "translation-already-exists"},
	})

	de, _ := createEvent(t, s, req{method: "POST", path: "/de" + eventsPath, auth: edna,
		body: langEvent("Fest", map[string]any{"translation_of": draft})}, "/de",
		map[string]any{"status": "publish", "language": "de", "translations": tr("en", en, "fr", draft)})
	runRouteCases(t, s, []routeCase{
		get("anonymous sees the published de only", "", en, tr("de", de)),
		get("anonymous reads the de group without the draft", "", de, tr("en", en)),
		get("the author sees the whole group", connie, en, tr("fr", draft, "de", de)),
		get("another contributor sees the published members", cody, de, tr("en", en)),
	})

	// Lists filter translations the same way.
	for _, tc := range []struct {
		name, auth string
		want       map[string]any
	}{
		{"anonymous list", "", tr("de", de)},
		{"contributor list", cody, tr("de", de)},
		{"author list", connie, tr("fr", draft, "de", de)},
		{"editor list", edna, tr("fr", draft, "de", de)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(req{method: "GET", path: eventsPath, auth: tc.auth})
			if res.status != 200 {
				t.Fatalf("list: %d %s", res.status, res.body)
			}
			items := listItemsOf(res.json(t), "events")
			if len(items) != 1 || items[0]["id"] != float64(en) {
				t.Fatalf("list items %v, want only event %d", items, en)
			}
			wantKeys(t, items[0], map[string]any{"translations": tc.want})
		})
	}
}

// TestEventLanguageRoutes: by-slug routes look the slug up in the selected language (3.8, 3.10.2), by-ID
// routes ignore it, and a record's language never changes.
func TestEventLanguageRoutes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	en, _ := createEvent(t, s, req{method: "POST", path: eventsPath, auth: adminAuth, body: langEvent("Concert", nil)}, "",
		map[string]any{"language": "en", "slug": "concert"})
	fr, _ := createEvent(t, s, req{method: "POST", path: "/fr" + eventsPath, auth: adminAuth, body: langEvent("Concert", nil)}, "/fr",
		map[string]any{"language": "fr", "slug": "concert", "translations": map[string]any{}})
	de, _ := createEvent(t, s, req{method: "POST", path: eventsPath + "?translation_language=de", auth: adminAuth,
		body: langEvent("Concert", nil)}, "/de", map[string]any{"language": "de", "slug": "concert"})
	fete, _ := createEvent(t, s, req{method: "POST", path: "/fr" + eventsPath, auth: adminAuth, body: langEvent("Fête de l'été", nil)}, "/fr",
		map[string]any{"language": "fr", "slug": "fete-de-lete"})
	// 3.10.2: unique per type and language.
	en2, _ := createEvent(t, s, req{method: "POST", path: eventsPath, auth: adminAuth, body: langEvent("Concert", nil)}, "",
		map[string]any{"language": "en", "slug": "concert-2"})
	createEvent(t, s, req{method: "POST", path: "/fr" + eventsPath, auth: adminAuth, body: langEvent("Concert", nil)}, "/fr",
		map[string]any{"language": "fr", "slug": "concert-2"})
	createEvent(t, s, req{method: "POST", path: "/it" + eventsPath, auth: adminAuth, body: langEvent("Concert", nil)}, "/it",
		map[string]any{"language": "it", "slug": "concert"})

	bySlug := eventsPath + "/by-slug/"
	is := func(id uint64, lang string) map[string]any { return map[string]any{"id": id, "language": lang} }
	badSlug := []string{"slug"}
	runRouteCases(t, s, []routeCase{
		{name: "by slug in the default language", r: req{method: "GET", path: bySlug + "concert"}, wantStatus: 200, want: is(en, "en")},
		{name: "by slug under /fr", r: req{method: "GET", path: "/fr" + bySlug + "concert"}, wantStatus: 200, want: is(fr, "fr")},
		{name: "by slug with translation_language=fr", r: req{method: "GET", path: bySlug + "concert?translation_language=fr"}, wantStatus: 200,
			want: is(fr, "fr")},
		{name: "translation_language beats the prefix", r: req{method: "GET", path: "/fr" + bySlug + "concert?translation_language=en"},
			wantStatus: 200, want: is(en, "en")},
		{name: "by slug under /de", r: req{method: "GET", path: "/de" + bySlug + "concert"}, wantStatus: 200, want: is(de, "de")},
		{name: "by slug under /en", r: req{method: "GET", path: "/en" + bySlug + "concert"}, wantStatus: 200, want: is(en, "en")},
		{name: "no such slug in pl", r: req{method: "GET", path: "/pl" + bySlug + "concert"}, wantStatus: 400, wantCode: "rest_invalid_param",
			wantParams: badSlug},
		{name: "an fr slug is not an en slug", r: req{method: "GET", path: bySlug + "fete-de-lete"}, wantStatus: 400,
			wantCode: "rest_invalid_param", wantParams: badSlug},
		{name: "an fr slug with translation_language=de", r: req{method: "GET", path: "/fr" + bySlug + "fete-de-lete?translation_language=de"},
			wantStatus: 400, wantCode: "rest_invalid_param", wantParams: badSlug},
		{name: "an fr slug, normalised, under /fr", r: req{method: "GET", path: "/fr" + bySlug + "F%C3%AAte%20de%20l%27%C3%A9t%C3%A9"},
			wantStatus: 200, want: is(fete, "fr")},
		{name: "update by slug in fr changes the fr record", r: req{method: "PATCH", path: "/fr" + bySlug + "concert", auth: adminAuth,
			body: map[string]any{"excerpt": "Soirée"}}, wantStatus: 200, want: map[string]any{"id": fr, "language": "fr", "excerpt": "<p>Soirée</p>"}},
		{name: "the en record is untouched", r: req{method: "GET", path: eventPath(en)}, wantStatus: 200, want: map[string]any{"excerpt": ""}},
		{name: "renaming an en slug to a slug taken in fr", r: req{method: "PATCH", path: eventPath(en2), auth: adminAuth,
			body: map[string]any{"slug": "fete-de-lete"}}, wantStatus: 200, want: map[string]any{"slug": "fete-de-lete", "url": testOrigin + "/event/fete-de-lete/"}},
		{name: "the renamed en slug", r: req{method: "GET", path: bySlug + "fete-de-lete"}, wantStatus: 200, want: is(en2, "en")},
		{name: "the fr slug still", r: req{method: "GET", path: "/fr" + bySlug + "fete-de-lete"}, wantStatus: 200, want: is(fete, "fr")},
		{name: "delete by slug with translation_language=de", r: req{method: "DELETE", path: bySlug + "concert?translation_language=de", auth: adminAuth},
			wantStatus: 200, want: map[string]any{"id": de, "status": "trash"}},
		{name: "the en and fr ones are not trashed", r: req{method: "GET", path: bySlug + "concert"}, wantStatus: 200,
			want: map[string]any{"id": en, "status": "publish"}},
		{name: "the de slug now finds the trashed one", r: req{method: "GET", path: "/de" + bySlug + "concert"}, wantStatus: 403,
			wantCode: "event-no-longer-available"},

		// By ID: whatever the selected language (3.8).
		{name: "by ID with another translation_language", r: req{method: "GET", path: eventPath(fr) + "?translation_language=en"}, wantStatus: 200,
			want: is(fr, "fr")},
		{name: "by ID under another prefix", r: req{method: "GET", path: "/de" + eventPath(fr)}, wantStatus: 200, want: is(fr, "fr")},
		{name: "by ID under a prefix and another translation_language", r: req{method: "GET", path: "/it" + eventPath(en) + "?translation_language=pl"},
			wantStatus: 200, want: is(en, "en")},
		{name: "HEAD by ID under another prefix", r: req{method: "HEAD", path: "/nl" + eventPath(fr)}, wantStatus: 200},
		{name: "update by ID keeps the language", r: req{method: "PATCH", path: eventPath(fr) + "?translation_language=de", auth: adminAuth,
			body: map[string]any{"title": "Concert du soir"}}, wantStatus: 200,
			want: map[string]any{"id": fr, "language": "fr", "title": "Concert du soir", "slug": "concert",
				"rest_url": testOrigin + "/fr/calendar/events/v1/events/" + utoa(fr)}},
		{name: "a language in the body is not an update", r: req{method: "PATCH", path: "/pl" + eventPath(fr), auth: adminAuth,
			body: map[string]any{"translation_language": "pl", "language": "pl"}}, wantStatus: 200, want: is(fr, "fr")},
		{name: "delete by ID under another prefix", r: req{method: "DELETE", path: "/es" + eventPath(fete), auth: adminAuth}, wantStatus: 200,
			want: map[string]any{"id": fete, "language": "fr", "status": "trash"}},
	})
}

// TestTranslationLanguageValidation: translation_language is an enum on every route (2.7).
func TestTranslationLanguageValidation(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	event := s.create(eventsPath, langEvent("Concert", map[string]any{"categories": "Music", "tags": "live"}))
	venue := s.create(venuesPath, map[string]any{"venue": "Hall"})
	org := s.create(organizersPath, map[string]any{"organizer": "Org"})
	ev := s.get(eventPath(event))
	cat := utoa(uint64(ev["categories"].([]any)[0].(map[string]any)["id"].(float64)))
	tag := utoa(uint64(ev["tags"].([]any)[0].(map[string]any)["id"].(float64)))

	bad := func(name string, r req, details bool) routeCase {
		tc := routeCase{name: name, r: r, wantStatus: 400, wantCode: "rest_invalid_param", wantParams: []string{"translation_language"}}
		if details {
			tc.wantDetails = map[string]string{"translation_language": "rest_not_in_enum"}
		}
		return tc
	}
	var cases []routeCase
	for _, p := range []string{
		"/calendar/events/v1", "/calendar/events/v1/doc",
		eventsPath, eventPath(event), eventsPath + "/by-slug/concert",
		venuesPath, venuesPath + "/" + utoa(venue), organizersPath, organizersPath + "/" + utoa(org),
		categoriesPath, categoriesPath + "/" + cat, tagsPath, tagsPath + "/" + tag,
	} {
		cases = append(cases, bad("xx on GET "+p, req{method: "GET", path: p + "?translation_language=xx"}, true))
	}
	for _, v := range []string{"FR", "", "fr-FR", "fr,de", "french", "%20fr"} {
		cases = append(cases, bad("events list with "+v, req{method: "GET", path: eventsPath + "?translation_language=" + v}, false))
	}
	create := func(path string, body map[string]any) req {
		return req{method: "POST", path: path, auth: adminAuth, body: body}
	}
	cases = append(cases,
		bad("xx under a prefix", req{method: "GET", path: "/fr" + eventsPath + "?translation_language=xx"}, true),
		bad("the last of repeated keys wins", req{method: "GET", path: eventsPath + "?translation_language=fr&translation_language=xx"}, true),
		bad("xx under a prefix on the index", req{method: "GET", path: "/de/calendar/events/v1?translation_language=xx"}, true),
		bad("xx on the categories list under a prefix", req{method: "GET", path: "/it" + categoriesPath + "?translation_language=xx"}, true),
		bad("create with xx in the query", create(eventsPath+"?translation_language=xx", langEvent("Nope", nil)), true),
		bad("create with xx in the body", create(eventsPath, langEvent("Nope", map[string]any{"translation_language": "xx"})), true),
		bad("create a category with xx", create(categoriesPath+"?translation_language=xx", map[string]any{"name": "Nope"}), true),
		bad("update with xx", req{method: "PATCH", path: eventPath(event) + "?translation_language=xx", auth: adminAuth,
			body: map[string]any{"title": "Nope"}}, true),
		routeCase{name: "the last of repeated keys wins (valid)", r: req{method: "GET", path: eventsPath + "?translation_language=xx&translation_language=en"},
			wantStatus: 200, want: map[string]any{"total": 1}},
		routeCase{name: "nothing was written", r: req{method: "GET", path: eventPath(event)}, wantStatus: 200,
			want: map[string]any{"title": "Concert"}},
		routeCase{name: "no category was created", r: req{method: "GET", path: categoriesPath + "?hide_empty=false"}, wantStatus: 200,
			want: map[string]any{"total": 1}},
	)
	for _, l := range storage.Langs {
		q := "?translation_language=" + string(l)
		cases = append(cases,
			routeCase{name: "index in " + string(l), r: req{method: "GET", path: "/calendar/events/v1" + q}, wantStatus: 200},
			routeCase{name: "categories in " + string(l), r: req{method: "GET", path: categoriesPath + q}, wantStatus: 200},
			routeCase{name: "events list in " + string(l), r: req{method: "GET", path: eventsPath + q}, wantStatus: 200},
		)
	}
	runRouteCases(t, s, cases)
	if got := len(storage.Langs); got != 7 {
		t.Errorf("%d languages, want 7 (docs/API.md, Languages)", got)
	}
	if res := s.do(req{method: "GET", path: "/xx" + eventsPath}); res.status != 404 || res.json(t)["code"] != "rest_no_route" {
		t.Errorf("GET /xx%s: %d %s, want 404 rest_no_route (docs/API.md, Routes)", eventsPath, res.status, res.body)
	}
}

// TestEventListsPerLanguage: lists show only the selected language (3.8); each item's URLs carry its language.
func TestEventListsPerLanguage(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	at := func(title, day string, extra map[string]any) map[string]any {
		b := langEvent(title, extra)
		b["start_date"], b["end_date"] = day+" 20:00:00", day+" 21:00:00"
		return b
	}
	en1 := s.create(eventsPath, at("Opera", "2027-01-10", nil))
	en2 := s.create(eventsPath, at("Ballet", "2027-01-20", nil))
	fr1 := s.create("/fr"+eventsPath, at("Opéra", "2027-01-05", map[string]any{"translation_of": en1}))
	fr2 := s.create(eventsPath+"?translation_language=fr", at("Bal", "2027-01-25", nil))
	de1 := s.create("/de"+eventsPath, at("Oper", "2027-01-15", map[string]any{"translation_of": en1}))
	fr3 := s.create("/fr"+eventsPath, at("Brouillon", "2027-01-26", map[string]any{"status": "draft"}))

	for _, tc := range []struct {
		path, auth, lang string
		want             []uint64
	}{
		{eventsPath, "", "en", []uint64{en1, en2}},
		{"/en" + eventsPath, "", "en", []uint64{en1, en2}},
		{eventsPath + "?translation_language=fr", "", "fr", []uint64{fr1, fr2}},
		{eventsPath + "?translation_language=fr", adminAuth, "fr", []uint64{fr1, fr2, fr3}},
		{"/fr" + eventsPath, "", "fr", []uint64{fr1, fr2}},
		{"/de" + eventsPath, "", "de", []uint64{de1}},
		{eventsPath + "?translation_language=de", "", "de", []uint64{de1}},
		{"/de" + eventsPath + "?translation_language=fr", "", "fr", []uint64{fr1, fr2}},
		{"/fr" + eventsPath + "?translation_language=en", "", "en", []uint64{en1, en2}},
		{"/it" + eventsPath, "", "it", nil},
		{eventsPath + "?translation_language=nl&include=" + utoa(en1) + "," + utoa(fr1), "", "nl", nil},
		{eventsPath + "?translation_language=fr&include=" + utoa(en1) + "," + utoa(fr1), "", "fr", []uint64{fr1}},
		{eventsPath + "?translation_language=fr&search=opera", "", "fr", []uint64{fr1}},
	} {
		t.Run(tc.path+" "+tc.auth, func(t *testing.T) {
			wantEventIDs(t, s, tc.auth, tc.path, tc.lang, tc.want...)
		})
	}

	t.Run("items carry their language, URLs and translations", func(t *testing.T) {
		res := s.do(req{method: "GET", path: "/de" + eventsPath + "?translation_language=fr"})
		items := listItemsOf(res.json(t), "events")
		if len(items) != 2 {
			t.Fatalf("%d items, want 2\n%s", len(items), res.body)
		}
		wantKeys(t, items[0], map[string]any{"id": fr1, "language": "fr", "translations": tr("en", en1, "de", de1),
			"rest_url": testOrigin + "/fr/calendar/events/v1/events/" + utoa(fr1), "url": testOrigin + "/fr/event/opera/"})
		wantKeys(t, items[1], map[string]any{"id": fr2, "language": "fr", "translations": map[string]any{},
			"rest_url": testOrigin + "/fr/calendar/events/v1/events/" + utoa(fr2), "url": testOrigin + "/fr/event/bal/"})
	})
}

// TestEventLinksStayInOneLanguage: inline venues and organizers take the event's language (3.8, 4.6, 4.10),
// and a linked venue or organizer of another language is refused (4.6).
func TestEventLinksStayInOneLanguage(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	enHall := s.create(venuesPath, map[string]any{"venue": "Stadthalle"})
	enOrg := s.create(organizersPath, map[string]any{"organizer": "Kulturamt"})
	enEvent := s.create(eventsPath, langEvent("Concert", map[string]any{"venue": enHall, "organizer": []any{enOrg}}))

	res := s.do(req{method: "POST", path: "/de" + eventsPath, auth: adminAuth, body: langEvent("Konzert", map[string]any{
		"venue": map[string]any{"venue": "Stadthalle", "city": "Berlin"}, "organizer": []any{map[string]any{"organizer": "Kulturamt"}}})})
	checkResponse(t, res, routeCase{r: req{method: "POST", path: "/de" + eventsPath}, wantStatus: 201, want: map[string]any{"language": "de"}})
	deEvent := res.json(t)
	deHallObj, _ := deEvent["venue"].(map[string]any)
	deOrgs, _ := deEvent["organizer"].([]any)
	if deHallObj == nil || len(deOrgs) != 1 {
		t.Fatalf("inline venue %v, organizers %v", deEvent["venue"], deEvent["organizer"])
	}
	deOrgObj := deOrgs[0].(map[string]any)
	deHall, deOrg := uint64(deHallObj["id"].(float64)), uint64(deOrgObj["id"].(float64))
	if deHall == enHall || deOrg == enOrg {
		t.Errorf("inline records reused the en ones (venue %d, organizer %d); 4.10 matches within one language", deHall, deOrg)
	}
	wantKeys(t, deHallObj, map[string]any{"language": "de", "url": testOrigin + "/de/venue/stadthalle/", "slug": "stadthalle",
		"translations": map[string]any{}})
	wantKeys(t, deOrgObj, map[string]any{"language": "de", "url": testOrigin + "/de/organizer/kulturamt/", "slug": "kulturamt"})

	frHall := s.create("/fr"+venuesPath, map[string]any{"venue": "Salle"})
	// 4.10: a second inline venue of the same name in de is the de one.
	again := s.do(req{method: "POST", path: eventsPath + "?translation_language=de", auth: adminAuth,
		body: langEvent("Konzert", map[string]any{"venue": map[string]any{"venue": "Stadthalle"}, "organizer": map[string]any{"organizer": "Kulturamt"}})})
	if again.status != 201 {
		t.Fatalf("second de event: %d %s", again.status, again.body)
	}
	if b := again.json(t); b["venue"].(map[string]any)["id"] != float64(deHall) || b["organizer"].([]any)[0].(map[string]any)["id"] != float64(deOrg) {
		t.Errorf("second de event linked venue %v organizer %v, want the de venue %d and organizer %d (4.10)",
			b["venue"].(map[string]any)["id"], b["organizer"].([]any)[0].(map[string]any)["id"], deHall, deOrg)
	}

	linked := func(name string, r req) routeCase {
		return routeCase{name: name, r: r, wantStatus: 400, wantCode: "invalid-linked-post-id"}
	}
	post := func(path string, extra map[string]any) req {
		return req{method: "POST", path: path, auth: adminAuth, body: langEvent("Linked", extra)}
	}
	runRouteCases(t, s, []routeCase{
		linked("en event with a de venue", post(eventsPath, map[string]any{"venue": deHall})),
		linked("en event with a de organizer", post(eventsPath, map[string]any{"organizer": []any{enOrg, deOrg}})),
		linked("en event with an fr venue as an object with id", post(eventsPath, map[string]any{"venue": map[string]any{"id": frHall}})),
		linked("de event with an en venue", post("/de"+eventsPath, map[string]any{"venue": enHall})),
		linked("de event with an en organizer", post(eventsPath+"?translation_language=de", map[string]any{"organizer": enOrg})),
		linked("a translation does not inherit the original's venue language", post("/fr"+eventsPath,
			map[string]any{"translation_of": enEvent, "venue": enHall})),
		linked("update an en event to a de venue", req{method: "PATCH", path: eventPath(enEvent), auth: adminAuth, body: map[string]any{"venue": deHall}}),
		linked("update an en event to a de organizer", req{method: "PATCH", path: "/de" + eventPath(enEvent), auth: adminAuth,
			body: map[string]any{"organizer": []any{deOrg}}}),
		{name: "the en event kept its links", r: req{method: "GET", path: eventPath(enEvent)}, wantStatus: 200,
			want: map[string]any{"translations": map[string]any{}}},
		{name: "an fr event with the fr venue", r: post("/fr"+eventsPath, map[string]any{"venue": frHall}), wantStatus: 201,
			want: map[string]any{"language": "fr"}},
		{name: "en venues list", r: req{method: "GET", path: venuesPath}, wantStatus: 200, want: map[string]any{"total": 1}},
		{name: "de venues list", r: req{method: "GET", path: "/de" + venuesPath}, wantStatus: 200, want: map[string]any{"total": 1}},
		{name: "de organizers list", r: req{method: "GET", path: organizersPath + "?translation_language=de"}, wantStatus: 200,
			want: map[string]any{"total": 1}},
	})
	if ev := s.get(eventPath(enEvent)); ev["venue"].(map[string]any)["id"] != float64(enHall) || len(ev["organizer"].([]any)) != 1 {
		t.Errorf("en event links changed by refused updates: venue %v organizer %v", ev["venue"], ev["organizer"])
	}
	for _, p := range []string{"/de" + venuesPath, organizersPath + "?translation_language=de"} {
		body := s.do(req{method: "GET", path: p}).json(t)
		key := "venues"
		if strings.Contains(p, "organizers") {
			key = "organizers"
		}
		if items := listItemsOf(body, key); len(items) != 1 || items[0]["language"] != "de" {
			t.Errorf("GET %s: items %v, want only the de record", p, items)
		}
	}
}

// TestEventSearchPerLanguage: search uses the selected language's analysis (case and accent folding,
// stemming) and only that language's events (5.2). Every title is also given to an event of another language
// (twin), which the search must not return.
func TestEventSearchPerLanguage(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	// Twins are placed where no case of that language's own queries can match them.
	cases := []struct {
		lang, title, search, twin string
	}{
		{"en", "Concert", "concerts", "de"},
		{"en", "Café", "cafe", "fr"},
		{"fr", "Concert", "concerts", "es"},
		{"fr", "Fête de l'été", "ete", "en"},
		{"de", "Konzert", "Konzerte", "nl"},
		{"de", "Café Müller", "muller", "pl"},
		{"nl", "Concert", "concerten", "pl"},
		{"it", "Concerto", "concerti", "de"},
		{"it", "Città", "citta", "es"},
		{"es", "Concierto", "conciertos", "it"},
		{"es", "Música", "musica", "nl"},
		{"pl", "Sezon koncertów", "koncert", "en"},
		{"pl", "Kraków", "krakow", "fr"},
	}
	ids := make([]uint64, len(cases))
	for i, tc := range cases {
		ids[i] = s.create(eventsPath+"?translation_language="+tc.lang, langEvent(tc.title, nil))
		s.create("/"+tc.twin+eventsPath, langEvent(tc.title, nil))
	}
	for i, tc := range cases {
		q := url.QueryEscape(tc.search)
		t.Run(tc.lang+" "+tc.search+" finds "+tc.title, func(t *testing.T) {
			wantEventIDs(t, s, "", eventsPath+"?translation_language="+tc.lang+"&search="+q, tc.lang, ids[i])
			wantEventIDs(t, s, "", "/"+tc.lang+eventsPath+"?search="+q, tc.lang, ids[i])
		})
	}
}

// TestTermsAreSharedAcrossLanguages: categories and tags have no language and ignore translation_language
// (0.2, 3.8, 5.4); events of every language use the same terms.
func TestTermsAreSharedAcrossLanguages(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	cat := s.create("/fr"+categoriesPath, map[string]any{"name": "Musique"})
	tag := s.create(tagsPath+"?translation_language=de", map[string]any{"name": "Live"})
	en := s.create(eventsPath, langEvent("Concert", map[string]any{"categories": "Musique", "tags": "live"}))
	fr := s.create("/fr"+eventsPath, langEvent("Concert", map[string]any{"categories": "musique", "translation_of": en}))
	de := s.create("/de"+eventsPath, langEvent("Konzert", map[string]any{"categories": []any{cat}, "tags": []any{"Live"}}))

	for _, id := range []uint64{en, fr, de} {
		ev := s.get(eventPath(id))
		cats, _ := ev["categories"].([]any)
		if len(cats) != 1 || cats[0].(map[string]any)["id"] != float64(cat) {
			t.Errorf("event %d (%v): categories %v, want only the shared category %d", id, ev["language"], cats, cat)
		}
	}

	termBody := func(path string) string {
		res := s.do(req{method: "GET", path: path})
		if res.status != 200 {
			t.Fatalf("GET %s: %d %s", path, res.status, res.body)
		}
		return string(res.body)
	}
	for _, p := range []string{categoriesPath + "/" + utoa(cat), tagsPath + "/" + utoa(tag)} {
		plain := termBody(p)
		for _, l := range []string{"fr", "de", "pl"} {
			if got := termBody(p + "?translation_language=" + l); got != plain {
				t.Errorf("GET %s?translation_language=%s differs from GET %s:\n%s\nwant\n%s", p, l, p, got, plain)
			}
		}
	}

	ids := func(body map[string]any, key string) []float64 {
		out := []float64{}
		for _, it := range listItemsOf(body, key) {
			out = append(out, it["id"].(float64))
		}
		return out
	}
	runRouteCases(t, s, []routeCase{
		{name: "the category counts events of every language", r: req{method: "GET", path: categoriesPath + "/" + utoa(cat)}, wantStatus: 200,
			want: map[string]any{"name": "Musique", "count": 3}},
		{name: "the tag counts events of every language", r: req{method: "GET", path: "/it" + tagsPath + "/" + utoa(tag) + "?translation_language=it"},
			wantStatus: 200, want: map[string]any{"name": "Live", "count": 2}},
		{name: "a category name is taken in every language", r: req{method: "POST", path: "/de" + categoriesPath, auth: adminAuth,
			body: map[string]any{"name": "Musique"}}, wantStatus: 400, wantCode: "term_exists", wantData: map[string]any{"term_id": cat}},
		{name: "a tag name is taken in every language", r: req{method: "POST", path: tagsPath + "?translation_language=es", auth: adminAuth,
			body: map[string]any{"name": "Live"}}, wantStatus: 400, wantCode: "term_exists", wantData: map[string]any{"term_id": tag}},
	})
	for _, key := range []string{"categories", "tags"} {
		p := "/calendar/events/v1/" + key
		want := ids(s.do(req{method: "GET", path: p}).json(t), key)
		for _, q := range []string{"/fr" + p, p + "?translation_language=de", "/nl" + p + "?translation_language=es"} {
			if diff := cmp.Diff(want, ids(s.do(req{method: "GET", path: q}).json(t), key)); diff != "" || len(want) != 1 {
				t.Errorf("GET %s: items (-%s +got):\n%s", q, p, diff)
			}
		}
	}
	for _, tc := range []struct {
		path, lang string
		want       []uint64
	}{
		{eventsPath + "?categories=musique", "en", []uint64{en}},
		{eventsPath + "?categories=" + utoa(cat) + "&translation_language=fr", "fr", []uint64{fr}},
		{"/de" + eventsPath + "?categories=musique", "de", []uint64{de}},
		{"/fr" + eventsPath + "?tags=live", "fr", nil},
		{"/de" + eventsPath + "?tags=live", "de", []uint64{de}},
		{eventsPath + "?tags=" + utoa(tag), "en", []uint64{en}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			wantEventIDs(t, s, "", tc.path, tc.lang, tc.want...)
		})
	}
}

// TestDefaultLanguageHasNoURLPart: lp(r) is "" for the configured default language only (0.2, 1.8).
func TestDefaultLanguageHasNoURLPart(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CALENDAR_DEFAULT_LANGUAGE=fr")
	fr, _ := createEvent(t, s, req{method: "POST", path: eventsPath, auth: adminAuth, body: langEvent("Concert", nil)}, "",
		map[string]any{"language": "fr", "slug": "concert", "translations": map[string]any{}})
	en, _ := createEvent(t, s, req{method: "POST", path: "/en" + eventsPath, auth: adminAuth,
		body: langEvent("Concert", map[string]any{"translation_of": fr})}, "/en",
		map[string]any{"language": "en", "slug": "concert", "translations": tr("fr", fr)})
	bal, _ := createEvent(t, s, req{method: "POST", path: "/fr" + eventsPath, auth: adminAuth, body: langEvent("Bal", nil)}, "",
		map[string]any{"language": "fr", "slug": "bal"})
	bySlug := eventsPath + "/by-slug/concert"
	runRouteCases(t, s, []routeCase{
		{name: "by slug without prefix is fr", r: req{method: "GET", path: bySlug}, wantStatus: 200,
			want: map[string]any{"id": fr, "language": "fr", "translations": tr("en", en), "url": testOrigin + "/event/concert/"}},
		{name: "by slug under /en", r: req{method: "GET", path: "/en" + bySlug}, wantStatus: 200,
			want: map[string]any{"id": en, "url": testOrigin + "/en/event/concert/",
				"rest_url": testOrigin + "/en/calendar/events/v1/events/" + utoa(en)}},
		{name: "the fr record under /fr has no language part", r: req{method: "GET", path: "/fr" + eventPath(fr)}, wantStatus: 200,
			want: map[string]any{"rest_url": nsURL + "/events/" + utoa(fr)}},
	})
	wantEventIDs(t, s, "", eventsPath, "fr", fr, bal)
	wantEventIDs(t, s, "", eventsPath+"?translation_language=en", "en", en)
}
