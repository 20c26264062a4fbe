package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/boltkv"
)

// Backup writes a consistent copy of the whole store to w from one read transaction, so writers go on
// while it runs and the copy is the store as of one commit. It returns the number of bytes written.
// A long backup holds its read transaction open, which delays the reuse of freed pages (the file may
// grow meanwhile); cancelling ctx aborts it.
//
// The backend copies itself (kv.Backuper: a bbolt file copies its pages), so Backup returns
// ErrNotFile on a store that cannot (OpenStore on etcd).
func (db *DB) Backup(ctx context.Context, w io.Writer) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("storage: backup: %w", err)
	}
	b, ok := db.base.(kv.Backuper)
	if !ok {
		return 0, fmt.Errorf("storage: backup: %w", ErrNotFile)
	}
	n, err := b.Backup(ctx, w)
	if err != nil {
		return n, fmt.Errorf("storage: backup: %w", err)
	}
	return n, nil
}

// BackupFile writes a consistent copy of the store to path (see Backup). The copy goes to a temporary
// file in the same directory, is synced, and is then renamed to path, so path never names a partial
// copy: it holds either its previous content or the complete backup. written, when not nil, is told
// of the bytes as they are written, for the backup command's progress.
//
// A store on another backend (etcd, OpenStore) is copied into a new bbolt file as of one revision
// (CopyTo), so that a backup restores into either mode; written is then told of the keys' and
// values' bytes after each of the copy's transactions.
func (db *DB) BackupFile(ctx context.Context, path string, written func(n int)) (int64, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("storage: backup: %w", err)
	}
	tmp := f.Name()
	n, err := db.fillBackup(ctx, f, written)
	if err != nil {
		os.Remove(tmp)
		return n, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return n, fmt.Errorf("storage: backup: %w", err)
	}
	return n, SyncDir(dir)
}

// A backup of a store on another backend is written to its file in transactions this large: one sync
// per 16 MiB, and no more of the store in memory at once.
const (
	backupCopyOps   = 100_000
	backupCopyBytes = 16 << 20
)

// fillBackup writes the backup into f, a new temporary file, and syncs and closes it.
func (db *DB) fillBackup(ctx context.Context, f *os.File, written func(n int)) (int64, error) {
	if written == nil {
		written = func(int) {}
	}
	if _, ok := db.base.(kv.Backuper); !ok {
		f.Close()
		file, err := boltkv.Open(f.Name(), boltkv.Options{})
		if err != nil {
			return 0, fmt.Errorf("storage: backup: %w", err)
		}
		var told int64
		err = db.CopyTo(ctx, file, CopyLimits{Ops: backupCopyOps, Bytes: backupCopyBytes}, func(_ int, copied int64) {
			written(int(copied - told))
			told = copied
		})
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, fmt.Errorf("storage: backup: %w", err)
		}
		info, err := os.Stat(f.Name())
		if err != nil {
			return 0, fmt.Errorf("storage: backup: %w", err)
		}
		return info.Size(), nil
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return 0, fmt.Errorf("storage: backup: %w", err)
	}
	n, err := db.Backup(ctx, reportingWriter{f, written})
	if err != nil {
		return n, err
	}
	if err := f.Sync(); err != nil {
		return n, fmt.Errorf("storage: backup: %w", err)
	}
	return n, nil
}

// SyncDir fsyncs a directory, making a rename in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("storage: sync %s: %w", dir, err)
	}
	return nil
}

// ErrNotAStore is returned by Inspect for a file that is not a calendard store.
var ErrNotAStore = errors.New("storage: not a calendard store")

// Inspect opens the store file at path read-only, without changing it, and checks that it is a store
// of this calendard: a bbolt file with the meta bucket and a schema version this build reads. It
// returns the schema version. A file another process holds open for writing gives ErrLocked after
// lockTimeout; a file of another kind gives ErrNotAStore.
func Inspect(path string, lockTimeout time.Duration) (schema uint64, err error) {
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("storage: inspect: %w", err)
	}
	file, err := boltkv.Open(path, boltkv.Options{ReadOnly: true, Timeout: lockTimeout})
	if errors.Is(err, kv.ErrLocked) {
		return 0, fmt.Errorf("%w: %s", ErrLocked, path)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrNotAStore, path, err)
	}
	defer file.Close()
	buckets, err := file.Buckets()
	if err != nil {
		return 0, err
	}
	if !slices.Contains(buckets, string(bMeta)) {
		return 0, fmt.Errorf("%w: %s has no meta bucket", ErrNotAStore, path)
	}
	err = file.View(context.Background(), func(tx kv.Tx) error {
		v := tx.Get(bMeta, kSchema)
		if len(v) != 8 {
			return fmt.Errorf("%w: %s has no schema version", ErrNotAStore, path)
		}
		schema = binary.BigEndian.Uint64(v)
		if schema == 0 || schema > schemaVersion {
			return fmt.Errorf("%w: %s has schema %d, this calendard reads up to %d", ErrNotAStore, path, schema, schemaVersion)
		}
		return nil
	})
	if err != nil {
		return schema, err
	}
	for _, b := range [][]byte{bEvents, bVenues, bOrganizers, bCategories, bTags, bOutbox, bUsers} {
		if !slices.Contains(buckets, string(b)) {
			return schema, fmt.Errorf("%w: %s has no %s bucket", ErrNotAStore, path, b)
		}
	}
	return schema, nil
}

// reportingWriter tells written of every write to w.
type reportingWriter struct {
	w       io.Writer
	written func(n int)
}

func (r reportingWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	r.written(n)
	return n, err
}
