package storage

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage/kv"
)

// A full disk is a condition, not a bug: a write that finds no room fails as ErrNoSpace, with
// nothing of it kept (a transaction commits whole or not at all), and the store remembers the
// episode. It begins with a write that finds no room and ends when CheckSpace finds room for a write
// of ordinary size again, which readiness runs, and so does every write that succeeds meanwhile: a
// write that squeezes into the file's last free pages does not end it, so a disk at the edge, where
// small writes pass and others fail, is one episode, logged once when it begins and once when it ends,
// and DB.Full lets readiness say so meanwhile.

// noteSpace turns a write's failure for want of space into ErrNoSpace and tracks the episode.
func (db *DB) noteSpace(ctx context.Context, err error) error {
	switch {
	case err == nil:
		if db.full.Load() {
			_ = db.CheckSpace(ctx) // ends the episode if there is room
		}
		return nil
	case errors.Is(err, kv.ErrNoSpace):
		if db.full.CompareAndSwap(false, true) {
			db.log.Error("disk full: writes fail until space is freed", zap.Error(err))
		}
		return fmt.Errorf("%w: %w", ErrNoSpace, err)
	}
	return err
}

// Full reports whether the disk was found full and has not been found to have room again since.
func (db *DB) Full() bool { return db.full.Load() }

// spaceProbe is the size of CheckSpace's write: as much as an ordinary write takes (an event with its
// links and change-log entries is a few kilobytes; a series or an import's page more). A probe of a
// few bytes found room in the file's free pages while every real write failed, so readiness said
// ready, and each failed write logged the episode anew.
const spaceProbe = 256 << 10

// CheckSpace tries a write of ordinary size that changes nothing visible (a value written to meta,
// then deleted), so that a store whose disk was full finds out that space has come back without
// waiting for a client's write, and ends the episode. It returns ErrNoSpace while the disk is full.
func (db *DB) CheckSpace(ctx context.Context) error {
	err := db.kv.Update(ctx, func(tx kv.RwTx) error { return tx.Put(bMeta, kSpaceProbe, make([]byte, spaceProbe)) })
	if err == nil {
		err = db.kv.Update(ctx, func(tx kv.RwTx) error { return tx.Delete(bMeta, kSpaceProbe) })
	}
	if err == nil && db.full.CompareAndSwap(true, false) {
		db.log.Info("disk space is back: writes succeed again")
	}
	return db.noteSpace(ctx, err)
}
