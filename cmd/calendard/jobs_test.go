package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/jobs"
	"github.com/calendard/calendard/storage"
)

func TestRunJob(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"CALENDAR_NOW": testNow, "CALENDAR_ADMIN_APP_PASSWORD": adminPass}[k]
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"publish-due", []string{"run-job", "publish-due", "--data-dir", dir}, ""},
		{"extend-series", []string{"run-job", "extend-series", "--data-dir", dir}, ""},
		{"trim-changes", []string{"run-job", "trim-changes", "--data-dir", dir}, ""},
		{"consistency-check", []string{"run-job", "consistency-check", "--data-dir", dir}, ""},
		{"unknown", []string{"run-job", "nope", "--data-dir", dir}, "publish-due, extend-series, trim-changes, consistency-check, prepare-boundary"},
		{"no name", []string{"run-job", "--data-dir", dir}, "needs a job name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), tc.args, getenv, &out, io.Discard)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(out.String(), "ran "+tc.name) {
					t.Errorf("output %q", out.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestRestartAfterTrimComesBack runs the sequence of the restart defect: a fresh data
// directory, one event written in English, a restart, the trim job's start-up run and its run ten
// minutes later, a restart. The six languages no write concerned kept their first checkpoint; the
// server must still come back, and answer with the event.
func TestRestartAfterTrimComesBack(t *testing.T) {
	ctx := context.Background()
	// No horizon: the defect's sequence trims the whole log; cluster mode keeps at least an hour, so
	// the file it is.
	s := startServer(t, "CALENDAR_CHANGES_HORIZON=0", fileEnv)
	id := s.create("/calendar/events/v1/events", concert())
	s = s.restart("CALENDAR_CHANGES_HORIZON=0", fileEnv)
	j := jobs.New(s.app.db, s.app.index, zaptest.NewLogger(t), time.UTC, s.app.cfg.clock())
	for range 2 {
		if err := j.Run(ctx, "trim-changes"); err != nil {
			t.Fatal(err)
		}
	}
	head, err := s.app.db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if left, err := s.app.db.Changes(ctx, head-1, 10); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("the trim left %v (%v): the sequence needs the whole log trimmed", left, err)
	}
	s = restartWithin(t, s, time.Minute)
	if res := s.do(req{method: "GET", path: "/calendar/events/v1/events/" + utoa(id)}); res.status != http.StatusOK {
		t.Errorf("GET the event after the restart: %d\n%s", res.status, res.body)
	}
	res := s.do(req{method: "GET", path: "/calendar/events/v1/events?search=concert&start_date=2030-01-01&end_date=2031-01-01"})
	if got := res.header.Get("X-TEC-Total"); got != "1" {
		t.Errorf("search after the restart: X-TEC-Total %q, want 1\n%s", got, res.body)
	}
}

// restartWithin restarts s and fails the test when the server is not back within limit: a start-up
// that never ends must fail the test, not hang it.
func restartWithin(t *testing.T, s *server, limit time.Duration) *server {
	t.Helper()
	s.stop()
	type opened struct {
		a   *app
		err error
	}
	done := make(chan opened, 1)
	go func() {
		a, err := openTestApp(s.dir, zaptest.NewLogger(t), backendEnv(t, s.dir, nil)...)
		done <- opened{a, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return serveTestApp(t, s.dir, o.a)
	case <-time.After(limit):
		t.Fatalf("the server did not come back within %v", limit)
		return nil
	}
}
