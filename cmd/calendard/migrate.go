package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/task"
)

// migrate implements "calendard migrate --to-etcd": it copies the data directory's calendar.db into
// the etcd prefix of CALENDAR_ETCD_* (which must hold no store yet), as of one commit of the file, in
// transactions within the cluster's limits. The server must be stopped. A copy cut short leaves the
// prefix marked unfinished, which no node opens (storage.ErrIncomplete): delete the prefix and run it
// again.
func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	toEtcd := fs.Bool("to-etcd", false, "copy the store into the etcd cluster of CALENDAR_ETCD_ENDPOINTS (required)")
	dataDir := fs.String("data-dir", envOr(getenv, "CALENDAR_DATA_DIR", "./data"), "directory holding calendar.db (CALENDAR_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*toEtcd || fs.NArg() > 0 {
		return errors.New("usage: calendard migrate --to-etcd [--data-dir D], with CALENDAR_ETCD_ENDPOINTS (and the other CALENDAR_ETCD_* settings) naming the cluster")
	}
	cfg, err := parseConfig("migrate", []string{"--data-dir", *dataDir}, getenv, stderr)
	if err != nil {
		return err
	}
	if cfg.etcd == nil {
		return errors.New("migrate --to-etcd needs CALENDAR_ETCD_ENDPOINTS: the cluster to copy the store into")
	}
	file := filepath.Join(cfg.DataDir, storeName)
	if _, err := os.Stat(file); err != nil {
		return fmt.Errorf("no store to migrate: %w", err)
	}
	src, err := storage.Open(file, storage.Options{Logger: zap.NewNop()})
	if errors.Is(err, storage.ErrLocked) {
		return fmt.Errorf("%w: stop the server first", err)
	}
	if err != nil {
		return err
	}
	defer src.Close()
	ecfg := *cfg.etcd
	ecfg.Logger = zap.NewNop()
	dst, err := etcdkv.Open(ctx, ecfg)
	if err != nil {
		return err
	}
	defer dst.Close()
	// Within the cluster's limits, with room to spare for what a transaction adds of its own.
	limits := storage.CopyLimits{Ops: min(storage.DefaultCopyOps, ecfg.MaxTxnOps*3/4),
		Bytes: min(storage.DefaultCopyBytes, ecfg.MaxRequestBytes*2/3)}
	var copied atomic.Uint64
	start := time.Now()
	progress := func() task.Progress {
		return task.Progress{Phase: "copying keys to etcd", Done: copied.Load(), Started: start}
	}
	err = showProgress(stderr, progress, func() error {
		return src.CopyTo(ctx, dst, limits, func(n int, _ int64) { copied.Store(uint64(n)) })
	})
	if errors.Is(err, storage.ErrNotEmpty) {
		return fmt.Errorf("%w: the prefix %s holds a store already", err, ecfg.Prefix)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "copied %d keys of %s into etcd under %s in %s\n", copied.Load(), file, ecfg.Prefix, time.Since(start).Round(time.Millisecond))
	return nil
}
