package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

const (
	storeName = "calendar.db"
	// backupTimeout bounds a backup the server writes for the control socket.
	backupTimeout = 30 * time.Minute
	// beforeRestoreSuffix names the store a restore moved aside.
	beforeRestoreSuffix = ".before-restore"
)

// backup writes a consistent copy of the store to --to: the running server writes it through the
// control socket (it holds the store's lock), otherwise this process opens the store.
func backup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	to, dataDir, err := parseFileCommand("backup", "to", "file to write the backup to (replaced atomically)", args, getenv, stderr)
	if err != nil {
		return err
	}
	// The server may run in another directory: send it an absolute path.
	target, err := filepath.Abs(to)
	if err != nil {
		return err
	}
	if served, err := callControl(ctx, dataDir, controlRequest{Cmd: "backup", Target: target}, stdout); served {
		return err
	}
	store := filepath.Join(dataDir, storeName)
	if _, err := os.Stat(store); err != nil {
		return fmt.Errorf("no store to back up: %w", err)
	}
	db, err := storage.Open(store, storage.Options{Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer db.Close()
	return writeBackup(ctx, db, target, stdout)
}

// parseFileCommand parses the flags of a command that names one file (--to or --from) and a data
// directory, and returns both.
func parseFileCommand(name, fileFlag, fileUsage string, args []string, getenv func(string) string, stderr io.Writer) (file, dataDir string, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := fs.String(fileFlag, "", fileUsage)
	dir := fs.String("data-dir", envOr(getenv, "CALENDAR_DATA_DIR", "./data"), "directory holding all state (CALENDAR_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return "", "", err
	}
	if *f == "" || fs.NArg() > 0 {
		return "", "", fmt.Errorf("usage: calendard %s --%s FILE [--data-dir D]", name, fileFlag)
	}
	return *f, *dir, nil
}

// writeBackup is the backup both the CLI and the control socket run.
func writeBackup(ctx context.Context, db *storage.DB, target string, stdout io.Writer) error {
	if !filepath.IsAbs(target) {
		return fmt.Errorf("backup target %q is not an absolute path", target)
	}
	start := time.Now()
	n, err := db.BackupFile(ctx, target)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote a backup of %d bytes to %s in %s\n", n, target, time.Since(start).Round(time.Millisecond))
	return nil
}

// restore installs a backup into a stopped data directory: the current store is kept beside it as
// calendar.db.before-restore and the search indexes are deleted, so the next start rebuilds them.
func restore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	from, dataDir, err := parseFileCommand("restore", "from", "backup file to restore", args, getenv, stderr)
	if err != nil {
		return err
	}
	if serverAnswers(ctx, dataDir) {
		return fmt.Errorf("a server is running on %s: stop it before restoring", dataDir)
	}
	if _, err := storage.Inspect(from, time.Second); err != nil {
		return fmt.Errorf("refusing to restore %s: %w", from, err)
	}
	store := filepath.Join(dataDir, storeName)
	aside := store + beforeRestoreSuffix
	_, err = os.Stat(store)
	hasStore := err == nil
	if hasStore {
		// A running server holds the store's lock even when its socket is gone.
		if _, err := storage.Inspect(store, time.Second); errors.Is(err, storage.ErrLocked) {
			return fmt.Errorf("a server is running on %s: stop it before restoring", dataDir)
		}
		if _, err := os.Stat(aside); err == nil {
			return fmt.Errorf("%s exists from an earlier restore: move it away first", aside)
		}
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	tmp := store + ".restoring"
	if err := copyFile(from, tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if hasStore {
		if err := os.Rename(store, aside); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, store); err != nil {
		return err
	}
	if err := storage.SyncDir(dataDir); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(dataDir, "index")); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s into %s; the search indexes rebuild on the next start\n", from, store)
	if hasStore {
		fmt.Fprintf(stdout, "the previous store is kept as %s\n", aside)
	}
	return nil
}

// serverAnswers reports whether a server listens on the data directory's control socket.
func serverAnswers(ctx context.Context, dataDir string) bool {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	conn, err := d.DialContext(dctx, "unix", socketPath(dataDir))
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// copyFile copies src to a new file dst (owner-only) and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
