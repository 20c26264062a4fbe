package jobs

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

var (
	_ Store = (*storage.DB)(nil)
	_ Index = (*index.Index)(nil)
)

var testNow = time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)

// fake records the calls the jobs make.
type fake struct {
	calls      []string
	checkpoint uint64
	trimmedTo  uint64
	// checkErr is what Check returns.
	checkErr error
	// shared makes the store a cluster's (Shared).
	shared bool
	// trimErr is what TrimChanges returns.
	trimErr error
}

func (f *fake) PublishDue(context.Context) (int, error) {
	f.calls = append(f.calls, "publish")
	return 1, nil
}

func (f *fake) ExtendSeries(context.Context) (int, error) {
	f.calls = append(f.calls, "extend")
	return 1, nil
}

func (f *fake) TrimChanges(_ context.Context, upTo uint64) (int, error) {
	f.calls = append(f.calls, "trim")
	f.trimmedTo = upTo
	return 0, f.trimErr
}

func (f *fake) Shared() bool { return f.shared }

func (f *fake) CompactHistory(context.Context) error {
	f.calls = append(f.calls, "compact")
	return nil
}

func (f *fake) Checkpoint(context.Context) (uint64, error) {
	f.calls = append(f.calls, "checkpoint")
	return f.checkpoint, nil
}

func (f *fake) Check(context.Context) (int, error) {
	f.calls = append(f.calls, "check")
	return 0, f.checkErr
}

func newFake(t *testing.T) (*Jobs, *fake) {
	f := &fake{checkpoint: 42}
	return New(f, f, zaptest.NewLogger(t), time.UTC, func() time.Time { return testNow }), f
}

func TestRunByName(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"publish-due", []string{"publish"}},
		{"trim-changes", []string{"checkpoint", "trim", "compact"}},
		{"consistency-check", []string{"check"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, f := newFake(t)
			if err := j.Run(context.Background(), tc.name); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.calls, tc.want) {
				t.Errorf("calls = %v, want %v", f.calls, tc.want)
			}
		})
	}
}

// TestTrimStopsAtTheCheckpoint: a run trims up to the position the index reports as stored in every
// language, and no further.
func TestTrimStopsAtTheCheckpoint(t *testing.T) {
	j, f := newFake(t)
	ctx := context.Background()
	for _, cp := range []uint64{42, 50} {
		f.checkpoint = cp
		if err := j.Run(ctx, "trim-changes"); err != nil || f.trimmedTo != cp {
			t.Fatalf("trimmed to %d (%v), want %d", f.trimmedTo, err, cp)
		}
	}
}

// TestTrimInClusterMode: on a cluster's store the trimming does not stop at this node's checkpoint
// (every node has its own; the store keeps its horizon), and the cluster's history is compacted.
func TestTrimInClusterMode(t *testing.T) {
	j, f := newFake(t)
	f.shared = true
	if err := j.Run(context.Background(), "trim-changes"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"checkpoint", "trim", "compact"}; !slices.Equal(f.calls, want) || f.trimmedTo != math.MaxUint64 {
		t.Errorf("calls %v, trimmed to %d; want %v, trimmed as far as the horizon allows", f.calls, f.trimmedTo, want)
	}
}

// TestCompactAfterAFailedTrim: a trim that fails does not keep the cluster's history from being
// compacted, and the run reports the failure.
func TestCompactAfterAFailedTrim(t *testing.T) {
	j, f := newFake(t)
	f.shared, f.trimErr = true, storage.ErrTooLarge
	if err := j.Run(context.Background(), "trim-changes"); !errors.Is(err, storage.ErrTooLarge) {
		t.Errorf("run = %v, want the trim's failure", err)
	}
	if want := []string{"checkpoint", "trim", "compact"}; !slices.Equal(f.calls, want) {
		t.Errorf("calls %v, want %v", f.calls, want)
	}
}

func TestRunUnknown(t *testing.T) {
	j, f := newFake(t)
	err := j.Run(context.Background(), "nope")
	if err == nil || !strings.Contains(err.Error(), "publish-due, extend-series, trim-changes, consistency-check, prepare-boundary") {
		t.Errorf("Run(nope) = %v, want an error listing the jobs", err)
	}
	if len(f.calls) != 0 {
		t.Errorf("calls = %v, want none", f.calls)
	}
}

func TestScheduleTable(t *testing.T) {
	if got, want := Names(), []string{"publish-due", "extend-series", "trim-changes", "consistency-check", "prepare-boundary"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	for _, s := range schedule {
		sched, err := cron.ParseStandard(s.spec)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if s.fn == nil {
			t.Errorf("%s has no function", s.name)
		}
		// publish-due runs every minute (docs/API.md "Statuses"), extend-series daily, the others at least hourly.
		next := sched.Next(testNow)
		limit := time.Hour
		if s.name == "extend-series" {
			limit = 24 * time.Hour
		}
		if next.Sub(testNow) > limit || (s.name == "publish-due" && next.Sub(testNow) > time.Minute) {
			t.Errorf("%s next runs at %v, too late", s.name, next)
		}
	}
}

func TestRunOnceRunsAll(t *testing.T) {
	j, f := newFake(t)
	if err := j.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"publish", "extend", "checkpoint", "trim", "compact", "check"}; !slices.Equal(f.calls, want) || f.trimmedTo != 42 {
		t.Errorf("calls = %v (trimmed to %d), want %v, trimmed to 42", f.calls, f.trimmedTo, want)
	}
}

func TestStats(t *testing.T) {
	f := &fake{checkErr: errors.New("index unavailable")}
	// Every reading of the clock is a second after the last: each run lasts one second.
	clock := testNow
	j := New(f, f, zaptest.NewLogger(t), time.UTC, func() time.Time { clock = clock.Add(time.Second); return clock })
	for range 2 {
		if err := j.RunOnce(context.Background()); err == nil {
			t.Fatal("RunOnce succeeded with a failing check")
		}
	}
	got := j.Stats()
	if names := Names(); len(got) != len(names) {
		t.Fatalf("Stats() has %d jobs, want %d", len(got), len(names))
	}
	for i, st := range got {
		wantFailures := uint64(0)
		if st.Name == "consistency-check" {
			wantFailures = 2
		}
		if st.Name != Names()[i] || st.Runs != 2 || st.Failures != wantFailures || st.Busy != 2*time.Second {
			t.Errorf("Stats()[%d] = %+v, want %s with 2 runs, %d failures, 2s busy", i, st, Names()[i], wantFailures)
		}
		if succeeded := !st.LastSuccess.IsZero(); succeeded != (wantFailures == 0) {
			t.Errorf("%s: LastSuccess = %v", st.Name, st.LastSuccess)
		}
	}
}

// TestStoppedRunIsNotAFailure: a run that its context cut short (the server stopping) is logged as
// stopped, not failed, and counted neither as a run nor as a failure; a run that fails with its
// context alive is a failure.
func TestStoppedRunIsNotAFailure(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cancel       bool
		wantLevel    zapcore.Level
		wantMsg      string
		wantFailures uint64
	}{
		{"stopped", true, zapcore.InfoLevel, "job stopped", 0},
		{"failed", false, zapcore.ErrorLevel, "job failed", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			f := &fake{checkErr: context.Canceled}
			j := New(f, f, zap.New(core), time.UTC, func() time.Time { return testNow })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			if err := j.RunOnce(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("RunOnce: %v, want the check's error", err)
			}
			entries := logs.FilterField(zap.String("job", "consistency-check")).AllUntimed()
			if len(entries) != 1 || entries[0].Level != tc.wantLevel || entries[0].Message != tc.wantMsg {
				t.Errorf("logged %+v, want one %v entry %q", entries, tc.wantLevel, tc.wantMsg)
			}
			for _, st := range j.Stats() {
				if st.Name == "consistency-check" && st.Failures != tc.wantFailures {
					t.Errorf("%d failures counted, want %d", st.Failures, tc.wantFailures)
				}
			}
		})
	}
}

func TestStartStop(t *testing.T) {
	// cron's scheduler goroutine logs its stop after Stop has returned, which a test logger refuses
	// once the test has ended.
	f := &fake{}
	j := New(f, f, zap.NewNop(), time.UTC, func() time.Time { return testNow })
	if err := j.Start(); err != nil {
		t.Fatal(err)
	}
	if err := j.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// blockingCheck is a store and index whose consistency check blocks until released; a check that
// begins while another is in progress is counted as an overlap and returns at once.
type blockingCheck struct {
	started, release chan struct{}
	active           atomic.Int32
	checks, overlaps atomic.Int32
}

func (b *blockingCheck) PublishDue(context.Context) (int, error)          { return 0, nil }
func (b *blockingCheck) ExtendSeries(context.Context) (int, error)        { return 0, nil }
func (b *blockingCheck) TrimChanges(context.Context, uint64) (int, error) { return 0, nil }
func (b *blockingCheck) Checkpoint(context.Context) (uint64, error)       { return 0, nil }
func (b *blockingCheck) Shared() bool                                     { return false }
func (b *blockingCheck) CompactHistory(context.Context) error             { return nil }

func (b *blockingCheck) Check(context.Context) (int, error) {
	b.checks.Add(1)
	defer b.active.Add(-1)
	if b.active.Add(1) > 1 {
		b.overlaps.Add(1)
		return 0, nil
	}
	b.started <- struct{}{}
	<-b.release
	return 0, nil
}

// TestRunsOfAJobNeverOverlap starts a run whose consistency check blocks, then runs the jobs again
// by another path: the second check must be skipped (or refused, by name), whichever path came first.
func TestRunsOfAJobNeverOverlap(t *testing.T) {
	ctx := context.Background()
	// scheduled runs every entry of the running scheduler now, as the schedule would.
	scheduled := func(j *Jobs) error {
		for _, e := range j.cron.Entries() {
			e.WrappedJob.Run()
		}
		return nil
	}
	startUp := func(j *Jobs) error { return j.RunOnce(ctx) }
	byName := func(j *Jobs) error { return j.Run(ctx, "consistency-check") }
	tests := []struct {
		name          string
		first, second func(*Jobs) error
		wantErr       error
	}{
		{"scheduled during the start-up run", startUp, scheduled, nil},
		{"start-up run during a scheduled run", scheduled, startUp, nil},
		{"scheduled during a scheduled run", scheduled, scheduled, nil},
		{"by name during a scheduled run", scheduled, byName, ErrRunning},
		{"start-up run during a run by name", byName, startUp, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// started has room for a check the real schedule may begin after the release (at the top of
			// an hour), so that it never blocks Stop.
			b := &blockingCheck{started: make(chan struct{}, 1), release: make(chan struct{})}
			// Not zaptest: cron's scheduler goroutine logs its stop after Stop has returned.
			j := New(b, b, zap.NewNop(), time.UTC, func() time.Time { return testNow })
			if err := j.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- tc.first(j) }()
			<-b.started
			if err := tc.second(j); !errors.Is(err, tc.wantErr) {
				t.Errorf("second run: %v, want %v", err, tc.wantErr)
			}
			if checks, overlaps := b.checks.Load(), b.overlaps.Load(); checks != 1 || overlaps != 0 {
				t.Errorf("%d checks began, %d of them during another; want 1 and 0", checks, overlaps)
			}
			close(b.release)
			if err := <-done; err != nil {
				t.Errorf("first run: %v", err)
			}
			if err := j.Stop(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPublishDueOnTheStore runs the job against a real store and index with a fake clock.
func TestPublishDueOnTheStore(t *testing.T) {
	ctx := context.Background()
	now := testNow
	clock := func() time.Time { return now }
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "calendar.db"), storage.Options{Now: clock, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	music, err := db.CreateTerm(ctx, storage.Actor{Role: storage.RoleAdministrator}, storage.TaxCategory, &storage.TermInput{Name: new("Music")})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := datetime.Parse("2030-05-01 20:00:00")
	when := testNow.Add(time.Hour)
	e, err := db.CreateEvent(ctx, admin, "en", &storage.EventInput{
		PostInput: storage.PostInput{Title: new("Gig"), Status: new(storage.StatusFuture), Date: &when},
		Start:     &start, End: &start, Categories: &[]string{"Music"}})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, filepath.Join(dir, "index"), db, index.Options{Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	j := New(db, ix, zaptest.NewLogger(t), time.UTC, clock)

	now = when.Add(time.Second)
	if err := j.Run(ctx, "publish-due"); err != nil {
		t.Fatal(err)
	}
	term, _, err := db.Term(ctx, storage.TaxCategory, music.ID)
	if err != nil || term.Count != 1 {
		t.Fatalf("term count = %v (%v), want 1 after publishing event %d", term, err, e.ID)
	}
	if _, err := ix.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx, "trim-changes"); err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx, "consistency-check"); err != nil {
		t.Fatal(err)
	}
}

// TestRunCluster: an elected node runs the jobs run once per cluster, and only those; a node not
// leading (its election lost since) runs none.
func TestRunCluster(t *testing.T) {
	for _, tc := range []struct {
		leads bool
		want  []string
	}{
		{true, []string{"publish", "extend"}},
		{false, nil},
	} {
		j, f := newFake(t)
		f.shared = true
		j.Lead(func() bool { return tc.leads })
		if err := j.RunCluster(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.calls, tc.want) {
			t.Errorf("leading %v: calls %v, want %v", tc.leads, f.calls, tc.want)
		}
	}
}

// TestLead: a node that does not lead skips the jobs run once per cluster (publication, the series'
// horizon) and the trimming itself, and still runs its own (its index checkpoint, its consistency
// check), uncounted; run-job runs a cluster job anyway.
func TestLead(t *testing.T) {
	for _, tc := range []struct {
		leads bool
		want  []string
	}{
		{true, []string{"publish", "extend", "checkpoint", "trim", "compact", "check"}},
		{false, []string{"checkpoint", "check"}},
	} {
		j, f := newFake(t)
		f.shared = true
		j.Lead(func() bool { return tc.leads })
		if err := j.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.calls, tc.want) {
			t.Errorf("leading %v: calls %v, want %v", tc.leads, f.calls, tc.want)
		}
		for _, s := range j.Stats() {
			want := uint64(1)
			if s.Name == "publish-due" && !tc.leads {
				want = 0
			}
			if (s.Name == "publish-due" || s.Name == "consistency-check") && s.Runs != want {
				t.Errorf("leading %v: %s counted %d runs, want %d", tc.leads, s.Name, s.Runs, want)
			}
		}
		if !tc.leads {
			if err := j.Run(context.Background(), "publish-due"); err != nil || f.calls[len(f.calls)-1] != "publish" {
				t.Errorf("run-job on a follower: %v, calls %v", err, f.calls)
			}
		}
	}
}

// lists is a fake list cache: it records how far ahead PrepareBoundary was asked to prepare.
type lists struct{ within []time.Duration }

func (l *lists) PrepareBoundary(_ context.Context, within time.Duration) (int, error) {
	l.within = append(l.within, within)
	return 3, nil
}

// TestPrepareBoundary: the job prepares as far ahead as its schedule needs, so that no boundary falls
// between two runs out of reach of both, and does nothing without a list cache (run-job, offline).
func TestPrepareBoundary(t *testing.T) {
	j, _ := newFake(t)
	if err := j.Run(context.Background(), "prepare-boundary"); err != nil {
		t.Fatalf("without a list cache: %v", err)
	}
	l := &lists{}
	j.Warm(l)
	if err := j.Run(context.Background(), "prepare-boundary"); err != nil {
		t.Fatal(err)
	}
	var period time.Duration
	for _, s := range schedule {
		if s.name == "prepare-boundary" {
			sched, _ := cron.ParseStandard(s.spec)
			next := sched.Next(testNow)
			period = sched.Next(next).Sub(next)
		}
	}
	if len(l.within) != 1 || l.within[0] <= period {
		t.Errorf("prepared within %v, want one call further ahead than the job's period %v", l.within, period)
	}
}

// waitingCheck is a store and index whose consistency check waits for its context to end.
type waitingCheck struct {
	blockingCheck
	ended chan error
}

func (w *waitingCheck) Check(ctx context.Context) (int, error) {
	w.started <- struct{}{}
	<-ctx.Done()
	w.ended <- ctx.Err()
	return 0, ctx.Err()
}

// TestStopInterruptsTheCheck: a stop cancels a running consistency check at once, rather than wait
// for it up to its deadline; the other jobs it waits for (TestRunsOfAJobNeverOverlap).
func TestStopInterruptsTheCheck(t *testing.T) {
	w := &waitingCheck{blockingCheck: blockingCheck{started: make(chan struct{}, 1)}, ended: make(chan error, 1)}
	// Not zaptest: cron's scheduler goroutine logs its stop after Stop has returned.
	j := New(w, w, zap.NewNop(), time.UTC, func() time.Time { return testNow })
	if err := j.Start(); err != nil {
		t.Fatal(err)
	}
	// The scheduler runs the check within a second, as it runs it at the top of every hour.
	check := schedule[slices.IndexFunc(schedule, func(e entry) bool { return e.name == "consistency-check" })]
	if _, err := j.cron.AddFunc("@every 1s", j.scheduled(check)); err != nil {
		t.Fatal(err)
	}
	<-w.started
	// A deadline far beyond a check's end, only so that a stop that waits for it fails the test
	// rather than hangs it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := j.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v, want the check interrupted", err)
	}
	if err := <-w.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the check ended with %v, want context.Canceled", err)
	}
}
