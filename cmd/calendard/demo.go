package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// demoSeed is the generator seed of the demo calendar: every fresh make run shows the same events
// (dated relative to the store's clock).
const demoSeed = 1

// seedDemo writes cfg.DemoEvents generated events when that is above zero and the store holds no
// event yet; open calls it before the index opens, so that the index is built over the demo data.
//
// The setting is off by default and make run turns it on: a production data directory must never get
// demo data by accident, while a fresh clone should show a populated calendar at once. Checking for
// existing events makes it a first-run-only action: a restart, or a store with real records, is left
// alone.
func (a *app) seedDemo(ctx context.Context, stderr io.Writer) error {
	if a.cfg.DemoEvents <= 0 {
		return nil
	}
	page, err := a.db.Scan(ctx, storage.TypeEvent, 0, 1)
	if err != nil {
		return fmt.Errorf("demo data: %w", err)
	}
	if len(page.Events) > 0 {
		a.log.Info("demo data skipped: the store already holds events")
		return nil
	}
	began := time.Now()
	sum, err := seedStore(ctx, a, a.cfg.DemoEvents, demoSeed, stderr, nil)
	if err != nil {
		return fmt.Errorf("demo data: %w", err)
	}
	// As after calendard seed: rebuilding the derived index from the store in bulk is much faster than
	// replaying a change log this long entry by entry, and deleting the index is always safe.
	if err := os.RemoveAll(filepath.Join(a.cfg.DataDir, "index")); err != nil {
		return fmt.Errorf("demo data: remove the index: %w", err)
	}
	a.log.Info("seeded demo data",
		zap.Int("events", sum.events), zap.Int("venues", sum.venues), zap.Int("organizers", sum.organizers),
		zap.Int("categories", sum.categories), zap.Int("tags", sum.tags), zap.Uint64("seed", demoSeed),
		zap.Duration("duration", time.Since(began)))
	return nil
}
