package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/jobs"
	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/webhook"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/replica"
)

// Server timeouts (docs/API.md "Limits") and limits (10.1).
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
	// net/http reads up to 4 KiB past MaxHeaderBytes before it refuses, so the request line and
	// headers together are allowed exactly 64 KiB.
	maxHeaderBytes = 64<<10 - 4096
	// shutdownTimeout bounds the whole stop, from the signal to the store closed, whatever the disk
	// or the cluster do (the systemd unit's TimeoutStopSec outwaits it). The HTTP shutdown, the jobs
	// and the listeners may take all of it but closeReserve, which the index checkpoint and the
	// closing of the indexes and the store keep; the checkpoint leaves index.CloseWait of it.
	shutdownTimeout = 30 * time.Second
	closeReserve    = 12 * time.Second
)

// app is one running service: opened by open, its index loaded by load, run by serve, torn down by
// close. serve listens before it loads, and answers with handlers.NewLoading's handler until then.
type app struct {
	cfg   Config
	log   *zap.Logger
	db    *storage.DB
	index *index.Index // nil until load
	// indexStore is what the index reads: the store, or in tests a wrapper that holds a load midway.
	indexStore index.Store
	// loading follows load's progress for the handler that answers meanwhile.
	loading index.Loading
	// terminal is stderr when it is a terminal, where load shows its progress as a bar; nil otherwise.
	terminal io.Writer
	// limitMemory has load fit the budget to the loaded calendar (memoryBudget.fit): grow the default
	// budget's caches with it and set the runtime's soft memory limit. The command serve's, not
	// tests', which open many apps in one process.
	limitMemory bool
	handler     handlerSwitch
	server      *http.Server
	// metrics is what /metrics reports, for the loading handler and then the API's.
	metrics *handlers.Metrics
	jobs    *jobs.Jobs // nil until load
	// webhooks delivers the change log to the webhook subscriptions (startWebhooks).
	webhooks *webhook.Deliverer
	// stopping is done once shutdown begins, so long polls answer instead of holding it; stopBy is
	// when the whole stop must be done (beginStop).
	stopping     context.Context
	stopStopping context.CancelFunc
	stopOnce     sync.Once
	stopBy       time.Time
	// mirrorRan, when set, hears of each run of the configured mirror: tests wait on it.
	mirrorRan func(*mirror.Report, error)
	// jobLeader, when set, hears when this node becomes or stops being the cluster's job leader:
	// tests wait on it.
	jobLeader func(bool)
	// ln is the bound listener, metricsLn the metrics' own (nil when they share ln); tests read their
	// addresses.
	ln, metricsLn net.Listener
}

// handlerSwitch serves the handler stored last: the loading answers, then the API. An atomic pointer
// rather than a lock, because every request reads it.
type handlerSwitch struct{ h atomic.Pointer[http.Handler] }

func (s *handlerSwitch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

func (s *handlerSwitch) set(h http.Handler) { s.h.Store(&h) }

// openStore opens the store for a command: the calendar.db file of the data directory, or, in
// cluster mode, the etcd cluster configured, read and written directly (a command runs beside the
// server, whose copy of the cluster it must not lock, and briefly).
func openStore(cfg Config, log *zap.Logger) (*storage.DB, error) {
	return openStoreFor(cfg, log, false)
}

// openServedStore opens the store for the server: in cluster mode its reads are served by a copy of
// the cluster in the data directory (replicaName), which it follows (package replica, docs/CLUSTER.md).
// Making a new copy, or catching up with the cluster, comes before the server answers.
func openServedStore(cfg Config, log *zap.Logger) (*storage.DB, error) {
	return openStoreFor(cfg, log, true)
}

// replicaName is the file of a cluster node's copy of the store, in the data directory: made again
// from the cluster when missing.
const replicaName = "replica.db"

// copyLogEvery is how many keys of a copy of the cluster go between two log lines: 100,000 events
// are 1.26 million keys, copied at about 80,000 a second.
const copyLogEvery = 200_000

// logCopy counts the keys a copy of the cluster has written and logs the count each time it passes a
// multiple of every: a first copy takes a while (15 s at 100k events) before the server listens.
func logCopy(log *zap.Logger, every int) func(n int) {
	copied := 0
	return func(n int) {
		if copied += n; copied%every < n {
			log.Info("copying the cluster", zap.Int("keys", copied))
		}
	}
}

// minClusterHorizon is the least time a server keeps change-log entries in cluster mode.
const minClusterHorizon = time.Hour

// openStoreFor opens the calendar.db file of the data directory, or, in cluster mode, the store on
// the etcd cluster configured (the data directory then holds only what a node rebuilds: its indexes
// and, for the server, its copy of the cluster).
func openStoreFor(cfg Config, log *zap.Logger, served bool) (*storage.DB, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	opts := storage.Options{
		Now: cfg.clock(), Logger: log.Named("storage"), SiteZone: cfg.siteZone, ChangesHorizon: cfg.ChangesHorizon,
		SeriesPast: cfg.SeriesPast, SeriesHorizon: cfg.SeriesHorizon, SeriesMaxText: cfg.SeriesMaxText,
		GuardMirrored: cfg.mirroring(), RecordCacheBytes: cfg.budget().records, Wrap: cfg.wrapStore,
	}
	if cfg.MirrorFrom != "" {
		// The site's IDs are kept here: what is created here takes IDs the site never reaches.
		opts.LocalIDBase = storage.MirrorIDBase
	}
	if cfg.etcd == nil {
		return storage.Open(filepath.Join(cfg.DataDir, storeName), opts)
	}
	ecfg := *cfg.etcd
	ecfg.Logger = log.Named("etcd")
	// Open is bounded by its dial timeout: an unreachable cluster fails start-up, it does not hang it.
	st, err := etcdkv.Open(context.Background(), ecfg)
	if err != nil {
		return nil, err
	}
	// Every node's index follows the one change log, which the elected node trims to the horizon
	// whatever the others have applied (jobs.Jobs.TrimChanges): the horizon is how far a node can
	// fall behind and still catch up from the log rather than from a full read of the store. A
	// command (run-job trim-changes) trims the cluster's log as the elected node does.
	opts.ChangesHorizon = max(opts.ChangesHorizon, minClusterHorizon)
	if !served {
		return storage.OpenStore(st, opts)
	}
	rep, err := replica.Open(context.Background(), filepath.Join(cfg.DataDir, replicaName), st,
		replica.Options{Logger: log.Named("replica"), Copied: logCopy(log, copyLogEvery)})
	if err != nil {
		st.Close()
		return nil, err
	}
	return storage.OpenStore(rep, opts)
}

// open opens the store and builds the server, answering with handlers.NewLoading's handler until
// load is done; stderr receives a generated administrator password. Demo data (a development aid,
// for an empty store only) goes in here, before the index is loaded over it.
func open(ctx context.Context, cfg Config, log *zap.Logger, stderr io.Writer) (*app, error) {
	db, err := openServedStore(cfg, log)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, db: db, indexStore: db, metrics: handlers.NewMetrics(log.Named("metrics")),
		webhooks: newDeliverer(cfg, db, log.Named("webhook"))}
	if isTerminal(stderr) {
		a.terminal = stderr
	}
	a.stopping, a.stopStopping = context.WithCancel(context.Background())
	if err := a.bootstrapAdmin(ctx, stderr); err != nil {
		db.Close()
		return nil, err
	}
	// Demo data goes in before the index opens, so that the index is built over it.
	if err := a.seedDemo(ctx, stderr); err != nil {
		db.Close()
		return nil, err
	}
	a.handler.set(handlers.NewLoading(handlers.Deps{Config: cfg.handlerConfig(cfg.budget()), Store: db, Log: log.Named("http"), Metrics: a.metrics}, &a.loading))
	a.server = &http.Server{
		Handler:           &a.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          zap.NewStdLog(log.Named("http-server")),
	}
	return a, nil
}

// load opens the search index, building or catching it up as needed, then switches the server from
// the loading answers to the API.
func (a *app) load(ctx context.Context) error {
	ix, err := index.Open(ctx, filepath.Join(a.cfg.DataDir, "index"), a.indexStore, index.Options{Logger: a.log.Named("index"), Loading: &a.loading,
		TextCacheBytes: a.cfg.budget().texts})
	if err != nil {
		return err
	}
	a.index = ix
	budget := a.cfg.budget()
	if a.limitMemory {
		budget = budget.fit(a.log, ix.MappedBytes())
		a.db.GrowRecordCache(budget.records)
		ix.GrowTextCache(budget.texts)
	}
	// The jobs are built here, though serve starts them later, so that the API's metrics report them.
	a.jobs = jobs.New(a.db, ix, a.log.Named("jobs"), a.cfg.siteZone.Loc, a.cfg.clock())
	api := handlers.New(handlers.Deps{Config: a.cfg.handlerConfig(budget), Store: a.db, Index: ix, Log: a.log.Named("http"),
		Stopping: a.stopping, Metrics: a.metrics, Jobs: jobStats(a.jobs), Webhooks: webhookStats(a.webhooks)})
	a.jobs.Warm(api)
	a.handler.set(api)
	return nil
}

// bootstrapAdmin creates the first administrator when the store has no users (README "Users"). The admin
// settings are checked only then: once users exist they are ignored, malformed or not.
func (a *app) bootstrapAdmin(ctx context.Context, stderr io.Writer) error {
	users, err := a.db.Users(ctx)
	if err != nil || len(users) > 0 {
		return err
	}
	if a.cfg.AdminAppPassword != "" && !storage.ValidAppPassword(a.cfg.AdminAppPassword) {
		return errors.New("admin-app-password must be 24 characters from [A-Za-z0-9]")
	}
	if _, err := a.db.CreateUser(ctx, storage.User{Login: a.cfg.AdminLogin, Email: a.cfg.AdminEmail, Role: storage.RoleAdministrator}); err != nil {
		return fmt.Errorf("create administrator: %w", err)
	}
	password := a.cfg.AdminAppPassword
	if password == "" {
		password = storage.NewAppPassword()
		fmt.Fprintf(stderr, "created administrator %q with application password %s (shown once)\n", a.cfg.AdminLogin, password)
	}
	return a.db.AddAppPassword(ctx, a.cfg.AdminLogin, "bootstrap", password)
}

// listen binds the configured address, and the metrics' own when set.
func (a *app) listen() error {
	ln, err := net.Listen("tcp", a.cfg.ListenAddr)
	if err != nil {
		return err
	}
	if a.cfg.MetricsAddr != "" {
		if a.metricsLn, err = net.Listen("tcp", a.cfg.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("metrics-addr: %w", err)
		}
	}
	a.ln = ln
	return nil
}

// serveMetrics serves the metrics on their own listener until the returned stop function is called,
// which waits for it; with no listener of their own, it does nothing. A failure of that listener is
// logged and leaves the API serving: metrics are not worth an outage.
func (a *app) serveMetrics() (stop func()) {
	if a.metricsLn == nil {
		return func() {}
	}
	srv := &http.Server{
		Handler:           a.metrics,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          zap.NewStdLog(a.log.Named("metrics-server")),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(a.metricsLn); !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("metrics listener stopped", zap.Error(err))
		}
	}()
	a.log.Info("serving metrics", zap.String("addr", a.metricsLn.Addr().String()))
	return func() {
		ctx, cancel := a.stopContext()
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			a.log.Warn("metrics listener did not stop in time", zap.Error(err))
		}
		<-done
	}
}

// serve answers requests until ctx is done, then shuts down gracefully: in-flight requests finish,
// then the jobs and the index syncer stop. It listens first and loads the index while it answers
// (docs/API.md "Errors" rest_not_ready); the syncer and the jobs start once the index is loaded, and a ctx done
// during the load ends it.
func (a *app) serve(ctx context.Context) error {
	// The control socket needs only the store, so operator commands work during a long load too.
	stopControl, err := a.serveControl()
	if err != nil {
		return err
	}
	defer stopControl()
	// Stopped after the API, the jobs and the syncer: the metrics watch the shutdown too.
	defer a.serveMetrics()()
	errc := make(chan error, 1)
	go func() { errc <- a.server.Serve(a.ln) }()
	explorer := zap.String("explorer", explorerURL(a.cfg.BaseURL, a.ln.Addr().(*net.TCPAddr)))
	a.log.Info("listening", zap.String("addr", a.ln.Addr().String()), zap.String("data_dir", a.cfg.DataDir), explorer)
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	loaded := make(chan error, 1)
	go func() { loaded <- a.loadLogged(loadCtx) }()
	select {
	case err := <-errc:
		stopLoad()
		<-loaded
		return err
	case err := <-loaded:
		if err != nil {
			return errors.Join(ignoreCancel(ctx, err), a.shutdown(errc))
		}
	}
	defer a.startSync()()
	// Deferred after the syncer's stop, so it runs first: cron stops after HTTP and before the syncer.
	stopJobs, err := a.startJobs(ctx)
	if err != nil {
		return errors.Join(err, a.shutdown(errc))
	}
	defer stopJobs()
	defer a.startWebhooks(ctx)()
	if a.cfg.mirroring() {
		stopMirror, err := a.startMirror(ctx)
		if err != nil {
			return errors.Join(err, a.shutdown(errc))
		}
		defer stopMirror()
	}
	a.log.Info("serving", zap.String("addr", a.ln.Addr().String()), explorer)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return a.shutdown(errc)
}

// explorerURL is where a person opens the explorer page: under the public base URL when there is one,
// else on the listen address, where a wildcard host is reached as localhost.
func explorerURL(baseURL string, addr *net.TCPAddr) string {
	if baseURL != "" {
		return baseURL + handlers.ExplorePath
	}
	host := "localhost"
	if !addr.IP.IsUnspecified() {
		host = addr.IP.String()
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(addr.Port)) + handlers.ExplorePath
}

// ignoreCancel drops err when ctx was cancelled: a load interrupted by a shutdown is not a failure.
func ignoreCancel(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return err
}

// beginStop marks the start of the stop, once, and returns when it must be done: long polls answer
// from now on, and every step of the stop takes only what is left of shutdownTimeout.
func (a *app) beginStop() time.Time {
	a.stopOnce.Do(func() {
		a.stopBy = time.Now().Add(shutdownTimeout)
		a.stopStopping()
	})
	return a.stopBy
}

// stopContext bounds a step of the stop that may take all of it but closeReserve.
func (a *app) stopContext() (context.Context, context.CancelFunc) {
	return context.WithDeadline(context.Background(), a.beginStop().Add(-closeReserve))
}

// shutdown stops the HTTP server gracefully and collects Serve's result from errc.
func (a *app) shutdown(errc <-chan error) error {
	sctx, cancel := a.stopContext()
	defer cancel()
	if err := a.server.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loadProgressEvery is how often a load in progress is logged.
const loadProgressEvery = 5 * time.Second

// loadLogged is load with a log line every few seconds while it runs: a long first start shows it is
// working, and how far it has come. On a terminal it shows a progress bar instead, as reindex does.
func (a *app) loadLogged(ctx context.Context) error {
	if a.terminal != nil {
		return showProgress(a.terminal, a.loading.Progress, func() error { return a.load(ctx) })
	}
	return watch(loadProgressEvery, func() {
		p := a.loading.Progress()
		a.log.Info("loading the index", zap.String("phase", p.Phase), zap.Uint64("done", p.Done),
			zap.Uint64("total", p.Total), zap.Duration("remaining", p.Remaining(time.Now()).Round(time.Second)))
	}, func() error { return a.load(ctx) })
}

// startSync runs the index syncer until the returned stop function is called; stop waits for it.
func (a *app) startSync() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	changed, unsubscribe := a.db.Subscribe()
	wg.Go(func() {
		defer unsubscribe()
		if err := a.index.Run(ctx, changed); err != nil {
			a.log.Error("index syncer stopped", zap.Error(err))
		}
	})
	// In cluster mode the other nodes' writes wake the syncer too, as this node's own do; without
	// it the syncer would find them only on its safety tick.
	if a.cfg.etcd != nil {
		wg.Go(func() {
			if err := a.db.Follow(ctx); err != nil && ctx.Err() == nil {
				a.log.Error("following the cluster's change log stopped", zap.Error(err))
			}
		})
	}
	return func() { cancel(); wg.Wait() }
}

func (a *app) close() error {
	stopBy := a.beginStop()
	var err error
	if a.index != nil {
		// A checkpoint saves the projections as of all the index has applied, so the next start reads
		// them and replays nothing. Without it that start replays from the last scheduled one, or
		// scans the store when there was none: slower, never wrong, so a failure is only logged, and
		// on a full disk, where it could only wait for Bleve to write what it cannot, it is skipped.
		if a.db.Full() {
			a.log.Warn("disk full: no index checkpoint at shutdown; the next start replays the change log")
		} else {
			ctx, cancel := context.WithDeadline(context.Background(), stopBy.Add(-index.CloseWait))
			if _, cerr := a.index.Checkpoint(ctx); cerr != nil {
				a.log.Warn("index checkpoint at shutdown failed", zap.Error(cerr))
			}
			cancel()
		}
		err = a.index.Close()
	}
	err = errors.Join(err, a.db.Close())
	_ = a.log.Sync()
	return err
}
