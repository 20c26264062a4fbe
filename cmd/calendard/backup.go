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
// control socket (it holds the store's lock), otherwise this process opens the store. Either way its
// progress shows on stderr.
func backup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseFileCommand("backup", "to", "file to write the backup to (replaced atomically)", args, getenv, stderr)
	if err != nil {
		return err
	}
	// The server may run in another directory: send it an absolute path.
	target, err := filepath.Abs(c.file)
	if err != nil {
		return err
	}
	// The server reports the figures; until its first report there is nothing to show.
	remote := newTransfer(backupPhase, 0)
	var served bool
	err = showProgressEvery(stderr, byteCount, c.progressEvery, remote.progress, func() (err error) {
		served, err = callControl(ctx, c.dataDir, controlRequest{Cmd: "backup", Target: target}, backupTimeout, stdout, remote.set)
		return err
	})
	if served {
		return err
	}
	// No server answered: open the store, the data directory's file or, in cluster mode, the cluster.
	cfg, err := parseConfig("backup", []string{"--data-dir", c.dataDir}, getenv, stderr)
	if err != nil {
		return err
	}
	if cfg.etcd == nil {
		if _, err := os.Stat(filepath.Join(c.dataDir, storeName)); err != nil {
			return fmt.Errorf("no store to back up: %w", err)
		}
	}
	db, err := openStore(cfg, zap.NewNop())
	if err != nil {
		return err
	}
	defer db.Close()
	t, err := backupTransfer(db)
	if err != nil {
		return err
	}
	return showProgressEvery(stderr, byteCount, c.progressEvery, t.progress, func() error {
		return writeBackup(ctx, db, target, stdout, t)
	})
}

// backupPhase names a backup's progress.
const backupPhase = "backing up"

// backupTransfer follows a backup of db. The copy is the store's pages in use, so the file's size is
// what it writes at most.
func backupTransfer(db *storage.DB) (*transfer, error) {
	size, err := db.FileSize()
	if errors.Is(err, storage.ErrNotFile) {
		size, err = 0, nil // in cluster mode: copied key by key, and the total is not known ahead
	}
	if err != nil {
		return nil, err
	}
	return newTransfer(backupPhase, uint64(size)), nil
}

// fileCommand is what a command that names one file (--to or --from) was given.
type fileCommand struct {
	file, dataDir string
	// progressEvery is how often a line of progress is written when stderr is not a terminal.
	progressEvery time.Duration
}

// parseFileCommand parses the flags of a command that names one file (--to or --from), a data
// directory and how often a log shows the command's progress.
func parseFileCommand(name, fileFlag, fileUsage string, args []string, getenv func(string) string, stderr io.Writer) (fileCommand, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c fileCommand
	fs.StringVar(&c.file, fileFlag, "", fileUsage)
	fs.StringVar(&c.dataDir, "data-dir", envOr(getenv, "CALENDAR_DATA_DIR", "./data"), "directory holding all state (CALENDAR_DATA_DIR)")
	fs.DurationVar(&c.progressEvery, "progress-every", lineEvery, "how often a line of progress is written when stderr is not a terminal")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.file == "" || fs.NArg() > 0 {
		return c, fmt.Errorf("usage: calendard %s --%s FILE [--data-dir D] [--progress-every D]", name, fileFlag)
	}
	if c.progressEvery <= 0 {
		return c, fmt.Errorf("--progress-every must be positive, not %s", c.progressEvery)
	}
	return c, nil
}

// writeBackup is the backup both the CLI and the control socket run; t counts the bytes written. The
// copy goes to a temporary file in the target's directory, is synced and then renamed, so target
// never names a partial copy: it holds either its previous content or the complete backup.
func writeBackup(ctx context.Context, db *storage.DB, target string, stdout io.Writer, t *transfer) error {
	if !filepath.IsAbs(target) {
		return fmt.Errorf("backup target %q is not an absolute path", target)
	}
	start := time.Now()
	n, err := db.BackupFile(ctx, target, t.add)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(stdout, "wrote a backup of %d bytes to %s in %s\n", n, target, time.Since(start).Round(time.Millisecond))
	return nil
}

// restore installs a backup into a stopped data directory: the current store is kept beside it as
// calendar.db.before-restore and the search indexes are deleted, so the next start rebuilds them.
func restore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseFileCommand("restore", "from", "backup file to restore", args, getenv, stderr)
	if err != nil {
		return err
	}
	from, dataDir := c.file, c.dataDir
	if serverAnswers(ctx, dataDir) {
		return fmt.Errorf("a server is running on %s: stop it before restoring", dataDir)
	}
	cfg, err := parseConfig("restore", []string{"--data-dir", dataDir}, getenv, stderr)
	if err != nil {
		return err
	}
	// A node in cluster mode serves etcd's records: a file installed here would never show.
	if cfg.etcd != nil {
		return fmt.Errorf("restore installs a backup into an embedded data directory, and the CALENDAR_ETCD_* settings name a cluster: " +
			"restore into a directory without them, then copy that store into the cluster with migrate --to-etcd")
	}
	if _, err := storage.Inspect(from, time.Second); err != nil {
		return fmt.Errorf("refusing to restore %s: %w", from, err)
	}
	info, err := os.Stat(from)
	if err != nil {
		return err
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
	t := newTransfer("restoring", uint64(info.Size()))
	err = showProgressEvery(stderr, byteCount, c.progressEvery, t.progress, func() error { return copyFile(from, tmp, t) })
	if err != nil {
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

// copyFile copies src to a new file dst (owner-only), counting into t, and syncs it.
func copyFile(src, dst string, t *transfer) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(t.writer(out), in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
