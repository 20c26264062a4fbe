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
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// Server timeouts (CONTRACT 10.2) and limits (10.1).
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
	// net/http reads up to 4 KiB past MaxHeaderBytes before it refuses, so the request line and
	// headers together are allowed exactly 64 KiB.
	maxHeaderBytes  = 64<<10 - 4096
	shutdownTimeout = 30 * time.Second
)

// app is one running service: opened by open, run by serve, torn down by close.
type app struct {
	cfg     Config
	log     *zap.Logger
	db      *storage.DB
	index   *index.Index
	handler http.Handler
	server  *http.Server
	// ln is the bound listener; tests read its address.
	ln net.Listener
}

func openStore(cfg Config, log *zap.Logger) (*storage.DB, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	return storage.Open(filepath.Join(cfg.DataDir, "calendar.db"), storage.Options{
		Now: cfg.clock(), Logger: log.Named("storage"), SiteZone: cfg.siteZone,
	})
}

// open builds everything serve needs; stderr receives a generated administrator password.
func open(ctx context.Context, cfg Config, log *zap.Logger, stderr io.Writer) (*app, error) {
	db, err := openStore(cfg, log)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, db: db}
	if err := a.bootstrapAdmin(ctx, stderr); err != nil {
		db.Close()
		return nil, err
	}
	// Demo data goes in before the index opens, so that the index is built over it.
	if err := a.seedDemo(ctx, stderr); err != nil {
		db.Close()
		return nil, err
	}
	if a.index, err = index.Open(ctx, filepath.Join(cfg.DataDir, "index"), db, log.Named("index")); err != nil {
		db.Close()
		return nil, err
	}
	a.handler = handlers.New(cfg.handlerConfig(), db, a.index, log.Named("http"))
	a.server = &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          zap.NewStdLog(log.Named("http-server")),
	}
	return a, nil
}

// bootstrapAdmin creates the first administrator when the store has no users (CONTRACT 7.7). The admin
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

// listen binds the configured address.
func (a *app) listen() error {
	ln, err := net.Listen("tcp", a.cfg.ListenAddr)
	if err != nil {
		return err
	}
	a.ln = ln
	return nil
}

// serve answers requests until ctx is done, then shuts down gracefully: in-flight requests finish,
// then the index syncer stops.
func (a *app) serve(ctx context.Context) error {
	defer a.startSync()()
	// Deferred after the syncer's stop, so it runs first: cron stops after HTTP and before the syncer.
	stopJobs, err := a.startJobs(ctx)
	if err != nil {
		return err
	}
	defer stopJobs()
	// The control socket is ready before the first request is answered.
	stopControl, err := a.serveControl()
	if err != nil {
		return err
	}
	defer stopControl()
	errc := make(chan error, 1)
	go func() { errc <- a.server.Serve(a.ln) }()
	a.log.Info("serving", zap.String("addr", a.ln.Addr().String()), zap.String("data_dir", a.cfg.DataDir))
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := a.server.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// startSync runs the index syncer until the returned stop function is called; stop waits for it.
func (a *app) startSync() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.index.Run(ctx, a.db.Notify()); err != nil {
			a.log.Error("index syncer stopped", zap.Error(err))
		}
	}()
	return func() { cancel(); <-done }
}

func (a *app) close() error {
	err := errors.Join(a.index.Close(), a.db.Close())
	_ = a.log.Sync()
	return err
}
