package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/kv"
)

// runCmd runs a calendard command line against dir.
func runCmd(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	out, _, err := runCmdStderr(t, dir, args...)
	return out, err
}

// runCmdStderr is runCmd that also returns what the command wrote to stderr (not a terminal).
func runCmdStderr(t *testing.T, dir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := lookup(map[string]string{"CALENDAR_DATA_DIR": dir, "CALENDAR_NOW": testNow}, backendEnv(t, dir, nil)...)
	err = run(context.Background(), args, env, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestReindex(t *testing.T) {
	s := startServer(t)
	s.create("/calendar/events/v1/events", concert())
	before := s.do(req{method: "GET", path: "/calendar/events/v1/events?search=jazz"})
	s.stop()
	if err := os.WriteFile(filepath.Join(s.dir, "index", "en.bleve", "index_meta.json"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, s.dir, "reindex")
	if err != nil || !strings.Contains(out, "rebuilt") {
		t.Fatalf("reindex: %v %q", err, out)
	}
	requireSavedProjections(t, s.dir)
	s = startServerIn(t, s.dir)
	after := s.do(req{method: "GET", path: "/calendar/events/v1/events?search=jazz"})
	if after.status != 200 || string(after.body) != string(before.body) {
		t.Fatalf("after reindex: %d\n%s\nwant\n%s", after.status, after.body, before.body)
	}
}

// requireSavedProjections fails the test unless every language's projection is saved in dir's
// index, for the next start to read instead of scanning the store.
func requireSavedProjections(t *testing.T, dir string) {
	t.Helper()
	for _, l := range storage.Langs {
		if _, err := os.Stat(filepath.Join(dir, "index", string(l)+".projection")); err != nil {
			t.Errorf("projection of %s: %v", l, err)
		}
	}
}

// TestShutdownSavesProjections: a server that stops checkpoints its index, so the next start reads
// the projections it saved, and answers as before.
func TestShutdownSavesProjections(t *testing.T) {
	s := startServer(t)
	s.create("/calendar/events/v1/events", concert())
	before := s.do(req{method: "GET", path: "/calendar/events/v1/events?search=jazz"})
	s.stop()
	requireSavedProjections(t, s.dir)
	s = startServerIn(t, s.dir)
	after := s.do(req{method: "GET", path: "/calendar/events/v1/events?search=jazz"})
	if after.status != 200 || string(after.body) != string(before.body) {
		t.Fatalf("after a restart: %d\n%s\nwant\n%s", after.status, after.body, before.body)
	}
}

// TestStopOnAFullDisk: a server whose disk is full stops without waiting on an index checkpoint it
// cannot write, and loses nothing it acknowledged: the next start replays the change log.
func TestStopOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	keepOnFile(t, dir) // the disk is the bbolt file's
	cfg, err := parseConfig("serve", nil, lookup(map[string]string{"CALENDAR_DATA_DIR": dir, "CALENDAR_NOW": testNow,
		"CALENDAR_BASE_URL": testOrigin, "CALENDAR_ADMIN_APP_PASSWORD": adminPass}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	disk := &fullDisk{}
	cfg.wrapStore = func(s kv.Store) kv.Store { disk.Store = s; return disk }
	core, logs := observer.New(zapcore.InfoLevel)
	a, err := open(context.Background(), cfg, zap.New(core), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.load(context.Background()); err != nil {
		t.Fatal(errors.Join(err, a.close()))
	}
	s := serveTestApp(t, dir, a)
	id := s.create("/calendar/events/v1/events", concert())
	disk.full.Store(true)
	if res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: concert()}); res.status != 507 {
		t.Fatalf("a write on a full disk: %d %s", res.status, res.body)
	}
	s.stop()
	if logs.FilterMessage("disk full: no index checkpoint at shutdown; the next start replays the change log").Len() != 1 ||
		logs.FilterMessage("index checkpoint at shutdown failed").Len() != 0 {
		t.Errorf("the stop on a full disk tried a checkpoint: %v", logs.All())
	}
	s = startServerIn(t, dir)
	res := s.do(req{method: "GET", path: "/calendar/events/v1/events?search=jazz&start_date=2030-01-01&end_date=2031-01-01"})
	if res.status != 200 || res.json(t)["total"] != 1.0 || !strings.Contains(string(res.body), fmt.Sprintf(`"id":%d,`, id)) {
		t.Errorf("after the restart, a search for the acknowledged event: %d %s", res.status, res.body)
	}
}

// fullDisk is a bbolt file whose writes fail as a full disk's do while full is set: nothing of them is
// kept, and the file system's error is boltkv's to report.
type fullDisk struct {
	kv.Store
	full atomic.Bool
}

func (d *fullDisk) Update(ctx context.Context, fn func(kv.RwTx) error) error {
	if d.full.Load() {
		return d.Store.Update(ctx, func(kv.RwTx) error { return &os.PathError{Op: "write", Path: "calendar.db", Err: syscall.ENOSPC} })
	}
	return d.Store.Update(ctx, fn)
}

func TestUserCommands(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCmd(t, dir, "user", "create", "--login", "ann", "--email", "ann@example.org", "--role", "editor"); err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, dir, "user", "create", "--login", "bob", "--email", "b@example.org", "--role", "king"); err == nil {
		t.Error("unknown role accepted")
	}
	pw, err := runCmd(t, dir, "app-password", "create", "--user", "ann", "--name", "laptop")
	if err != nil {
		t.Fatal(err)
	}
	pw = strings.TrimSpace(pw)
	list, err := runCmd(t, dir, "user", "list")
	if err != nil || !strings.Contains(list, "ann@example.org") || !strings.Contains(list, "editor") {
		t.Fatalf("user list: %v %q", err, list)
	}
	s := startServerIn(t, dir)
	if res := s.do(req{method: "POST", path: "/calendar/events/v1/categories", auth: "ann:" + pw, body: map[string]any{"name": "Music"}}); res.status != 201 {
		t.Fatalf("editor with the new password: %d %s", res.status, res.body)
	}
	s.stop()
	if _, err := runCmd(t, dir, "app-password", "revoke", "--user", "ann", "--name", "laptop"); err != nil {
		t.Fatal(err)
	}
	s = startServerIn(t, dir)
	if res := s.do(req{method: "GET", path: "/calendar/events/v1/categories", auth: "ann:" + pw}); res.status != 401 {
		t.Fatalf("revoked password: %d", res.status)
	}
}

// TestAdminSettings: the first administrator's settings abort start-up when malformed, but only while
// the store has no users; once users exist they are ignored (README "Users").
func TestAdminSettings(t *testing.T) {
	openWith := func(dir string, vars map[string]string) error {
		vars["CALENDAR_DATA_DIR"] = dir
		getenv := overlay(func(k string) string { return vars[k] }, backendEnv(t, dir, nil))
		cfg, err := parseConfig("serve", nil, getenv, io.Discard)
		if err != nil {
			return err
		}
		a, err := open(context.Background(), cfg, zap.NewNop(), io.Discard)
		if err != nil {
			return err
		}
		return a.close()
	}
	malformed := []map[string]string{
		{"CALENDAR_ADMIN_APP_PASSWORD": "short"},
		{"CALENDAR_ADMIN_EMAIL": "notanemail"},
		{"CALENDAR_ADMIN_EMAIL": "admin @example.org"},
		{"CALENDAR_ADMIN_LOGIN": "ad:min"},
	}
	for _, vars := range malformed {
		if err := openWith(t.TempDir(), vars); err == nil {
			t.Errorf("%v on an empty store: started", vars)
		}
	}
	dir := t.TempDir()
	if err := openWith(dir, map[string]string{"CALENDAR_ADMIN_APP_PASSWORD": "short"}); err == nil {
		t.Fatal("short password on an empty store: started")
	}
	// The refused start created no user, so the next start still bootstraps.
	if err := openWith(dir, map[string]string{"CALENDAR_ADMIN_APP_PASSWORD": adminPass}); err != nil {
		t.Fatal(err)
	}
	if list, err := runCmd(t, dir, "user", "list"); err != nil || !strings.Contains(list, "admin@localhost") {
		t.Fatalf("user list after bootstrap: %v %q", err, list)
	}
	for _, vars := range malformed {
		if err := openWith(dir, vars); err != nil {
			t.Errorf("%v with users in the store: %v", vars, err)
		}
	}
}
