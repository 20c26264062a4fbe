package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage/kv"
)

// fullDisk is a bbolt file whose writes fail as a full disk's do while full is set: the transaction
// runs, then its commit finds no room and nothing of it is kept. A write of at most room bytes of
// values still fits, as one does in the free pages of a bbolt file.
type fullDisk struct {
	kv.Store
	full atomic.Bool
	room atomic.Int64
}

func (d *fullDisk) Update(ctx context.Context, fn func(kv.RwTx) error) error {
	if !d.full.Load() {
		return d.Store.Update(ctx, fn)
	}
	return d.Store.Update(ctx, func(tx kv.RwTx) error {
		counted := &countingTx{RwTx: tx}
		if err := fn(counted); err != nil {
			return err
		}
		if counted.bytes <= d.room.Load() {
			return nil
		}
		// What fn wrote is rolled back, as a failed commit leaves nothing, with the file system's
		// error, which boltkv reports as kv.ErrNoSpace.
		return fmt.Errorf("write calendar.db: %w", &fsError{syscall.ENOSPC})
	})
}

// countingTx counts the keys a transaction puts or deletes, and the bytes of the values it puts.
type countingTx struct {
	kv.RwTx
	ops   int
	bytes int64
}

func (tx *countingTx) Put(bucket, key, value []byte) error {
	tx.ops++
	tx.bytes += int64(len(value))
	return tx.RwTx.Put(bucket, key, value)
}

func (tx *countingTx) Delete(bucket, key []byte) error {
	tx.ops++
	return tx.RwTx.Delete(bucket, key)
}

// fsError wraps an errno the way os.PathError does.
type fsError struct{ errno syscall.Errno }

func (e *fsError) Error() string { return e.errno.Error() }
func (e *fsError) Unwrap() error { return e.errno }

// TestDiskFull: a write the disk has no room for fails as ErrNoSpace with nothing kept, the episode
// is logged once when it begins and once when it ends, and the store finds out by itself that space
// is back.
func TestDiskFull(t *testing.T) {
	disk := &fullDisk{}
	core, logs := observer.New(zapcore.InfoLevel)
	db, err := Open(filepath.Join(t.TempDir(), "calendar.db"), Options{Now: func() time.Time { return testNow }, Logger: zap.New(core),
		Wrap: func(s kv.Store) kv.Store { disk.Store = s; return disk }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustCreateEvent(t, db, admin, newEvent(t, "Before"))
	head, _ := db.ChangeHead(ctx)

	disk.full.Store(true)
	disk.room.Store(64) // room for a few bytes only: the schema version rewritten as it is would fit
	for range 3 {
		if _, err := db.CreateEvent(ctx, admin, "en", newEvent(t, "Lost")); !errors.Is(err, ErrNoSpace) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("a write on a full disk: %v, want ErrNoSpace", err)
		}
	}
	for range 2 { // readiness probes between failed writes: neither ends the episode
		if !db.Full() || !errors.Is(db.CheckSpace(ctx), ErrNoSpace) {
			t.Errorf("Full %v while the disk is full", db.Full())
		}
		if _, err := db.CreateEvent(ctx, admin, "en", newEvent(t, "Lost")); !errors.Is(err, ErrNoSpace) {
			t.Fatalf("a write on a full disk after a probe: %v, want ErrNoSpace", err)
		}
	}
	if now, _ := db.ChangeHead(ctx); now != head {
		t.Errorf("failed writes moved the change log from %d to %d", head, now)
	}
	// A disk at the edge: a small write squeezes into the last free pages, a larger one does not.
	// The small one is acknowledged and kept, and the episode goes on.
	disk.room.Store(16 << 10)
	small := mustCreateEvent(t, db, admin, newEvent(t, "Small"))
	in := newEvent(t, "Large")
	in.Description = ptr(strings.Repeat("word ", 10_000))
	if _, err := db.CreateEvent(ctx, admin, "en", in); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("a 50 KB write with 16 KB of room: %v, want ErrNoSpace", err)
	}
	if !db.Full() {
		t.Errorf("a small write that fitted ended the episode")
	}
	if got := logs.FilterMessage("disk full: writes fail until space is freed").Len(); got != 1 {
		t.Errorf("the episode's start was logged %d times, want once", got)
	}
	if got := logs.FilterMessage("disk space is back: writes succeed again").Len(); got != 0 {
		t.Errorf("the episode's end was logged %d times while the disk is at the edge", got)
	}

	disk.full.Store(false)
	if err := db.CheckSpace(ctx); err != nil || db.Full() {
		t.Fatalf("once space is back: CheckSpace %v, Full %v", err, db.Full())
	}
	if got := logs.FilterMessage("disk space is back: writes succeed again").Len(); got != 1 {
		t.Errorf("the episode's end was logged %d times, want once", got)
	}
	mustCreateEvent(t, db, admin, newEvent(t, "After"))
	if _, _, err := db.Event(ctx, small.ID); err != nil {
		t.Errorf("the write acknowledged at the edge: %v", err)
	}
}
