package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
)

// addUser gives the test store a user of role, whose application password is the login padded to 24
// characters.
func addUser(t *testing.T, db *storage.DB, login string, role storage.Role) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.CreateUser(ctx, storage.User{Login: login, Email: login + "@example.org", Role: role}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddAppPassword(ctx, login, "test", userPassword(login)); err != nil {
		t.Fatal(err)
	}
}

func userPassword(login string) string { return login + strings.Repeat("x", 24-len(login)) }

// addRoles gives the test store one user of each role: ada the administrator, eddie the editor, ava
// the author, carl the contributor and sue the subscriber.
func addRoles(t *testing.T, db *storage.DB) {
	t.Helper()
	for login, role := range map[string]storage.Role{"ada": storage.RoleAdministrator, "eddie": storage.RoleEditor,
		"ava": storage.RoleAuthor, "carl": storage.RoleContributor, "sue": storage.RoleSubscriber} {
		addUser(t, db, login, role)
	}
}

// limitStep is one request, or count alike, of a write-limit scenario.
type limitStep struct {
	advance time.Duration
	login   string // "" anonymous
	method  string
	target  string
	body    string // JSON
	header  map[string]string
	count   int // 0: one

	wantStatus int
	// wantRetryAfter, set on a 429, is the Retry-After wanted, and wantMessage part of its message.
	wantRetryAfter, wantMessage string
}

// runLimitSteps serves steps in order on h, the clock at *now, and checks each answer: its status;
// on a 429 the envelope, Retry-After and message; never an X-RateLimit-* header (the write limits
// send none, and the general rate limit is off in these scenarios).
func runLimitSteps(t *testing.T, h http.Handler, now *time.Time, steps []limitStep) {
	t.Helper()
	for i, s := range steps {
		*now = now.Add(s.advance)
		for j := range max(s.count, 1) {
			r := httptest.NewRequest(s.method, s.target, strings.NewReader(s.body))
			if s.body != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			if s.login != "" {
				r.SetBasicAuth(s.login, userPassword(s.login))
			}
			for k, v := range s.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != s.wantStatus {
				t.Fatalf("step %d, request %d (%s %s as %q): got status %d, want %d\n%s", i, j, s.method, s.target, s.login, w.Code, s.wantStatus, w.Body)
			}
			for _, hd := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining"} {
				if got := w.Header().Get(hd); got != "" {
					t.Errorf("step %d, request %d: got %s %q, want none", i, j, hd, got)
				}
			}
			if got := w.Header().Get("Retry-After"); got != s.wantRetryAfter {
				t.Errorf("step %d, request %d: got Retry-After %q, want %q", i, j, got, s.wantRetryAfter)
			}
			if w.Code == http.StatusTooManyRequests {
				checkEnvelope(t, w)
				var got struct{ Code, Message string }
				json.Unmarshal(w.Body.Bytes(), &got)
				if got.Code != "rest_too_many_requests" || !strings.Contains(got.Message, s.wantMessage) {
					t.Errorf("step %d, request %d: got %s %q, want rest_too_many_requests with %q", i, j, got.Code, got.Message, s.wantMessage)
				}
			}
		}
	}
}

// TestWriteRateLimit: the writes of a user below editor count against a bucket of that user, on by
// default at DefaultWriteRateLimitPerMinute; reads do not, editors and administrators are never
// limited, and 0 turns the limit off.
func TestWriteRateLimit(t *testing.T) {
	const (
		events = "/calendar/events/v1/events"
		event  = `{"title":"Choir","start_date":"2026-12-01 19:00:00","end_date":"2026-12-01 21:00:00"}`
	)
	create := func(login string, status int) limitStep {
		return limitStep{login: login, method: http.MethodPost, target: events, body: event, wantStatus: status}
	}
	creates := func(login string, n, status int) limitStep {
		s := create(login, status)
		s.count = n
		return s
	}
	limited := func(s limitStep, retryAfter string) limitStep {
		s.wantStatus, s.wantRetryAfter, s.wantMessage = http.StatusTooManyRequests, retryAfter, "writes a minute"
		return s
	}
	read := func(login string, n int) limitStep {
		return limitStep{login: login, method: http.MethodGet, target: events, count: n, wantStatus: http.StatusOK}
	}
	tests := []struct {
		name  string
		limit int
		steps []limitStep
	}{
		{"a contributor's 61st write in a minute is refused, an editor's is not", DefaultWriteRateLimitPerMinute, []limitStep{
			creates("carl", 60, http.StatusCreated),
			limited(create("carl", 0), "1"),
			creates("eddie", 61, http.StatusCreated),
			creates("ada", 61, http.StatusCreated),
			{advance: time.Second, login: "carl", method: http.MethodPost, target: events, body: event, wantStatus: http.StatusCreated},
			limited(create("carl", 0), "1"),
		}},
		{"an author is limited too, and each user has a bucket of their own", 2, []limitStep{
			creates("ava", 2, http.StatusCreated),
			limited(create("ava", 0), "30"),
			creates("carl", 2, http.StatusCreated),
			limited(create("carl", 0), "30"),
			{advance: 30 * time.Second, login: "ava", method: http.MethodPost, target: events, body: event, wantStatus: http.StatusCreated},
		}},
		{"reads are never counted, nor refused once the writes are", 2, []limitStep{
			read("carl", 5),
			creates("carl", 2, http.StatusCreated),
			limited(create("carl", 0), "30"),
			read("carl", 5),
			{login: "carl", method: http.MethodOptions, target: events, wantStatus: http.StatusOK},
			{login: "carl", method: http.MethodHead, target: events, wantStatus: http.StatusOK},
		}},
		{"every write method counts, through an override too, whatever its answer", 4, []limitStep{
			{login: "carl", method: http.MethodDelete, target: events + "/999", wantStatus: http.StatusNotFound},
			{login: "carl", method: http.MethodPatch, target: events + "/999", body: `{"title":"x"}`, wantStatus: http.StatusNotFound},
			{login: "carl", method: http.MethodPut, target: events + "/999", body: `{"title":"x"}`, wantStatus: http.StatusNotFound},
			{login: "carl", method: http.MethodPost, target: events, body: `{}`, wantStatus: http.StatusBadRequest},
			limited(limitStep{login: "carl", method: http.MethodPost, target: events + "/999", header: map[string]string{"X-HTTP-Method-Override": "DELETE"}}, "15"),
			limited(limitStep{login: "carl", method: http.MethodDelete, target: events + "/999"}, "15"),
		}},
		{"a subscriber's writes count, anonymous ones do not", 1, []limitStep{
			{login: "sue", method: http.MethodPost, target: events, body: event, wantStatus: http.StatusForbidden},
			limited(create("sue", 0), "60"),
			{method: http.MethodPost, target: events, body: event, count: 3, wantStatus: http.StatusUnauthorized},
		}},
		{"0 turns the limit off", 0, []limitStep{
			creates("carl", 61, http.StatusCreated),
			creates("ava", 61, http.StatusCreated),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
			h, db := newClockedHandler(t, Config{WriteRateLimitPerMinute: tc.limit}, func() time.Time { return now })
			addRoles(t, db)
			runLimitSteps(t, h, &now, tc.steps)
		})
	}
}

// TestSeriesLimit: a write by a user below editor that makes a series (a create with a rule, or an
// update giving a rule to an event without one) counts against that user's series bucket, on by
// default at DefaultSeriesPerHour; other writes do not, editors and administrators are exempt, and 0
// turns the limit off.
func TestSeriesLimit(t *testing.T) {
	const (
		events = "/calendar/events/v1/events"
		// Two occurrences a series: the limit counts series, not their size.
		series = `{"title":"Choir","start_date":"2026-12-01 19:00:00","end_date":"2026-12-01 21:00:00","recurrence":["RRULE:FREQ=WEEKLY;COUNT=2"]}`
		plain  = `{"title":"Concert","start_date":"2026-12-01 19:00:00","end_date":"2026-12-01 21:00:00"}`
	)
	post := func(login, body string, n, status int) limitStep {
		return limitStep{login: login, method: http.MethodPost, target: events, body: body, count: n, wantStatus: status}
	}
	patch := func(login, id, body string, status int) limitStep {
		return limitStep{login: login, method: http.MethodPatch, target: events + "/" + id, body: body, wantStatus: status}
	}
	limited := func(s limitStep, retryAfter string) limitStep {
		s.wantStatus, s.wantRetryAfter, s.wantMessage = http.StatusTooManyRequests, retryAfter, "new recurring series an hour"
		return s
	}
	tests := []struct {
		name  string
		limit int
		steps []limitStep
	}{
		{"an author's 21st series in an hour is refused, a plain event still passes, an editor is exempt", DefaultSeriesPerHour, []limitStep{
			post("ava", series, 20, http.StatusCreated),
			limited(post("ava", series, 1, 0), "180"),
			post("ava", plain, 1, http.StatusCreated),
			post("eddie", series, 21, http.StatusCreated),
			post("ada", series, 21, http.StatusCreated),
			{advance: 3 * time.Minute, login: "ava", method: http.MethodPost, target: events, body: series, wantStatus: http.StatusCreated},
			limited(post("ava", series, 1, 0), "180"),
		}},
		{"a contributor is limited too, and each user has a bucket of their own", 1, []limitStep{
			post("carl", series, 1, http.StatusCreated),
			limited(post("carl", series, 1, 0), "3600"),
			post("ava", series, 1, http.StatusCreated),
		}},
		// Events 1 and 2 are the series made of event 1, event 3 the plain one created next.
		{"an update giving a rule to an event without one counts, a new rule for a series does not", 1, []limitStep{
			post("ava", plain, 1, http.StatusCreated),
			patch("ava", "1", `{"recurrence":["RRULE:FREQ=WEEKLY;COUNT=2"]}`, http.StatusOK),
			post("ava", plain, 1, http.StatusCreated),
			limited(patch("ava", "3", `{"recurrence":["RRULE:FREQ=WEEKLY;COUNT=2"]}`, 0), "3600"),
			patch("ava", "1", `{"recurrence":["RRULE:FREQ=WEEKLY;COUNT=3"]}`, http.StatusOK),
			patch("ava", "3", `{"title":"Renamed"}`, http.StatusOK),
			patch("ava", "1", `{"recurrence":[]}`, http.StatusOK),
			limited(patch("ava", "1", `{"recurrence":["RRULE:FREQ=WEEKLY;COUNT=2"]}`, 0), "3600"),
		}},
		{"an empty rule makes no series", 1, []limitStep{
			post("ava", `{"title":"x","start_date":"2026-12-01 19:00:00","end_date":"2026-12-01 21:00:00","recurrence":[]}`, 3, http.StatusCreated),
			post("ava", series, 1, http.StatusCreated),
		}},
		{"a series the store refuses keeps its token spent", 1, []limitStep{
			post("ava", `{"title":"x","start_date":"2026-12-01 19:00:00","end_date":"2026-12-01 21:00:00","recurrence":["RRULE:FREQ=HOURLY"]}`, 1, http.StatusBadRequest),
			limited(post("ava", series, 1, 0), "3600"),
		}},
		{"0 turns the limit off", 0, []limitStep{
			post("ava", series, 21, http.StatusCreated),
			post("carl", series, 21, http.StatusCreated),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
			h, db := newClockedHandler(t, Config{SeriesPerHour: tc.limit}, func() time.Time { return now })
			addRoles(t, db)
			runLimitSteps(t, h, &now, tc.steps)
		})
	}
}
