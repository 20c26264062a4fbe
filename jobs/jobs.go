// Package jobs runs calendard's time-driven work on a cron schedule (robfig/cron), and once at
// start-up: scheduled publication, series' horizons, change-log trimming, the store/index consistency check,
// and the list answers prepared ahead of the instants at which they expire.
//
// Jobs write only through the store, whose change log the index follows. Each job is a plain method,
// so tests and `calendard run-job` call it directly, with the store's injected clock.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"
)

// Store is what the jobs need from the record store (*storage.DB).
type Store interface {
	PublishDue(ctx context.Context) (int, error)
	ExtendSeries(ctx context.Context) (int, error)
	TrimChanges(ctx context.Context, upTo uint64) (int, error)
	Shared() bool
	CompactHistory(ctx context.Context) error
}

// Index is what the jobs need from the search index (*index.Index).
type Index interface {
	Checkpoint(ctx context.Context) (uint64, error)
	Check(ctx context.Context) (int, error)
}

// Lists is what the boundary job needs of the HTTP layer's list cache (*handlers.Handler).
type Lists interface {
	// PrepareBoundary computes ahead the most requested list answers at the next instant at which
	// they all expire, when it comes within the given time, and returns how many it kept.
	PrepareBoundary(ctx context.Context, within time.Duration) (int, error)
}

// Jobs holds the scheduler and what the jobs work on.
type Jobs struct {
	db   Store
	ix   Index
	log  *zap.Logger
	now  func() time.Time
	cron *cron.Cron
	// cancel ends the context of scheduled runs once Stop has waited long enough; interrupt ends at
	// once, when Stop begins, that of the runs of the jobs a stop interrupts (entry.interrupt).
	cancel, interrupt context.CancelFunc
	// ctx and interruptible are the contexts of the scheduled runs (scheduled), which cancel and
	// interrupt end.
	ctx, interruptible context.Context
	// running holds, per job name, whether a run is in progress. The start-up run, the scheduled runs
	// and Run share it, so that two runs of one job never overlap: two consistency checks would
	// repair the same drift twice, each from a view of the index the other is changing.
	running map[string]*atomic.Bool

	// leading, when set, tells whether this node runs the cluster's jobs (Lead).
	leading func() bool
	// lists, when set, is the list cache PrepareBoundary warms (Warm).
	lists Lists

	// stats holds what each job's runs add up to (Stats), under statsMu.
	statsMu sync.Mutex
	stats   map[string]*Stat
}

// Stat is what the runs of one job add up to since the process started, for the metrics: the
// scheduled runs and RunOnce's. A run skipped because the job was still running does not count, nor
// does Run (calendard run-job, in a process of its own).
type Stat struct {
	Name           string
	Runs, Failures uint64
	// Busy is the time the runs took, on the clock New was given.
	Busy time.Duration
	// LastSuccess is when the last successful run ended; zero if none has.
	LastSuccess time.Time
}

// ErrRunning is returned by Run when the job is already running.
var ErrRunning = errors.New("jobs: already running")

// New builds the scheduler; loc is the site zone the schedule is read in, now the clock used to time
// runs. Nothing runs before Start or RunOnce.
func New(db Store, ix Index, log *zap.Logger, loc *time.Location, now func() time.Time) *Jobs {
	if now == nil {
		now = time.Now
	}
	j := &Jobs{db: db, ix: ix, log: log, now: now, running: map[string]*atomic.Bool{}, stats: map[string]*Stat{}}
	for _, s := range schedule {
		j.running[s.name] = new(atomic.Bool)
		j.stats[s.name] = &Stat{Name: s.name}
	}
	l := cronLogger{log.Named("cron")}
	// No cron.SkipIfStillRunning: its guard would cover the scheduled runs only, and exclusive is the
	// one every run of a job goes through.
	j.cron = cron.New(cron.WithLocation(loc), cron.WithChain(cron.Recover(l)), cron.WithLogger(l))
	return j
}

// Start schedules every job of the table and starts the scheduler's goroutine; Stop ends it.
func (j *Jobs) Start() error {
	j.ctx, j.cancel = context.WithCancel(context.Background())
	j.interruptible, j.interrupt = context.WithCancel(j.ctx)
	for _, s := range schedule {
		if _, err := j.cron.AddFunc(s.spec, j.scheduled(s)); err != nil {
			j.cancel()
			return fmt.Errorf("jobs: schedule %s: %w", s.name, err)
		}
	}
	j.cron.Start()
	return nil
}

// scheduled is the scheduler's run of s: in the context Stop interrupts at once when s is one a
// stop interrupts, else in the one it ends after waiting.
func (j *Jobs) scheduled(s entry) func() {
	ctx := j.ctx
	if s.interrupt {
		ctx = j.interruptible
	}
	return func() { _ = j.run(ctx, s) }
}

// Lead makes the jobs that run once per cluster (publication, the series' horizon) run on this node
// only while leading says so: in cluster mode, the node elected through the store (storage.DB.Elect).
// The scheduled runs and RunOnce's skip them otherwise; Run (calendard run-job) runs them anyway.
// Call it before Start.
func (j *Jobs) Lead(leading func() bool) { j.leading = leading }

// Warm gives PrepareBoundary the list cache it prepares; without it, the job does nothing. Call it
// before Start.
func (j *Jobs) Warm(l Lists) { j.lists = l }

// Stop stops the scheduler, interrupts the running jobs a stop interrupts (entry.interrupt), and waits
// for running jobs to finish. When ctx ends first, the running jobs' context is cancelled (they stop
// between transactions) and Stop still waits for them.
func (j *Jobs) Stop(ctx context.Context) error {
	done := j.cron.Stop()
	if j.cancel == nil {
		return nil
	}
	j.interrupt()
	defer j.cancel()
	select {
	case <-done.Done():
		return nil
	case <-ctx.Done():
		j.cancel()
		<-done.Done()
		return ctx.Err()
	}
}

// RunOnce runs every job once, in the table's order, and returns their errors joined; each failure
// has been logged. A job already running (a scheduled run came first) is skipped. The server calls it
// at start-up.
func (j *Jobs) RunOnce(ctx context.Context) error {
	return j.runEach(ctx, func(entry) bool { return true })
}

// RunCluster runs once the jobs that run once per cluster, in the table's order, as RunOnce would:
// a node calls it when it is elected, so that what the previous leader left undone (a publication due
// since it died) or what this node's start-up skipped before the election is done at once, not at the
// jobs' next scheduled time (extend-series: the next night).
func (j *Jobs) RunCluster(ctx context.Context) error {
	return j.runEach(ctx, func(s entry) bool { return s.cluster })
}

// runEach runs once, in the table's order, each job that which selects, and joins their errors.
func (j *Jobs) runEach(ctx context.Context, which func(entry) bool) error {
	var errs []error
	for _, s := range schedule {
		if !which(s) {
			continue
		}
		if err := j.run(ctx, s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Run runs the job called name once. An unknown name is an error listing the known ones; a job
// already running returns ErrRunning.
func (j *Jobs) Run(ctx context.Context, name string) error {
	for _, s := range schedule {
		if s.name == name {
			return j.exclusive(ctx, s)
		}
	}
	return fmt.Errorf("jobs: unknown job %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the jobs in the table's order.
func Names() []string {
	names := make([]string, len(schedule))
	for i, s := range schedule {
		names[i] = s.name
	}
	return names
}

// Stats returns every job's figures, in the table's order.
func (j *Jobs) Stats() []Stat {
	j.statsMu.Lock()
	defer j.statsMu.Unlock()
	stats := make([]Stat, len(schedule))
	for i, s := range schedule {
		stats[i] = *j.stats[s.name]
	}
	return stats
}

// exclusive runs one job unless a run of it is in progress, and then returns ErrRunning.
func (j *Jobs) exclusive(ctx context.Context, s entry) error {
	busy := j.running[s.name]
	if !busy.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer busy.Store(false)
	return s.fn(j, ctx)
}

// run runs one job, logs its outcome (the scheduler has no caller to return an error to) and counts
// it in Stats. A job still running from an earlier run is skipped: that run does the same work.
func (j *Jobs) run(ctx context.Context, s entry) error {
	if s.cluster && j.leading != nil && !j.leading() {
		return nil // another node runs it; not a run of this node's
	}
	start := j.now()
	err := j.exclusive(ctx, s)
	if errors.Is(err, ErrRunning) {
		j.log.Info("job skipped: still running", zap.String("job", s.name))
		return nil
	}
	if err != nil && ctx.Err() != nil {
		// Cut short by the shutdown, or by its caller: not a failure of the job (nor a run of it in
		// Stats), and its next run takes it up again. Logged as a failure, every stop of a server
		// named the jobs it interrupted as failed.
		j.log.Info("job stopped", zap.String("job", s.name), zap.Error(err))
		return fmt.Errorf("jobs: %s: %w", s.name, err)
	}
	j.count(s.name, start, err)
	if err != nil {
		j.log.Error("job failed", zap.String("job", s.name), zap.Error(err))
		return fmt.Errorf("jobs: %s: %w", s.name, err)
	}
	j.log.Debug("job done", zap.String("job", s.name), zap.Duration("duration", j.now().Sub(start)))
	return nil
}

// count adds a run of the job called name that started at start and ended now with err.
func (j *Jobs) count(name string, start time.Time, err error) {
	end := j.now()
	j.statsMu.Lock()
	defer j.statsMu.Unlock()
	st := j.stats[name]
	st.Runs++
	st.Busy += end.Sub(start)
	if err != nil {
		st.Failures++
	} else {
		st.LastSuccess = end
	}
}

// PublishDue publishes the scheduled records whose date has passed (docs/API.md "Statuses").
func (j *Jobs) PublishDue(ctx context.Context) error {
	n, err := j.db.PublishDue(ctx)
	if n > 0 {
		j.log.Info("scheduled records published", zap.Int("records", n))
	}
	return err
}

// ExtendSeries moves every series' horizon forward to the store's clock: the occurrences of endless
// rules that came inside the window appear (storage.DB.ExtendSeries), so no request expands a rule.
func (j *Jobs) ExtendSeries(ctx context.Context) error {
	n, err := j.db.ExtendSeries(ctx)
	if n > 0 {
		j.log.Info("series extended", zap.Int("series", n))
	}
	return err
}

// TrimChanges deletes the change-log entries that every language index has applied and stored on
// disk (Index.Checkpoint). A restart replays the log from each language's stored checkpoint, so it
// must find every entry after it: trimming never passes the lowest one.
//
// In cluster mode every node stores its checkpoint, but only the elected one trims (Lead), and to
// the change feed's horizon rather than to its own checkpoint, since every node's index follows the
// one log: a node further behind resyncs its index from the store (index.Index.Resync). It then
// compacts the cluster's history (storage.DB.CompactHistory): trimming becomes etcd's compaction
// (docs/CLUSTER.md).
func (j *Jobs) TrimChanges(ctx context.Context) error {
	upTo, err := j.ix.Checkpoint(ctx)
	if err != nil {
		return err
	}
	if j.db.Shared() {
		if j.leading != nil && !j.leading() {
			return nil
		}
		upTo = math.MaxUint64
	}
	n, err := j.db.TrimChanges(ctx, upTo)
	if n > 0 {
		j.log.Info("change log trimmed", zap.Int("entries", n), zap.Uint64("up_to", upTo))
	}
	if err != nil {
		// The entries left are trimmed by the next run; the history etcd keeps is compacted all the
		// same, as far as is safe whatever the log holds.
		j.log.Warn("change log not trimmed up to its position", zap.Uint64("up_to", upTo), zap.Int("trimmed", n), zap.Error(err))
	}
	return errors.Join(err, j.db.CompactHistory(ctx))
}

// boundaryLead is how far ahead PrepareBoundary prepares a boundary: the job's period (a minute, see
// schedule) and half a minute for a run that starts late, so that every boundary falls within reach
// of a run, which prepares it at most a minute and a half early.
const boundaryLead = 90 * time.Second

// PrepareBoundary has the most requested list answers computed ahead for the next instant at which
// every cached list expires (the site's midnight, an event's start, a publication), so that the first
// requests after it are answered from the cache (handlers.Handler.PrepareBoundary).
func (j *Jobs) PrepareBoundary(ctx context.Context) error {
	if j.lists == nil {
		return nil
	}
	n, err := j.lists.PrepareBoundary(ctx, boundaryLead)
	if n > 0 {
		j.log.Debug("list answers prepared for the boundary", zap.Int("lists", n))
	}
	return err
}

// Check compares the store with the index and repairs drift; the index logs each repair.
func (j *Jobs) Check(ctx context.Context) error {
	_, err := j.ix.Check(ctx)
	return err
}

// cronLogger adapts zap to cron.Logger. cron's info lines (every wake-up) go to debug.
type cronLogger struct{ log *zap.Logger }

func (l cronLogger) Info(msg string, keysAndValues ...any) {
	l.log.Sugar().Debugw(msg, keysAndValues...)
}

func (l cronLogger) Error(err error, msg string, keysAndValues ...any) {
	l.log.Sugar().Errorw(msg, append(keysAndValues, "error", err)...)
}
