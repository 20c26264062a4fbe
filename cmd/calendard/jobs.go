package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/jobs"
	"github.com/calendard/calendard/storage"
)

var (
	_ jobs.Store = (*storage.DB)(nil)
	_ jobs.Index = (*index.Index)(nil)
	_ jobs.Lists = (*handlers.Handler)(nil)
)

// runJob runs one job by hand on a stopped server's data directory: calendard run-job NAME [flags].
func runJob(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("run-job needs a job name: %s", strings.Join(jobs.Names(), ", "))
	}
	name := args[0]
	cfg, err := parseConfig("run-job", args[1:], getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)
	defer func() { _ = log.Sync() }()
	db, err := openStore(cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	ix, err := index.Open(ctx, filepath.Join(cfg.DataDir, "index"), db, index.Options{Logger: log.Named("index")})
	if err != nil {
		return err
	}
	defer ix.Close()
	j := jobs.New(db, ix, log.Named("jobs"), cfg.siteZone.Loc, cfg.clock())
	if err := j.Run(ctx, name); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ran %s on %s\n", name, cfg.DataDir)
	return nil
}

// startJobs runs every job once, in the background so that serving does not wait for them (reads
// already report due records as published, and the check only repairs drift), and starts the scheduler;
// the returned stop function ends both and waits for them.
func (a *app) startJobs(ctx context.Context) (stop func(), err error) {
	j := a.jobs
	stopElection := func() {}
	if a.cfg.etcd != nil {
		stopElection = a.electJobLeader(ctx, j)
	}
	if err := j.Start(); err != nil {
		stopElection()
		return nil, err
	}
	onceCtx, cancelOnce := context.WithCancel(ctx)
	once := make(chan struct{})
	go func() {
		defer close(once)
		if err := j.RunOnce(onceCtx); err != nil && onceCtx.Err() == nil {
			a.log.Warn("start-up jobs failed", zap.Error(err))
		}
	}()
	return func() {
		cancelOnce()
		<-once
		sctx, cancel := a.stopContext()
		defer cancel()
		if err := j.Stop(sctx); err != nil {
			a.log.Error("jobs did not stop in time", zap.Error(err))
		}
		stopElection()
	}, nil
}

// electJobLeader makes the jobs that run once per cluster run on this node only while it is the one
// elected through etcd, and campaigns until the returned stop is called (which resigns, so that
// another node takes over at once). Until elected, this node skips them; once elected, it runs them
// at once (Jobs.RunCluster), in the election's goroutine: a start-up's RunOnce before the election
// skipped them, and a leader that died may have left a publication due.
func (a *app) electJobLeader(ctx context.Context, j *jobs.Jobs) (stop func()) {
	var leading atomic.Bool
	j.Lead(leading.Load)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.db.Elect(ctx, "jobs", func(lead bool) {
			leading.Store(lead)
			a.log.Info("jobs leadership", zap.Bool("leader", lead))
			if a.jobLeader != nil {
				a.jobLeader(lead)
			}
			if lead {
				_ = j.RunCluster(ctx) // each failure is logged, and the schedule tries again
			}
		})
	}()
	return func() { cancel(); <-done }
}

// jobStats gives the jobs' figures to the metrics: handlers cannot import jobs (STYLE 2), so it has
// its own JobStat, which converts from jobs.Stat as long as both keep the same fields.
func jobStats(j *jobs.Jobs) func() []handlers.JobStat {
	return func() []handlers.JobStat {
		stats := j.Stats()
		out := make([]handlers.JobStat, len(stats))
		for i, s := range stats {
			out[i] = handlers.JobStat(s)
		}
		return out
	}
}
