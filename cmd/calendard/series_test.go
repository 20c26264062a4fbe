package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/teambition/rrule-go"
)

const eventsURL = "/calendar/events/v1/events"

func choir(lines ...string) map[string]any {
	return map[string]any{"title": "Choir", "start_date": "2026-12-01 19:00:00", "end_date": "2026-12-01 21:00:00",
		"timezone": "Europe/Paris", "categories": "Singing", "recurrence": lines}
}

// listed is one page of the events list: its events and its totals.
type listed struct {
	events      []map[string]any
	total       float64
	totalPages  string
	statusFound int
}

func (s *server) list(t *testing.T, query string) listed {
	t.Helper()
	res := s.do(req{method: "GET", path: eventsURL + "?" + query, auth: adminAuth})
	if res.status != http.StatusOK {
		t.Fatalf("GET events?%s: %d\n%s", query, res.status, res.body)
	}
	body := res.json(t)
	l := listed{total: body["total"].(float64), totalPages: res.header.Get("X-TEC-TotalPages"), statusFound: res.status}
	for _, e := range body["events"].([]any) {
		l.events = append(l.events, e.(map[string]any))
	}
	return l
}

func field(events []map[string]any, name string) []string {
	var out []string
	for _, e := range events {
		out = append(out, fmt.Sprint(e[name]))
	}
	return out
}

func (s *server) event(t *testing.T, id any) map[string]any {
	t.Helper()
	res := s.do(req{method: "GET", path: fmt.Sprintf("%s/%v", eventsURL, id), auth: adminAuth})
	if res.status != http.StatusOK {
		t.Fatalf("GET event %v: %d\n%s", id, res.status, res.body)
	}
	return res.json(t)
}

func (s *server) patch(t *testing.T, id any, body map[string]any) {
	t.Helper()
	if res := s.do(req{method: "POST", path: fmt.Sprintf("%s/%v", eventsURL, id), auth: adminAuth, body: body}); res.status != http.StatusOK {
		t.Fatalf("update event %v: %d\n%s", id, res.status, res.body)
	}
}

// TestSeriesOverHTTP walks a series through the API: its occurrences are events of the lists, the
// parent's edits reach them, an edited one is kept, trashing excludes, trashing the parent ends it.
func TestSeriesOverHTTP(t *testing.T) {
	s := startServer(t)
	other := s.create(eventsURL, map[string]any{"title": "Yoga", "start_date": "2026-12-02 08:00:00", "end_date": "2026-12-02 09:00:00"})
	parent := s.create(eventsURL, choir("RRULE:FREQ=WEEKLY;COUNT=10"))
	s.settle()

	p := s.event(t, parent)
	if fmt.Sprint(p["recurrence"]) != "[RRULE:FREQ=WEEKLY;COUNT=10]" || p["post_parent"] != nil {
		t.Errorf("parent: recurrence %v, post_parent %v", p["recurrence"], p["post_parent"])
	}
	series := s.list(t, fmt.Sprintf("post_parent=%d&per_page=50", parent))
	if series.total != 9 || series.events[0]["slug"] != "choir-2026-12-08" || series.events[0]["start_date"] != "2026-12-08 19:00:00" {
		t.Fatalf("post_parent: total %v, first %v %v", series.total, series.events[0]["slug"], series.events[0]["start_date"])
	}
	for _, e := range series.events {
		if e["post_parent"] != float64(parent) || e["recurrence"] != nil || e["title"] != "Choir" {
			t.Errorf("occurrence %v: post_parent %v, recurrence %v, title %v", e["id"], e["post_parent"], e["recurrence"], e["title"])
		}
	}
	if l := s.list(t, fmt.Sprintf("post_parent=%d", other)); l.total != 0 {
		t.Errorf("post_parent of a plain event: %v events", l.total)
	}

	// Collapsed lists count a series once, from its first occurrence inside the window.
	if l := s.list(t, "per_page=5"); l.total != 11 || l.totalPages != "3" {
		t.Errorf("full list: total %v, pages %s", l.total, l.totalPages)
	}
	collapsed := s.list(t, "per_page=1&hide_subsequent_recurrences=1")
	if collapsed.total != 2 || collapsed.totalPages != "2" || collapsed.events[0]["id"] != float64(parent) {
		t.Errorf("collapsed: total %v, pages %s, first %v", collapsed.total, collapsed.totalPages, collapsed.events[0]["id"])
	}
	later := s.list(t, "start_date=2027-01-01&hide_subsequent_recurrences=true")
	if later.total != 1 || later.events[0]["slug"] != "choir-2027-01-05" {
		t.Errorf("collapsed from January: total %v, %v", later.total, field(later.events, "slug"))
	}
	if l := s.list(t, "search=choir&hide_subsequent_recurrences=1"); l.total != 1 {
		t.Errorf("collapsed search: %v", l.total)
	}
	cats := s.do(req{method: "GET", path: "/calendar/events/v1/categories?search=singing"}).json(t)["categories"].([]any)
	if count := cats[0].(map[string]any)["count"]; count != float64(10) {
		t.Errorf("category count %v, want the 10 events of the series", count)
	}

	// An edited occurrence is an exception; the parent's edits and a new rule leave it as it is.
	exception := series.events[2]["id"] // 2026-12-22
	s.patch(t, exception, map[string]any{"title": "Choir with guests"})
	s.patch(t, parent, map[string]any{"title": "Grand choir", "recurrence": []string{"RRULE:FREQ=WEEKLY;INTERVAL=3;COUNT=4"}})
	s.settle()
	series = s.list(t, fmt.Sprintf("post_parent=%d", parent))
	if got := field(series.events, "title"); !slices.Equal(got, []string{"Choir with guests", "Grand choir", "Grand choir"}) {
		t.Errorf("titles after the rule change: %v", got)
	}
	if got := field(series.events, "start_date"); !slices.Equal(got, []string{"2026-12-22 19:00:00", "2027-01-12 19:00:00", "2027-02-02 19:00:00"}) {
		t.Errorf("starts after the rule change: %v", got)
	}

	// Trashing an occurrence excludes its day from the rule.
	gone := series.events[1]["id"]
	if res := s.do(req{method: "DELETE", path: fmt.Sprintf("%s/%v", eventsURL, gone), auth: adminAuth}); res.status != http.StatusOK {
		t.Fatalf("DELETE occurrence: %d\n%s", res.status, res.body)
	}
	s.settle()
	if rec := fmt.Sprint(s.event(t, parent)["recurrence"]); !strings.Contains(rec, "EXDATE;TZID=Europe/Paris:20270112T190000") {
		t.Errorf("recurrence after trashing an occurrence: %s", rec)
	}
	if l := s.list(t, fmt.Sprintf("post_parent=%d", parent)); l.total != 2 {
		t.Errorf("series after trashing one: %v", field(l.events, "start_date"))
	}

	// Trashing the parent ends the series.
	if res := s.do(req{method: "DELETE", path: fmt.Sprintf("%s/%d", eventsURL, parent), auth: adminAuth}); res.status != http.StatusOK {
		t.Fatalf("DELETE parent: %d\n%s", res.status, res.body)
	}
	s.settle()
	if l := s.list(t, "per_page=50"); l.total != 1 || l.events[0]["id"] != float64(other) {
		t.Errorf("after trashing the parent: %v", field(l.events, "title"))
	}
}

// TestSeriesRejectsRules: a rule the series cannot hold is 400 rest_invalid_param naming the line.
func TestSeriesRejectsRules(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct {
		name string
		body any
		code string
	}{
		{"hourly", []string{"RRULE:FREQ=HOURLY;COUNT=3"}, "rest_invalid_param"},
		{"unknown property", []string{"EXRULE:FREQ=DAILY"}, "rest_invalid_param"},
		{"UNTIL before the start", []string{"RRULE:FREQ=DAILY;UNTIL=20261130T230000Z"}, "rest_invalid_param"},
		{"not a list", map[string]any{"freq": "daily"}, "rest_invalid_type"},
		{"a 500 KB line", []string{"RRULE:FREQ=DAILY;X=" + strings.Repeat("y", 500_000)}, "rest_invalid_param"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := choir()
			body["recurrence"] = tc.body
			res := s.do(req{method: "POST", path: eventsURL, auth: adminAuth, body: body})
			if res.status != http.StatusBadRequest {
				t.Fatalf("status %d\n%s", res.status, res.body)
			}
			b := res.json(t)
			detail, _ := b["data"].(map[string]any)["details"].(map[string]any)["recurrence"].(map[string]any)
			if b["code"] != "rest_invalid_param" || detail["code"] != tc.code {
				t.Fatalf("answer %s", res.body)
			}
			msg := fmt.Sprint(detail["message"])
			if lines, ok := tc.body.([]string); ok && len(lines[0]) < 60 && !strings.Contains(msg, lines[0]) {
				t.Errorf("message %v does not quote %q", msg, lines[0])
			}
			if len(msg) > 200 {
				t.Errorf("message of %d bytes: %.300s", len(msg), msg)
			}
		})
	}
}

// TestSeriesTextBound: the daily series with a 65 KB description that took a node down
// is refused whole with a 400 naming the bound, and nothing of it is stored.
func TestSeriesTextBound(t *testing.T) {
	s := startServer(t)
	before := s.list(t, "start_date=2020-01-01&end_date=2030-01-01&status=publish,draft").total
	words := make([]string, 0, 11_000)
	for i := range cap(words) {
		words = append(words, fmt.Sprintf("w%05d", i*7919%100_000))
	}
	body := map[string]any{"title": "Amp", "description": strings.Join(words, " ")[:65_000], "start_date": "2025-01-01 10:00",
		"end_date": "2025-01-01 11:00", "recurrence": []string{"RRULE:FREQ=DAILY"}}
	res := s.do(req{method: "POST", path: eventsURL, auth: adminAuth, body: body})
	if res.status != http.StatusBadRequest {
		t.Fatalf("status %d\n%.300s", res.status, res.body)
	}
	b := res.json(t)
	detail, _ := b["data"].(map[string]any)["details"].(map[string]any)["recurrence"].(map[string]any)
	if b["code"] != "rest_invalid_param" || !strings.Contains(fmt.Sprint(detail["message"]), "8388608 bytes a series may copy") {
		t.Fatalf("answer %.500s", res.body)
	}
	if after := s.list(t, "start_date=2020-01-01&end_date=2030-01-01&status=publish,draft").total; after != before {
		t.Errorf("the refused series left %v events, want %v", after, before)
	}
}

// TestSeriesHorizonJob: the daily job, run on the service's clock, adds what came inside the
// horizon, and a form field of lines is a rule too.
func TestSeriesHorizonJob(t *testing.T) {
	s := startServer(t)
	body := choir()
	body["recurrence"] = "RRULE:FREQ=MONTHLY\r\nEXDATE;VALUE=DATE:20270301"
	parent := s.create(eventsURL, body)
	s.settle()
	all := fmt.Sprintf("post_parent=%d&per_page=50&start_date=2026-01-01&end_date=2030-01-01", parent)
	if l := s.list(t, all); l.total != 23 {
		t.Fatalf("%v occurrences, want 24 months less one exclusion", l.total)
	}
	s.stop()
	later := "2027-03-10T00:00:00Z"
	getenv := overlay(func(k string) string {
		return map[string]string{"CALENDAR_NOW": later, "CALENDAR_ADMIN_APP_PASSWORD": adminPass}[k]
	}, backendEnv(t, s.dir, nil))
	if err := run(context.Background(), []string{"run-job", "extend-series", "--data-dir", s.dir}, getenv, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	s = startServerIn(t, s.dir, "CALENDAR_NOW="+later)
	s.settle()
	l := s.list(t, all)
	starts := field(l.events, "start_date")
	if l.total != 26 || starts[0] != "2027-01-01 19:00:00" || starts[len(starts)-1] != "2029-03-01 19:00:00" {
		t.Errorf("after the job: %v occurrences, %v … %v", l.total, starts[0], starts[len(starts)-1])
	}
}

// TestSeriesFeed: in the iCalendar feed a series whose parent is listed is one VEVENT with its rule
// and exclusions, an occurrence edited on its own an override of it (RECURRENCE-ID), and the other
// occurrences are left to the rule; without the parent, occurrences are events of their own. The feed
// is read back with golang-ical.
func TestSeriesFeed(t *testing.T) {
	s := startServer(t)
	parent := s.create(eventsURL, choir("RRULE:FREQ=WEEKLY;COUNT=5"))
	s.settle()
	occ := s.list(t, fmt.Sprintf("post_parent=%d", parent)).events // 12-08, 12-15, 12-22, 12-29
	s.patch(t, occ[1]["id"], map[string]any{"title": "Choir with guests", "start_date": "2026-12-16 20:00:00", "end_date": "2026-12-16 22:00:00"})
	if res := s.do(req{method: "DELETE", path: fmt.Sprintf("%s/%v", eventsURL, occ[2]["id"]), auth: adminAuth}); res.status != http.StatusOK {
		t.Fatalf("DELETE occurrence: %d", res.status)
	}
	s.settle()

	_, cal := s.feedOf(t, feedPath, "")
	events := cal.Events()
	if len(events) != 2 {
		t.Fatalf("%d VEVENTs, want the series and its override", len(events))
	}
	prop := func(i int, name ics.ComponentProperty) *ics.IANAProperty {
		p := events[i].GetProperty(name)
		if p == nil {
			t.Fatalf("VEVENT %d has no %s", i, name)
		}
		return p
	}
	uid := fmt.Sprintf("%d@cal.test", parent)
	if prop(0, ics.ComponentPropertyUniqueId).Value != uid || prop(0, ics.ComponentPropertyRrule).Value != "FREQ=WEEKLY;COUNT=5" {
		t.Errorf("series: UID %s, RRULE %s", prop(0, ics.ComponentPropertyUniqueId).Value, prop(0, ics.ComponentPropertyRrule).Value)
	}
	if ex := prop(0, ics.ComponentPropertyExdate); ex.Value != "20261222T190000" || fmt.Sprint(ex.ICalParameters["TZID"]) != "[Europe/Paris]" {
		t.Errorf("EXDATE %s %v", ex.Value, ex.ICalParameters)
	}
	rid := prop(1, ics.ComponentPropertyRecurrenceId)
	if prop(1, ics.ComponentPropertyUniqueId).Value != uid || rid.Value != "20261215T190000" || fmt.Sprint(rid.ICalParameters["TZID"]) != "[Europe/Paris]" {
		t.Errorf("override: UID %s, RECURRENCE-ID %s %v", prop(1, ics.ComponentPropertyUniqueId).Value, rid.Value, rid.ICalParameters)
	}
	if prop(1, ics.ComponentPropertySummary).Value != "Choir with guests" || prop(1, ics.ComponentPropertyDtStart).Value != "20261216T200000" {
		t.Errorf("override: %s at %s", prop(1, ics.ComponentPropertySummary).Value, prop(1, ics.ComponentPropertyDtStart).Value)
	}
	if events[1].GetProperty(ics.ComponentPropertyRrule) != nil {
		t.Error("the override repeats the rule")
	}

	_, cal = s.feedOf(t, feedPath+"?start_date=2026-12-05", "")
	if ids, want := feedIDs(t, cal), []uint64{uint64(occ[0]["id"].(float64)), uint64(occ[1]["id"].(float64)),
		uint64(occ[3]["id"].(float64))}; !slices.Equal(ids, want) {
		t.Errorf("feed without the parent: %v, want the occurrences %v", ids, want)
	}
}

// TestSeriesRDateLength: an RDATE in UTC beside a DTSTART in a zone (Google's form), or in another
// zone, gives an occurrence as long as the series, whether the lines come through the API or through
// `import ics`; a DATE RDATE takes the series' time of day across the change to summer time.
func TestSeriesRDateLength(t *testing.T) {
	lines := []string{"RRULE:FREQ=WEEKLY;COUNT=2", "RDATE:20270615T180000Z", "RDATE;TZID=America/New_York:20270616T120000",
		"RDATE;VALUE=DATE:20270617"}
	want := []string{"2026-12-08 19:00:00 – 2026-12-08 20:30:00", "2027-06-15 20:00:00 – 2027-06-15 21:30:00",
		"2027-06-16 18:00:00 – 2027-06-16 19:30:00", "2027-06-17 19:00:00 – 2027-06-17 20:30:00"}
	occurrences := func(t *testing.T, s *server) []string {
		t.Helper()
		var got []string
		for _, e := range s.list(t, "search=choir&start_date=2026-12-02&end_date=2027-12-31").events {
			got = append(got, fmt.Sprintf("%v – %v", e["start_date"], e["end_date"]))
		}
		return got
	}

	t.Run("API", func(t *testing.T) {
		s := startServer(t)
		body := choir(lines...)
		body["end_date"] = "2026-12-01 20:30:00"
		s.create(eventsURL, body)
		s.settle()
		if got := occurrences(t, s); !slices.Equal(got, want) {
			t.Errorf("occurrences %q, want %q", got, want)
		}
	})
	t.Run("import ics", func(t *testing.T) {
		file := icsFile(t, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Google Inc//Google Calendar 70.9054//EN\r\nBEGIN:VEVENT\r\n"+
			"DTSTART;TZID=Europe/Paris:20261201T190000\r\nDTEND;TZID=Europe/Paris:20261201T203000\r\n"+
			strings.Join(lines, "\r\n")+"\r\nDTSTAMP:20261101T000000Z\r\nUID:choir@google.com\r\nSUMMARY:Choir\r\n"+
			"END:VEVENT\r\nEND:VCALENDAR\r\n")
		dir := t.TempDir()
		if out := runImport(t, dir, "ics", file); !strings.Contains(out, "added 1,") {
			t.Fatalf("import output:\n%s", out)
		}
		s := startServerIn(t, dir)
		if got := occurrences(t, s); !slices.Equal(got, want) {
			t.Errorf("occurrences %q, want %q", got, want)
		}
	})
}

// TestSeriesUntilType: through the API, an UNTIL of another value type than the start (a date beside
// a time of day, a date-time beside an all-day start) is a 400 naming the line, on create and update;
// Google's UTC UNTIL beside a zoned start is a series. `import ics` reads a date UNTIL beside a time as
// calendar apps show it: through the whole of that day; sent back unchanged, such a rule is kept.
func TestSeriesUntilType(t *testing.T) {
	s := startServer(t)
	refused := func(t *testing.T, res *response, line string) {
		t.Helper()
		if res.status != http.StatusBadRequest {
			t.Fatalf("status %d\n%s", res.status, res.body)
		}
		b := res.json(t)
		detail, _ := b["data"].(map[string]any)["details"].(map[string]any)["recurrence"].(map[string]any)
		if b["code"] != "rest_invalid_param" || !strings.Contains(fmt.Sprint(detail["message"]), line) {
			t.Fatalf("answer %s, want rest_invalid_param quoting %q", res.body, line)
		}
	}
	const dateUntil = "RRULE:FREQ=DAILY;UNTIL=20270101"
	refused(t, s.do(req{method: "POST", path: eventsURL, auth: adminAuth, body: choir(dateUntil)}), dateUntil)
	const timeUntil = "RRULE:FREQ=DAILY;UNTIL=20261205T000000Z"
	allDay := map[string]any{"title": "Market", "start_date": "2026-12-01", "end_date": "2026-12-01", "all_day": true,
		"recurrence": []string{timeUntil}}
	refused(t, s.do(req{method: "POST", path: eventsURL, auth: adminAuth, body: allDay}), timeUntil)

	parent := s.create(eventsURL, choir(timeUntil))
	s.settle()
	if got := field(s.list(t, fmt.Sprintf("post_parent=%d", parent)).events, "start_date"); !slices.Equal(got,
		[]string{"2026-12-02 19:00:00", "2026-12-03 19:00:00", "2026-12-04 19:00:00"}) {
		t.Errorf("a UTC UNTIL: occurrences %v", got)
	}
	refused(t, s.do(req{method: "PATCH", path: fmt.Sprintf("%s/%d", eventsURL, parent), auth: adminAuth,
		body: map[string]any{"recurrence": []string{dateUntil}}}), dateUntil)

	file := icsFile(t, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Example//Exporter//EN\r\nBEGIN:VEVENT\r\n"+
		"DTSTART;TZID=Europe/Paris:20261201T190000\r\nDTEND;TZID=Europe/Paris:20261201T210000\r\n"+
		"RRULE:FREQ=DAILY;UNTIL=20261204\r\nDTSTAMP:20261101T000000Z\r\nUID:choir@example.org\r\nSUMMARY:Choir\r\n"+
		"END:VEVENT\r\nEND:VCALENDAR\r\n")
	dir := t.TempDir()
	if out := runImport(t, dir, "ics", file); !strings.Contains(out, "added 1,") || !strings.Contains(out, "failed 0") {
		t.Fatalf("import output:\n%s", out)
	}
	imported := startServerIn(t, dir)
	events := imported.list(t, "search=choir&start_date=2026-12-01").events
	if got := field(events, "start_date"); !slices.Equal(got,
		[]string{"2026-12-01 19:00:00", "2026-12-02 19:00:00", "2026-12-03 19:00:00", "2026-12-04 19:00:00"}) {
		t.Errorf("an imported date UNTIL: events %v", got)
	}
	// A client sending the imported rule back as it is, with another change, is not refused for it.
	imported.patch(t, events[0]["id"], map[string]any{"title": "Choir, renamed", "recurrence": events[0]["recurrence"]})
}

// feedStarts expands a feed as a calendar app does, with rrule-go rather than our codec: each
// VEVENT's DTSTART, RRULE, RDATE and EXDATE make its instances (an EXDATE takes out the instant it
// names, the first included), and an override takes the place of the instance its RECURRENCE-ID names. It returns the
// start of every event the feed shows, in UTC, sorted.
func feedStarts(t *testing.T, cal *ics.Calendar) []string {
	t.Helper()
	line := func(p *ics.IANAProperty) string {
		var b strings.Builder
		b.WriteString(p.IANAToken)
		for k, vs := range p.ICalParameters {
			b.WriteString(";" + k + "=" + strings.Join(vs, ","))
		}
		return b.String() + ":" + p.Value
	}
	instant := func(p *ics.IANAProperty) time.Time {
		at, err := rrule.StrToDtStart(strings.TrimPrefix(line(p), p.IANAToken+";"), time.UTC)
		if err != nil {
			t.Fatalf("%s: %v", line(p), err)
		}
		return at
	}
	starts := map[string]time.Time{} // by UID and instant
	overrides := map[string]time.Time{}
	for _, ev := range cal.Events() {
		uid := ev.GetProperty(ics.ComponentPropertyUniqueId).Value
		dtstart := ev.GetProperty(ics.ComponentPropertyDtStart)
		if rid := ev.GetProperty(ics.ComponentPropertyRecurrenceId); rid != nil {
			overrides[uid+" "+instant(rid).UTC().String()] = instant(dtstart)
			continue
		}
		// DTSTART is the first instance, whether the RRULE gives it or not (RFC 5545 3.8.5.3).
		lines := []string{line(dtstart), "RDATE" + strings.TrimPrefix(line(dtstart), "DTSTART")}
		for _, p := range ev.Properties {
			if p.IANAToken == "RRULE" || p.IANAToken == "RDATE" || p.IANAToken == "EXDATE" {
				lines = append(lines, line(&p))
			}
		}
		set, err := rrule.StrSliceToRRuleSet(lines)
		if err != nil {
			t.Fatalf("%q: %v", lines, err)
		}
		for _, at := range set.Between(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC), true) {
			starts[uid+" "+at.UTC().String()] = at
		}
	}
	maps.Copy(starts, overrides)
	var out []string
	for _, at := range starts {
		out = append(out, at.UTC().Format(time.DateTime))
	}
	slices.Sort(out)
	return out
}

// TestSeriesFirstDateExcluded: an EXDATE on the series' own first date takes the parent out of the
// lists, as calendar apps take it out of the feed: the list, collapsed or not, and the feed expanded
// by rrule-go show the same occurrences. The parent stays readable, and taking the EXDATE out lists it
// again.
func TestSeriesFirstDateExcluded(t *testing.T) {
	s := startServer(t)
	parent := s.create(eventsURL, choir("RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE:20261201T180000Z"))
	s.settle()
	occ := s.list(t, fmt.Sprintf("post_parent=%d", parent)).events
	if len(occ) != 3 {
		t.Fatalf("occurrences %v", field(occ, "start_date"))
	}
	s.listedAs(t, "search=choir", occ)
	s.listedAs(t, "categories=singing", occ)
	s.listedAs(t, "hide_subsequent_recurrences=1", occ[:1])
	s.listedAs(t, fmt.Sprintf("include=%d", parent), nil)
	if p := s.event(t, parent); p["start_date"] != "2026-12-01 19:00:00" || p["status"] != "publish" {
		t.Errorf("parent: %v, %v", p["start_date"], p["status"])
	}

	s.patch(t, parent, map[string]any{"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=4"}})
	s.settle()
	s.listedAs(t, "search=choir", append([]map[string]any{{"id": float64(parent)}}, occ...))
}

// listedAs checks that the events list for query names want's events, and that its feed, expanded as
// a calendar app does, shows the same starts.
func (s *server) listedAs(t *testing.T, query string, want []map[string]any) {
	t.Helper()
	l := s.list(t, query)
	if got, want := field(l.events, "id"), field(want, "id"); !slices.Equal(got, want) || l.total != float64(len(want)) {
		t.Errorf("%s: events %v (total %v), want %v", query, got, l.total, want)
	}
	_, cal := s.feedOf(t, feedPath+"?"+query, adminAuth)
	if got, want := feedStarts(t, cal), field(l.events, "utc_start_date"); !slices.Equal(got, want) {
		t.Errorf("%s: the feed shows %v, the list %v", query, got, want)
	}
}

// TestSeriesDeleteOccurrence: DELETE of a series' parent with occurrence cancels that one occurrence,
// the first (the parent's own: an EXDATE, the parent kept) as any other (trashed), by ID or slug; the
// list and the feed then agree on what is left; a second time is 410, a day without an occurrence or
// an event that is no parent 400 naming occurrence. Each comes back as documented.
func TestSeriesDeleteOccurrence(t *testing.T) {
	s := startServer(t)
	parent := s.create(eventsURL, choir("RRULE:FREQ=WEEKLY;COUNT=4"))
	s.settle()
	occ := s.list(t, fmt.Sprintf("post_parent=%d", parent)).events // 12-08, 12-15, 12-22
	del := func(path string, wantStatus int) map[string]any {
		t.Helper()
		res := s.do(req{method: "DELETE", path: path, auth: adminAuth})
		if res.status != wantStatus {
			t.Fatalf("DELETE %s: %d, want %d\n%s", path, res.status, wantStatus, res.body)
		}
		s.settle()
		return res.json(t)
	}
	at := func(id any, day string) string { return fmt.Sprintf("%s/%v?occurrence=%s", eventsURL, id, day) }

	first := del(at(parent, "2026-12-01"), http.StatusOK)
	if first["id"] != float64(parent) || first["status"] != "publish" ||
		!slices.Contains(first["recurrence"].([]any), any("EXDATE;TZID=Europe/Paris:20261201T190000")) {
		t.Errorf("cancelling the first: id %v, status %v, recurrence %v", first["id"], first["status"], first["recurrence"])
	}
	s.listedAs(t, "search=choir", occ)
	if b := del(at(parent, "2026-12-01"), http.StatusGone); b["code"] != "event-is-in-trash" {
		t.Errorf("cancelling the first again: %v", b)
	}

	second := del(at(parent, "2026-12-15"), http.StatusOK)
	if second["id"] != occ[1]["id"] || second["status"] != "trash" {
		t.Errorf("cancelling another: id %v, status %v, want %v in the trash", second["id"], second["status"], occ[1]["id"])
	}
	del(eventsURL+"/by-slug/choir?occurrence=2026-12-22", http.StatusOK)
	s.listedAs(t, "search=choir", occ[:1])

	for _, path := range []string{at(parent, "2026-12-16"), at(parent, "2026-12-1"), at(parent, "2026-02-30"), at(occ[0]["id"], "2026-12-08")} {
		b := del(path, http.StatusBadRequest)
		if _, ok := b["data"].(map[string]any)["params"].(map[string]any)["occurrence"]; b["code"] != "rest_invalid_param" || !ok {
			t.Errorf("DELETE %s: %v, want rest_invalid_param naming occurrence", path, b)
		}
	}

	// The first comes back without its EXDATE, another with its status.
	rule := []string{"RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=Europe/Paris:20261215T190000", "EXDATE;TZID=Europe/Paris:20261222T190000"}
	if got := s.event(t, parent)["recurrence"]; fmt.Sprint(got) != fmt.Sprint(append([]string{rule[0], "EXDATE;TZID=Europe/Paris:20261201T190000"}, rule[1:]...)) {
		t.Fatalf("recurrence %v", got)
	}
	s.patch(t, parent, map[string]any{"recurrence": rule})
	s.patch(t, occ[1]["id"], map[string]any{"status": "publish"})
	s.settle()
	s.listedAs(t, "search=choir", []map[string]any{{"id": float64(parent)}, occ[0], occ[1]})
}
