package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap/zaptest"
)

// serveDir runs the real serve loop (HTTP, syncer, control socket) on dir with a frozen clock and a
// fixed origin, so two servers answer byte for byte alike, and returns once it is ready; stop is
// idempotent and also runs at cleanup.
func serveDir(t *testing.T, dir string) (base string, stop func()) {
	t.Helper()
	s := serveLoop(t, dir, nil)
	s.ready(t)
	return s.base, s.stop
}

// loop is the real serve loop of one test, running on a bound listener.
type loop struct {
	app  *app
	base string
	// done receives serve's result; stop cancels serve, checks that result and closes the app.
	done chan error
	stop func()
}

// serveLoop opens the app on dir with the settings env ("NAME=value") added, lets prepare adjust it
// when set, and starts serve in the background; it returns as soon as the listener is bound, before
// anything is loaded.
func serveLoop(t *testing.T, dir string, prepare func(*app), env ...string) *loop {
	t.Helper()
	vars := map[string]string{"CALENDAR_DATA_DIR": dir, "CALENDAR_LISTEN_ADDR": "127.0.0.1:0", "CALENDAR_ADMIN_APP_PASSWORD": adminPass,
		"CALENDAR_NOW": testNow, "CALENDAR_BASE_URL": testOrigin}
	cfg, err := parseConfig("serve", nil, lookup(vars, append(backendEnv(t, dir, env), env...)...), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := open(context.Background(), cfg, zaptest.NewLogger(t), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(a)
	}
	if err := a.listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &loop{app: a, base: "http://" + a.ln.Addr().String(), done: make(chan error, 1)}
	go func() { l.done <- a.serve(ctx) }()
	var once sync.Once
	l.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-l.done; err != nil {
				t.Error(err)
			}
			a.close()
		})
	}
	t.Cleanup(l.stop)
	return l
}

// ready returns once the server is ready, not only alive: it answers rest_not_ready until its index
// is loaded.
func (l *loop) ready(t *testing.T) {
	t.Helper()
	for {
		res, err := http.Get(l.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-l.done:
			t.Fatalf("serve stopped: %v", err)
		default:
		}
	}
}

func httpDo(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, _ := http.NewRequest(method, url, rd)
	r.SetBasicAuth("admin", adminPass)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, data
}

// collection reads every page of a list route and returns its items in order.
func collection(t *testing.T, base, name string) []map[string]any {
	t.Helper()
	var items []map[string]any
	for page, pages := 1, 1; page <= pages; page++ {
		code, body := httpDo(t, "GET", fmt.Sprintf("%s/calendar/events/v1/%s?per_page=100&page=%d", base, name, page), "")
		if code != 200 {
			t.Fatalf("%s page %d: %d %s", name, page, code, body)
		}
		var list map[string]any
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatal(err)
		}
		if n, ok := list["total_pages"].(float64); ok {
			pages = int(n)
		}
		for _, it := range list[name].([]any) {
			items = append(items, it.(map[string]any))
		}
	}
	return items
}

func idOf(item map[string]any) uint64 { return uint64(item["id"].(float64)) }

func TestBackupUnderLoadAndRestore(t *testing.T) {
	dir := t.TempDir()
	base, _ := serveDir(t, dir)
	for i := range 5 {
		body := fmt.Sprintf(`{"title":"Before %d","start_date":"2027-01-%02d 20:00:00","end_date":"2027-01-%02d 22:00:00",
			"venue":{"venue":"Hall before %d","city":"Paris"},"organizer":[{"organizer":"Org before %d"}],"categories":"Cat before %d","tags":"tag-before-%d"}`,
			i, i+1, i+1, i, i, i, i)
		if code, res := httpDo(t, "POST", base+"/calendar/events/v1/events", body); code != 201 {
			t.Fatalf("seed: %d %s", code, res)
		}
	}

	// A concurrent write load; every writer creates a bounded number of events, each with its own venue,
	// organizer and terms, so a record in the backup is never changed by a later write.
	const writers, perWriter = 4, 12
	var (
		mu     sync.Mutex
		acked  []uint64
		wg     sync.WaitGroup
		enough = make(chan struct{})
	)
	var enoughOnce sync.Once
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				body := fmt.Sprintf(`{"title":"Load %d-%d","start_date":"2027-02-%02d 19:00:00","end_date":"2027-02-%02d 21:00:00",
					"venue":{"venue":"Hall %d-%d"},"organizer":[{"organizer":"Org %d-%d"}],"categories":"Cat %d-%d","tags":"tag-%d-%d"}`,
					w, i, i+1, i+1, w, i, w, i, w, i, w, i)
				code, res := httpDo(t, "POST", base+"/calendar/events/v1/events", body)
				if code != 201 {
					t.Errorf("load: %d %s", code, res)
					return
				}
				var ev struct{ ID uint64 }
				json.Unmarshal(res, &ev)
				mu.Lock()
				acked = append(acked, ev.ID)
				if len(acked) >= writers*perWriter/4 {
					enoughOnce.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		})
	}
	<-enough
	mu.Lock()
	ackedBefore := append([]uint64(nil), acked...)
	mu.Unlock()
	file := filepath.Join(t.TempDir(), "calendar.backup")
	// The server holds the store's lock: this can only succeed through the control socket.
	out, err := runCmd(t, dir, "backup", "--to", file)
	if err != nil || !strings.Contains(out, "wrote a backup") {
		t.Fatalf("backup: %v %q", err, out)
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	if _, err := runCmd(t, dir, "restore", "--from", file); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("restore over a running server: %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "restored")
	keepOnFile(t, fresh) // a backup restores into an embedded data directory, whatever the original's mode
	if out, err := runCmd(t, fresh, "restore", "--from", file); err != nil || !strings.Contains(out, "restored") {
		t.Fatalf("restore: %v %q", err, out)
	}
	restored, _ := serveDir(t, fresh)
	if _, err := runCmd(t, fresh, "restore", "--from", file); err == nil {
		t.Fatal("restore accepted while a server runs on the directory")
	}
	for _, b := range []string{base, restored} {
		for {
			code, body := httpDo(t, "GET", b+"/readyz", "")
			if code == 200 {
				break
			}
			if code != 503 {
				t.Fatalf("readyz: %d %s", code, body)
			}
		}
	}

	// Every acknowledged write before the backup started is in it, and the restored server answers
	// exactly as the original does for every record the backup holds.
	for _, name := range []string{"events", "venues", "organizers", "categories", "tags"} {
		orig, got := collection(t, base, name), collection(t, restored, name)
		in := map[uint64]bool{}
		for _, it := range got {
			in[idOf(it)] = true
		}
		if name == "events" {
			for _, id := range ackedBefore {
				if !in[id] {
					t.Errorf("event %d was acknowledged before the backup but is not in it", id)
				}
			}
			if len(got) < 5+len(ackedBefore) || len(got) > len(orig) {
				t.Errorf("restored %d events; %d before the backup, %d now", len(got), 5+len(ackedBefore), len(orig))
			}
		}
		var want []map[string]any
		for _, it := range orig {
			if in[idOf(it)] {
				want = append(want, it)
			}
		}
		if len(want) != len(got) {
			t.Errorf("%s: the restored server has %d records the original does not", name, len(got)-len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: lists differ\nrestored: %v\noriginal: %v", name, got, want)
		}
		for i, it := range got {
			if name != "events" && i%3 != 0 {
				continue // a sample of the single routes of the other kinds, every event
			}
			path := fmt.Sprintf("/calendar/events/v1/%s/%d", name, idOf(it))
			c1, b1 := httpDo(t, "GET", base+path, "")
			c2, b2 := httpDo(t, "GET", restored+path, "")
			if c1 != 200 || c1 != c2 || string(b1) != string(b2) {
				t.Errorf("GET %s: original %d, restored %d\n%s\n%s", path, c1, c2, b1, b2)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(fresh, "calendar.db"+beforeRestoreSuffix)); !os.IsNotExist(err) {
		t.Errorf("a fresh directory got a before-restore file: %v", err)
	}
}

func TestRestoreIntoStoppedDirectory(t *testing.T) {
	dir := t.TempDir()
	s := startServerIn(t, dir, fileEnv) // a restore installs a file into a data directory
	kept := s.create("/calendar/events/v1/categories", map[string]any{"name": "Kept"})
	s.stop()
	file := filepath.Join(t.TempDir(), "b.db")
	// No server runs: the command opens the store itself.
	if out, err := runCmd(t, dir, "backup", "--to", file); err != nil || !strings.Contains(out, "wrote") {
		t.Fatalf("offline backup: %v %q", err, out)
	}
	s = startServerIn(t, dir)
	dropped := s.create("/calendar/events/v1/categories", map[string]any{"name": "Dropped"})
	s.stop()

	junk := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not a store ", 1000)), 0o600)
	if _, err := runCmd(t, dir, "restore", "--from", junk); err == nil {
		t.Fatal("restored a file that is not a store")
	}
	if out, err := runCmd(t, dir, "restore", "--from", file); err != nil || !strings.Contains(out, "before-restore") {
		t.Fatalf("restore: %v %q", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "index")); !os.IsNotExist(err) {
		t.Errorf("the index directory survived the restore: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "calendar.db.before-restore")); err != nil {
		t.Errorf("the previous store was not kept: %v", err)
	}
	if _, err := runCmd(t, dir, "restore", "--from", file); err == nil {
		t.Error("a second restore overwrote calendar.db.before-restore")
	}
	s = startServerIn(t, dir)
	if res := s.do(req{method: "GET", path: "/calendar/events/v1/categories/" + utoa(kept)}); res.status != 200 || !strings.Contains(string(res.body), "Kept") {
		t.Errorf("a record of the backup after restore: %d %s", res.status, res.body)
	}
	if res := s.do(req{method: "GET", path: "/calendar/events/v1/categories/" + utoa(dropped)}); res.status != 400 || !strings.Contains(string(res.body), "does not exist") {
		t.Errorf("a record written after the backup survived the restore: %d %s", res.status, res.body)
	}
	if res := s.do(req{method: "GET", path: "/readyz"}); res.status != 200 {
		t.Errorf("readyz after restore: %d %s", res.status, res.body)
	}
}

// TestRestoreRefusesInClusterMode: with the CALENDAR_ETCD_* settings the records are in etcd, where
// a restore into the data directory would never show; the command says so and installs nothing.
func TestRestoreRefusesInClusterMode(t *testing.T) {
	dir := t.TempDir()
	s := startServerIn(t, dir, fileEnv) // a backup of the embedded mode, taken of its file
	s.create("/calendar/events/v1/categories", map[string]any{"name": "Kept"})
	s.stop()
	file := filepath.Join(t.TempDir(), "b.db")
	if _, err := runCmd(t, dir, "backup", "--to", file); err != nil {
		t.Fatal(err)
	}
	node := t.TempDir()
	getenv := lookup(map[string]string{"CALENDAR_DATA_DIR": node}, "CALENDAR_ETCD_ENDPOINTS=http://127.0.0.1:2379")
	err := run(context.Background(), []string{"restore", "--from", file}, getenv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "migrate --to-etcd") {
		t.Errorf("restore in cluster mode: %v, want a refusal that names migrate --to-etcd", err)
	}
	if _, err := os.Stat(filepath.Join(node, storeName)); !os.IsNotExist(err) {
		t.Errorf("restore in cluster mode installed %s: %v", storeName, err)
	}
}

// progressLineRE is a line of a copy's progress on a log: done of total, rate, time left.
var progressLineRE = regexp.MustCompile(`^(backing up|restoring): [0-9.]+ [kMG]?B of ([0-9.]+ [kMG]?B), [0-9.]+ [kMG]?B/s, [0-9]+s left$`)

// TestBackupAndRestoreShowProgress: backup (by this process and through a running server) and restore
// write their progress as lines when stderr is no terminal, here every microsecond, so that even a
// copy of a small store is long: whether lines show meanwhile depends on the machine's speed, but the
// last line always gives the final figures.
func TestBackupAndRestoreShowProgress(t *testing.T) {
	dir, fresh := t.TempDir(), filepath.Join(t.TempDir(), "restored")
	// The progress is the file's bytes: a cluster backup has none to show (README, cluster mode).
	keepOnFile(t, dir)
	keepOnFile(t, fresh)
	if _, err := runCmd(t, dir, "seed", "--events", "300"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "b.db")
	wroteRE := regexp.MustCompile(`wrote a backup of ([0-9]+) bytes`)
	// checkLines checks that stderr is lines of phase's progress of total, then its final figures.
	checkLines := func(what, stderr, phase, total, done string) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		last := lines[len(lines)-1]
		if want := phase + ": done, " + done + " in "; !strings.HasPrefix(last, want) {
			t.Errorf("%s: last line %q, want it to start with %q", what, last, want)
		}
		for _, l := range lines[:len(lines)-1] {
			if m := progressLineRE.FindStringSubmatch(l); m == nil || m[1] != phase || m[2] != total {
				t.Errorf("%s: line %q, want %s's progress of %s", what, l, phase, total)
			}
		}
	}
	backup := func(what, dataDir string) {
		t.Helper()
		info, err := os.Stat(filepath.Join(dataDir, storeName))
		if err != nil {
			t.Fatal(err)
		}
		out, stderr, err := runCmdStderr(t, dataDir, "backup", "--to", file, "--progress-every", "1us")
		m := wroteRE.FindStringSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("%s: %v %q", what, err, out)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		checkLines(what, stderr, "backing up", formatBytes(info.Size()), formatBytes(n))
	}

	backup("backup", dir)
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmdStderr(t, fresh, "restore", "--from", file, "--progress-every", "1us")
	if err != nil || !strings.Contains(out, "restored") {
		t.Fatalf("restore: %v %q", err, out)
	}
	checkLines("restore", stderr, "restoring", formatBytes(info.Size()), formatBytes(info.Size()))
	// The server writes the backup and reports its figures over the control socket.
	serveDir(t, fresh)
	backup("backup through the server", fresh)

	for _, args := range [][]string{{"backup", "--to", file, "--progress-every", "0s"}, {"restore", "--from", file, "--progress-every", "-1s"}} {
		if _, err := runCmd(t, t.TempDir(), args...); err == nil || !strings.Contains(err.Error(), "must be positive") {
			t.Errorf("%v: %v, want a refusal", args, err)
		}
	}
}

func formatBytes(n int64) string { return byteCount.format(float64(n)) }
