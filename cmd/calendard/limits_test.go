package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/calendard/calendard/storage"
)

// TestWriteLimits: a server started with the default configuration limits the writes of users below
// editor, 60 a minute and 20 new series an hour each, and leaves editors alone; the settings reach the
// server. The server's clock is frozen, so no bucket refills during the test: Retry-After is a whole
// token's time.
func TestWriteLimits(t *testing.T) {
	const events = "/calendar/events/v1/events"
	plain := map[string]any{"title": "Concert", "start_date": "2026-12-01 19:00:00", "end_date": "2026-12-01 21:00:00"}
	series := map[string]any{"title": "Choir", "start_date": "2026-12-01 19:00:00", "end_date": "2026-12-01 21:00:00",
		"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=2"}}
	// refused checks a 429 of the write limits: the envelope, Retry-After, the message naming the
	// limit, and no X-RateLimit-* header (the general rate limit is off by default, and these send none).
	refused := func(t *testing.T, res *response, retryAfter, message string) {
		t.Helper()
		body := res.json(t)
		if res.status != http.StatusTooManyRequests || body["code"] != "rest_too_many_requests" {
			t.Fatalf("got %d %s, want 429 rest_too_many_requests", res.status, res.body)
		}
		if got := res.header.Get("Retry-After"); got != retryAfter {
			t.Errorf("got Retry-After %q, want %q", got, retryAfter)
		}
		if msg, _ := body["message"].(string); !strings.Contains(msg, message) {
			t.Errorf("got message %q, want one with %q", msg, message)
		}
		if got := res.header.Get("X-RateLimit-Limit"); got != "" {
			t.Errorf("got X-RateLimit-Limit %q, want none", got)
		}
	}
	// writes sends n writes as auth and fails unless each answers status.
	writes := func(t *testing.T, s *server, auth string, body any, n, status int) {
		t.Helper()
		for i := range n {
			if res := s.do(req{method: "POST", path: events, auth: auth, body: body}); res.status != status {
				t.Fatalf("write %d: got %d, want %d\n%s", i, res.status, status, res.body)
			}
		}
	}

	t.Run("on by default", func(t *testing.T) {
		s := startServer(t)
		carl := s.user("carl", storage.RoleContributor)
		eddie := s.user("eddie", storage.RoleEditor)
		ava := s.user("ava", storage.RoleAuthor)

		// Writes that fail validation are the cheapest, and cost a token all the same.
		writes(t, s, carl, map[string]any{}, 60, http.StatusBadRequest)
		refused(t, s.do(req{method: "POST", path: events, auth: carl, body: plain}), "1", "60 writes a minute")
		if res := s.do(req{method: "GET", path: events, auth: carl}); res.status != http.StatusOK {
			t.Errorf("a read after the writes ran out: got %d, want 200", res.status)
		}
		writes(t, s, eddie, map[string]any{}, 61, http.StatusBadRequest)
		writes(t, s, eddie, series, 21, http.StatusCreated)

		writes(t, s, ava, series, 20, http.StatusCreated)
		refused(t, s.do(req{method: "POST", path: events, auth: ava, body: series}), "180", "20 new recurring series an hour")
		writes(t, s, ava, plain, 1, http.StatusCreated)
	})

	t.Run("the settings reach the server", func(t *testing.T) {
		s := startServer(t, "CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE=2", "CALENDAR_SERIES_PER_HOUR=1")
		carl := s.user("carl", storage.RoleContributor)
		writes(t, s, carl, series, 1, http.StatusCreated)
		refused(t, s.do(req{method: "POST", path: events, auth: carl, body: series}), "3600", "1 new recurring series an hour")
		refused(t, s.do(req{method: "POST", path: events, auth: carl, body: plain}), "30", "2 writes a minute")
	})
}
