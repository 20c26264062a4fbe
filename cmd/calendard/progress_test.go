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
		report, finish := progressReporter(&out, loading.Progress, bar)
		report() // before the load starts: nothing to show yet
		if out.Len() != 0 && bar {
			t.Errorf("a bar before the load: %q", out.String())
		}
		// Reported from inside the scan, as the ticker would while a long build runs.
		store := &reportingStore{Store: db, report: report}
		ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "index"), store, index.Options{Logger: zap.NewNop(), Loading: &loading})
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
		finish()
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
