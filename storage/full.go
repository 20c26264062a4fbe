package storage

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage/kv"
)

// A full disk is a condition, not a bug: a write that finds no room fails as ErrNoSpace, with
// nothing of it kept (a transaction commits whole or not at all), and the store remembers the
// episode until a write succeeds again. The episode is logged when it begins and when it ends, not
// once per failed write, and DB.Full lets readiness say so meanwhile.

// noteSpace turns a write's failure for want of space into ErrNoSpace and tracks the episode.
func (db *DB) noteSpace(err error) error {
	switch {
	case err == nil:
		if db.full.CompareAndSwap(true, false) {
			db.log.Info("disk space is back: writes succeed again")
		}
		return nil
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		if db.full.CompareAndSwap(false, true) {
			db.log.Error("disk full: writes fail until space is freed", zap.Error(err))
		}
		return fmt.Errorf("%w: %w", ErrNoSpace, err)
	}
	return err
}

// Full reports whether the last write failed for want of disk space. It clears by itself with the
// next write that succeeds; CheckSpace tries one.
func (db *DB) Full() bool { return db.full.Load() }

// spaceProbe is the size of CheckSpace's write: as much as an ordinary write takes (an event with its
// links and change-log entries is a few kilobytes; a series or an import's page more). A probe of a
// few bytes found room in the file's free pages while every real write failed, so readiness said
// ready, and each failed write logged the episode anew.
const spaceProbe = 256 << 10

// CheckSpace tries a write of ordinary size that changes nothing visible (a value written to meta,
// then deleted), so that a store whose disk was full finds out that space has come back without
// waiting for a client's write. It returns ErrNoSpace while the disk is still full.
func (db *DB) CheckSpace(ctx context.Context) error {
	if err := db.update(ctx, func(tx kv.RwTx) error { return tx.Put(bMeta, kSpaceProbe, make([]byte, spaceProbe)) }); err != nil {
		return err
	}
	return db.update(ctx, func(tx kv.RwTx) error { return tx.Delete(bMeta, kSpaceProbe) })
}
