package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
	"github.com/calendard/calendard/storage"
)

const (
	siteLogin = "editor"
	sitePass  = "site app password"
)

// sourceRecord is a record written through the API of the source server, and its list name on a TEC
// site.
type sourceRecord struct {
	kind, path string
}

// writeThroughAPI writes a small calendar through the API of s, every field a TEC site carries set
// on some record, and returns the records' paths.
func writeThroughAPI(t *testing.T, s *server) []sourceRecord {
	t.Helper()
	music := s.create("/calendar/events/v1/categories", map[string]any{"name": "Music", "description": "All music"})
	jazz := s.create("/calendar/events/v1/categories", map[string]any{"name": "Jazz", "slug": "le-jazz", "parent": music})
	live := s.create("/calendar/events/v1/tags", map[string]any{"name": "live"})
	venue := s.create("/calendar/events/v1/venues", map[string]any{"venue": "Salle Pleyel", "address": "252 Rue du Faubourg Saint-Honoré",
		"city": "Paris", "country": "France", "zip": "75008", "website": "https://pleyel.example/?a=1&b=2", "phone": "+33 1",
		"geo_lat": 48.8774, "geo_lng": 2.3008, "show_map_link": false, "description": "<p>A <b>hall</b></p>"})
	org := s.create("/calendar/events/v1/organizers", map[string]any{"organizer": "Org A", "email": "a@example.org",
		"website": "https://org.example/?x=1&y=2", "phone": "+1 555"})
	jazzNight := s.create("/calendar/events/v1/events", map[string]any{"title": "Jazz Night", "slug": "jazz-night-2030",
		"description": "<p>A great</p>\n<p>concert</p>", "excerpt": "<p>Short</p>",
		"start_date": "2030-05-01 20:00:00", "end_date": "2030-05-01 22:00:00", "timezone": "Europe/Paris",
		"cost": []string{"0$", "20$", "30$"}, "website": "https://tickets.example/?e=1&x=2", "featured": true, "sticky": true, "show_map": true,
		"categories": []uint64{jazz}, "tags": []uint64{live}, "venue": venue, "organizer": []uint64{org},
		"image": "https://img.example/jazz.jpg"})
	// An event hidden from listings must not have ended to be imported: a real site lists it nowhere
	// then (docs/IMPORT.md, "Importing a The Events Calendar site").
	past := s.create("/calendar/events/v1/events", map[string]any{"title": "Old Fair", "all_day": true,
		"start_date": "2020-03-01", "end_date": "2020-03-02", "date": "2020-01-01 09:00:00"})
	draft := s.create("/calendar/events/v1/events", map[string]any{"title": "Secret Draft", "status": "draft", "hide_from_listings": true,
		"start_date": "2030-06-01 20:00:00", "end_date": "2030-06-01 21:00:00", "categories": []uint64{music}})
	// A TEC site gives a draft no slug, which an import makes the draft's ID (docs/IMPORT.md): so does the source.
	if res := s.do(req{method: "POST", path: "/calendar/events/v1/events/" + utoa(draft), auth: adminAuth, body: map[string]any{"slug": utoa(draft)}}); res.status != http.StatusOK {
		t.Fatalf("draft's slug: %d\n%s", res.status, res.body)
	}
	recs := []sourceRecord{
		{tectest.Categories, "/calendar/events/v1/categories/" + utoa(music)},
		{tectest.Categories, "/calendar/events/v1/categories/" + utoa(jazz)},
		{tectest.Tags, "/calendar/events/v1/tags/" + utoa(live)},
		{tectest.Venues, "/calendar/events/v1/venues/" + utoa(venue)},
		{tectest.Organizers, "/calendar/events/v1/organizers/" + utoa(org)},
	}
	for _, id := range []uint64{jazzNight, past, draft} {
		recs = append(recs, sourceRecord{tectest.Events, "/calendar/events/v1/events/" + utoa(id)})
	}
	return recs
}

// publishSite serves what s answers for recs as a TEC site would.
func publishSite(t *testing.T, s *server, recs []sourceRecord) (*tectest.Site, string) {
	t.Helper()
	site := tectest.New()
	site.User, site.Password = siteLogin, sitePass
	for _, r := range recs {
		site.Put(r.kind, s.do(req{method: "GET", path: r.path, auth: adminAuth}).json(t))
	}
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	return site, srv.URL + "/wp-json"
}

// importEnv is the environment of an import command into dir, with the test servers' settings.
func importEnv(dir string) func(string) string {
	vars := map[string]string{"CALENDAR_DATA_DIR": dir, "CALENDAR_NOW": testNow, "CALENDAR_BASE_URL": testOrigin,
		"CALENDAR_ADMIN_APP_PASSWORD": adminPass, "CALENDAR_LOG_LEVEL": "warn"}
	return func(k string) string { return vars[k] }
}

// runImport runs `calendard import SOURCE ARGS…` into dir's store (the one its servers open) and
// returns its output.
func runImport(t *testing.T, dir, source string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := overlay(importEnv(dir), backendEnv(t, dir, nil))
	if err := run(context.Background(), append([]string{"import", source}, args...), env, &stdout, &stderr); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

// TestImportAnswersAsTheAPI: a calendar written through the API of one server, served by a TEC site
// and imported into another, answers every GET the same, field for field.
//
// What legitimately differs is nothing but what the site does not say: none for these records (both
// servers run the same clock, so `modified` agrees, and the first administrator writes on both).
func TestImportAnswersAsTheAPI(t *testing.T) {
	src := startServer(t)
	recs := writeThroughAPI(t, src)
	_, from := publishSite(t, src, recs)
	dir := t.TempDir()
	out := runImport(t, dir, "tec", "--from", from, "--user", siteLogin, "--app-password", sitePass)
	if !strings.Contains(out, "added 8, updated 0, trashed 0, unchanged 0, failed 0") {
		t.Errorf("import output:\n%s", out)
	}
	dst := startServerIn(t, dir)
	for _, r := range recs {
		want := src.do(req{method: "GET", path: r.path, auth: adminAuth})
		got := dst.do(req{method: "GET", path: r.path, auth: adminAuth})
		if got.status != http.StatusOK {
			t.Errorf("GET %s on the import: %d\n%s", r.path, got.status, got.body)
			continue
		}
		compareJSON(t, r.path, want.json(t), got.json(t))
	}
	for _, list := range []string{"/calendar/events/v1/events?start_date=2000-01-01", "/calendar/events/v1/venues", "/calendar/events/v1/categories"} {
		want := src.do(req{method: "GET", path: list, auth: adminAuth}).json(t)
		got := dst.do(req{method: "GET", path: list, auth: adminAuth}).json(t)
		compareJSON(t, list, want, got)
	}
}

// compareJSON reports every path at which got differs from want.
func compareJSON(t *testing.T, where string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: got %v, want an object", where, got)
			return
		}
		for k := range w {
			if _, ok := g[k]; !ok {
				t.Errorf("%s.%s: missing", where, k)
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				t.Errorf("%s.%s: unexpected (%v)", where, k, g[k])
				continue
			}
			compareJSON(t, where+"."+k, w[k], g[k])
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: got %v, want %v", where, got, want)
			return
		}
		for i := range w {
			compareJSON(t, where+"["+utoa(uint64(i))+"]", w[i], g[i])
		}
	default:
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: got %v, want %v", where, toJSONValue(got), toJSONValue(want))
		}
	}
}

func toJSONValue(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestImportCommand: a second run changes nothing, changes on the site are synced, a dry run writes
// nothing, and the command's mistakes are explained.
func TestImportCommand(t *testing.T) {
	src := startServer(t)
	recs := writeThroughAPI(t, src)
	site, from := publishSite(t, src, recs)
	dir := t.TempDir()
	// A dry run reports what the real run does, the event on the venue it brings included.
	if out := runImport(t, dir, "tec", "--from", from, "--dry-run"); !strings.Contains(out, "dry run, nothing written: ") ||
		!strings.Contains(out, "added 7, updated 0, trashed 0, unchanged 0, failed 0") {
		t.Errorf("dry run output:\n%s", out)
	}
	db := openDirStore(t, "import", importEnv(dir))
	if n, err := db.Count(context.Background(), storage.TypeEvent); err != nil || n != 0 {
		t.Errorf("%d events after a dry run (%v)", n, err)
	}
	db.Close()
	// Anonymous: the draft stays on the site.
	if out := runImport(t, dir, "tec", "--from", from); !strings.Contains(out, "added 7, updated 0, trashed 0, unchanged 0, failed 0") {
		t.Errorf("first import:\n%s", out)
	}
	if out := runImport(t, dir, "tec", "--from", from); !strings.Contains(out, "added 0, updated 0, trashed 0, unchanged 7, failed 0") {
		t.Errorf("second import:\n%s", out)
	}
	changed := src.do(req{method: "GET", path: recs[5].path, auth: adminAuth}).json(t)
	changed["title"], changed["modified_utc"] = "Jazz Night (moved)", "2026-11-22 10:20:00"
	site.Put(tectest.Events, changed)
	site.Delete(tectest.Events, uint64(src.do(req{method: "GET", path: recs[6].path, auth: adminAuth}).json(t)["id"].(float64)))
	for _, args := range [][]string{{"--dry-run"}, nil} { // the dry run leaves the changes to the real run
		if out := runImport(t, dir, "tec", append([]string{"--from", from}, args...)...); !strings.Contains(out, "added 0, updated 1, trashed 1, unchanged 5, failed 0") {
			t.Errorf("import %v after changes:\n%s", args, out)
		}
	}
	if left, err := filepath.Glob(filepath.Join(dir, ".dry-run-*")); err != nil || len(left) > 0 {
		t.Errorf("left after dry runs: %v %v", left, err)
	}
	dst := startServerIn(t, dir)
	if got := dst.do(req{method: "GET", path: recs[5].path}).json(t)["title"]; got != "Jazz Night (moved)" {
		t.Errorf("changed event's title %v", got)
	}
	// A trashed event answers so (docs/API.md "Events").
	if got := dst.do(req{method: "GET", path: recs[6].path, auth: adminAuth}).json(t)["code"]; got != "event-no-longer-available" {
		t.Errorf("deleted event answers %v, want event-no-longer-available: it is in the trash", got)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "needs --from"},
		{[]string{"--from", "ftp://x"}, "not a site's REST root"},
		{[]string{"--from", from, "--language", "xx=http://a"}, "language \"xx=http://a\""},
		{[]string{"--from", from, "--user", "u"}, "go together"},
		{[]string{"--from", from, "extra"}, "unexpected argument"},
		{[]string{"--from", from, "--full-every", "0"}, "full-every must be a positive duration"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"import", "tec"}, tc.args...), importEnv(t.TempDir()), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("import tec %v: %v, want %q", tc.args, err, tc.want)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"import", "csv"}, importEnv(t.TempDir()), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "needs a source") {
		t.Errorf("import csv: %v", err)
	}
}

// startMirrorReporting starts the mirrors s is configured with, as serve does, and returns the reports
// of their runs as they end (a run whose report finds the channel full is not reported). The mirrors
// stop when the test ends.
func startMirrorReporting(t *testing.T, s *server) <-chan *mirror.Report {
	t.Helper()
	ran := make(chan *mirror.Report, 64)
	s.app.mirrorRan = func(rep *mirror.Report, err error) {
		if err != nil {
			t.Errorf("mirror run: %v", err)
		}
		select {
		case ran <- rep:
		default:
		}
	}
	stop, err := s.app.startMirror(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return ran
}

// TestMirrorInServe: with CALENDAR_MIRROR_FROM, serve mirrors the site by itself, and refuses writes
// through the API to the mirrored records (the site is their truth) while records of its own stay
// writable.
func TestMirrorInServe(t *testing.T) {
	src := startServer(t)
	recs := writeThroughAPI(t, src)
	_, from := publishSite(t, src, recs)
	s := startServer(t, "CALENDAR_MIRROR_FROM="+from, "CALENDAR_MIRROR_USER="+siteLogin, "CALENDAR_MIRROR_APP_PASSWORD="+sitePass)
	ran := startMirrorReporting(t, s)
	if rep := <-ran; rep.Added != 8 || rep.Failed != 0 {
		t.Fatalf("first run in serve: %v %+v", rep, rep.Failures)
	}
	s.settle()
	event := recs[5].path
	if got := s.do(req{method: "GET", path: event}).json(t)["title"]; got != "Jazz Night" {
		t.Errorf("mirrored event's title %v", got)
	}
	for _, w := range []req{
		{method: "POST", path: event, body: map[string]any{"title": "Changed here"}},
		{method: "DELETE", path: event},
		{method: "POST", path: recs[3].path, body: map[string]any{"city": "Lyon"}},
		{method: "DELETE", path: recs[0].path + "?force=true"},
	} {
		w.auth = adminAuth
		res := s.do(w)
		if body := res.json(t); res.status != http.StatusConflict || body["code"] != "rest_mirrored_record" {
			t.Errorf("%s %s: %d %s, want 409 rest_mirrored_record", w.method, w.path, res.status, res.body)
		}
	}
	ours := s.create("/calendar/events/v1/events", map[string]any{"title": "Ours", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00"})
	if res := s.do(req{method: "POST", path: "/calendar/events/v1/events/" + utoa(ours), auth: adminAuth, body: map[string]any{"title": "Ours too"}}); res.status != http.StatusOK {
		t.Errorf("update of a record of our own: %d %s", res.status, res.body)
	}
}

// TestImportTimeout: a source that accepts the connection and never answers, or sends its headers
// and stalls the body, fails the import at its timeout (--timeout, else CALENDAR_MIRROR_TIMEOUT) with
// an error naming the URL and the timeout; an interrupt stops an import waiting on such a source at
// once.
func TestImportTimeout(t *testing.T) {
	release, interrupted := make(chan struct{}), make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/interrupt/"):
			interrupted <- struct{}{}
		case r.URL.Path == "/stalled-body.ics":
			w.Header().Set("Content-Type", "text/calendar")
			_, _ = w.Write([]byte("BEGIN:VCALENDAR\r\n"))
			w.(http.Flusher).Flush()
		}
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handlers
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		url  string
	}{
		{"tec", []string{"tec", "--from", srv.URL + "/wp-json", "--timeout", "200ms"}, nil, srv.URL + "/wp-json/"},
		{"ics", []string{"ics", srv.URL + "/feed.ics", "--timeout", "200ms"}, nil, srv.URL + "/feed.ics"},
		{"ics body stalls", []string{"ics", srv.URL + "/stalled-body.ics"}, []string{"CALENDAR_MIRROR_TIMEOUT=200ms"}, srv.URL + "/stalled-body.ics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"import"}, tc.args...), overlay(importEnv(dir), append(backendEnv(t, dir, nil), tc.env...)), &stdout, &stderr)
			if want := "GET " + tc.url + ": no complete answer within 200ms"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("import: %v, want an error saying %q", err, want)
			}
		})
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-interrupted; cancel() }()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"import", "tec", "--from", srv.URL + "/interrupt/wp-json"}, overlay(importEnv(dir), backendEnv(t, dir, nil)), &stdout, &stderr)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted import: %v, want context.Canceled", err)
	}
}

// TestImportTECExitStatus: `import tec` exits as `import ics` does: 0 when every record came in, 2
// when some failed and the others were imported (which it keeps), 1 when every one failed.
func TestImportTECExitStatus(t *testing.T) {
	event := func(title, zone string) map[string]any {
		return map[string]any{"status": "publish", "date_utc": "2026-01-01 09:00:00", "modified_utc": "2026-01-02 09:00:00",
			"url": "https://site.example/event/" + zone, "title": title, "description": "", "image": false,
			"start_date": "2030-05-01 20:00:00", "end_date": "2030-05-01 22:00:00", "timezone": zone}
	}
	for _, tc := range []struct {
		name       string
		zones      []string
		wantStatus int
		wantErr    string
	}{
		{"every record imported", []string{"UTC", "Europe/Paris"}, 0, ""},
		{"one of two failed", []string{"UTC", "Mars/Olympus"}, 2, "1 of 2 records failed, 1 imported"},
		{"every record failed", []string{"Mars/Olympus", "Venus/Maxwell"}, 1, "2 of 2 records failed, 0 imported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := tectest.New()
			for _, zone := range tc.zones {
				site.Put(tectest.Events, event("In "+zone, zone))
			}
			srv := httptest.NewServer(site)
			defer srv.Close()
			dir := filepath.Join(t.TempDir(), "data")
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"import", "tec", "--from", srv.URL + "/wp-json"}, overlay(importEnv(dir), backendEnv(t, dir, nil)), &stdout, &stderr)
			switch {
			case tc.wantStatus == 0 && err != nil:
				t.Errorf("error %v, want none\n%s", err, stdout.String())
			case tc.wantStatus != 0 && (err == nil || exitStatus(err) != tc.wantStatus || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want status %d saying %q\n%s", err, tc.wantStatus, tc.wantErr, stdout.String())
			}
		})
	}
}

// TestMirrorLocalIDs: while a TEC site is mirrored, what is created through the API takes IDs from
// storage.MirrorIDBase up, which the site's never reach, and lists, searches and filters find it as
// any other; the next sync leaves it alone. Without a mirror, IDs go on from 1.
func TestMirrorLocalIDs(t *testing.T) {
	src := startServer(t)
	recs := writeThroughAPI(t, src)
	_, from := publishSite(t, src, recs)
	s := startServer(t, "CALENDAR_MIRROR_FROM="+from, "CALENDAR_MIRROR_USER="+siteLogin, "CALENDAR_MIRROR_APP_PASSWORD="+sitePass)
	ran := startMirrorReporting(t, s)
	if rep := <-ran; rep.Added != 8 || rep.Failed != 0 {
		t.Fatalf("first run: %v %+v", rep, rep.Failures)
	}
	const ns = "/calendar/events/v1/"
	venue := s.create(ns+"venues", map[string]any{"venue": "Our hall"})
	organizer := s.create(ns+"organizers", map[string]any{"organizer": "Our crew"})
	category := s.create(ns+"categories", map[string]any{"name": "Ours"})
	tag := s.create(ns+"tags", map[string]any{"name": "our-tag"})
	event := s.create(ns+"events", map[string]any{"title": "Our own night", "featured": true, "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00",
		"venue": venue, "organizer": []uint64{organizer}, "categories": []uint64{category}, "tags": []uint64{tag}})
	for name, id := range map[string]uint64{"venue": venue, "organizer": organizer, "category": category, "tag": tag, "event": event} {
		if id < storage.MirrorIDBase {
			t.Errorf("%s created while mirroring: ID %d, want at least %d", name, id, storage.MirrorIDBase)
		}
	}
	s.settle()
	for _, q := range []string{"search=own+night", "include=" + utoa(event), "featured=1", "venue=" + utoa(venue), "organizer=" + utoa(organizer),
		"categories=" + utoa(category), "tags=" + utoa(tag), "hide_subsequent_recurrences=1"} {
		res := s.do(req{method: "GET", path: ns + "events?" + q})
		found := false
		for _, e := range res.json(t)["events"].([]any) {
			found = found || uint64(e.(map[string]any)["id"].(float64)) == event
		}
		if res.status != http.StatusOK || !found {
			t.Errorf("events?%s: %d, without our event %d:\n%.300s", q, res.status, event, res.body)
		}
	}
	before := s.do(req{method: "GET", path: ns + "events/" + utoa(event)}).body
	// The mirror runs again at its interval (5 minutes); a sync now is the same.
	rep, err := mirror.RunLogged(context.Background(), mustImporter(t, s), mirror.Options{})
	if err != nil || rep.Failed != 0 || rep.Added != 0 {
		t.Errorf("sync after our creates: %v %v %+v", rep, err, rep.Failures)
	}
	if after := s.do(req{method: "GET", path: ns + "events/" + utoa(event)}).body; !bytes.Equal(before, after) {
		t.Errorf("our event changed by a sync:\n%s\nwas\n%s", after, before)
	}
	if id := startServer(t).create(ns+"events", map[string]any{"title": "Unmirrored", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00"}); id != 1 {
		t.Errorf("without a mirror: ID %d, want 1", id)
	}
}

// mustImporter is the TEC importer serve's mirror of s runs.
func mustImporter(t *testing.T, s *server) mirror.Source {
	t.Helper()
	actor, err := firstAdministrator(context.Background(), s.app.db)
	if err != nil {
		t.Fatal(err)
	}
	im, err := s.app.cfg.mirror.importer(s.app.db, actor, storage.Lang(s.app.cfg.DefaultLanguage))
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// TestFailedFirstImportLeavesNoStore: a first import that fails (a site that is not, or no longer, a
// TEC site; an operator's Ctrl-C) leaves the data directory as it was, made or not; so does a dry run.
// A failed import into an existing store leaves it with what it held.
func TestFailedFirstImportLeavesNoStore(t *testing.T) {
	site := tectest.New()
	site.Put(tectest.Events, map[string]any{"status": "publish", "title": "Gig", "start_date": "2030-01-01 10:00:00",
		"end_date": "2030-01-01 11:00:00", "timezone": "UTC", "description": "", "image": false})
	var failing, cancelling bool
	var cancel context.CancelFunc
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/tribe/events/v1/events") {
			switch {
			case failing:
				http.Error(w, `{"code":"rest_no_route","message":"No route was found matching the URL and request method."}`, http.StatusNotFound)
				return
			case cancelling:
				cancel() // Ctrl-C, while the site fails
				http.Error(w, `{"code":"internal_server_error"}`, http.StatusInternalServerError)
				return
			}
		}
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	from := srv.URL + "/wp-json"
	importInto := func(dir string, args ...string) error {
		t.Helper()
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		var stdout, stderr bytes.Buffer
		return run(ctx, append([]string{"import", "tec", "--from", from}, args...), importEnv(dir), &stdout, &stderr)
	}
	for _, tc := range []struct {
		name                string
		failing, cancelling bool
		args                []string
	}{
		{"not a TEC site", true, false, nil},
		{"interrupted", false, true, nil},
		{"dry run", false, false, []string{"--dry-run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failing, cancelling = tc.failing, tc.cancelling
			made := t.TempDir()
			notMade := filepath.Join(t.TempDir(), "data")
			for _, dir := range []string{made, notMade} {
				err := importInto(dir, tc.args...)
				if (err == nil) != (tc.args != nil) {
					t.Errorf("%s: import: %v", dir, err)
				}
			}
			if left, err := os.ReadDir(made); err != nil || len(left) != 0 {
				t.Errorf("the data directory holds %v (%v), want nothing", left, err)
			}
			if _, err := os.Stat(notMade); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a data directory that was not there: %v, want it still not there", err)
			}
		})
	}
	t.Run("existing store", func(t *testing.T) {
		failing, cancelling = false, false
		dir := t.TempDir()
		keepOnFile(t, dir) // the import commands above write the file under -backend=etcd too
		if err := importInto(dir); err != nil {
			t.Fatal(err)
		}
		failing = true
		if err := importInto(dir); err == nil {
			t.Fatal("import from a site that fails: no error")
		}
		db := openDirStore(t, "import", importEnv(dir))
		defer db.Close()
		if n, err := db.Count(context.Background(), storage.TypeEvent); err != nil || n != 1 {
			t.Errorf("%d events (%v) after a failed import into a store, want the one it held", n, err)
		}
	})
}
