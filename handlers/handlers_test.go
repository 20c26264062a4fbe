package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

const adminPassword = "AdminPassword0123456789a"

// newTestHandler serves a fresh store with one administrator, on a frozen clock.
func newTestHandler(t testing.TB, cfg Config) (http.Handler, *storage.DB) {
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	return newClockedHandler(t, cfg, func() time.Time { return now })
}

// newClockedHandler is newTestHandler on a clock the test controls.
func newClockedHandler(t testing.TB, cfg Config, clock func() time.Time) (http.Handler, *storage.DB) {
	t.Helper()
	log := zap.NewNop()
	if tt, ok := t.(*testing.T); ok {
		log = zaptest.NewLogger(tt)
	}
	return newLoggedHandler(t, cfg, clock, log)
}

// newLoggedHandler is newClockedHandler logging to log, for tests that check what is logged.
func newLoggedHandler(t testing.TB, cfg Config, clock func() time.Time, log *zap.Logger) (http.Handler, *storage.DB) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := db.CreateUser(ctx, storage.User{Login: "admin", Email: "admin@example.org", Role: storage.RoleAdministrator}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddAppPassword(ctx, "admin", "test", adminPassword); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "index"), db, index.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if cfg.IndexWait == 0 {
		// No syncer runs unless a test starts one: a write waits only this long for the index.
		cfg.IndexWait = time.Millisecond
	}
	return New(Deps{Config: cfg, Store: db, Index: ix, Log: log}), db
}

// indexOf is the real index behind a test handler, for what only tests do with it: apply the
// change log now (SyncOnce) instead of waiting for a syncer.
func indexOf(h *Handler) *index.Index { return h.index.(*index.Index) }

func serve(h http.Handler, method, target, contentType, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.SetBasicAuth("admin", adminPassword)
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// checkEnvelope fails unless the response is JSON and, for errors, the contract's envelope.
func checkEnvelope(t testing.TB, w *httptest.ResponseRecorder) {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("status %d: body is not a JSON object: %v\n%s", w.Code, err, w.Body)
	}
	if w.Code >= 400 {
		data, _ := body["data"].(map[string]any)
		if _, ok := body["code"].(string); !ok || data["status"] != float64(w.Code) {
			t.Fatalf("status %d: not an error envelope: %s", w.Code, w.Body)
		}
	}
}

func TestInternalErrorsAreHidden(t *testing.T) {
	h, db := newTestHandler(t, Config{})
	db.Close() // every store call now fails with an error the contract has no code for
	r := httptest.NewRequest("GET", "/calendar/events/v1/events/1", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	checkEnvelope(t, w)
	if w.Code != 500 || !strings.Contains(w.Body.String(), `"rest_internal_error"`) || strings.Contains(w.Body.String(), "database") {
		t.Errorf("got %d %s", w.Code, w.Body)
	}
}

func TestHandlerDeadline(t *testing.T) {
	h, _ := newTestHandler(t, Config{HandlerTimeout: time.Nanosecond})
	w := serve(h, "GET", "/calendar/events/v1/events/1", "", "")
	checkEnvelope(t, w)
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `"rest_timeout"`) {
		t.Errorf("got %d %s", w.Code, w.Body)
	}
}

// FuzzEventBody sends arbitrary bodies to the event create and update routes: whatever arrives, the
// answer is the contract's envelope and never a 500.
func FuzzEventBody(f *testing.F) {
	for _, seed := range []string{
		`{"title":"Concert","start_date":"2030-05-01 20:00","end_date":"2030-05-01 22:00"}`,
		`{"title":"x","start_date":"tomorrow 9am","end_date":"+2 hours","timezone":"UTC+5.5","all_day":"yes"}`,
		`{"title":"x","start_date":1514764800,"end_date":"2030-01-01","venue":{"venue":"Hall","geo_lat":"1e1","geo_lng":-4}}`,
		`{"title":"x","start_date":"2030-01-01","end_date":"2030-01-01","organizer":[1,{"organizer":"O"},"2,3"],"categories":"a,b,1","tags":[1.0,"t"]}`,
		`{"title":"x","start_date":"2030-01-01","end_date":"2030-01-01","cost":["0$",12.5,"€ 10 - 20"],"image":"https://x.org/a.png","website":"https://x.org"}`,
		`{"title":null,"status":"trash","date":"next monday","date_utc":"2017-12-21T10:00:00Z"}`,
		`title=x&start_date=2030-01-01&end_date=2030-01-01&venue[]=1&organizer[0][organizer]=O`,
		`[1,2]`, `{"a":`, ``,
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	h, _ := newTestHandler(f, Config{})
	f.Fuzz(func(t *testing.T, body string, asJSON bool) {
		ct := "application/x-www-form-urlencoded"
		if asJSON {
			ct = "application/json"
		}
		w := serve(h, "POST", "/calendar/events/v1/events", ct, body)
		checkEnvelope(t, w)
		if w.Code >= 500 {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
		if w.Code == http.StatusCreated {
			var created struct{ ID int64 }
			json.Unmarshal(w.Body.Bytes(), &created)
			w = serve(h, "PATCH", "/calendar/events/v1/events/"+itoa(created.ID), ct, body)
			checkEnvelope(t, w)
			if w.Code >= 500 {
				t.Fatalf("update: %d %s", w.Code, w.Body)
			}
		}
	})
}

// A name of nothing but control characters is blank, as one of spaces is.
func TestBlankNames(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	for _, title := range []string{"", "   ", `\u0000`, `\u0000\r\n\t`, `\u0085`} {
		w := serve(h, "POST", "/calendar/events/v1/events", "application/json",
			`{"title":"`+title+`","start_date":"2026-12-01 20:00","end_date":"2026-12-01 22:00"}`)
		checkEnvelope(t, w)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "must not be empty") {
			t.Errorf("title %q: %d %s", title, w.Code, w.Body)
		}
	}
	if w := serve(h, "POST", "/calendar/events/v1/venues", "application/json", `{"venue":"\u0000"}`); w.Code != http.StatusBadRequest {
		t.Errorf("venue named NUL: %d %s", w.Code, w.Body)
	}
}

// TestNormalizePath: the path the router sees (docs/API.md "Routes"), and none made for a path that is
// normal already.
func TestNormalizePath(t *testing.T) {
	h := &Handler{}
	for _, tc := range []struct {
		path, want string
		prefix     storage.Lang
		ok         bool
	}{
		{path: "/calendar/events/v1/events", want: "/calendar/events/v1/events", ok: true},
		{path: "/calendar/events/v1/events/", want: "/calendar/events/v1/events", ok: true},
		{path: "/Calendar/Events/V1/Events", want: "/calendar/events/v1/events", ok: true},
		{path: "/fr/calendar/events/v1/events", want: "/calendar/events/v1/events", prefix: "fr", ok: true},
		{path: "/calendar/events/v1/events/by-slug/Jazz-Night", want: "/calendar/events/v1/events/by-slug/Jazz-Night", ok: true},
		{path: "/calendar/events/v1/%65vents", want: "/calendar/events/v1/events", ok: true},
		{path: "/calendar/events//v1", want: "/calendar/events//v1", ok: true},
		{path: "/calendar/events/v1/%2Fx", ok: false},
		{path: "/wp-json/events", ok: false},
		{path: "/de/", want: "/", prefix: "de", ok: true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rq := &request{}
			got, ok := h.normalizePath(rq, tc.path)
			if ok != tc.ok || ok && (got != tc.want || rq.prefix != tc.prefix) {
				t.Errorf("normalizePath(%q) = %q, %v with prefix %q; want %q, %v with prefix %q", tc.path, got, ok, rq.prefix, tc.want, tc.ok, tc.prefix)
			}
		})
	}
	if n := testing.AllocsPerRun(10, func() { h.normalizePath(&request{}, "/calendar/events/v1/events") }); n != 0 {
		t.Errorf("a normal path was taken apart: %v allocations", n)
	}
}
