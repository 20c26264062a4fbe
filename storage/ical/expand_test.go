package ical

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEventCut(t *testing.T) {
	paris := mustLoad(t, "Europe/Paris")
	at := func(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, paris) }
	for _, tc := range []struct {
		name      string
		lines     []string
		allDay    bool
		until     time.Time
		limit     int
		want      []time.Time
		wantLines []string // nil: unchanged
		wantOK    bool
	}{
		{
			name:  "a COUNT that ends by until stays",
			lines: []string{"RRULE:FREQ=WEEKLY;COUNT=3"}, until: at(12, 31, 0), limit: 10, wantOK: true,
			want: []time.Time{at(12, 1, 19), at(12, 8, 19), at(12, 15, 19)},
		},
		{
			name:  "a COUNT that goes on becomes an UNTIL",
			lines: []string{"RRULE:FREQ=WEEKLY;COUNT=10"}, until: at(12, 8, 19), limit: 10, wantOK: true,
			want:      []time.Time{at(12, 1, 19), at(12, 8, 19)},
			wantLines: []string{"RRULE:FREQ=WEEKLY;UNTIL=20261208T180000Z"},
		},
		{
			name:  "a COUNT whose rule does not give DTSTART counts DTSTART, as RFC 5545 does",
			lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2"}, until: at(12, 31, 0), limit: 10, wantOK: true,
			want:      []time.Time{at(12, 1, 19), at(12, 7, 19)},
			wantLines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2"},
		},
		{
			name:  "COUNT=1 beside a DTSTART the rule does not give is DTSTART alone",
			lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=1"}, until: at(12, 31, 0), limit: 10, wantOK: true,
			want:      []time.Time{at(12, 1, 19)},
			wantLines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=1"},
		},
		{
			name:  "an endless rule gets an UNTIL; an RDATE after it stays an instance",
			lines: []string{"RRULE:FREQ=DAILY;INTERVAL=2", "RDATE:20270101T120000Z"}, until: at(12, 4, 0), limit: 10, wantOK: true,
			want:      []time.Time{at(12, 1, 19), at(12, 3, 19), time.Date(2027, 1, 1, 13, 0, 0, 0, paris)},
			wantLines: []string{"RRULE:FREQ=DAILY;INTERVAL=2;UNTIL=20261203T230000Z", "RDATE:20270101T120000Z"},
		},
		{
			name:  "an UNTIL with no instance left before it stays",
			lines: []string{"RRULE:FREQ=WEEKLY;UNTIL=20261212T000000Z"}, until: at(12, 8, 19), limit: 10, wantOK: true,
			want: []time.Time{at(12, 1, 19), at(12, 8, 19)},
		},
		{
			name:  "a later UNTIL moves",
			lines: []string{"RRULE:FREQ=WEEKLY;UNTIL=20270101T000000Z"}, until: at(12, 8, 19), limit: 10, wantOK: true,
			want:      []time.Time{at(12, 1, 19), at(12, 8, 19)},
			wantLines: []string{"RRULE:FREQ=WEEKLY;UNTIL=20261208T180000Z"},
		},
		{
			name: "EXDATEs remove exact instants only: a date on a timed series removes nothing",
			lines: []string{"RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=Europe/Paris:20261208T190000", "EXDATE:20261201T180000Z",
				"EXDATE;VALUE=DATE:20261215"}, until: at(12, 31, 0), limit: 10, wantOK: true,
			want: []time.Time{at(12, 15, 19), at(12, 22, 19)},
		},
		{
			name:  "an all-day series is cut at a date",
			lines: []string{"RRULE:FREQ=DAILY"}, allDay: true, until: at(12, 3, 0), limit: 10, wantOK: true,
			want:      []time.Time{at(12, 1, 0), at(12, 2, 0), at(12, 3, 0)},
			wantLines: []string{"RRULE:FREQ=DAILY;UNTIL=20261203"},
		},
		{
			name:  "more instances than the limit",
			lines: []string{"RRULE:FREQ=DAILY"}, until: at(12, 31, 0), limit: 5,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := at(12, 1, 19)
			if tc.allDay {
				start = at(12, 1, 0)
			}
			ev := &Event{Start: start, AllDay: tc.allDay, Recurrence: slices.Clone(tc.lines)}
			got, ok, err := ev.Cut(tc.until, tc.limit)
			if err != nil || ok != tc.wantOK {
				t.Fatalf("Cut: ok %v, err %v; want ok %v", ok, err, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("instances (-want +got):\n%s", diff)
			}
			wantLines := tc.wantLines
			if wantLines == nil {
				wantLines = tc.lines
			}
			if diff := cmp.Diff(wantLines, ev.Recurrence); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEventExclude(t *testing.T) {
	paris := mustLoad(t, "Europe/Paris")
	first, second := time.Date(2026, 12, 8, 18, 0, 0, 0, time.UTC), time.Date(2026, 12, 15, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		start  time.Time
		allDay bool
		want   string
	}{
		{"in DTSTART's zone", time.Date(2026, 12, 1, 19, 0, 0, 0, paris), false, "EXDATE;TZID=Europe/Paris:20261208T190000,20261215T190000"},
		{"in UTC", time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC), false, "EXDATE:20261208T180000Z,20261215T180000Z"},
		{"as dates", time.Date(2026, 12, 1, 0, 0, 0, 0, paris), true, "EXDATE;VALUE=DATE:20261208,20261215"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := []string{"RRULE:FREQ=WEEKLY", "EXDATE:20261222T180000Z"}
			ev := &Event{Start: tc.start, AllDay: tc.allDay, Recurrence: lines[:1]}
			ev.Exclude()
			ev.Exclude(first, second)
			if diff := cmp.Diff([]string{"RRULE:FREQ=WEEKLY", tc.want}, ev.Recurrence); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if lines[1] != "EXDATE:20261222T180000Z" {
				t.Error("Exclude wrote into the caller's array")
			}
		})
	}
}
