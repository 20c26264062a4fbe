package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/task"
)

// TestProgressReporter: reindex shows an index load's figures as lines on a log or a pipe, and as a
// bar on a terminal.
func TestProgressReporter(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := startServerIn(t, dir)
	s.create("/calendar/events/v1/events", concert())
	s.stop()
	db := openDirStore(t, "reindex", func(k string) string { return map[string]string{"CALENDAR_DATA_DIR": dir}[k] })
	defer db.Close()
	for _, bar := range []bool{false, true} {
		var out bytes.Buffer
		var loading index.Loading
		report, finish := progressReporter(&out, loading.Progress, records, bar)
		report() // before the load starts: nothing to show yet
		if out.Len() != 0 {
			t.Errorf("bar %v: progress shown before the load: %q", bar, out.String())
		}
		// Reported from inside the scan, as the ticker would while a long build runs.
		store := &reportingStore{Store: db, report: report}
		ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "index"), store, index.Options{Logger: zap.NewNop(), Loading: &loading})
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
		finish(true, false)
		got := out.String()
		if !strings.Contains(got, index.PhaseBuilding) {
			t.Errorf("bar %v: %q, want the building phase shown", bar, got)
		}
		if !bar && !strings.Contains(got, index.PhaseBuilding+": ") {
			t.Errorf("lines: %q, want %q with its figures", got, index.PhaseBuilding)
		}
	}
}

// reportingStore reports the load's progress at every page the index scans. Two scanners run at
// once; reports are serialised, as the one goroutine of watch makes them.
type reportingStore struct {
	index.Store
	report func()
	mu     sync.Mutex
}

func (s *reportingStore) Scan(ctx context.Context, t storage.PostType, after uint64, limit int) (*storage.Records, error) {
	recs, err := s.Store.Scan(ctx, t, after, limit)
	if limit > 0 {
		s.mu.Lock()
		s.report()
		s.mu.Unlock()
	}
	return recs, err
}

// TestWatch: report runs while the work does, and the work's error comes back.
func TestWatch(t *testing.T) {
	reported := make(chan struct{})
	first := true
	want := errors.New("done")
	err := watch(time.Millisecond, func() {
		if first {
			first = false
			close(reported)
		}
	}, func() error {
		<-reported // the work ends only once a report has run during it
		return want
	})
	if !errors.Is(err, want) {
		t.Errorf("watch returned %v, want the work's error", err)
	}
}

// TestProgressLine: a line on a log gives done of total, the rate so far and the time left, in the
// operation's unit.
func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		p    task.Progress
		u    unit
		at   time.Duration
		want string
	}{
		{"records", task.Progress{Phase: "seeding events", Done: 2500, Total: 10000, Started: start}, records, 5 * time.Second,
			"seeding events: 2500 of 10000, 500/s, 15s left"},
		{"bytes", task.Progress{Phase: "backing up", Done: 150_000_000, Total: 322_621_440, Started: start}, byteCount, 2 * time.Second,
			"backing up: 150.0 MB of 322.6 MB, 75.0 MB/s, 2s left"},
		{"small bytes", task.Progress{Phase: "restoring", Done: 999, Total: 1000, Started: start}, byteCount, time.Second,
			"restoring: 999 B of 1.0 kB, 999 B/s, 0s left"},
		{"nothing done yet", task.Progress{Phase: "restoring", Total: 4_500_000_000, Started: start}, byteCount, 0,
			"restoring: 0 B of 4.5 GB, 0 B/s, 0s left"},
		{"no total", task.Progress{Phase: "backing up", Done: 12_000_000, Started: start}, byteCount, 3 * time.Second,
			"backing up: 12.0 MB, 4.0 MB/s"},
		{"keys, no total", task.Progress{Phase: "copying keys to etcd", Done: 400_000, Started: start}, records, 5 * time.Second,
			"copying keys to etcd: 400000, 80000/s"},
		{"a slow count", task.Progress{Phase: "merging", Done: 3, Total: 7, Started: start}, records, 5 * time.Second,
			"merging: 3 of 7, 0.6/s, 7s left"},
		{"a slow count, nothing done yet", task.Progress{Phase: "merging", Total: 7, Started: start}, records, time.Second,
			"merging: 0 of 7, 0/s, 0s left"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressLine(tc.p, tc.u, start.Add(tc.at)); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	p := task.Progress{Phase: "backing up", Done: 300_000_000, Total: 322_621_440, Started: start}
	if got, want := progressDone(p, byteCount, start.Add(4*time.Second)), "backing up: done, 300.0 MB in 4s, 75.0 MB/s"; got != want {
		t.Errorf("final line %q, want %q", got, want)
	}
}

// TestProgressWithoutTotal: an operation that cannot know its total (a backup or a migration copying
// a cluster key by key) shows nothing until it has done something, then its count: as lines on a log,
// as a spinner on a terminal.
func TestProgressWithoutTotal(t *testing.T) {
	for _, bar := range []bool{false, true} {
		var out bytes.Buffer
		p := task.Progress{Phase: "backing up", Started: time.Now()}
		report, finish := progressReporter(&out, func() task.Progress { return p }, byteCount, bar)
		report()
		if out.Len() != 0 {
			t.Errorf("bar %v: %q shown before anything was done", bar, out.String())
		}
		p.Done = 2_500_000
		report()
		finish(true, false)
		if got := out.String(); !strings.Contains(got, "backing up") || !strings.Contains(got, "2.5 MB") {
			t.Errorf("bar %v: %q, want the phase and the bytes done", bar, got)
		}
	}
}

// TestProgressFailed: an operation that fails (an import's walk cut short) ends on a line that says
// its phase failed, with what it had done, on a log and under a bar, and never says done.
func TestProgressFailed(t *testing.T) {
	for _, bar := range []bool{false, true} {
		var out bytes.Buffer
		p := task.Progress{Phase: "events", Done: 150, Total: 300, Started: time.Now()}
		report, finish := progressReporter(&out, func() task.Progress { return p }, records, bar)
		report()
		finish(true, true)
		if got := out.String(); !strings.Contains(got, "events: failed, 150 in ") || strings.Contains(got, "done") {
			t.Errorf("bar %v: %q, want the phase failed with its count, and no done", bar, got)
		}
	}
}
