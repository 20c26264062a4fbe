package handlers

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestRequestLogLine: each request is logged once, with who asked (address, user ID, agent) and what
// (method, path, query), never the credentials it carried, and where it is logged from.
func TestRequestLogLine(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	h, _ := newLoggedHandler(t, Config{}, func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }, zap.New(core))
	for _, tc := range []struct {
		name     string
		auth     bool
		wantUser uint64
	}{
		{"anonymous", false, 0},
		{"an application password", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs.TakeAll()
			r := httptest.NewRequest("GET", "/calendar/events/v1/events?search=jazz&per_page=5", nil)
			r.RemoteAddr = "[::ffff:192.0.2.7]:4711"
			r.Header.Set("User-Agent", "calendar-app/2.1")
			if tc.auth {
				r.SetBasicAuth("admin", adminPassword)
			}
			h.ServeHTTP(httptest.NewRecorder(), r)
			lines := logs.FilterMessage("request").All()
			if len(lines) != 1 {
				t.Fatalf("%d request lines, want 1", len(lines))
			}
			// The caller is observe's, which zap would name, found once (the test's logger adds none).
			if c := lines[0].Caller; !c.Defined || !strings.HasSuffix(c.File, "handlers/chain.go") || c.Line == 0 {
				t.Errorf("caller %+v, want one in handlers/chain.go", c)
			}
			got := lines[0].ContextMap()
			want := map[string]any{"method": "GET", "path": "/calendar/events/v1/events", "query": "search=jazz&per_page=5",
				"status": int64(200), "remote": "192.0.2.7", "user_id": tc.wantUser, "user_agent": "calendar-app/2.1"}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %v (%T), want %v", k, got[k], got[k], v)
				}
			}
			for _, e := range logs.All() {
				for _, f := range e.Context {
					if strings.Contains(f.String, adminPassword) {
						t.Errorf("a log line carries the password: %v", e)
					}
				}
			}
		})
	}
}
