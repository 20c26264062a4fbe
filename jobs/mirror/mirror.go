// Package mirror is what every sync source shares: a source (a TEC site in package tec, an iCalendar
// feed) brings the store in line with itself in one Sync, and this package reports, repeats and
// feeds that work.
//
// # Basics
//
// A source implements Source. Its Sync reads the source, writes each of its records into the store in
// a transaction of its own (storage.DB.Bulk with Bulk.Link, so the next run knows the record), trashes
// what the source no longer has, and returns a Report of what it did. Sync must be idempotent: a run
// after an interrupted one continues cheaply because unchanged records are skipped (the link's stamp).
//
//	rep, err := src.Sync(ctx, mirror.Options{Progress: &p})
//	fmt.Println(rep)                      // "added 3, updated 1, trashed 0, unchanged 40, failed 1"
//	err = mirror.Follow(ctx, src, 5*time.Minute, opts)   // the same, now and every 5 minutes
//
// A record the store refuses (our contract's input rules) is a Failure in the Report, with the
// source's ID and the reason, and the run goes on; only what stops the whole run (the source
// unreachable after retries, the store failing, ctx done) is Sync's error.
//
// Getter fetches a source's HTTP pages, retrying transient failures (network errors, 429, 5xx) with
// exponential back-off and jitter, honouring Retry-After, and counting its requests.
package mirror

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/calendard/calendard/storage/task"
)

// Source is one origin of records that the store mirrors.
type Source interface {
	// Name identifies the source in logs and reports (a site's REST root, a feed's URL).
	Name() string
	// Sync brings the store in line with the source once. It returns the report of what it did even
	// with an error, which then says why the run stopped short.
	Sync(ctx context.Context, opts Options) (*Report, error)
}

// Options configure one run.
type Options struct {
	// Progress, when set, is kept up to date with the run's phase and counts.
	Progress *Progress
	// Logger receives the run's log lines. Defaults to a no-op logger.
	Logger *zap.Logger
	// Now is the clock. Defaults to time.Now.
	Now func() time.Time
	// AfterRun, when set, is told of each run's report and error by RunLogged (and so Follow).
	AfterRun func(*Report, error)
}

// WithDefaults returns o with every unset field at its default.
func (o Options) WithDefaults() Options {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Outcome is what a run did to one record.
type Outcome int

// Outcomes.
const (
	Unchanged Outcome = iota
	Added
	Updated
	Trashed
)

// Report counts what one run did. Its methods may be called from one goroutine at a time.
type Report struct {
	Source                                     string
	Added, Updated, Trashed, Unchanged, Failed int
	// Failures lists each record that could not be written, in the order met.
	Failures []Failure
	// Notes say what the run did otherwise than asked (a source's user who may see only public
	// records), one line each, without repeats.
	Notes []string
	// Requests counts the HTTP requests the run made (Getter.Requests).
	Requests int64
	// Took is the run's duration.
	Took time.Duration
}

// Failure is a record the store refused, or could not get from the source.
type Failure struct {
	// Kind is the source's kind of record (event, venue, category…) and ID its identity there.
	Kind, ID string
	Reason   string
}

// Count records an outcome.
func (r *Report) Count(o Outcome) {
	switch o {
	case Added:
		r.Added++
	case Updated:
		r.Updated++
	case Trashed:
		r.Trashed++
	default:
		r.Unchanged++
	}
}

// Fail records that record id of kind failed because of err.
func (r *Report) Fail(kind, id string, err error) {
	r.Failed++
	r.Failures = append(r.Failures, Failure{Kind: kind, ID: id, Reason: err.Error()})
}

// Note adds a note, once.
func (r *Report) Note(format string, args ...any) {
	if n := fmt.Sprintf(format, args...); !slices.Contains(r.Notes, n) {
		r.Notes = append(r.Notes, n)
	}
}

// String is the report's one-line summary.
func (r *Report) String() string {
	return fmt.Sprintf("added %d, updated %d, trashed %d, unchanged %d, failed %d", r.Added, r.Updated, r.Trashed, r.Unchanged, r.Failed)
}

// Progress follows a run in flight, for a progress bar or periodic log lines (the figures of an
// index load, which the command line already shows). Its methods may be called from any goroutine; a
// nil *Progress records nothing.
type Progress struct {
	mu sync.Mutex
	p  task.Progress
}

// Begin starts a phase of total steps (0 when unknown yet).
func (p *Progress) Begin(phase string, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p = task.Progress{Phase: phase, Total: uint64(total), Started: time.Now()}
}

// SetTotal corrects the current phase's total, once a source has said how much there is.
func (p *Progress) SetTotal(total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p.Total = uint64(total)
}

// Add counts n more steps done.
func (p *Progress) Add(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p.Done += uint64(n)
}

// Snapshot returns the current figures.
func (p *Progress) Snapshot() task.Progress {
	if p == nil {
		return task.Progress{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.p
}

// Follow runs src's Sync now and then every interval on a cron schedule (`@every`), logging one line
// per run, until ctx is done. A run that fails is logged and the next one tries again; a run still
// going when the next is due delays it rather than overlapping it. It returns nil when ctx ends.
func Follow(ctx context.Context, src Source, interval time.Duration, opts Options) error {
	if interval <= 0 {
		return fmt.Errorf("mirror: follow interval %s: must be positive", interval)
	}
	opts = opts.WithDefaults()
	run := func() { _, _ = RunLogged(ctx, src, opts) }
	c := cron.New(cron.WithChain(cron.DelayIfStillRunning(cron.DiscardLogger)))
	if _, err := c.AddFunc(fmt.Sprintf("@every %s", interval), run); err != nil {
		return fmt.Errorf("mirror: follow schedule: %w", err)
	}
	run()
	c.Start()
	<-ctx.Done()
	<-c.Stop().Done()
	return nil
}

// RunLogged runs src's Sync once and logs its report in one line (and each failure in one more),
// returning the report.
func RunLogged(ctx context.Context, src Source, opts Options) (*Report, error) {
	opts = opts.WithDefaults()
	began := opts.Now()
	rep, err := src.Sync(ctx, opts)
	if rep == nil {
		rep = &Report{Source: src.Name()}
	}
	rep.Took = opts.Now().Sub(began)
	fields := []zap.Field{zap.String("source", src.Name()), zap.Int("added", rep.Added), zap.Int("updated", rep.Updated),
		zap.Int("trashed", rep.Trashed), zap.Int("unchanged", rep.Unchanged), zap.Int("failed", rep.Failed),
		zap.Int64("requests", rep.Requests), zap.Duration("took", rep.Took)}
	if opts.AfterRun != nil {
		defer opts.AfterRun(rep, err)
	}
	for _, n := range rep.Notes {
		opts.Logger.Warn("mirror note", zap.String("source", src.Name()), zap.String("note", n))
	}
	for _, f := range rep.Failures {
		opts.Logger.Warn("mirror record failed", zap.String("source", src.Name()), zap.String("kind", f.Kind), zap.String("id", f.ID), zap.String("reason", f.Reason))
	}
	if err != nil {
		if ctx.Err() == nil {
			opts.Logger.Error("mirror run failed", append(fields, zap.Error(err))...)
		}
		return rep, err
	}
	opts.Logger.Info("mirror run", fields...)
	return rep, nil
}
