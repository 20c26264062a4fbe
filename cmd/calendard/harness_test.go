package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// backend is the store the servers of the end-to-end tests keep their records in: the bbolt file, or
// etcd (cluster mode, on the package's embedded member), so that both can be shown to answer the same
// requests the same. A test that gives its server etcd settings of its own keeps them.
var backend = flag.String("backend", "bbolt", "the store of the servers tests start: bbolt or etcd")

const (
	testOrigin   = "http://cal.test"
	testNow      = "2026-11-22T10:15:30Z"
	adminPass    = "AdminPassword0123456789a"
	adminAuth    = "admin:" + adminPass
	defaultFlags = ""
)

// server is a running calendard for one test: the real app on a temp data dir, behind httptest.
type server struct {
	t        testing.TB
	app      *app
	ts       *httptest.Server
	dir      string
	stopSync func()
}

// dirBackends holds, per data directory, the etcd settings of its servers and commands with
// -backend=etcd: a server started again on a directory, or a command run on it, finds its records.
var dirBackends sync.Map

// fileEnv, among a server's settings, keeps its data directory's records in the bbolt file under
// -backend=etcd too, for a test about the file itself (its bytes, its lock, its crash safety, a
// restore into it): backendEnv records the choice, so the commands run on the directory use the file.
const fileEnv = "CALENDAR_ETCD_ENDPOINTS="

// keepOnFile is fileEnv for a data directory on which a test runs commands before any server.
func keepOnFile(t testing.TB, dir string) {
	backendEnv(t, dir, []string{fileEnv})
}

// backendEnv returns the etcd settings of the store of data directory dir under -backend=etcd, none
// otherwise; env, a server's own settings, decides when it names etcd endpoints or has fileEnv.
func backendEnv(t testing.TB, dir string, env []string) []string {
	if *backend != "etcd" {
		return nil
	}
	if slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "CALENDAR_ETCD_ENDPOINTS=") }) {
		dirBackends.LoadOrStore(dir, slices.DeleteFunc(slices.Clone(env), func(e string) bool { return !strings.HasPrefix(e, "CALENDAR_ETCD_") }))
		return nil
	}
	// The member's limits, as a production cluster raised for series and bulk writes (CLUSTER.md).
	settings, _ := dirBackends.LoadOrStore(dir, append(clusterEnv(t),
		"CALENDAR_ETCD_MAX_TXN_OPS="+strconv.Itoa(etcdtest.MaxTxnOps), "CALENDAR_ETCD_MAX_REQUEST_BYTES="+strconv.Itoa(etcdtest.MaxRequestBytes)))
	return settings.([]string)
}

// startServer runs the app with a frozen clock and a fixed origin, so bodies are byte-stable.
func startServer(t testing.TB, env ...string) *server {
	t.Helper()
	return startServerIn(t, t.TempDir(), env...)
}

func startServerIn(t testing.TB, dir string, env ...string) *server {
	t.Helper()
	return startServerLogged(t, dir, zaptest.NewLogger(t), env...)
}

// startServerLogged is startServerIn with the app logging to log.
func startServerLogged(t testing.TB, dir string, log *zap.Logger, env ...string) *server {
	t.Helper()
	a, err := openTestApp(dir, log, append(backendEnv(t, dir, env), env...)...)
	if err != nil {
		t.Fatal(err)
	}
	return serveTestApp(t, dir, a)
}

// openTestApp opens the app and loads its index the way startServer does, without serving it.
func openTestApp(dir string, log *zap.Logger, env ...string) (*app, error) {
	cfg, err := parseConfig("serve", nil, lookup(map[string]string{
		"CALENDAR_DATA_DIR":           dir,
		"CALENDAR_NOW":                testNow,
		"CALENDAR_BASE_URL":           testOrigin,
		"CALENDAR_ADMIN_APP_PASSWORD": adminPass,
	}, env...), io.Discard)
	if err != nil {
		return nil, err
	}
	a, err := open(context.Background(), cfg, log, io.Discard)
	if err != nil {
		return nil, err
	}
	if err := a.load(context.Background()); err != nil {
		return nil, errors.Join(err, a.close())
	}
	return a, nil
}

// lookup is the environment of vars with env's "KEY=value" entries over them.
func lookup(vars map[string]string, env ...string) func(string) string {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return func(k string) string { return vars[k] }
}

// overlay is getenv with env's "KEY=value" entries over it.
func overlay(getenv func(string) string, env []string) func(string) string {
	over := lookup(map[string]string{}, env...)
	return func(k string) string { return cmp.Or(over(k), getenv(k)) }
}

// serveTestApp serves an opened app behind httptest until the test ends.
func serveTestApp(t testing.TB, dir string, a *app) *server {
	t.Helper()
	// Serve through the app's own http.Server, so its limits (headers, timeouts) apply.
	ts := httptest.NewUnstartedServer(&a.handler)
	ts.Config = a.server
	ts.Start()
	// The client sends Accept-Encoding only when a test does, and then hands the test the encoded
	// bytes: each test reads the representation it asks for (compression_test.go asks for gzip).
	ts.Client().Transport.(*http.Transport).DisableCompression = true
	s := &server{t: t, app: a, ts: ts, dir: dir, stopSync: a.startSync()}
	t.Cleanup(s.stop)
	return s
}

func (s *server) stop() {
	if s.ts == nil {
		return
	}
	s.ts.Close()
	s.ts = nil
	s.stopSync()
	if err := s.app.close(); err != nil {
		s.t.Error(err)
	}
}

// restart closes the server and opens a new one on the same data directory.
func (s *server) restart(env ...string) *server {
	s.stop()
	return startServerIn(s.t, s.dir, env...)
}

// openDirStore opens the store a command's configuration names, as the command would; the caller
// closes it (a server may have to open the directory next).
func openDirStore(t *testing.T, cmd string, getenv func(string) string) *storage.DB {
	t.Helper()
	if getenv("CALENDAR_ETCD_ENDPOINTS") == "" {
		getenv = overlay(getenv, backendEnv(t, getenv("CALENDAR_DATA_DIR"), nil))
	}
	cfg, err := parseConfig(cmd, nil, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openStore(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// settle waits until the index has applied everything in the store (in cluster mode, the cluster's
// store: what other nodes wrote too). Writes made straight to the store, unlike writes through HTTP,
// return before the index has them.
func (s *server) settle() {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	head, err := s.app.db.PrimaryChangeHead(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.app.index.WaitApplied(ctx, head); err != nil {
		s.t.Fatalf("index has not applied change %d: %v", head, err)
	}
}

// user creates a user with the given role and returns its Basic credentials "login:password".
func (s *server) user(login string, role storage.Role) string {
	s.t.Helper()
	ctx := context.Background()
	if _, err := s.app.db.CreateUser(ctx, storage.User{Login: login, Email: login + "@example.org", Role: role}); err != nil {
		s.t.Fatal(err)
	}
	pw, err := s.app.db.CreateAppPassword(ctx, login, "test")
	if err != nil {
		s.t.Fatal(err)
	}
	return login + ":" + pw
}

// response is what a test looks at.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// req describes one request. body is sent as JSON unless contentType says otherwise.
type req struct {
	method, path string
	auth         string // "login:password" for Basic, "Bearer x" as is, "" anonymous
	body         any
	contentType  string
	header       map[string]string // a value with newlines is sent as that many header lines
}

func (s *server) do(r req) *response {
	s.t.Helper()
	res, err := s.send(context.Background(), r)
	if err != nil {
		s.t.Fatal(err)
	}
	return res
}

// send is do for a goroutine other than the test's, which must not end the test: it returns what
// fails, the request's context ending included.
func (s *server) send(ctx context.Context, r req) (*response, error) {
	var body io.Reader
	ct := r.contentType
	switch b := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(data)
		if ct == "" {
			ct = "application/json"
		}
	}
	hr, err := http.NewRequestWithContext(ctx, r.method, s.ts.URL+r.path, body)
	if err != nil {
		return nil, err
	}
	if ct != "" {
		hr.Header.Set("Content-Type", ct)
	}
	switch {
	case strings.HasPrefix(r.auth, "Bearer ") || strings.HasPrefix(r.auth, "Basic "):
		hr.Header.Set("Authorization", r.auth)
	case r.auth != "":
		hr.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(r.auth)))
	}
	for k, v := range r.header {
		hr.Header[http.CanonicalHeaderKey(k)] = strings.Split(v, "\n")
	}
	res, err := s.ts.Client().Do(hr)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &response{status: res.StatusCode, header: res.Header, body: data}, nil
}

// create posts body to path as the administrator and returns the new ID.
func (s *server) create(path string, body any) uint64 {
	s.t.Helper()
	res := s.do(req{method: "POST", path: path, auth: adminAuth, body: body})
	if res.status != http.StatusCreated {
		s.t.Fatalf("POST %s: status %d\n%s", path, res.status, res.body)
	}
	return uint64(res.json(s.t)["id"].(float64))
}

// golden compares a body with testdata/<name>.golden.json (indented for review), or rewrites it.
func golden(t testing.TB, name string, body []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		t.Fatalf("%s: body is not JSON: %v\n%s", name, err, body)
	}
	buf.WriteByte('\n')
	goldenFile(t, name+".golden.json", buf.Bytes())
}

// goldenFile compares a body with testdata/<file> byte for byte, or rewrites it.
func goldenFile(t testing.TB, file string, body []byte) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run make golden to create it)", err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("body differs from %s (make golden rewrites it)\ngot:\n%s", path, body)
	}
}

func utoa(n uint64) string { return strconv.FormatUint(n, 10) }

func toJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
