package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
		{name: "a venue named twice", path: eventsPath + "?venue=" + id("paris") + "," + id("paris"), want: []string{"concerts"},
			restURL: u("?venue=" + id("paris") + "%2C" + id("paris"))},
		{name: "an organizer named twice", path: eventsPath + "?organizer=" + id("alpha") + "," + id("alpha"), want: []string{"football", "concerts"},
			restURL: u("?organizer=" + id("alpha") + "%2C" + id("alpha"))},
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
				t.Errorf("rest_url %v, want %s (docs/API.md, Responses)", it["rest_url"], want)
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
			t.Errorf("body %s, want it to start with %s (docs/API.md, Parameters and bodies)", res.body, want)
		}
	})
	t.Run("GET bodies are ignored", func(t *testing.T) {
		for _, r := range []req{
			{method: "GET", path: eventsPath, body: map[string]any{"search": "zzzz", "per_page": 1}},
			{method: "GET", path: eventsPath, body: "search=zzzz&per_page=1", contentType: "application/x-www-form-urlencoded"},
		} {
			body := f.s.do(r).json(t)
			if body["total"] != float64(len(defaultEvents)) || body["rest_url"] != u("") {
				t.Errorf("GET with a %s body: total %v, rest_url %v (docs/API.md, Parameters and bodies)", r.contentType, body["total"], body["rest_url"])
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
				t.Errorf("HEAD %s %q, GET %q (docs/API.md, Parameters and bodies)", h, head.header.Get(h), get.header.Get(h))
			}
		}
	})
	t.Run("CORS exposes the totals", func(t *testing.T) {
		res := f.s.do(req{method: "GET", path: eventsPath, header: map[string]string{"Origin": "https://app.example"}})
		if got := res.header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "X-TEC-Total") || !strings.Contains(got, "X-TEC-TotalPages") {
			t.Errorf("Access-Control-Expose-Headers %q (docs/API.md, Responses)", got)
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
				t.Errorf("item keys %v, want exactly %v (docs/API.md, Parameters and bodies)", got, fields)
				continue
			}
			for _, k := range fields {
				if _, ok := it[k]; !ok {
					t.Errorf("item keys %v, want exactly %v (docs/API.md, Parameters and bodies)", got, fields)
				}
			}
		}
	}
}
