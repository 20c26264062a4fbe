package main

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage/datetime"
)

// End-to-end tests of the iCalendar feed, GET {ns}/events.ics. Every feed is read back with
// arran4/golang-ical, an RFC 5545 parser that shares no code with storage/ical, and compared with the
// JSON the API answers for the same events.

const feedPath = "/calendar/events/v1/events.ics"

// feedOf GETs a feed and parses it.
func (s *server) feedOf(t *testing.T, path, auth string) (*response, *ics.Calendar) {
	t.Helper()
	res := s.do(req{method: "GET", path: path, auth: auth})
	if res.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, res.status, res.body)
	}
	if got := res.header.Get("Content-Type"); got != "text/calendar; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q", path, got)
	}
	cal, err := ics.ParseCalendar(bytes.NewReader(res.body))
	if err != nil {
		t.Fatalf("GET %s: golang-ical: %v\n%s", path, err, res.body)
	}
	return res, cal
}

// feedIDs returns the event IDs of a feed's UIDs, in order.
func feedIDs(t *testing.T, cal *ics.Calendar) []uint64 {
	t.Helper()
	var ids []uint64
	for _, ev := range cal.Events() {
		uid := ev.GetProperty(ics.ComponentPropertyUniqueId).Value
		id, host, _ := strings.Cut(uid, "@")
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil || host != "cal.test" {
			t.Fatalf("UID %q, want <id>@cal.test", uid)
		}
		ids = append(ids, n)
	}
	return ids
}

// calendarProperty returns the value of a property of the VCALENDAR itself.
func calendarProperty(cal *ics.Calendar, name string) string {
	for _, p := range cal.CalendarProperties {
		if p.IANAToken == name {
			return p.Value
		}
	}
	return ""
}

// TestFeedMatchesList: a feed names the events the events list names for the same parameters and
// caller, in the same order, with the same total, and fails where the list fails, with the same
// envelope.
func TestFeedMatchesList(t *testing.T) {
	f := seedLists(t)
	s := f.s
	callers := []struct{ name, auth string }{{"anonymous", ""}, {"editor", f.editor}, {"contributor", f.connie}, {"subscriber", f.sub}}
	queries := []string{
		"",
		"start_date=2026-12-05&end_date=2026-12-05",
		"start_date=yesterday&end_date=yesterday",
		"end_date=2040-01-01",
		"search=jazz",
		"categories=" + f.id("music"), // and its child, jazz
		"tags=live,outdoor",
		"venue=" + f.id("lyon"),
		"organizer=" + f.id("alpha"),
		"featured=1",
		"featured=0",
		"geoloc=1",
		"geoloc=1&geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=50",
		"include=" + f.id("far") + "," + f.id("past"),
		"translation_language=de",
		"status=publish",
		"status=draft,pending",
		"categories=nope",
		"geoloc=1&geoloc_lat=48",
		"post_parent=" + f.id("yoga"),
	}
	for _, c := range callers {
		for _, prefix := range []string{"", "/fr"} {
			for _, q := range queries {
				t.Run(c.name+" "+prefix+" "+q, func(t *testing.T) {
					list := s.do(req{method: "GET", path: prefix + eventsPath + "?per_page=100&" + q, auth: c.auth})
					feed := s.do(req{method: "GET", path: prefix + feedPath + "?" + q, auth: c.auth})
					if list.status != http.StatusOK {
						if feed.status != list.status || !bytes.Equal(feed.body, list.body) {
							t.Fatalf("list answers %d %s\nfeed answers %d %s", list.status, list.body, feed.status, feed.body)
						}
						return
					}
					if feed.status != http.StatusOK {
						t.Fatalf("feed: %d %s", feed.status, feed.body)
					}
					var want []uint64
					for _, it := range listItemsOf(list.json(t), "events") {
						want = append(want, uint64(it["id"].(float64)))
					}
					cal, err := ics.ParseCalendar(bytes.NewReader(feed.body))
					if err != nil {
						t.Fatalf("golang-ical: %v", err)
					}
					if diff := cmp.Diff(describe(f.rec, want), describe(f.rec, feedIDs(t, cal))); diff != "" {
						t.Errorf("feed events (-list +feed):\n%s", diff)
					}
					if got, want := feed.header.Get("X-TEC-Total"), list.header.Get("X-TEC-Total"); got != want {
						t.Errorf("X-TEC-Total %q, the list's %q", got, want)
					}
					wantCache := "no-cache"
					if c.auth != "" {
						wantCache = authCacheControl
					}
					if got := feed.header.Get("Cache-Control"); got != wantCache {
						t.Errorf("Cache-Control %q, want %q", got, wantCache)
					}
				})
			}
		}
	}

	// X-WR-CALNAME names the filters, but never a record the caller may not read.
	cellar := feedPath + "?venue=" + f.id("cellar") + "&categories=jazz&search=night"
	for _, tc := range []struct{ auth, want string }{
		{"", "Calendar Events: “night”, Jazz"},
		{f.editor, "Calendar Events: “night”, Jazz, Connie Cellar"},
		{f.connie, "Calendar Events: “night”, Jazz, Connie Cellar"},
	} {
		if _, cal := s.feedOf(t, cellar, tc.auth); calendarProperty(cal, "X-WR-CALNAME") != tc.want {
			t.Errorf("X-WR-CALNAME for %q = %q, want %q", tc.auth, calendarProperty(cal, "X-WR-CALNAME"), tc.want)
		}
	}
}

// TestFeedEvents compares every property of every VEVENT with the JSON of the same event, and checks
// the file as bytes: line ends, folding, escaping, time zones across DST changes, all-day dates.
func TestFeedEvents(t *testing.T) {
	s := startServer(t)
	concert := concert()
	concert["title"] = "Jazz, Blues; Soul \\ Night"
	concert["description"] = "Doors open at 19:00; bring friends, and a coat.\n\n" +
		strings.Repeat("Ünïcödé façade — ", 8) + "Tom &amp; Jerry's <b>encore</b>."
	ids := []uint64{
		s.create(eventsPath, concert),
		// Paris springs forward at 02:00 on 2030-03-31: 22:00 to 04:00 lasts five hours.
		s.create(eventsPath, map[string]any{"title": "Spring Forward Party", "timezone": "Europe/Paris",
			"start_date": "2030-03-30 22:00:00", "end_date": "2030-03-31 04:00:00"}),
		// New York falls back at 02:00 on 2030-11-03: 23:00 to 03:00 lasts five hours.
		s.create(eventsPath, map[string]any{"title": "Fall Back Party", "timezone": "America/New_York",
			"start_date": "2030-11-02 23:00:00", "end_date": "2030-11-03 03:00:00"}),
		s.create(eventsPath, map[string]any{"title": "Street Festival", "all_day": true, "timezone": "America/New_York",
			"start_date": "2030-05-23", "end_date": "2030-05-24"}),
		s.create(eventsPath, map[string]any{"title": "Offset Meetup", "timezone": "UTC+5",
			"start_date": "2030-06-01 10:00:00", "end_date": "2030-06-01 11:30:00"}),
	}
	path := feedPath + "?end_date=2031-12-31"
	res, cal := s.feedOf(t, path, "")
	goldenFile(t, "feed_events.golden.ics", res.body)

	// The file as bytes.
	if !bytes.HasSuffix(res.body, []byte("\r\n")) {
		t.Error("the feed does not end in CRLF")
	}
	folded := false
	for i, line := range strings.Split(strings.TrimSuffix(string(res.body), "\r\n"), "\r\n") {
		switch {
		case len(line) > 75:
			t.Errorf("line %d has %d octets: %q", i+1, len(line), line)
		case strings.ContainsAny(line, "\r\n"):
			t.Errorf("line %d has a bare CR or LF: %q", i+1, line)
		case !utf8.ValidString(line):
			t.Errorf("line %d splits a UTF-8 sequence: %q", i+1, line)
		}
		folded = folded || strings.HasPrefix(line, " ")
	}
	if !folded {
		t.Error("no line is folded: the description should be")
	}
	for _, want := range []string{
		"\r\nSUMMARY:Jazz\\, Blues\\; Soul \\\\ Night\r\n",
		"\r\nDESCRIPTION:Doors open at 19:00\\; bring friends\\, and a coat.\\n\\n",
		"\r\nDTSTART;TZID=Europe/Paris:20300501T200000\r\n",
		"\r\nDTSTART;TZID=Europe/Paris:20300330T220000\r\nDTEND;TZID=Europe/Paris:20300331T040000\r\n",
		"\r\nDTSTART;VALUE=DATE:20300523\r\nDTEND;VALUE=DATE:20300525\r\n",
		"\r\nDTSTART:20300601T050000Z\r\nDTEND:20300601T063000Z\r\n",
	} {
		if !bytes.Contains(res.body, []byte(want)) {
			t.Errorf("the feed has no %q", want)
		}
	}

	// The calendar.
	for name, want := range map[string]string{"VERSION": "2.0", "PRODID": "-//calendard//calendard//EN",
		"X-WR-CALNAME": "Calendar Events", "X-WR-TIMEZONE": "UTC"} {
		if got := calendarProperty(cal, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	var zones []string
	for _, tz := range cal.Timezones() {
		zones = append(zones, tz.GetProperty(ics.ComponentPropertyTzid).Value)
	}
	if diff := cmp.Diff([]string{"America/New_York", "Europe/Paris"}, zones); diff != "" {
		t.Errorf("VTIMEZONEs (-want +got):\n%s", diff)
	}

	// Every event, in the list's order, field by field against its JSON.
	got := feedIDs(t, cal)
	if diff := cmp.Diff([]uint64{ids[1], ids[0], ids[3], ids[4], ids[2]}, got); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	for i, ev := range cal.Events() {
		e := s.do(req{method: "GET", path: eventsPath + "/" + utoa(got[i])}).json(t)
		t.Run(e["title"].(string), func(t *testing.T) {
			prop := func(name ics.ComponentProperty) string {
				if p := ev.GetProperty(name); p != nil {
					return p.Value
				}
				return ""
			}
			check := func(what, got, want string) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %q, want %q", what, got, want)
				}
			}
			modified, err := time.Parse(datetime.DB, e["modified_utc"].(string))
			if err != nil {
				t.Fatal(err)
			}
			check("SUMMARY", prop(ics.ComponentPropertySummary), e["title"].(string))
			check("URL", prop(ics.ComponentPropertyUrl), e["url"].(string))
			check("DTSTAMP", prop(ics.ComponentPropertyDtstamp), modified.Format("20060102T150405Z"))
			check("LAST-MODIFIED", prop(ics.ComponentPropertyLastModified), modified.Format("20060102T150405Z"))
			check("SEQUENCE", prop(ics.ComponentPropertySequence),
				strconv.FormatInt(modified.Unix()-time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), 10))
			var categories []string
			for _, c := range e["categories"].([]any) {
				categories = append(categories, c.(map[string]any)["name"].(string))
			}
			check("CATEGORIES", prop(ics.ComponentPropertyCategories), strings.Join(categories, ","))

			if e["all_day"] == true {
				start, err1 := ev.GetAllDayStartAt()
				end, err2 := ev.GetAllDayEndAt()
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				check("DTSTART", start.Format(time.DateOnly), e["start_date"].(string)[:10])
				check("DTEND", end.AddDate(0, 0, -1).Format(time.DateOnly), e["end_date"].(string)[:10])
				return
			}
			start, err1 := ev.GetStartAt()
			end, err2 := ev.GetEndAt()
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			check("DTSTART instant", start.UTC().Format(datetime.DB), e["utc_start_date"].(string))
			check("DTEND instant", end.UTC().Format(datetime.DB), e["utc_end_date"].(string))
			if zone := e["timezone"].(string); !strings.HasPrefix(zone, "UTC") {
				check("DTSTART TZID", strings.Join(ev.GetProperty(ics.ComponentPropertyDtStart).ICalParameters["TZID"], ","), zone)
				check("DTSTART wall clock", start.Format(datetime.DB), e["start_date"].(string))
				check("DTEND wall clock", end.Format(datetime.DB), e["end_date"].(string))
			}
			if strings.HasSuffix(e["title"].(string), "Party") && end.Sub(start) != 5*time.Hour {
				t.Errorf("lasts %v across the DST change, want 5h", end.Sub(start))
			}
		})
	}

	// The concert's venue, organizer and plain-text description; the others have none.
	ev := cal.Events()[1]
	for _, tc := range []struct {
		name ics.ComponentProperty
		want string
	}{
		{ics.ComponentPropertyDescription, "Doors open at 19:00; bring friends, and a coat.\n\n" +
			strings.Repeat("Ünïcödé façade — ", 7) + "Ünïcödé façade — Tom & Jerry's encore."},
		{ics.ComponentPropertyLocation, "Salle Pleyel, Paris, France"},
		{ics.ComponentPropertyGeo, "48.8;2.3"},
		{ics.ComponentPropertyOrganizer, "mailto:a@example.org"},
	} {
		if got := ev.GetProperty(tc.name).Value; got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, got, tc.want)
		}
	}
	if cn := ev.GetProperty(ics.ComponentPropertyOrganizer).ICalParameters["CN"]; len(cn) != 1 || cn[0] != "Org A" {
		t.Errorf("ORGANIZER CN %q", cn)
	}
	for _, ev := range append(cal.Events()[:1:1], cal.Events()[2:]...) {
		for _, name := range []ics.ComponentProperty{ics.ComponentPropertyLocation, ics.ComponentPropertyGeo,
			ics.ComponentPropertyOrganizer, ics.ComponentPropertyDescription, ics.ComponentPropertyCategories} {
			if p := ev.GetProperty(name); p != nil {
				t.Errorf("an event without it has %s %q", name, p.Value)
			}
		}
	}

	// Errors stay in the contract's envelope.
	bad := s.do(req{method: "GET", path: feedPath + "?geoloc=1&geoloc_lat=48"})
	if bad.status != http.StatusBadRequest || bad.header.Get("Content-Type") != "application/json; charset=UTF-8" {
		t.Fatalf("geoloc without a longitude: %d %s %s", bad.status, bad.header.Get("Content-Type"), bad.body)
	}
	golden(t, "feed_geoloc_missing", bad.body)
}

// TestFeedConditional: a calendar app that polls gets 304 while the feed is unchanged, whichever
// validator it sends, and the body again once anything it shows has changed, removals included.
func TestFeedConditional(t *testing.T) {
	s := startServer(t)
	jazz := s.create(eventsPath, concert())
	other := s.create(eventsPath, map[string]any{"title": "Blues Night", "start_date": "2030-06-01 20:00:00", "end_date": "2030-06-01 22:00:00"})
	path := feedPath + "?end_date=2031-12-31"
	get := func(method string, header map[string]string) *response {
		t.Helper()
		return s.do(req{method: method, path: path, header: header})
	}
	first := get("GET", nil)
	etag, modified := first.header.Get("ETag"), first.header.Get("Last-Modified")
	if first.status != http.StatusOK || !strings.HasPrefix(etag, `"`) || modified != "Sun, 22 Nov 2026 10:15:30 GMT" {
		t.Fatalf("first GET: %d, ETag %q, Last-Modified %q", first.status, etag, modified)
	}
	before := time.Date(2026, 11, 22, 10, 15, 29, 0, time.UTC).Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		method string
		header map[string]string
		want   int
	}{
		{"If-None-Match", "GET", map[string]string{"If-None-Match": etag}, 304},
		{"weak If-None-Match", "GET", map[string]string{"If-None-Match": "W/" + etag}, 304},
		{"If-None-Match among others", "GET", map[string]string{"If-None-Match": `"other", ` + etag}, 304},
		{"If-None-Match *", "GET", map[string]string{"If-None-Match": "*"}, 304},
		{"another ETag", "GET", map[string]string{"If-None-Match": `"other"`}, 200},
		{"If-Modified-Since", "GET", map[string]string{"If-Modified-Since": modified}, 304},
		{"If-Modified-Since earlier", "GET", map[string]string{"If-Modified-Since": before}, 200},
		{"If-None-Match wins over If-Modified-Since", "GET", map[string]string{"If-None-Match": `"other"`, "If-Modified-Since": modified}, 200},
		{"a malformed date is ignored", "GET", map[string]string{"If-Modified-Since": "yesterday"}, 200},
		{"HEAD", "HEAD", nil, 200},
		{"HEAD with If-None-Match", "HEAD", map[string]string{"If-None-Match": etag}, 304},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := get(tc.method, tc.header)
			if res.status != tc.want {
				t.Fatalf("status %d, want %d", res.status, tc.want)
			}
			if res.header.Get("ETag") != etag || res.header.Get("Last-Modified") != modified {
				t.Errorf("ETag %q, Last-Modified %q: not the first answer's", res.header.Get("ETag"), res.header.Get("Last-Modified"))
			}
			if wantBody := tc.want == 200 && tc.method == "GET"; wantBody != (len(res.body) > 0) || wantBody && !bytes.Equal(res.body, first.body) {
				t.Errorf("body of %d bytes, want the first answer's: %v", len(res.body), wantBody)
			}
		})
	}

	// changed answers the feed again and checks that it is a new body, and that the validators of the
	// previous one no longer match.
	changed := func(what string, prev *response) *response {
		t.Helper()
		res := get("GET", map[string]string{"If-Modified-Since": prev.header.Get("Last-Modified")})
		lastPrev, _ := http.ParseTime(prev.header.Get("Last-Modified"))
		last, err := http.ParseTime(res.header.Get("Last-Modified"))
		switch {
		case res.status != http.StatusOK:
			t.Fatalf("%s: If-Modified-Since the previous answer's: %d, want 200", what, res.status)
		case res.header.Get("ETag") == prev.header.Get("ETag"):
			t.Errorf("%s: the ETag has not changed", what)
		case err != nil || !last.After(lastPrev):
			t.Errorf("%s: Last-Modified %q, not after %q", what, res.header.Get("Last-Modified"), prev.header.Get("Last-Modified"))
		}
		if again := get("GET", map[string]string{"If-None-Match": prev.header.Get("ETag")}); again.status != http.StatusOK {
			t.Errorf("%s: If-None-Match the previous ETag: %d, want 200", what, again.status)
		}
		return res
	}
	edited := s.do(req{method: "PATCH", path: eventsPath + "/" + utoa(jazz), auth: adminAuth, body: map[string]any{"title": "Jazz Night II"}})
	if edited.status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", edited.status, edited.body)
	}
	second := changed("an edited event", first)

	// A write the feed does not show drops the cached answer but changes neither validator.
	s.create(venuesPath, map[string]any{"venue": "Unrelated Hall"})
	for _, h := range []map[string]string{{"If-None-Match": second.header.Get("ETag")}, {"If-Modified-Since": second.header.Get("Last-Modified")}} {
		if res := get("GET", h); res.status != http.StatusNotModified {
			t.Errorf("after an unrelated write, %v: %d, want 304", h, res.status)
		}
	}

	// An event that leaves the feed changes no event that stays: the validators move all the same.
	if res := s.do(req{method: "DELETE", path: eventsPath + "/" + utoa(other), auth: adminAuth}); res.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", res.status, res.body)
	}
	third := changed("a trashed event", second)
	if bytes.Contains(third.body, []byte("Blues Night")) {
		t.Error("the trashed event is still in the feed")
	}
}

// An independent expander of a feed, to hold it to the list: golang-ical reads the file and
// teambition/rrule-go expands each series as RFC 5545 section 3.8.5 says: DTSTART, the RRULE's
// instances (DTSTART counting as the first of a COUNT) and the RDATEs, less the EXDATEs at their exact
// times, each instance then replaced by the VEVENT whose RECURRENCE-ID names it. An instance is "<UTC start> <title>", or "<date> <title>" for
// an all-day one, as listedInstances writes the list's events.

// maxExpanded bounds expandFeed: a list has fewer events.
const maxExpanded = 10_000
