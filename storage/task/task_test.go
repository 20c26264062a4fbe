package task

import (
	"testing"
	"time"
)

func TestRemaining(t *testing.T) {
	start := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		done, total uint64
		elapsed     time.Duration
		want        time.Duration
	}{
		{"nothing done yet", 0, 100, time.Second, 0},
		{"a quarter in one second", 25, 100, time.Second, 3 * time.Second},
		{"half", 50, 100, 10 * time.Second, 10 * time.Second},
		{"all done", 100, 100, time.Second, 0},
		{"past the total", 120, 100, time.Second, 0},
		{"no time elapsed", 10, 100, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Progress{Phase: "building", Done: tc.done, Total: tc.total, Started: start}
			if got := p.Remaining(start.Add(tc.elapsed)); got != tc.want {
				t.Errorf("Remaining = %v, want %v", got, tc.want)
			}
		})
	}
}
