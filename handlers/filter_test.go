package handlers

import (
	"testing"
	"time"

	"github.com/calendard/calendard/storage/datetime"
)

// TestDefaultWindow pins the default date window of the events list (docs/API.md "Events list parameters") as instants: its
// days are the site zone's, whatever the offset and its changes in between.
func TestDefaultWindow(t *testing.T) {
	tests := []struct {
		name string
		zone string
		now  string
		// wantStart and wantEnd are in UTC; the comments give them in the zone.
		wantStart, wantEnd string
	}{
		{name: "UTC", zone: "UTC", now: "2026-11-22T10:15:30Z",
			wantStart: "2026-11-22T00:00:00Z", wantEnd: "2028-11-22T23:59:59Z"},
		{name: "already tomorrow east of UTC", zone: "Europe/Paris", now: "2026-11-21T23:30:00Z",
			wantStart: "2026-11-21T23:00:00Z", wantEnd: "2028-11-22T22:59:59Z"}, // 2026-11-22 00:00 … 2028-11-22 23:59:59 CET
		{name: "still yesterday west of UTC", zone: "America/New_York", now: "2026-11-22T03:00:00Z",
			wantStart: "2026-11-21T05:00:00Z", wantEnd: "2028-11-22T04:59:59Z"}, // 2026-11-21 00:00 … 2028-11-21 23:59:59 EST
		{name: "fixed offset with half hours", zone: "UTC+5.5", now: "2026-11-22T20:00:00Z",
			wantStart: "2026-11-22T18:30:00Z", wantEnd: "2028-11-23T18:29:59Z"}, // 2026-11-23 00:00 … 2028-11-23 23:59:59
		{name: "summer time starts today, and is in force on the last day", zone: "Europe/Paris", now: "2026-03-29T12:00:00Z",
			wantStart: "2026-03-28T23:00:00Z", wantEnd: "2028-03-29T21:59:59Z"}, // 00:00 CET … 23:59:59 CEST
		{name: "29 February moves to 1 March", zone: "UTC", now: "2028-02-29T12:00:00Z",
			wantStart: "2028-02-29T00:00:00Z", wantEnd: "2030-03-01T23:59:59Z"},
		{name: "today's clocks jump from 00:00 to 01:00", zone: "America/Havana", now: "2026-03-08T17:00:00Z",
			wantStart: "2026-03-08T05:00:00Z", wantEnd: "2028-03-09T04:59:59Z"}, // 01:00 CDT … 2028-03-08 23:59:59 CST
		{name: "the last day's clocks jump from 00:00 to 01:00", zone: "America/Havana", now: "2026-03-12T17:00:00Z",
			wantStart: "2026-03-12T04:00:00Z", wantEnd: "2028-03-13T03:59:59Z"}, // 00:00 CDT … 2028-03-12 23:59:59 CDT
		{name: "today's midnight is shown twice", zone: "America/Havana", now: "2026-11-01T18:00:00Z",
			wantStart: "2026-11-01T04:00:00Z", wantEnd: "2028-11-02T03:59:59Z"}, // the earlier 00:00 (CDT) … 2028-11-01 23:59:59 CDT
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			zone, err := datetime.ParseZone(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			gotStart, gotEnd := defaultWindow(mustInstant(t, tc.now), zone.Loc)
			if want := mustInstant(t, tc.wantStart); !gotStart.Equal(want) {
				t.Errorf("start: got %s, want %s", gotStart, want.In(zone.Loc))
			}
			if want := mustInstant(t, tc.wantEnd); !gotEnd.Equal(want) {
				t.Errorf("end: got %s, want %s", gotEnd, want.In(zone.Loc))
			}
		})
	}
}

func mustInstant(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
