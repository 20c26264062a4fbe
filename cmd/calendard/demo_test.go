package main

import (
	"context"
	"io"
	"testing"

	"github.com/calendard/calendard/storage"
)

// storedEvents counts the events in the store, whatever their status.
func (s *server) storedEvents() int {
	s.t.Helper()
	n := 0
	for after := uint64(0); ; {
		page, err := s.app.db.Scan(context.Background(), storage.TypeEvent, after, 1000)
		if err != nil {
			s.t.Fatal(err)
		}
		if len(page.Events) == 0 {
			return n
		}
		n += len(page.Events)
		after = page.Events[len(page.Events)-1].ID
	}
}

// listTotal is the total of an anonymous list request.
func (s *server) listTotal(path string) int {
	s.t.Helper()
	res := s.do(req{method: "GET", path: path})
	if res.status != 200 {
		s.t.Fatalf("GET %s: status %d\n%s", path, res.status, res.body)
	}
	total, ok := res.json(s.t)["total"].(float64)
	if !ok {
		s.t.Fatalf("GET %s: no total\n%s", path, res.body)
	}
	return int(total)
}

func TestDemoEventsSeedAnEmptyStoreOnce(t *testing.T) {
	const events = 300
	s := startServer(t, "CALENDAR_DEMO_EVENTS=300")
	if got := s.storedEvents(); got != events {
		t.Fatalf("stored events %d, want %d", got, events)
	}
	total := s.listTotal(eventsPath)
	if total == 0 {
		t.Fatal("the demo calendar lists no events")
	}
	for _, lang := range []string{"fr", "de", "nl"} {
		if n := s.listTotal("/" + lang + eventsPath); n == 0 {
			t.Errorf("no %s events listed", lang)
		}
	}

	s = s.restart("CALENDAR_DEMO_EVENTS=300")
	if got := s.storedEvents(); got != events {
		t.Errorf("after a restart: stored events %d, want %d (seeded twice?)", got, events)
	}
	if got := s.listTotal(eventsPath); got != total {
		t.Errorf("after a restart: list total %d, want %d", got, total)
	}
}

func TestDemoEventsOffByDefault(t *testing.T) {
	for _, env := range [][]string{nil, {"CALENDAR_DEMO_EVENTS=0"}} {
		s := startServer(t, env...)
		if got := s.storedEvents(); got != 0 {
			t.Errorf("env %v: stored events %d, want 0", env, got)
		}
		if got := s.listTotal(eventsPath); got != 0 {
			t.Errorf("env %v: list total %d, want 0", env, got)
		}
	}
}

func TestDemoEventsSetting(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CALENDAR_DEMO_EVENTS" {
				return v
			}
			return ""
		}
	}
	cfg, err := parseConfig("serve", []string{"--demo-events", "2000"}, env("5"), io.Discard)
	if err != nil || cfg.DemoEvents != 2000 {
		t.Errorf("flag over variable: %d %v", cfg.DemoEvents, err)
	}
	for _, bad := range []string{"-1", "x"} {
		if _, err := parseConfig("serve", nil, env(bad), io.Discard); err == nil {
			t.Errorf("CALENDAR_DEMO_EVENTS=%s accepted", bad)
		}
	}
}
