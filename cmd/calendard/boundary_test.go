package main

import (
	"context"
	"testing"
)

// TestServerPreparesTheBoundary: the server's prepare-boundary job reaches its list cache. A minute
// before midnight, a list requested again is prepared for midnight: one more answer in the list cache,
// beside the current one.
func TestServerPreparesTheBoundary(t *testing.T) {
	s := startServer(t, "CALENDAR_NOW=2026-11-22T23:59:00Z")
	for range 2 {
		if r := s.do(req{method: "GET", path: "/calendar/events/v1/events"}); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
	entries := func() float64 {
		v, _ := scrape(t, s.ts.URL+"/metrics").value("calendard_cache_entries", "cache", "lists")
		return v
	}
	before := entries()
	if err := s.app.jobs.Run(context.Background(), "prepare-boundary"); err != nil {
		t.Fatal(err)
	}
	if got := entries(); got != before+1 {
		t.Errorf("list cache entries after the job: %v, want %v", got, before+1)
	}
}
