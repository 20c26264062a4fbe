package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
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

// TestUserListOverTheSocketHasNoSizeLimit lists more users than the 64 KiB the socket's reply used to
// be cut at, through a running server.
func TestUserListOverTheSocketHasNoSizeLimit(t *testing.T) {
	dir := t.TempDir()
	db := openDirStore(t, "serve", func(k string) string { return map[string]string{"CALENDAR_DATA_DIR": dir}[k] })
	// Long display names make each line of the list about 450 bytes.
	const users = 200
	for i := range users {
		login := "user" + strconv.Itoa(i)
		u := storage.User{Login: login, Email: login + "@example.org", Role: storage.RoleSubscriber,
			DisplayName: login + " " + strings.Repeat("x", 400)}
		if _, err := db.CreateUser(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	serveForReal(t, dir)
	out, err := runCmd(t, dir, "user", "list")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) <= 64<<10 {
		t.Fatalf("the list is %d bytes: too short to test the limit", len(out))
	}
	for i := range users {
		if email := "user" + strconv.Itoa(i) + "@example.org"; !strings.Contains(out, " "+email+" ") {
			t.Errorf("%s is missing from the list", email)
		}
	}
}

// TestReadReply reads replies as the server frames them, and ones a dying server cuts short.
func TestReadReply(t *testing.T) {
	frames := func(parts ...any) string {
		var b bytes.Buffer
		for i := 0; i < len(parts); i += 2 {
			if err := writeFrame(&b, parts[i].(byte), []byte(parts[i+1].(string))); err != nil {
				t.Fatal(err)
			}
		}
		return b.String()
	}
	big := strings.Repeat("0123456789abcdef", 10000)
	var bigReply bytes.Buffer
	if err := writeFrames(&bigReply, frameOutput, []byte(big)); err != nil {
		t.Fatal(err)
	}
	bigReply.WriteString(frames(byte(frameEnd), ""))
	progress := func(done, total uint64) string {
		var p [16]byte
		binary.BigEndian.PutUint64(p[:8], done)
		binary.BigEndian.PutUint64(p[8:], total)
		return string(p[:])
	}
	tests := []struct {
		name, reply, wantOut, wantErr string
		wantProgress                  []uint64 // done, total of each progress frame
	}{
		{"output", frames(byte(frameOutput), "a\n", byte(frameOutput), "b\n", byte(frameEnd), ""), "a\nb\n", "", nil},
		{"output larger than a frame", bigReply.String(), big, "", nil},
		{"error", frames(byte(frameOutput), "partial", byte(frameError), "login ", byte(frameError), "is taken", byte(frameEnd), ""), "partial", "login is taken", nil},
		{"empty", frames(byte(frameEnd), ""), "", "", nil},
		{"no end frame", frames(byte(frameOutput), "a"), "a", "cut short", nil},
		{"cut inside a frame", frames(byte(frameOutput), "abc")[:6], "a", "control socket", nil},
		{"nothing", "", "", "cut short", nil},
		{"frame too large", "o\xff\xff\xff\xff", "", "a frame of", nil},
		{"unknown kind", frames(byte('{'), ""), "", "unknown frame kind", nil},
		{"progress", frames(byte(frameProgress), progress(0, 100), byte(frameProgress), progress(60, 100), byte(frameOutput), "wrote", byte(frameEnd), ""),
			"wrote", "", []uint64{0, 100, 60, 100}},
		{"progress frame of another size", frames(byte(frameProgress), "12345678"), "", "a progress frame of 8 bytes", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var gotProgress []uint64
			err := readReply(strings.NewReader(tc.reply), &out, func(done, total uint64) { gotProgress = append(gotProgress, done, total) })
			if !slices.Equal(gotProgress, tc.wantProgress) {
				t.Errorf("progress %v, want %v", gotProgress, tc.wantProgress)
			}
			if out.String() != tc.wantOut {
				t.Errorf("output %q, want %q", out.String(), tc.wantOut)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
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
	keepOnFile(t, dir) // the lock is the file's
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
