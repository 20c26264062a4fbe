package main

import (
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

// serveForReal runs the app's own serve loop (HTTP server, syncer, control socket) on a free port.
func serveForReal(t *testing.T, dir string) (baseURL string) {
	t.Helper()
	base, _ := serveDir(t, dir)
	return base
}

func getWith(t *testing.T, url, auth string) int {
	t.Helper()
	r, _ := http.NewRequest("GET", url, nil)
	r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(auth)))
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestOperatorCommandsOnARunningServer(t *testing.T) {
	dir := t.TempDir()
	base := serveForReal(t, dir)
	if info, err := os.Stat(socketPath(dir)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v %v", info.Mode(), err)
	}
	// The server holds the store's lock, so these can only succeed through the socket.
	if out, err := runCmd(t, dir, "user", "create", "--login", "ann", "--email", "ann@example.org", "--role", "editor"); err != nil || !strings.Contains(out, "created user") {
		t.Fatalf("user create: %v %q", err, out)
	}
	if _, err := runCmd(t, dir, "user", "create", "--login", "ann", "--email", "x@example.org", "--role", "editor"); err == nil {
		t.Error("a duplicate login was accepted through the socket")
	}
	pw, err := runCmd(t, dir, "app-password", "create", "--user", "ann", "--name", "laptop")
	if err != nil {
		t.Fatal(err)
	}
	pw = strings.TrimSpace(pw)
	if code := getWith(t, base+"/calendar/events/v1/categories", "ann:"+pw); code != 200 {
		t.Fatalf("new password on the live server: %d", code)
	}
	if list, err := runCmd(t, dir, "user", "list"); err != nil || !strings.Contains(list, "ann@example.org") {
		t.Fatalf("user list: %v %q", err, list)
	}
	if _, err := runCmd(t, dir, "app-password", "revoke", "--user", "ann", "--name", "laptop"); err != nil {
		t.Fatal(err)
	}
	if code := getWith(t, base+"/calendar/events/v1/categories", "ann:"+pw); code != 401 {
		t.Fatalf("revoked password on the live server: %d", code)
	}
}

func TestStaleSocketIsIgnored(t *testing.T) {
	dir := t.TempDir()
	// A crashed server leaves its socket file behind; nothing listens on it.
	if err := os.WriteFile(filepath.Join(dir, socketName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, dir, "user", "create", "--login", "bo", "--email", "bo@example.org", "--role", "author"); err != nil {
		t.Fatalf("with a stale socket: %v", err)
	}
	serveForReal(t, dir) // and a new server replaces it
	if list, err := runCmd(t, dir, "user", "list"); err != nil || !strings.Contains(list, "bo@example.org") {
		t.Fatalf("user list: %v %q", err, list)
	}
}

func TestSecondOpenerFailsFast(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseConfig("serve", []string{"--data-dir", dir}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openStore(cfg, zaptest.NewLogger(t)) // another process's open store, without a socket
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = runCmd(t, dir, "user", "list")
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("got %v, want a clear 'locked' error", err)
	}
}
