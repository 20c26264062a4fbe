package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"
	"github.com/google/go-cmp/cmp"
	"github.com/teambition/rrule-go"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// End-to-end tests of the iCalendar feed, GET {ns}/events.ics (issue 14). Every feed is read back with
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

// TestFeedCap: a feed holds the first 5000 events of the list's order, and X-TEC-Total says how many
// matched; a series cut there ends there.
func TestFeedCap(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	const n = 5003
	writes := make([]func(*storage.Bulk) error, n)
	for i := range n {
		// Descending starts, so the list's order is not the order of the IDs.
		start, err := datetime.Parse(time.Date(2027, 1, 1, 3*(n-i), 0, 0, 0, time.UTC).Format(datetime.DB))
		if err != nil {
			t.Fatal(err)
		}
		title := fmt.Sprint("Event ", i)
		writes[i] = func(b *storage.Bulk) error {
			_, err := b.CreateEvent("en", &storage.EventInput{PostInput: storage.PostInput{Title: &title}, Start: &start, End: &start})
			return err
		}
	}
	// In cluster mode, in as many transactions as etcd's limits take.
	if err := (&bulkWriter{db: s.app.db, a: admin}).write(ctx, writes); err != nil {
		t.Fatal(err)
	}
	s.settle()
	res, cal := s.feedOf(t, feedPath+"?end_date=2040-01-01", "")
	if got := res.header.Get("X-TEC-Total"); got != strconv.Itoa(n) {
		t.Errorf("X-TEC-Total %q, want %d", got, n)
	}
	ids := feedIDs(t, cal)
	if len(ids) != 5000 {
		t.Fatalf("%d events, want 5000", len(ids))
	}
	// The 5000th event of the list is the last of the feed.
	page := s.do(req{method: "GET", path: eventsPath + "?end_date=2040-01-01&per_page=100&page=50"}).json(t)
	items := listItemsOf(page, "events")
	if got, want := ids[len(ids)-1], uint64(items[len(items)-1]["id"].(float64)); got != want {
		t.Errorf("the feed ends with event %d, the list's 5000th is %d", got, want)
	}

	// A weekly series without an end among them ends at its last occurrence within the 5000.
	s.create(eventsURL, map[string]any{"title": "Weekly Class", "start_date": "2027-01-04 10:00:00", "end_date": "2027-01-04 11:00:00",
		"recurrence": []string{"RRULE:FREQ=WEEKLY"}})
	s.settle()
	cal = s.checkFeedExpandsToList(t, "end_date=2040-01-01", "")
	var rules []string
	for _, ev := range cal.Events() {
		if p := ev.GetProperty(ics.ComponentPropertyRrule); p != nil {
			rules = append(rules, p.Value)
		}
	}
	if len(rules) != 1 || !strings.HasPrefix(rules[0], "FREQ=WEEKLY;UNTIL=2028") {
		t.Errorf("RRULEs %q, want one ending in 2028, where the feed does", rules)
	}
}

// An independent expander of a feed, to hold it to the list: golang-ical reads the file and
// teambition/rrule-go expands each series as RFC 5545 section 3.8.5 says: DTSTART, the RRULE's
// instances (DTSTART counting as the first of a COUNT) and the RDATEs, less the EXDATEs at their exact
// times, each instance then replaced by the VEVENT whose RECURRENCE-ID names it. An instance is "<UTC start> <title>", or "<date> <title>" for
// an all-day one, as listedInstances writes the list's events.

// expandFeed returns the instances of every VEVENT of cal, sorted.
func expandFeed(t *testing.T, cal *ics.Calendar) []string {
	t.Helper()
	type instance struct{ start, title string }
	var out []string
	series := map[string]map[string]instance{} // UID → instance key → instance
	var overrides []*ics.VEvent
	for _, ev := range cal.Events() {
		if ev.GetProperty(ics.ComponentPropertyRecurrenceId) != nil {
			overrides = append(overrides, ev)
			continue
		}
		uid := ev.GetProperty(ics.ComponentPropertyUniqueId).Value
		title := ev.GetProperty(ics.ComponentPropertySummary).Value
		start, allDay := icsTime(t, ev.GetProperty(ics.ComponentPropertyDtStart), time.UTC)
		set := &rrule.Set{}
		set.RDate(start)
		for _, p := range ev.Properties {
			switch ics.ComponentProperty(p.IANAToken) {
			case ics.ComponentPropertyRrule:
				opt, err := rrule.StrToROptionInLocation(p.Value, start.Location())
				if err != nil {
					t.Fatalf("rrule-go: RRULE:%s: %v", p.Value, err)
				}
				opt.Dtstart = start
				r, err := rrule.NewRRule(*opt)
				if err != nil {
					t.Fatalf("rrule-go: RRULE:%s: %v", p.Value, err)
				}
				if first := r.After(start, true); opt.Count > 0 && !first.Equal(start) {
					// DTSTART is the first of COUNT instances even when the rule does not give it,
					// where rrule-go, as python-dateutil, counts only the rule's own.
					if opt.Count--; opt.Count == 0 {
						continue
					}
					if r, err = rrule.NewRRule(*opt); err != nil {
						t.Fatalf("rrule-go: RRULE:%s: %v", p.Value, err)
					}
				}
				set.RRule(r)
			case ics.ComponentPropertyRdate, ics.ComponentPropertyExdate:
				for _, v := range strings.Split(p.Value, ",") {
					one := p
					one.Value = v
					at, _ := icsTime(t, &ics.IANAProperty{BaseProperty: one.BaseProperty}, start.Location())
					if p.IANAToken == string(ics.ComponentPropertyRdate) {
						set.RDate(at)
					} else {
						set.ExDate(at)
					}
				}
			}
		}
		instances := map[string]instance{}
		next := set.Iterator()
		for at, ok := next(); ok; at, ok = next() {
			if len(instances) == maxExpanded {
				t.Fatalf("%s: more than %d instances: a rule without an end", uid, maxExpanded)
			}
			instances[instanceOf(at, allDay)] = instance{instanceOf(at, allDay), title}
		}
		if series[uid] != nil {
			t.Fatalf("UID %s names two series", uid)
		}
		series[uid] = instances
	}
	for _, ev := range overrides {
		uid := ev.GetProperty(ics.ComponentPropertyUniqueId).Value
		id, allDay := icsTime(t, ev.GetProperty(ics.ComponentPropertyRecurrenceId), time.UTC)
		key := instanceOf(id, allDay)
		if _, ok := series[uid][key]; !ok {
			t.Fatalf("%s: RECURRENCE-ID %s names no instance of its series", uid, key)
		}
		start, allDay := icsTime(t, ev.GetProperty(ics.ComponentPropertyDtStart), time.UTC)
		series[uid][key] = instance{instanceOf(start, allDay), ev.GetProperty(ics.ComponentPropertySummary).Value}
	}
	for _, instances := range series {
		for _, in := range instances {
			out = append(out, in.start+" "+in.title)
		}
	}
	slices.Sort(out)
	return out
}

// maxExpanded bounds expandFeed: a list has fewer events.
const maxExpanded = 10_000

// icsTime reads a DTSTART, RECURRENCE-ID, RDATE or EXDATE value: a date, a UTC date-time, or a
// date-time in its TZID, else in loc. It reports whether it is a date.
func icsTime(t *testing.T, p *ics.IANAProperty, loc *time.Location) (time.Time, bool) {
	t.Helper()
	if tzid := p.ICalParameters["TZID"]; len(tzid) == 1 {
		var err error
		if loc, err = time.LoadLocation(tzid[0]); err != nil {
			t.Fatalf("TZID %q: %v", tzid[0], err)
		}
	}
	for _, f := range []struct {
		layout string
		allDay bool
	}{{"20060102", true}, {"20060102T150405Z", false}, {"20060102T150405", false}} {
		if len(p.Value) != len(f.layout) {
			continue
		}
		at, err := time.ParseInLocation(f.layout, p.Value, loc)
		if f.layout[len(f.layout)-1] == 'Z' {
			at, err = time.Parse(f.layout, p.Value)
		}
		if err == nil {
			return at, f.allDay
		}
	}
	t.Fatalf("%s: %q is not a date or date-time", p.IANAToken, p.Value)
	return time.Time{}, false
}

// instanceOf writes an instance's start: its date when all-day, else its UTC instant.
func instanceOf(at time.Time, allDay bool) string {
	if allDay {
		return at.Format(time.DateOnly)
	}
	return at.UTC().Format(datetime.DB) + "Z"
}

// listedInstances returns the events the list answers for query and caller, as many as a feed holds
// (the first pages up to handlers.MaxFeedEvents), as expandFeed writes instances, sorted.
func (s *server) listedInstances(t *testing.T, query, auth string) []string {
	t.Helper()
	var out []string
	for page, pages := 1, 1; page <= min(pages, handlers.MaxFeedEvents/100); page++ {
		res := s.do(req{method: "GET", path: fmt.Sprintf("%s?per_page=100&page=%d&%s", eventsPath, page, query), auth: auth})
		if res.status != http.StatusOK {
			t.Fatalf("GET events?%s: %d %s", query, res.status, res.body)
		}
		pages, _ = strconv.Atoi(res.header.Get("X-TEC-TotalPages"))
		for _, e := range listItemsOf(res.json(t), "events") {
			start := fmt.Sprint(e["utc_start_date"]) + "Z"
			if e["all_day"] == true {
				start = fmt.Sprint(e["start_date"])[:10]
			}
			out = append(out, start+" "+fmt.Sprint(e["title"]))
		}
	}
	slices.Sort(out)
	return out
}

// checkFeedExpandsToList fails unless the feed for query and caller, expanded, is the list's events.
func (s *server) checkFeedExpandsToList(t *testing.T, query, auth string) *ics.Calendar {
	t.Helper()
	_, cal := s.feedOf(t, feedPath+"?"+query, auth)
	if diff := cmp.Diff(s.listedInstances(t, query, auth), expandFeed(t, cal)); diff != "" {
		t.Errorf("%s (caller %q): feed expanded (-list +feed):\n%s", query, auth, diff)
	}
	return cal
}

// TestFeedSeriesNoPhantom: the series of ten whose occurrences were edited out of the request's
// filters one by one (retitled out of a search, recategorised out of a category, moved out of the
// dates, made a draft the anonymous caller cannot see) shows, expanded, exactly the list's events
// for every filter: the rule no longer gives the occurrences the list leaves out.
func TestFeedSeriesNoPhantom(t *testing.T) {
	s := startServer(t)
	singing := s.create(categoriesPath, map[string]any{"name": "Singing"})
	dance := s.create(categoriesPath, map[string]any{"name": "Dance"})
	body := choir("RRULE:FREQ=WEEKLY;COUNT=10")
	body["categories"] = []uint64{singing}
	parent := s.create(eventsURL, body)
	s.settle()
	occ := s.list(t, fmt.Sprintf("post_parent=%d", parent)).events // 12-08 … 2027-02-02, nine
	s.patch(t, occ[1]["id"], map[string]any{"title": "Orchestra"})
	s.patch(t, occ[3]["id"], map[string]any{"categories": []uint64{dance}})
	s.patch(t, occ[5]["id"], map[string]any{"start_date": "2027-03-16 19:00:00", "end_date": "2027-03-16 21:00:00"})
	s.patch(t, occ[6]["id"], map[string]any{"start_date": "2027-01-19 20:30:00", "end_date": "2027-01-19 22:30:00"})
	s.patch(t, occ[7]["id"], map[string]any{"status": "draft"})
	s.settle()

	dates := "start_date=2026-11-30&end_date=2027-02-28"
	for _, q := range []string{
		"",
		"search=choir",
		"categories=" + utoa(singing),
		dates,
		"search=choir&categories=" + utoa(singing) + "&" + dates,
		"end_date=2026-12-20",
		"start_date=2026-12-01&end_date=2026-12-01",
		"hide_subsequent_recurrences=1",
		"post_parent=" + utoa(parent),
		"include=" + fmt.Sprint(parent, ",", occ[2]["id"]),
	} {
		for _, auth := range []string{"", adminAuth} {
			t.Run(q+" "+auth, func(t *testing.T) { s.checkFeedExpandsToList(t, q, auth) })
		}
	}
	s.checkFeedExpandsToList(t, "status=publish,draft", adminAuth)

	// The case: the search leaves out the retitled occurrence, the category the recategorised
	// one, the dates the moved one; the series stays one VEVENT, and the rule excludes the three.
	cal := s.checkFeedExpandsToList(t, "search=choir&categories="+utoa(singing)+"&"+dates, adminAuth)
	if got := len(expandFeed(t, cal)); got != 7 {
		t.Errorf("%d events, want the ten less three", got)
	}
	var rules, exdates []string
	for _, ev := range cal.Events() {
		if p := ev.GetProperty(ics.ComponentPropertyRrule); p != nil {
			rules = append(rules, p.Value)
			for _, p := range ev.Properties {
				if p.IANAToken == string(ics.ComponentPropertyExdate) {
					exdates = append(exdates, p.Value)
				}
			}
		}
	}
	if want := []string{"FREQ=WEEKLY;COUNT=10"}; !slices.Equal(rules, want) {
		t.Errorf("RRULEs %q, want %q", rules, want)
	}
	if want := []string{"20261215T190000,20261229T190000,20270112T190000"}; !slices.Equal(exdates, want) {
		t.Errorf("EXDATEs %q, want %q", exdates, want)
	}
}

// TestFeedSeriesProperty: for random series (daily, weekly and monthly rules with a COUNT, an UNTIL
// or no end, in zones with and without DST, all-day or not, starting before or after today) whose
// occurrences were moved, retitled, recategorised, trashed, made drafts, hidden, moved to another zone
// or made all-day (or timed), every feed of random filters, for an anonymous caller or an
// administrator, expands to exactly the list's events.
func TestFeedSeriesProperty(t *testing.T) {
	s := startServer(t)
	rng := rand.New(rand.NewPCG(36, 1))
	pick := func(n int) int { return rng.IntN(n) }
	words := []string{"Alpha", "Bravo", "Charlie", "Delta", "Echo"}
	var cats []uint64
	for _, name := range []string{"Red", "Green", "Blue"} {
		cats = append(cats, s.create(categoriesPath, map[string]any{"name": name}))
	}
	title := func() string { return words[pick(len(words))] + " " + words[pick(len(words))] }
	zones := []string{"Europe/Paris", "America/New_York", "UTC", "UTC+5"}
	rules := []string{"FREQ=DAILY;COUNT=%d", "FREQ=DAILY;INTERVAL=2;UNTIL=20270301T000000Z", "FREQ=WEEKLY;COUNT=%d",
		"FREQ=WEEKLY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=%d", "FREQ=MONTHLY;COUNT=%d", "FREQ=MONTHLY;BYMONTHDAY=-1"}
	var parents []uint64
	for range 12 {
		start := time.Date(2026, 10, 1, pick(24), 30*pick(2), 0, 0, time.UTC).AddDate(0, 0, pick(150))
		end := start.Add(time.Duration(1+pick(3)) * time.Hour)
		rule := rules[pick(len(rules))]
		if strings.Contains(rule, "%d") {
			rule = fmt.Sprintf(rule, 2+pick(14))
		}
		body := map[string]any{"title": title(), "timezone": zones[pick(len(zones))], "categories": []uint64{cats[pick(len(cats))]},
			"start_date": start.Format(datetime.DB), "end_date": end.Format(datetime.DB), "recurrence": []string{"RRULE:" + rule}}
		if pick(5) == 0 {
			body["all_day"] = true
			body["start_date"], body["end_date"] = start.Format(time.DateOnly), start.AddDate(0, 0, pick(2)).Format(time.DateOnly)
		}
		parents = append(parents, s.create(eventsURL, body))
	}
	s.settle()
	for _, parent := range parents {
		occ := s.list(t, fmt.Sprintf("post_parent=%d&per_page=100&start_date=2026-01-01&end_date=2029-12-31", parent)).events
		for _, o := range occ {
			path := fmt.Sprintf("%s/%v", eventsURL, o["id"])
			var change map[string]any
			switch pick(16) {
			case 0:
				start, err := time.Parse(datetime.DB, o["start_date"].(string))
				if err != nil {
					t.Fatal(err)
				}
				end, err := time.Parse(datetime.DB, o["end_date"].(string))
				if err != nil {
					t.Fatal(err)
				}
				by := time.Duration(pick(96)-48) * time.Hour
				change = map[string]any{"start_date": start.Add(by).Format(datetime.DB), "end_date": end.Add(by).Format(datetime.DB)}
			case 1:
				change = map[string]any{"title": title()}
			case 2:
				change = map[string]any{"categories": []uint64{cats[pick(len(cats))]}}
			case 3:
				if res := s.do(req{method: "DELETE", path: path, auth: adminAuth}); res.status != http.StatusOK {
					t.Fatalf("DELETE %s: %d %s", path, res.status, res.body)
				}
			case 4:
				change = map[string]any{"status": "draft"}
			case 5:
				change = map[string]any{"hide_from_listings": true}
			case 6:
				change = map[string]any{"timezone": zones[pick(len(zones))]}
			case 7:
				day := o["start_date"].(string)[:10]
				change = map[string]any{"all_day": true, "start_date": day, "end_date": day}
				if o["all_day"] == true {
					change = map[string]any{"all_day": false, "start_date": day + " 12:00:00", "end_date": day + " 13:00:00"}
				}
			}
			if change != nil {
				s.patch(t, o["id"], change)
			}
		}
	}
	s.settle()

	day := func() string {
		return time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC).AddDate(0, 0, pick(300)).Format(time.DateOnly)
	}
	for i := range 60 {
		var q []string
		if pick(2) == 0 {
			q = append(q, "search="+strings.ToLower(words[pick(len(words))]))
		}
		if pick(3) == 0 {
			q = append(q, fmt.Sprint("categories=", cats[pick(len(cats))]))
		}
		if pick(2) == 0 {
			q = append(q, "start_date="+day())
		}
		if pick(2) == 0 {
			q = append(q, "end_date="+day())
		}
		if pick(8) == 0 {
			q = append(q, "hide_subsequent_recurrences=1")
		}
		auth := ""
		if pick(2) == 0 {
			auth = adminAuth
			if pick(3) == 0 {
				q = append(q, "status=publish,draft")
			}
		}
		query := strings.Join(q, "&")
		t.Run(fmt.Sprint(i, " ", query, " ", auth != ""), func(t *testing.T) { s.checkFeedExpandsToList(t, query, auth) })
	}
}

// TestFeedSeriesForms: the other forms a series takes in the feed, each expanding to the list. An
// occurrence kept after its parent's rule stopped giving its date, or made all-day in a series that is
// not, is an event of its own, one moved to another zone still an override; a series whose dates left
// out would outnumber its events in the answer, or whose rule excludes its parent, is written as those
// events, without a rule.
func TestFeedSeriesForms(t *testing.T) {
	s := startServer(t)
	yoga := map[string]any{"title": "Yoga", "timezone": "Europe/Paris", "start_date": "2026-12-02 09:00:00",
		"end_date": "2026-12-02 10:00:00", "recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=6"}}
	parent := s.create(eventsURL, yoga)
	s.settle()
	occ := s.list(t, fmt.Sprintf("post_parent=%d", parent)).events
	kept := occ[3]["id"]
	s.patch(t, kept, map[string]any{"title": "Yoga with guests"})
	s.patch(t, occ[0]["id"], map[string]any{"title": "Yoga retreat", "all_day": true, "start_date": "2026-12-09", "end_date": "2026-12-10"})
	s.patch(t, occ[1]["id"], map[string]any{"title": "Yoga in New York", "timezone": "America/New_York",
		"start_date": "2026-12-16 09:00:00", "end_date": "2026-12-16 10:00:00"})
	s.patch(t, parent, map[string]any{"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=4"}})

	pilates := map[string]any{"title": "Pilates", "start_date": "2026-12-03 18:00:00", "end_date": "2026-12-03 19:00:00",
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=6"}}
	daily := s.create(eventsURL, pilates)
	// A series that excludes its own first date: whether the list shows the parent or not, the feed
	// shows the same.
	s.create(eventsURL, map[string]any{"title": "Tai chi", "timezone": "Europe/Paris", "start_date": "2026-12-05 09:00:00",
		"end_date": "2026-12-05 10:00:00", "recurrence": []string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=Europe/Paris:20261205T090000"}})
	s.settle()
	for _, o := range s.list(t, fmt.Sprintf("post_parent=%d", daily)).events[:4] {
		s.patch(t, o["id"], map[string]any{"title": "Stretching"})
	}
	s.settle()

	// uids returns the UID of each VEVENT with the given SUMMARY, and whether one has a rule.
	uids := func(cal *ics.Calendar, summary string) (ids []string, rule bool) {
		for _, ev := range cal.Events() {
			if ev.GetProperty(ics.ComponentPropertySummary).Value == summary {
				ids = append(ids, ev.GetProperty(ics.ComponentPropertyUniqueId).Value)
				rule = rule || ev.GetProperty(ics.ComponentPropertyRrule) != nil
			}
		}
		return ids, rule
	}
	cal := s.checkFeedExpandsToList(t, "", "")
	for _, tc := range []struct {
		title string
		want  any
	}{
		{"Yoga with guests", kept},     // the rule no longer gives its date
		{"Yoga retreat", occ[0]["id"]}, // all-day in a series that is not
		{"Yoga in New York", parent},   // another zone: still an override
	} {
		if ids, _ := uids(cal, tc.title); !slices.Equal(ids, []string{fmt.Sprint(tc.want, "@cal.test")}) {
			t.Errorf("%s: UIDs %q, want %v@cal.test", tc.title, ids, tc.want)
		}
	}
	if _, rule := uids(cal, "Pilates"); !rule {
		t.Error("unfiltered, the daily series has no rule")
	}
	cal = s.checkFeedExpandsToList(t, "search=pilates", "")
	if ids, rule := uids(cal, "Pilates"); len(ids) != 2 || rule {
		t.Errorf("the daily series among its retitled occurrences: UIDs %q, a rule %v; want two events without", ids, rule)
	}
}

// TestFeedsPerClient: a client with CALENDAR_FEEDS_PER_CLIENT feed answers in flight (here two
// clients that read them slowly) gets 429 rest_too_many_requests with Retry-After for a third, while
// other clients, behind the trusted proxy or not, get theirs; once an answer has been written, its
// client may ask again. The feed is larger than the kernel's socket buffers, so that an answer whose
// client reads nothing stays in flight.
func TestFeedsPerClient(t *testing.T) {
	s := startServer(t, "CALENDAR_FEEDS_PER_CLIENT=2", "CALENDAR_TRUSTED_PROXIES=127.0.0.1/32")
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	description := strings.Repeat("A long evening of jazz standards. ", 64_000/34)
	writes := make([]func(*storage.Bulk) error, 160) // a feed of 10 MB
	for i := range writes {
		title := fmt.Sprint("Long night ", i)
		start, err := datetime.Parse(time.Date(2027, 1, 1+i%28, 20, 0, 0, 0, time.UTC).Format(datetime.DB))
		if err != nil {
			t.Fatal(err)
		}
		writes[i] = func(b *storage.Bulk) error {
			_, err := b.CreateEvent("en", &storage.EventInput{PostInput: storage.PostInput{Title: &title, Description: &description}, Start: &start, End: &start})
			return err
		}
	}
	// Ten at a time: in cluster mode, etcd's client refuses a message of over 2 MiB before the store
	// could tell that the transaction is too large and split it.
	for part := range slices.Chunk(writes, 10) {
		if err := (&bulkWriter{db: s.app.db, a: admin}).write(context.Background(), part); err != nil {
			t.Fatal(err)
		}
	}
	s.settle()
	const path = feedPath + "?end_date=2027-12-31"
	const client = "203.0.113.7"
	first := s.do(req{method: "GET", path: path, header: map[string]string{"X-Forwarded-For": "198.51.100.1"}})
	if first.status != http.StatusOK || len(first.body) < 8<<20 {
		t.Fatalf("the feed: %d, %d bytes, want 200 and more than the socket buffers hold", first.status, len(first.body))
	}

	// stalled asks for the feed as client on a connection of its own that receives into a buffer of a
	// few kilobytes, and reads the status line only: the server then writes the answer until the
	// kernel's buffers are full, and waits, holding one of the client's places.
	stalled := func() (net.Conn, *bufio.Reader) {
		t.Helper()
		d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
			var err error
			if cerr := c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
				return cerr
			}
			return err
		}}
		conn, err := d.Dial("tcp", s.ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		br := bufio.NewReaderSize(conn, 512)
		return conn, br
	}
	ask := func(conn net.Conn, br *bufio.Reader) {
		t.Helper()
		if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: cal.test\r\nX-Forwarded-For: %s\r\n\r\n", path, client); err != nil {
			t.Fatal(err)
		}
		if line, err := br.ReadString('\n'); err != nil || line != "HTTP/1.1 200 OK\r\n" {
			t.Fatalf("status line %q (%v), want 200", line, err)
		}
	}
	// drain reads the rest of the answer whose status line was read.
	drain := func(br *bufio.Reader) []byte {
		t.Helper()
		res, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader("HTTP/1.1 200 OK\r\n"), br)), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	connA, brA := stalled()
	ask(connA, brA)
	connB, brB := stalled()
	ask(connB, brB)

	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"the client", map[string]string{"X-Forwarded-For": client}, http.StatusTooManyRequests},
		{"another client behind the proxy", map[string]string{"X-Forwarded-For": "198.51.100.2"}, http.StatusOK},
		{"the proxy's own address", nil, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(req{method: "GET", path: path, header: tc.header})
			if res.status != tc.want {
				t.Fatalf("%d, want %d", res.status, tc.want)
			}
			if tc.want == http.StatusOK {
				if !bytes.Equal(res.body, first.body) {
					t.Errorf("a body of %d bytes, not the feed's %d", len(res.body), len(first.body))
				}
				return
			}
			if env := res.json(t); env["code"] != "rest_too_many_requests" || res.header.Get("Retry-After") != "1" {
				t.Errorf("code %v, Retry-After %q; want rest_too_many_requests and 1", env["code"], res.header.Get("Retry-After"))
			}
		})
	}

	// The server reads a connection's next request once its answer to the previous one is written:
	// A asking again, while B still holds a place, is answered only if A's first place was given back.
	if body := drain(brA); !bytes.Equal(body, first.body) {
		t.Fatalf("the stalled answer: %d bytes, not the feed's %d", len(body), len(first.body))
	}
	ask(connA, brA)
	drain(brA)
	drain(brB)
}
