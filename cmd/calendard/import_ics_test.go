package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/richtext"
	"github.com/google/go-cmp/cmp"
)

// icsFixture copies one of the codec's real-world exports into a directory of the test's own.
func icsFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "storage", "ical", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// feedEvent is what the round trip compares of a feedEvent event: what an iCalendar file can carry.
type feedEvent struct {
	Title, Description, Start, End, Zone, Venue string
	AllDay                                      bool
	Categories, Organizers                      []string
	Occurrence                                  bool
}

// listEvents returns the events of a list request, each as feedEvent, in the list's order.
func listEvents(t *testing.T, s *server, query string) []feedEvent {
	t.Helper()
	res := s.do(req{method: "GET", path: "/calendar/events/v1/events?per_page=50&" + query, auth: adminAuth})
	if res.status != http.StatusOK {
		t.Fatalf("list %s: %d %s", query, res.status, res.body)
	}
	var out []feedEvent
	for _, e := range res.json(t)["events"].([]any) {
		e := e.(map[string]any)
		l := feedEvent{Title: e["title"].(string), Description: richtext.PlainText(e["description"].(string)),
			Start: e["start_date"].(string), End: e["end_date"].(string), Zone: e["timezone"].(string),
			AllDay: e["all_day"].(bool), Occurrence: e["post_parent"] != nil && e["post_parent"] != float64(0)}
		if v, ok := e["venue"].(map[string]any); ok {
			l.Venue = v["venue"].(string)
		}
		for _, c := range e["categories"].([]any) {
			l.Categories = append(l.Categories, c.(map[string]any)["name"].(string))
		}
		if os, ok := e["organizer"].([]any); ok {
			for _, o := range os {
				l.Organizers = append(l.Organizers, o.(map[string]any)["organizer"].(string))
			}
		}
		if l.AllDay {
			l.Zone = ""
		}
		slices.Sort(l.Categories)
		out = append(out, l)
	}
	return out
}

// TestImportICSRoundTrip: a calendar written through the API of one server, subscribed to through
// its events.ics feed and imported into an empty store, answers the same lists: the same events at
// the same times in the same zones, with their venues, organizers and categories, and a series as
// a series, its edited occurrence included.
func TestImportICSRoundTrip(t *testing.T) {
	src := startServer(t)
	src.create("/calendar/events/v1/events", map[string]any{
		"title": "Jazz Night", "description": "<p>Bring <b>friends</b> &amp; family</p>\n<p>Doors at 19:30</p>",
		"start_date": "2026-12-05 20:00", "end_date": "2026-12-05 22:00", "timezone": "Europe/Paris",
		"venue":      map[string]any{"venue": "Salle Pleyel", "address": "252 Rue du Faubourg Saint-Honoré", "city": "Paris"},
		"organizer":  []any{map[string]any{"organizer": "Jazz Club", "email": "club@example.org"}},
		"categories": "Music,Jazz",
	})
	src.create("/calendar/events/v1/events", map[string]any{
		"title": "Christmas market", "start_date": "2026-12-10", "end_date": "2026-12-12", "all_day": true,
		"timezone": "Europe/Berlin", "categories": "Markets",
	})
	src.create("/calendar/events/v1/events", map[string]any{
		"title": "Online talk", "start_date": "2027-01-15 17:00", "end_date": "2027-01-15 18:00", "timezone": "UTC",
	})
	yoga := src.create("/calendar/events/v1/events", map[string]any{
		"title": "Yoga", "start_date": "2026-12-01 18:00", "end_date": "2026-12-01 19:00", "timezone": "America/New_York",
		"recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10", "EXDATE;TZID=America/New_York:20261229T180000"},
		"categories": "Sport",
	})
	occurrences := src.do(req{method: "GET", path: fmt.Sprintf("/calendar/events/v1/events?post_parent=%d&start_date=2026-12-14&per_page=1", yoga), auth: adminAuth}).json(t)["events"].([]any)
	outdoor := uint64(occurrences[0].(map[string]any)["id"].(float64))
	if res := src.do(req{method: "POST", path: fmt.Sprintf("/calendar/events/v1/events/%d", outdoor), auth: adminAuth,
		body: map[string]any{"title": "Yoga (outdoor)", "start_date": "2026-12-15 19:00", "end_date": "2026-12-15 20:00"}}); res.status != http.StatusOK {
		t.Fatalf("edit an occurrence: %d %s", res.status, res.body)
	}

	const window = "start_date=2026-11-01&end_date=2027-12-31"
	dir := t.TempDir()
	out := runImport(t, dir, "ics", src.ts.URL+"/calendar/events/v1/events.ics?"+window)
	if !strings.Contains(out, "added 4, updated 0, trashed 0, unchanged 0, failed 0") {
		t.Errorf("import output:\n%s", out)
	}
	dst := startServerIn(t, dir)
	for _, q := range []string{window, window + "&hide_subsequent_recurrences=1", window + "&search=yoga"} {
		want, got := listEvents(t, src, q), listEvents(t, dst, q)
		if len(want) < 4 {
			t.Fatalf("%s: the source lists only %d events", q, len(want))
		}
		compareJSON(t, q, jsonValue(t, want), jsonValue(t, got))
	}
}

// TestImportICSCommand imports Google's export: a second run changes nothing, a dry run writes
// nothing, the series comes in with its occurrences, and the command's mistakes are explained.
func TestImportICSCommand(t *testing.T) {
	file := icsFixture(t, "google.ics")
	dir := t.TempDir()
	if out := runImport(t, dir, "ics", "--dry-run", file); !strings.Contains(out, "dry run, nothing written") || !strings.Contains(out, "added 3,") {
		t.Errorf("dry run output:\n%s", out)
	}
	db := openDirStore(t, "import", importEnv(dir))
	if n, err := db.Count(context.Background(), storage.TypeEvent); err != nil || n != 0 {
		t.Errorf("%d events after a dry run (%v)", n, err)
	}
	db.Close()
	// Flags after the file, as after it or before it.
	if out := runImport(t, dir, "ics", file, "--language", "fr"); !strings.Contains(out, "added 3, updated 0, trashed 0, unchanged 0, failed 0") {
		t.Errorf("first import:\n%s", out)
	}
	if out := runImport(t, dir, "ics", file); !strings.Contains(out, "added 0, updated 0, trashed 0, unchanged 3, failed 0") {
		t.Errorf("second import:\n%s", out)
	}
	s := startServerIn(t, dir)
	series := s.do(req{method: "GET", path: "/fr/calendar/events/v1/events?start_date=2026-03-01&search=soiree&hide_subsequent_recurrences=1"}).json(t)
	events := series["events"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["title"] != "Soirée ouverte: tirages & encadrement" {
		t.Fatalf("collapsed series: %v", series)
	}
	parent := uint64(events[0].(map[string]any)["id"].(float64))
	res := s.do(req{method: "GET", path: fmt.Sprintf("/fr/calendar/events/v1/events?start_date=2026-03-01&post_parent=%d", parent)})
	if total := res.header.Get("X-TEC-Total"); total != "61" {
		t.Errorf("occurrences: %s, want 61", total)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "needs the file or feed URL"},
		{[]string{filepath.Join(t.TempDir(), "missing.ics")}, "no such file"},
		{[]string{file, "--language", "xx"}, `language "xx"`},
		{[]string{file, "other.ics"}, `unexpected argument "other.ics"`},
		{[]string{"https://"}, "is not an http(s) URL"},
		{[]string{file, "--follow", "-1s"}, "positive interval"},
		{[]string{file, "--timeout", "0"}, `timeout "0": must be a positive duration`},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"import", "ics"}, tc.args...), importEnv(t.TempDir()), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("import ics %q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}

// TestICSMirrorInServe: with CALENDAR_ICS_FROM, serve mirrors the file by itself, its events become
// read-only through the API, and a change to the file reaches the store at the next run.
func TestICSMirrorInServe(t *testing.T) {
	file := icsFixture(t, "meetup.ics")
	s := startServer(t, "CALENDAR_ICS_FROM="+file, "CALENDAR_MIRROR_INTERVAL=1s")
	ran := startMirrorReporting(t, s)
	if rep := <-ran; rep.Added != 2 || rep.Failed != 0 {
		t.Fatalf("first run in serve: %v %+v", rep, rep.Failures)
	}
	s.settle()
	list := s.do(req{method: "GET", path: "/calendar/events/v1/events?start_date=2026-01-01&search=hack"}).json(t)["events"].([]any)
	if len(list) != 1 {
		t.Fatalf("imported events: %v", list)
	}
	id := uint64(list[0].(map[string]any)["id"].(float64))
	res := s.do(req{method: "POST", path: fmt.Sprintf("/calendar/events/v1/events/%d", id), auth: adminAuth, body: map[string]any{"title": "Changed here"}})
	if res.status != http.StatusConflict || res.json(t)["code"] != "rest_mirrored_record" {
		t.Errorf("write to a mirrored event: %d %s", res.status, res.body)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, bytes.Replace(b, []byte("SUMMARY:Hack night"), []byte("SUMMARY:Hack night (online)"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(time.Minute)
	for updated := false; !updated; {
		select {
		case rep := <-ran:
			updated = rep.Updated == 1
		case <-deadline:
			t.Fatal("no run updated the changed event within a minute")
		}
	}
	s.settle()
	if got := s.do(req{method: "GET", path: fmt.Sprintf("/calendar/events/v1/events/%d", id)}).json(t)["title"]; got != "Hack night (online)" {
		t.Errorf("after the file changed: %v", got)
	}
	if own := s.create("/calendar/events/v1/events", map[string]any{"title": "Our own", "start_date": "2026-12-01 10:00", "end_date": "2026-12-01 11:00"}); own == 0 {
		t.Error("an event of our own could not be created")
	}
}

// TestImportFollow: `import … --follow` syncs now and again every interval, logging one line per run,
// until interrupted, and then returns cleanly. (Both sources share the runner; the file source needs
// no site.)
func TestImportFollow(t *testing.T) {
	file := icsFixture(t, "meetup.ics")
	base := importEnv(t.TempDir())
	env := func(k string) string {
		if k == "CALENDAR_LOG_LEVEL" {
			return "info" // the run lines
		}
		return base(k)
	}
	logs, logw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"import", "ics", file, "--follow", "100ms"}, env, io.Discard, logw)
		logw.Close()
	}()
	// The runs as their log lines tell them: the first adds both events; after the file changes, a run
	// updates one.
	runs := make(chan map[string]any)
	go func() {
		defer close(runs)
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "mirror run" {
				runs <- line
			}
		}
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case line, ok := <-runs:
			if !ok {
				t.Fatalf("the command ended: %v", <-done)
			}
			return line
		case <-time.After(time.Minute):
			t.Fatal("no run within a minute")
			return nil
		}
	}
	if first := next(); first["added"] != float64(2) {
		t.Fatalf("first run: %v", first)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, bytes.Replace(b, []byte("SUMMARY:Hack night"), []byte("SUMMARY:Hack night (online)"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for line := next(); line["updated"] != float64(1); line = next() {
		if line["added"] != float64(0) || line["failed"] != float64(0) {
			t.Fatalf("a later run: %v", line)
		}
	}
	cancel()
	go func() {
		for range runs { // drain until the command closes its log
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("interrupted follow: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the command did not end within a minute of the interrupt")
	}
}

// TestImportICSExitStatus: `import ics` exits 0 when every event came in, 2 when some failed and
// others were imported (which it keeps), and 1 when every event failed (a first import then leaves
// the data directory as it was); it says how many failed, and lists each.
func TestImportICSExitStatus(t *testing.T) {
	const hourly = "UID:event_301234999@meetup.com\r\nRRULE:FREQ=HOURLY"
	body, err := os.ReadFile(icsFixture(t, "meetup.ics"))
	if err != nil {
		t.Fatal(err)
	}
	oneBad := bytes.Replace(body, []byte("UID:event_301234999@meetup.com"), []byte(hourly), 1)
	allBad := bytes.Replace(oneBad, []byte("UID:event_301234567@meetup.com"), []byte("UID:event_301234567@meetup.com\r\nRRULE:FREQ=HOURLY"), 1)
	if bytes.Equal(oneBad, body) || bytes.Equal(allBad, oneBad) {
		t.Fatal("the fixture changed: no UID line to add a rule to")
	}
	for _, tc := range []struct {
		name       string
		file       []byte
		wantStatus int
		wantErr    string
		wantEvents int
	}{
		{name: "every event imported", file: body, wantStatus: 0, wantEvents: 2},
		{name: "one of two failed", file: oneBad, wantStatus: 2, wantErr: "1 of 2 events failed, 1 imported", wantEvents: 1},
		{name: "every event failed", file: allBad, wantStatus: 1, wantErr: "2 of 2 events failed, 0 imported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			file := filepath.Join(t.TempDir(), "meetup.ics")
			if err := os.WriteFile(file, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"import", "ics", file}, overlay(importEnv(dir), backendEnv(t, dir, nil)), &stdout, &stderr)
			if status := 0; err != nil {
				status = exitStatus(err)
				if status != tc.wantStatus || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %q (status %d), want status %d saying %q", err, status, tc.wantStatus, tc.wantErr)
				}
			} else if tc.wantStatus != 0 {
				t.Errorf("no error, want status %d saying %q\n%s", tc.wantStatus, tc.wantErr, stdout.String())
			}
			if failed := strings.Count(stdout.String(), "failed: event "); tc.wantStatus != 0 && failed != strings.Count(string(tc.file), "FREQ=HOURLY") {
				t.Errorf("%d failures listed:\n%s", failed, stdout.String())
			}
			if tc.wantEvents == 0 {
				if _, err := os.Stat(dir); *backend != "etcd" && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a first import that imported nothing left its data directory: %v", err)
				}
				return
			}
			if got := startServerIn(t, dir).storedEvents(); got != tc.wantEvents {
				t.Errorf("%d events in the store, want %d", got, tc.wantEvents)
			}
		})
	}
}

// TestExitStatus: only an exitError changes the process's status; every other error is 1, wrapped or
// joined as it may be.
func TestExitStatus(t *testing.T) {
	partial := &exitError{status: 2, err: errors.New("1 of 2 events failed")}
	for _, tc := range []struct {
		err  error
		want int
	}{
		{errors.New("no such file"), 1},
		{partial, 2},
		{fmt.Errorf("import: %w", partial), 2},
		{errors.Join(partial, nil), 2},
	} {
		if got := exitStatus(tc.err); got != tc.want {
			t.Errorf("exitStatus(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// TestImportICSSameCalendarElsewhere: the same calendar imported again from another path (a browser's
// `calendar (1).ics`) or another URL updates its events instead of adding a copy of each; and a feed's
// validators are the store's, so an unchanged feed costs one 304 and no download in a new process
// and after a restart of serve, whose mirror keeps the calendar as the command left it and leaves
// another calendar's events alone.
func TestImportICSSameCalendarElsewhere(t *testing.T) {
	body, err := os.ReadFile(icsFixture(t, "tec.ics"))
	if err != nil {
		t.Fatal(err)
	}
	var downloads, notModified atomic.Int32
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"tec-1"`)
		if r.Header.Get("If-None-Match") == `"tec-1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		downloads.Add(1)
		w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
		w.Write(body)
	}))
	defer feed.Close()
	dir := t.TempDir()
	file := icsFixture(t, "tec.ics")
	again := filepath.Join(filepath.Dir(file), "tec (1).ics")
	if err := os.WriteFile(again, body, 0o644); err != nil {
		t.Fatal(err)
	}
	url, otherURL := feed.URL+"/events/?ical=1", feed.URL+"/events/list/?ical=1&tribe-bar-date=2026-03-01"
	for _, step := range []struct {
		from, want, note               string
		wantDownloads, wantNotModified int32
	}{
		{from: file, want: "added 3, updated 0, trashed 0, unchanged 0"},
		{from: again, want: "added 0, updated 0, trashed 0, unchanged 3", note: "the same calendar (by its UIDs) as first imported from " + file},
		{from: url, want: "added 0, updated 0, trashed 0, unchanged 3", note: file, wantDownloads: 1},
		{from: url, want: "added 0, updated 0, trashed 0, unchanged 3, failed 0 in 1 requests", wantDownloads: 1, wantNotModified: 1},
		{from: otherURL, want: "added 0, updated 0, trashed 0, unchanged 3", note: file, wantDownloads: 2, wantNotModified: 1},
	} {
		out := runImport(t, dir, "ics", step.from)
		if !strings.Contains(out, step.want) || !strings.Contains(out, step.note) {
			t.Errorf("import ics %s:\n%s\nwant %q and a note naming %q", step.from, out, step.want, step.note)
		}
		if d, n := downloads.Load(), notModified.Load(); d != step.wantDownloads || n != step.wantNotModified {
			t.Errorf("import ics %s: %d downloads and %d 304s so far, want %d and %d", step.from, d, n, step.wantDownloads, step.wantNotModified)
		}
	}
	// Another calendar beside it, which the mirror of the first leaves alone.
	if out := runImport(t, dir, "ics", icsFixture(t, "meetup.ics")); !strings.Contains(out, "added 2, updated 0, trashed 0") {
		t.Errorf("another calendar:\n%s", out)
	}
	s := startServerIn(t, dir, "CALENDAR_ICS_FROM="+url, "CALENDAR_MIRROR_INTERVAL=1h")
	for restarts := range 2 {
		if restarts > 0 {
			s = s.restart("CALENDAR_ICS_FROM="+url, "CALENDAR_MIRROR_INTERVAL=1h")
		}
		if rep := <-startMirrorReporting(t, s); rep.Unchanged != 3 || rep.Requests != 1 || rep.Added+rep.Updated+rep.Trashed+rep.Failed != 0 {
			t.Errorf("serve's mirror after %d restarts: %v in %d requests", restarts, rep, rep.Requests)
		}
		if d, n := downloads.Load(), notModified.Load(); d != 2 || n != int32(2+restarts) {
			t.Errorf("serve's mirror after %d restarts: %d downloads and %d 304s, want 2 and %d", restarts, d, n, 2+restarts)
		}
		if got := s.listTotal("/calendar/events/v1/events?start_date=2026-01-01&per_page=50"); got != 5 || s.storedEvents() != 5 {
			t.Errorf("%d events listed, %d stored, want both calendars' 5", got, s.storedEvents())
		}
	}
}

// importedEvent is what TestImportICSRealExports compares of a listed event: what the authoring app
// shows of it. UTCStart is left out for all-day events, whose instant depends on the site zone.
type importedEvent struct {
	Title, Start, End, Zone, UTCStart, Slug string
	AllDay                                  bool
}

// TestImportICSRealExports imports the exports real apps write where RFC 5545 does not allow it, and
// lists their events as those apps show them: Thunderbird's moved occurrences (DTEND beside
// DURATION:PT0S), Exchange's moved occurrence of an all-day series (RECURRENCE-ID as midnight in a
// Windows zone), Outlook Web Access's events without UID or DTSTAMP in display-name zones (one of
// them in a language the zone table does not know, read by the file's VTIMEZONE), and Latin-1 text.
// A second import of the same file changes nothing: the UIDs derived for OWA's events are stable. The
// events.ics feed of the imported events, read with golang-ical, shows them the same way.
func TestImportICSRealExports(t *testing.T) {
	tests := []struct {
		file    string
		uids    int // the events of ours the file makes: a series with its occurrences is one
		wantOut []string
		want    []importedEvent
		// wantFeed is each VEVENT of the events.ics feed of the same window as golang-ical reads it
		// (see feedVEVENT), sorted.
		wantFeed []string
	}{
		{
			file:    "thunderbird.ics",
			uids:    1,
			wantOut: []string{"added 1, updated 0, trashed 0, unchanged 0, failed 0", "note: 2 events have both DTEND and DURATION (Thunderbird writes both on a moved occurrence): DTEND was read"},
			want: []importedEvent{
				{Title: "Chorprobe", Start: "2026-12-02 19:30:00", End: "2026-12-02 21:30:00", Zone: "Europe/Berlin", UTCStart: "2026-12-02 18:30:00"},
				{Title: "Chorprobe", Start: "2026-12-09 19:30:00", End: "2026-12-09 21:30:00", Zone: "Europe/Berlin", UTCStart: "2026-12-09 18:30:00"},
				{Title: "Chorprobe (Generalprobe)", Start: "2026-12-17 19:00:00", End: "2026-12-17 22:00:00", Zone: "Europe/Berlin", UTCStart: "2026-12-17 18:00:00"},
				{Title: "Chorprobe", Start: "2026-12-23 19:30:00", End: "2026-12-23 21:30:00", Zone: "Europe/Berlin", UTCStart: "2026-12-23 18:30:00"},
				{Title: "Chorprobe", Start: "2026-12-29 19:30:00", End: "2026-12-29 21:30:00", Zone: "Europe/Berlin", UTCStart: "2026-12-29 18:30:00"},
				{Title: "Chorprobe", Start: "2027-01-06 19:30:00", End: "2027-01-06 21:30:00", Zone: "Europe/Berlin", UTCStart: "2027-01-06 18:30:00"},
				{Title: "Chorprobe", Start: "2027-01-13 19:30:00", End: "2027-01-13 21:30:00", Zone: "Europe/Berlin", UTCStart: "2027-01-13 18:30:00"},
				{Title: "Chorprobe", Start: "2027-01-20 19:30:00", End: "2027-01-20 21:30:00", Zone: "Europe/Berlin", UTCStart: "2027-01-20 18:30:00"},
			},
			wantFeed: []string{
				"Chorprobe (Generalprobe) Europe/Berlin:20261217T190000-Europe/Berlin:20261217T220000 replaces Europe/Berlin:20261216T193000",
				"Chorprobe Europe/Berlin:20261202T193000-Europe/Berlin:20261202T213000",
				"Chorprobe Europe/Berlin:20261229T193000-Europe/Berlin:20261229T213000 replaces Europe/Berlin:20261230T193000",
			},
		},
		{
			file:    "exchange-allday.ics",
			uids:    1,
			wantOut: []string{"added 1, updated 0, trashed 0, unchanged 0, failed 0"},
			want: []importedEvent{
				{Title: "Inventur", Start: "2026-12-28 00:00:00", End: "2026-12-28 23:59:59", AllDay: true},
				{Title: "Inventur (verschoben)", Start: "2027-01-05 00:00:00", End: "2027-01-05 23:59:59", AllDay: true},
				{Title: "Inventur", Start: "2027-01-11 00:00:00", End: "2027-01-11 23:59:59", AllDay: true},
				{Title: "Inventur", Start: "2027-01-25 00:00:00", End: "2027-01-25 23:59:59", AllDay: true},
				{Title: "Inventur", Start: "2027-02-01 00:00:00", End: "2027-02-01 23:59:59", AllDay: true},
			},
			wantFeed: []string{"Inventur (verschoben) 20270105-20270106 replaces 20270104", "Inventur 20261228-20261229 except 20270118"},
		},
		{
			file:    "owa.ics",
			uids:    6,
			wantOut: []string{"added 6, updated 0, trashed 0, unchanged 0, failed 0", "note: 6 events have no UID: each was given one derived from its DTSTART, SUMMARY and RECURRENCE-ID"},
			want: []importedEvent{
				{Title: "Board meeting", Start: "2027-01-12 09:00:00", End: "2027-01-12 10:30:00", Zone: "America/New_York", UTCStart: "2027-01-12 14:00:00"},
				{Title: "Supplier call", Start: "2027-01-12 16:00:00", End: "2027-01-12 16:30:00", Zone: "Europe/Berlin", UTCStart: "2027-01-12 15:00:00"},
				{Title: "Supplier call", Start: "2027-01-12 16:00:00", End: "2027-01-12 16:30:00", Zone: "Europe/Berlin", UTCStart: "2027-01-12 15:00:00"},
				{Title: "Tokyo sync", Start: "2027-01-20 08:00:00", End: "2027-01-20 09:00:00", Zone: "Asia/Tokyo", UTCStart: "2027-01-19 23:00:00"},
				{Title: "Werksbesuch", Start: "2027-06-15 10:00:00", End: "2027-06-15 12:00:00", Zone: "UTC+2", UTCStart: "2027-06-15 08:00:00"},
				{Title: "Board meeting", Start: "2027-07-13 09:00:00", End: "2027-07-13 10:30:00", Zone: "America/New_York", UTCStart: "2027-07-13 13:00:00"},
			},
			wantFeed: []string{
				"Board meeting America/New_York:20270112T090000-America/New_York:20270112T103000",
				"Board meeting America/New_York:20270713T090000-America/New_York:20270713T103000",
				"Supplier call Europe/Berlin:20270112T160000-Europe/Berlin:20270112T163000",
				"Supplier call Europe/Berlin:20270112T160000-Europe/Berlin:20270112T163000",
				"Tokyo sync Asia/Tokyo:20270120T080000-Asia/Tokyo:20270120T090000",
				"Werksbesuch 20270615T080000Z-20270615T100000Z",
			},
		},
		{
			file:    "latin1.ics",
			uids:    2,
			wantOut: []string{"added 2, updated 0, trashed 0, unchanged 0, failed 0", "note: 3 lines are not UTF-8 and declare no CHARSET: they were read as Windows-1252"},
			want: []importedEvent{
				{Title: "Café crème", Start: "2027-03-01 15:00:00", End: "2027-03-01 17:00:00", Zone: "UTC", UTCStart: "2027-03-01 15:00:00", Slug: "cafe-creme"},
				{Title: "Entrée 5 €", Start: "2027-03-02 15:00:00", End: "2027-03-02 17:00:00", Zone: "UTC", UTCStart: "2027-03-02 15:00:00", Slug: "entree-5-%e2%82%ac"},
			},
			wantFeed: []string{"Café crème 20270301T150000Z-20270301T170000Z", "Entrée 5 € 20270302T150000Z-20270302T170000Z"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			file, dir := icsFixture(t, tc.file), t.TempDir()
			out := runImport(t, dir, "ics", file)
			for _, want := range tc.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("import output lacks %q:\n%s", want, out)
				}
			}
			if again := runImport(t, dir, "ics", file); !strings.Contains(again, fmt.Sprintf("added 0, updated 0, trashed 0, unchanged %d, failed 0", tc.uids)) {
				t.Errorf("second import:\n%s", again)
			}
			s := startServerIn(t, dir)
			res := s.do(req{method: "GET", path: "/calendar/events/v1/events?start_date=2026-11-01&end_date=2027-12-31&per_page=50", auth: adminAuth})
			if res.status != http.StatusOK {
				t.Fatalf("list: %d %s", res.status, res.body)
			}
			var got []importedEvent
			for _, e := range res.json(t)["events"].([]any) {
				e := e.(map[string]any)
				ev := importedEvent{Title: e["title"].(string), Start: e["start_date"].(string), End: e["end_date"].(string),
					Zone: e["timezone"].(string), UTCStart: e["utc_start_date"].(string), AllDay: e["all_day"].(bool)}
				if ev.AllDay {
					ev.Zone, ev.UTCStart = "", ""
				}
				if tc.want[0].Slug != "" {
					ev.Slug = e["slug"].(string)
				}
				got = append(got, ev)
			}
			compareJSON(t, tc.file, jsonValue(t, tc.want), jsonValue(t, got))

			_, cal := s.feedOf(t, feedPath+"?start_date=2026-11-01&end_date=2027-12-31", "")
			var feed []string
			for _, ev := range cal.Events() {
				feed = append(feed, feedVEVENT(ev))
			}
			slices.Sort(feed)
			if diff := cmp.Diff(tc.wantFeed, feed); diff != "" {
				t.Errorf("feed (-want +got):\n%s", diff)
			}
		})
	}
}

// feedVEVENT is a VEVENT of a feed in one line: its SUMMARY, DTSTART, DTEND, for an override its
// RECURRENCE-ID, each time with its TZID, and its EXDATEs.
func feedVEVENT(ev *ics.VEvent) string {
	at := func(name ics.ComponentProperty) string {
		p := ev.GetProperty(name)
		if p == nil {
			return ""
		}
		if tzid := p.ICalParameters["TZID"]; len(tzid) > 0 {
			return tzid[0] + ":" + p.Value
		}
		return p.Value
	}
	line := fmt.Sprintf("%s %s-%s", ev.GetProperty(ics.ComponentPropertySummary).Value, at(ics.ComponentPropertyDtStart), at(ics.ComponentPropertyDtEnd))
	if rid := at(ics.ComponentPropertyRecurrenceId); rid != "" {
		line += " replaces " + rid
	}
	for _, p := range ev.GetProperties(ics.ComponentPropertyExdate) {
		line += " except " + p.Value
	}
	return line
}

// TestImportICSUnreadableText: an event whose text is UTF-8 in part and in part not, so that its
// encoding cannot be told, fails with that reason rather than being stored with U+FFFD in it; the
// file's other events, Latin-1 among them, are imported. (The command's exit status is not what
// this test is about.)
func TestImportICSUnreadableText(t *testing.T) {
	file := icsFile(t, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"+
		"BEGIN:VEVENT\r\nUID:mixed@test\r\nDTSTART:20270301T150000Z\r\nSUMMARY:Caf\xc3\xa9 cr\xe8me\r\nEND:VEVENT\r\n"+
		"BEGIN:VEVENT\r\nUID:latin1@test\r\nDTSTART:20270302T150000Z\r\nSUMMARY:Th\xe9 dansant\r\nEND:VEVENT\r\n"+
		"END:VCALENDAR\r\n")
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	_ = run(context.Background(), []string{"import", "ics", file}, overlay(importEnv(dir), backendEnv(t, dir, nil)), &stdout, &stderr)
	out := stdout.String()
	for _, want := range []string{"added 1, updated 0, trashed 0, unchanged 0, failed 1",
		"failed: event mixed@test: ical: syntax error: SUMMARY mixes UTF-8 with bytes that are not: its encoding cannot be told"} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q:\n%s\n%s", want, out, stderr.String())
		}
	}
	s := startServerIn(t, dir)
	res := s.do(req{method: "GET", path: "/calendar/events/v1/events?start_date=2027-01-01", auth: adminAuth})
	events := res.json(t)["events"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["title"] != "Thé dansant" {
		t.Errorf("events: %s", res.body)
	}
}

// icsFile writes body, an iCalendar file, into a temporary directory and returns its path.
func icsFile(t *testing.T, body string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "calendar.ics")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
