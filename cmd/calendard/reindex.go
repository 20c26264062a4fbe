package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/index"
)

// reindex drops the search indexes and rebuilds them from the store. The indexes are derived data,
// so this is always safe; a server does the same at start-up when an index is missing or stale.
func reindex(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("reindex", args, getenv, stderr)
	if err != nil {
		return err
	}
	stop, err := cfg.profile()
	if err != nil {
		return err
	}
	defer stop()
	db, err := openStore(cfg, zap.NewNop())
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	dir := filepath.Join(cfg.DataDir, "index")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	var loading index.Loading
	var ix *index.Index
	err = showProgress(stderr, loading.Progress, func() (err error) {
		ix, err = index.Open(ctx, dir, db, index.Options{Loading: &loading})
		return err
	})
	if err != nil {
		return err
	}
	// The checkpoint saves the projections beside the new indexes: the next start reads them instead
	// of scanning the store again.
	if _, err := ix.Checkpoint(ctx); err != nil {
		ix.Close()
		return err
	}
	if err := ix.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rebuilt the indexes of %s in %s\n", cfg.DataDir, time.Since(start).Round(time.Millisecond))
	return nil
}
