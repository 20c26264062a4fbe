package ics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/google/go-cmp/cmp"
)

// now is the store's frozen clock: every fixture's events are ahead of it or within the series window.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var admin = storage.Actor{UserID: 1, Role: storage.RoleAdministrator}

func openStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fixture copies testdata file name (the codec's real-world exports) into a temporary file of its own,
// which a test may then change.
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "storage", "ical", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func sync(t *testing.T, im *Importer, opts mirror.Options) *mirror.Report {
	t.Helper()
	rep, err := im.Sync(context.Background(), opts)
	if err != nil {
		t.Fatalf("sync %s: %v (report: %v)", im.From, err, rep)
	}
	return rep
}

// events reads every event of the store, by title (the last one of a title wins).
func events(t *testing.T, db *storage.DB) []*storage.Event {
	t.Helper()
	recs, err := db.Scan(context.Background(), storage.TypeEvent, 0, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	return recs.Events
}

func find(t *testing.T, all []*storage.Event, title string) *storage.Event {
	t.Helper()
	for _, e := range all {
		if e.Title == title && e.Parent == 0 {
			return e
		}
	}
	t.Fatalf("no event %q among %d", title, len(all))
	return nil
}

// counts is what a test compares of a report.
type counts struct{ Added, Updated, Trashed, Unchanged, Failed int }

func countsOf(r *mirror.Report) counts {
	return counts{r.Added, r.Updated, r.Trashed, r.Unchanged, r.Failed}
}

// TestSyncFixtures imports each real-world export into an empty store: every UID becomes one event,
// none fails, and a second run changes nothing.
func TestSyncFixtures(t *testing.T) {
	for name, uids := range map[string]int{"google.ics": 3, "outlook.ics": 4, "apple.ics": 5, "meetup.ics": 2, "tec.ics": 3,
		"thunderbird.ics": 1, "exchange-allday.ics": 1, "owa.ics": 6, "latin1.ics": 2} {
		t.Run(name, func(t *testing.T) {
			db := openStore(t)
			im := &Importer{From: fixture(t, name), Store: db, Actor: admin, Lang: "en"}
			rep := sync(t, im, mirror.Options{})
			if got := countsOf(rep); got != (counts{Added: uids}) {
				t.Errorf("first run: %+v (%v), want %d added", got, rep.Failures, uids)
			}
			if got := countsOf(sync(t, im, mirror.Options{})); got != (counts{Unchanged: uids}) {
				t.Errorf("second run: %+v, want %d unchanged", got, uids)
			}
		})
	}
}

// TestSyncSeries: Google's weekly series with two EXDATEs and one moved occurrence becomes a parent
// with its rule, occurrences on every other Tuesday at 19:00 Paris time (across the DST change),
// none on the excluded days, and the moved one an exception at 20:00 with its own title.
func TestSyncSeries(t *testing.T) {
	db := openStore(t)
	sync(t, &Importer{From: fixture(t, "google.ics"), Store: db, Actor: admin, Lang: "fr"}, mirror.Options{})
	all := events(t, db)
	parent := find(t, all, "Soirée ouverte: tirages & encadrement")
	if !slices.Contains(parent.Recurrence, "RRULE:FREQ=WEEKLY;WKST=MO;UNTIL=20270601T000000Z;BYDAY=TU") || len(parent.Recurrence) != 3 {
		t.Errorf("parent recurrence %q", parent.Recurrence)
	}
	if parent.Timezone != "Europe/Paris" || parent.Start != "2026-03-10 19:00:00" || parent.Lang != "fr" {
		t.Errorf("parent %s %s %s", parent.Timezone, parent.Start, parent.Lang)
	}
	byDay := map[string]*storage.Event{}
	for _, e := range all {
		if e.Parent == parent.ID {
			byDay[e.Start[:10]] = e
		}
	}
	// Tuesdays from 17 March 2026 to 25 May 2027 are 63, less the two excluded.
	if len(byDay) != 61 {
		t.Errorf("%d occurrences, want 61", len(byDay))
	}
	for _, day := range []string{"2026-12-22", "2026-12-29"} {
		if byDay[day] != nil {
			t.Errorf("excluded %s has an occurrence", day)
		}
	}
	if e := byDay["2026-03-31"]; e == nil || e.Start != "2026-03-31 19:00:00" || e.StartUTC.Hour() != 17 {
		t.Errorf("occurrence after the DST change: %+v", e)
	}
	moved := byDay["2026-04-14"]
	if moved == nil || moved.Title != "Soirée ouverte (20h)" || moved.Start != "2026-04-14 20:00:00" || !moved.Detached {
		t.Fatalf("moved occurrence: %+v", moved)
	}
}

// TestSyncMovedOccurrences: the moved occurrences of Thunderbird (DTEND beside DURATION:PT0S) and of
// Exchange (an all-day series' occurrence named by midnight in a Windows zone) become the exceptions
// they are, at their new times, in a store whose site zone is west of UTC, where a floating date
// read as an instant falls on the day before; the run notes the DTEND and DURATION once.
func TestSyncMovedOccurrences(t *testing.T) {
	ny, err := datetime.ParseZone("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{Now: func() time.Time { return now }, SiteZone: ny, SeriesHorizon: 24})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tb := sync(t, &Importer{From: fixture(t, "thunderbird.ics"), Store: db, Actor: admin, Lang: "de"}, mirror.Options{})
	if countsOf(tb) != (counts{Added: 1}) || !slices.Equal(tb.Notes, []string{"2 events have both DTEND and DURATION (Thunderbird writes both on a moved occurrence): DTEND was read"}) {
		t.Errorf("Thunderbird: %+v %v %q", countsOf(tb), tb.Failures, tb.Notes)
	}
	if rep := sync(t, &Importer{From: fixture(t, "exchange-allday.ics"), Store: db, Actor: admin, Lang: "de"}, mirror.Options{}); countsOf(rep) != (counts{Added: 1}) || len(rep.Notes) != 0 {
		t.Errorf("Exchange: %+v %v %q", countsOf(rep), rep.Failures, rep.Notes)
	}
	all := events(t, db)
	type occurrence struct {
		Title, Start, End string
		AllDay, Detached  bool
	}
	for _, tc := range []struct {
		series string
		want   []occurrence
	}{
		{"Chorprobe", []occurrence{
			{"Chorprobe", "2026-12-02 19:30:00", "2026-12-02 21:30:00", false, false},
			{"Chorprobe", "2026-12-09 19:30:00", "2026-12-09 21:30:00", false, false},
			{"Chorprobe (Generalprobe)", "2026-12-17 19:00:00", "2026-12-17 22:00:00", false, true},
			{"Chorprobe", "2026-12-23 19:30:00", "2026-12-23 21:30:00", false, false},
			{"Chorprobe", "2026-12-29 19:30:00", "2026-12-29 21:30:00", false, true},
			{"Chorprobe", "2027-01-06 19:30:00", "2027-01-06 21:30:00", false, false},
			{"Chorprobe", "2027-01-13 19:30:00", "2027-01-13 21:30:00", false, false},
			{"Chorprobe", "2027-01-20 19:30:00", "2027-01-20 21:30:00", false, false},
		}},
		{"Inventur", []occurrence{
			{"Inventur", "2026-12-28 00:00:00", "2026-12-28 23:59:59", true, false},
			{"Inventur (verschoben)", "2027-01-05 00:00:00", "2027-01-05 23:59:59", true, true},
			{"Inventur", "2027-01-11 00:00:00", "2027-01-11 23:59:59", true, false},
			{"Inventur", "2027-01-25 00:00:00", "2027-01-25 23:59:59", true, false},
			{"Inventur", "2027-02-01 00:00:00", "2027-02-01 23:59:59", true, false},
		}},
	} {
		parent := find(t, all, tc.series)
		var got []occurrence
		for _, e := range all {
			// The parent is the series' first occurrence.
			if (e.Parent == parent.ID || e.ID == parent.ID) && e.Status != storage.StatusTrash {
				got = append(got, occurrence{e.Title, e.Start, e.End, e.AllDay, e.Detached})
			}
		}
		slices.SortFunc(got, func(a, b occurrence) int { return strings.Compare(a.Start, b.Start) })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s occurrences (-want +got):\n%s", tc.series, diff)
		}
	}
}

// TestSyncWithoutUID: the events of Outlook Web Access's export, which have no UID, are known again by
// the UID derived from their DTSTART, SUMMARY and RECURRENCE-ID: the calendar exported again with a
// new location updates its event, and a new title replaces it.
func TestSyncWithoutUID(t *testing.T) {
	db := openStore(t)
	path := fixture(t, "owa.ics")
	im := &Importer{From: path, Store: db, Actor: admin, Lang: "en"}
	sync(t, im, mirror.Options{})
	edit(t, path, "LOCATION:Room 4B", "LOCATION:Room 5A")
	if got := countsOf(sync(t, im, mirror.Options{})); got != (counts{Updated: 1, Unchanged: 5}) {
		t.Errorf("after a new location: %+v", got)
	}
	edit(t, path, "SUMMARY:Tokyo sync", "SUMMARY:Tokyo sync (moved online)")
	if got := countsOf(sync(t, im, mirror.Options{})); got != (counts{Added: 1, Trashed: 1, Unchanged: 5}) {
		t.Errorf("after a new title: %+v", got)
	}
	live := 0
	for _, e := range events(t, db) {
		if e.Status != storage.StatusTrash {
			live++
		}
	}
	if live != 6 {
		t.Errorf("%d events, want the file's 6", live)
	}
	// An event the codec cannot read is reported by its line, its UID being a hash, and kept.
	edit(t, path, "20270713T103000", "2027-07-13 10:30")
	rep := sync(t, im, mirror.Options{})
	if got := countsOf(rep); got != (counts{Failed: 1, Unchanged: 5}) || rep.Failures[0].ID != "line 76" {
		t.Errorf("after a malformed DTEND: %+v %+v", got, rep.Failures)
	}
}

// TestSyncChanges: a second run after the file changed updates the event that changed, trashes the
// one that is gone and the one now cancelled, and leaves alone the one whose DTSTAMP alone moved
// (Google writes the export's time there).
func TestSyncChanges(t *testing.T) {
	db := openStore(t)
	path := fixture(t, "meetup.ics")
	im := &Importer{From: path, Store: db, Actor: admin, Lang: "en"}
	sync(t, im, mirror.Options{})
	edit(t, path, "SUMMARY:Hack night", "SUMMARY:Hack night (moved online)")
	edit(t, path, "DTSTAMP:", "DTSTAMP:20270101T000000Z\nX-OLD-DTSTAMP:")
	if got := countsOf(sync(t, im, mirror.Options{})); got != (counts{Updated: 1, Unchanged: 1}) {
		t.Errorf("after an edit: %+v", got)
	}
	if e := find(t, events(t, db), "Hack night (moved online)"); e.Status != storage.StatusPublish {
		t.Errorf("updated event is %s", e.Status)
	}
	edit(t, path, "STATUS:CONFIRMED\nSUMMARY:Hack night", "STATUS:CANCELLED\nSUMMARY:Hack night")
	removeEvent(t, path, "event_301234567@meetup.com")
	if got := countsOf(sync(t, im, mirror.Options{})); got != (counts{Trashed: 2}) {
		t.Errorf("after a removal and a cancellation: %+v", got)
	}
	for _, e := range events(t, db) {
		if e.Status != storage.StatusTrash {
			t.Errorf("%q is %s, want trash", e.Title, e.Status)
		}
	}
	if links, err := db.Linked(context.Background(), path); err != nil || len(links) != 0 {
		t.Errorf("links left: %v, %v", links, err)
	}
}

// TestSyncReportsBadEvents: an event the codec cannot read and one the store refuses are failures
// with their UID; the others are imported.
func TestSyncReportsBadEvents(t *testing.T) {
	db := openStore(t)
	path := fixture(t, "meetup.ics")
	// No DTSTART: the codec skips it. A sub-daily rule: the store refuses it.
	edit(t, path, "DTSTART;TZID=America/Los_Angeles:20260319T183000\n", "")
	edit(t, path, "UID:event_301234999@meetup.com", "UID:event_301234999@meetup.com\nRRULE:FREQ=HOURLY")
	rep := sync(t, &Importer{From: path, Store: db, Actor: admin, Lang: "en"}, mirror.Options{})
	if got := countsOf(rep); got != (counts{Failed: 2}) {
		t.Fatalf("report %+v %v", got, rep.Failures)
	}
	ids := []string{rep.Failures[0].ID, rep.Failures[1].ID}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"event_301234567@meetup.com", "event_301234999@meetup.com"}) {
		t.Errorf("failures %+v", rep.Failures)
	}
}

// TestSyncFeedURL reads a feed over HTTP, retrying a transient failure.
func TestSyncFeedURL(t *testing.T) {
	body, err := os.ReadFile(fixture(t, "tec.ics"))
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/calendar")
		w.Write(body)
	}))
	defer srv.Close()
	db := openStore(t)
	get := &mirror.Getter{Sleep: func(context.Context, time.Duration) error { return nil }}
	rep := sync(t, &Importer{From: srv.URL + "/events.ics", Store: db, Actor: admin, Lang: "nl", Get: get}, mirror.Options{})
	if got := countsOf(rep); got != (counts{Added: 3}) || rep.Requests != 2 {
		t.Errorf("report %+v after %d requests", got, rep.Requests)
	}
}

// TestSyncFeedConditional: a feed is asked for as text/calendar; once a run has read it whole, the
// next sends its ETag and Last-Modified, and a 304 costs that one request, writes nothing and reports
// every event unchanged. A run that stopped short keeps no validators; a changed feed is read again.
func TestSyncFeedConditional(t *testing.T) {
	body, err := os.ReadFile(fixture(t, "tec.ics"))
	if err != nil {
		t.Fatal(err)
	}
	etag, fail := `"v1"`, atomic.Bool{}
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
		if fail.Load() {
			http.Error(w, "gone", http.StatusNotFound)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", "Sun, 01 Mar 2026 10:00:00 GMT")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/calendar")
		w.Write(body)
	}))
	defer srv.Close()
	db := openStore(t)
	im := &Importer{From: srv.URL + "/events.ics", Store: db, Actor: admin, Lang: "nl", Get: &mirror.Getter{}}
	validators := func() (string, string) {
		h := got[len(got)-1]
		return h.Get("If-None-Match"), h.Get("If-Modified-Since")
	}
	for _, step := range []struct {
		name             string
		fail             bool
		wantINM, wantIMS string
		want             counts
		wantErr          bool
	}{
		{name: "first", want: counts{Added: 3}},
		{name: "unchanged", wantINM: `"v1"`, wantIMS: "Sun, 01 Mar 2026 10:00:00 GMT", want: counts{Unchanged: 3}},
		{name: "feed gone", fail: true, wantINM: `"v1"`, wantIMS: "Sun, 01 Mar 2026 10:00:00 GMT", wantErr: true},
		{name: "unchanged again", wantINM: `"v1"`, wantIMS: "Sun, 01 Mar 2026 10:00:00 GMT", want: counts{Unchanged: 3}},
	} {
		fail.Store(step.fail)
		before := len(got)
		rep, err := im.Sync(context.Background(), mirror.Options{})
		if (err != nil) != step.wantErr {
			t.Fatalf("%s: %v, want an error: %v", step.name, err, step.wantErr)
		}
		if len(got) != before+1 || rep.Requests != 1 {
			t.Errorf("%s: %d requests (reported %d), want 1", step.name, len(got)-before, rep.Requests)
		}
		if accept := got[len(got)-1].Get("Accept"); !strings.HasPrefix(accept, "text/calendar") {
			t.Errorf("%s: Accept %q, want text/calendar", step.name, accept)
		}
		if inm, ims := validators(); inm != step.wantINM || ims != step.wantIMS {
			t.Errorf("%s: sent If-None-Match %q, If-Modified-Since %q; want %q, %q", step.name, inm, ims, step.wantINM, step.wantIMS)
		}
		if c := countsOf(rep); !step.wantErr && c != step.want {
			t.Errorf("%s: report %+v, want %+v", step.name, c, step.want)
		}
	}
	if n := len(events(t, db)); n != 3 {
		t.Errorf("%d events in the store, want the feed's 3", n)
	}
	// The validators are the store's: a new importer (a restart, a one-off command) sends them too.
	restarted := &Importer{From: im.From, Store: db, Actor: admin, Lang: "nl", Get: &mirror.Getter{}}
	if rep := sync(t, restarted, mirror.Options{}); countsOf(rep) != (counts{Unchanged: 3}) || rep.Requests != 1 {
		t.Errorf("after a restart: %+v in %d requests", countsOf(rep), rep.Requests)
	}
	if inm, _ := validators(); inm != `"v1"` {
		t.Errorf("after a restart: sent If-None-Match %q, want the stored one", inm)
	}
	// A changed feed has a new ETag: the server answers it whole.
	etag = `"v2"`
	if rep := sync(t, im, mirror.Options{}); countsOf(rep) != (counts{Unchanged: 3}) {
		t.Errorf("changed ETag, same events: %+v, want 3 unchanged by their stamps", countsOf(rep))
	}
	if inm, _ := validators(); inm != `"v1"` {
		t.Errorf("sent If-None-Match %q, want the last complete run's", inm)
	}
	if rep := sync(t, im, mirror.Options{}); countsOf(rep) != (counts{Unchanged: 3}) || rep.Requests != 1 {
		t.Errorf("after the new ETag: %+v", countsOf(rep))
	}
	if inm, _ := validators(); inm != `"v2"` {
		t.Errorf("sent If-None-Match %q, want the new ETag", inm)
	}
}

// edit replaces the first old in the file at path by new, failing when old is not there.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	if !strings.Contains(s, old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(s, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// removeEvent removes the VEVENT of uid from the file at path.
func removeEvent(t *testing.T, path, uid string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, block := range strings.SplitAfter(strings.ReplaceAll(string(b), "\r\n", "\n"), "END:VEVENT\n") {
		if strings.Contains(block, "UID:"+uid+"\n") {
			block = block[:strings.Index(block, "BEGIN:VEVENT")]
		}
		out = append(out, block)
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSyncRefusedInBatch: UIDs are written in batches; one the store refuses fails alone, and the
// others of its batch are written (the batch is written again UID by UID).
func TestSyncRefusedInBatch(t *testing.T) {
	db := openStore(t)
	path := fixture(t, "google.ics")
	edit(t, path, "UID:0a9s8d7f6g5h4j3k2l1@google.com", "UID:0a9s8d7f6g5h4j3k2l1@google.com\nRRULE:FREQ=MINUTELY")
	rep := sync(t, &Importer{From: path, Store: db, Actor: admin, Lang: "en"}, mirror.Options{})
	if got := countsOf(rep); got != (counts{Added: 2, Failed: 1}) || rep.Failures[0].ID != "0a9s8d7f6g5h4j3k2l1@google.com" {
		t.Fatalf("report %+v %+v", got, rep.Failures)
	}
	if !strings.Contains(rep.Failures[0].Reason, "RRULE:FREQ=MINUTELY") {
		t.Errorf("reason %q does not name the rule", rep.Failures[0].Reason)
	}
	find(t, events(t, db), "Online talk: archival inks")
}

// TestSyncKeepsUnreadable: an event the file spells wrongly at one run is reported and left as the last
// run wrote it, not trashed as gone: its UID is still in the file.
func TestSyncKeepsUnreadable(t *testing.T) {
	db := openStore(t)
	path := fixture(t, "meetup.ics")
	im := &Importer{From: path, Store: db, Actor: admin, Lang: "en"}
	sync(t, im, mirror.Options{})
	edit(t, path, "DTSTART;TZID=America/Los_Angeles:20260319T183000\n", "")
	rep := sync(t, im, mirror.Options{})
	if got := countsOf(rep); got != (counts{Unchanged: 1, Failed: 1}) || rep.Failures[0].ID != "event_301234567@meetup.com" {
		t.Fatalf("report %+v %+v", got, rep.Failures)
	}
	if e := find(t, events(t, db), "Go at scale: profiling in production"); e.Status != storage.StatusPublish {
		t.Errorf("the unreadable event is %s, want it kept", e.Status)
	}
}

// TestSyncSameCalendarElsewhere: the same calendar read from another path (downloaded again as
// `tec (1).ics`) is the calendar imported first: its events are updated and trashed there, never
// added again, and the run says which calendar it continued.
func TestSyncSameCalendarElsewhere(t *testing.T) {
	db := openStore(t)
	first := fixture(t, "tec.ics")
	if got := countsOf(sync(t, &Importer{From: first, Store: db, Actor: admin, Lang: "en"}, mirror.Options{})); got != (counts{Added: 3}) {
		t.Fatalf("first import: %+v", got)
	}
	again := filepath.Join(t.TempDir(), "tec (1).ics")
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(again, b, 0o644); err != nil {
		t.Fatal(err)
	}
	im := &Importer{From: again, Store: db, Actor: admin, Lang: "en"}
	rep := sync(t, im, mirror.Options{})
	if got := countsOf(rep); got != (counts{Unchanged: 3}) {
		t.Errorf("the same bytes from another path: %+v, want 3 unchanged", got)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], first) {
		t.Errorf("notes %q, want one naming %s", rep.Notes, first)
	}
	edit(t, again, "SUMMARY:Late-night jam session", "SUMMARY:Late-night jam session (sold out)")
	removeEvent(t, again, "10512-1777680000-1777852799@jazzclub.example.nl")
	if rep := sync(t, im, mirror.Options{}); countsOf(rep) != (counts{Updated: 1, Trashed: 1, Unchanged: 1}) || len(rep.Notes) != 0 {
		t.Errorf("after an edit and a removal: %+v %q, want no note again", countsOf(rep), rep.Notes)
	}
	all := events(t, db)
	if len(all) != 3 {
		t.Errorf("%d events, want the calendar's 3", len(all))
	}
	find(t, all, "Late-night jam session (sold out)")
	if e := find(t, all, "Utrecht Jazz Weekend"); e.Status != storage.StatusTrash {
		t.Errorf("the removed event is %s, want trash", e.Status)
	}
	if links, err := db.Linked(context.Background(), first); err != nil || len(links) != 2 {
		t.Errorf("the calendar's links: %v %v, want 2 under %s", links, err, first)
	}
}

// TestSyncCalendarsSharingUIDs: two calendars that share an event (one site's exports of two
// categories) stay two calendars: each has its own copy of the shared event, and a run of one trashes
// only what that calendar no longer has.
func TestSyncCalendarsSharingUIDs(t *testing.T) {
	const shared = "10457-1776450600-1776459600@jazzclub.example.nl"
	db := openStore(t)
	jazz, studio := fixture(t, "tec.ics"), fixture(t, "google.ics")
	copyEvent(t, jazz, studio, shared)
	jazzIm := &Importer{From: jazz, Store: db, Actor: admin, Lang: "en"}
	studioIm := &Importer{From: studio, Store: db, Actor: admin, Lang: "en"}
	for _, step := range []struct {
		name   string
		im     *Importer
		change func()
		want   counts
	}{
		{name: "first calendar", im: jazzIm, want: counts{Added: 3}},
		{name: "second calendar", im: studioIm, want: counts{Added: 4}},
		{name: "first again", im: jazzIm, want: counts{Unchanged: 3}},
		{name: "an event gone from the first", im: jazzIm, change: func() { removeEvent(t, jazz, "10512-1777680000-1777852799@jazzclub.example.nl") },
			want: counts{Trashed: 1, Unchanged: 2}},
		{name: "the shared event gone from the second", im: studioIm, change: func() { removeEvent(t, studio, shared) }, want: counts{Trashed: 1, Unchanged: 3}},
	} {
		if step.change != nil {
			step.change()
		}
		rep := sync(t, step.im, mirror.Options{})
		if got := countsOf(rep); got != step.want || len(rep.Notes) != 0 {
			t.Errorf("%s: %+v %q, want %+v and no note", step.name, got, rep.Notes, step.want)
		}
	}
	byStatus := map[storage.Status]int{}
	for _, e := range events(t, db) {
		if e.Parent == 0 {
			byStatus[e.Status]++
		}
	}
	if byStatus[storage.StatusPublish] != 5 || byStatus[storage.StatusTrash] != 2 {
		t.Errorf("events by status %v, want 5 published (the first calendar's 2, the second's 3) and 2 trashed", byStatus)
	}
	for from, want := range map[string]int{jazz: 2, studio: 3} {
		if links, err := db.Linked(context.Background(), from); err != nil || len(links) != want {
			t.Errorf("links of %s: %d %v, want %d", from, len(links), err, want)
		}
	}
}

// copyEvent appends the VEVENT of uid in the file at from to the file at to.
func copyEvent(t *testing.T, from, to, uid string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var block string
	for _, blk := range strings.SplitAfter(strings.ReplaceAll(string(b), "\r\n", "\n"), "END:VEVENT\n") {
		if strings.Contains(blk, "UID:"+uid+"\n") {
			block = blk[strings.Index(blk, "BEGIN:VEVENT"):]
		}
	}
	if block == "" {
		t.Fatalf("%s has no VEVENT %s", from, uid)
	}
	edit(t, to, "END:VCALENDAR", block+"END:VCALENDAR")
}

// noOrigins is a store that keeps no origins, as stores written before them: its calendars' links are
// named by the path each was imported from, and nothing more.
type noOrigins struct{ *storage.DB }

func (noOrigins) Origin(context.Context, string) (storage.Origin, error) {
	return storage.Origin{}, storage.ErrNotFound
}

// TestSyncStoreWithoutOrigins: a calendar imported before the store kept origins is found again by its
// UIDs from another path, and from its own path, without a copy.
func TestSyncStoreWithoutOrigins(t *testing.T) {
	db := openStore(t)
	first := fixture(t, "meetup.ics")
	if got := countsOf(sync(t, &Importer{From: first, Store: noOrigins{db}, Actor: admin, Lang: "en"}, mirror.Options{})); got != (counts{Added: 2}) {
		t.Fatalf("import without origins: %+v", got)
	}
	for _, from := range []string{fixture(t, "meetup.ics"), first} {
		for _, store := range []mirror.Store{noOrigins{db}, db} {
			if got := countsOf(sync(t, &Importer{From: from, Store: store, Actor: admin, Lang: "en"}, mirror.Options{})); got != (counts{Unchanged: 2}) {
				t.Errorf("%s (origins kept: %t): %+v, want 2 unchanged", from, store == mirror.Store(db), got)
			}
		}
	}
	if n := len(events(t, db)); n != 2 {
		t.Errorf("%d events, want the calendar's 2", n)
	}
}
