package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
)

// The package's etcd member starts only when a cluster-mode test asks for it (etcdtest.Shared).
func TestMain(m *testing.M) { etcdtest.Main(m) }

// clusterEnv is the configuration of a server in cluster mode on the package's etcd member, under a
// prefix of its own. The store uses etcd's default transaction limits, as against a production
// cluster, although the test member allows more.
func clusterEnv(t testing.TB) []string { return etcdEnv(etcdtest.Shared(t).Config()) }

// etcdEnv is the configuration of a server in cluster mode on cfg's endpoints and prefix.
func etcdEnv(cfg etcdkv.Config) []string {
	return []string{"CALENDAR_ETCD_ENDPOINTS=" + strings.Join(cfg.Endpoints, ","), "CALENDAR_ETCD_PREFIX=" + cfg.Prefix}
}

// openClusterStore opens a store on the cluster and prefix env names, as a node does, on the frozen
// clock unless env sets another, and without a change-feed horizon, so that TrimChanges trims what it
// is told to; it is closed when the test ends.
func openClusterStore(t *testing.T, env ...string) *storage.DB {
	t.Helper()
	// Straight on etcd, not through openStore: every process of a cluster keeps its change log an
	// hour at least (minClusterHorizon).
	cfg, err := parseConfig("serve", nil, lookup(map[string]string{"CALENDAR_DATA_DIR": t.TempDir(), "CALENDAR_NOW": testNow}, env...), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	st, err := etcdkv.Open(context.Background(), *cfg.etcd)
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.OpenStore(st, storage.Options{Now: cfg.clock()})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

// trimChanges trims the whole change log of the cluster env names, through a store of its own on the
// same prefix with no horizon.
func trimChanges(t *testing.T, env ...string) {
	t.Helper()
	ctx := context.Background()
	db := openClusterStore(t, env...)
	head, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.TrimChanges(ctx, head); err != nil || n == 0 {
		t.Fatalf("trim the change log: %d entries, %v", n, err)
	}
}

// TestClusterWriteTooLarge: in cluster mode with etcd's default limits, a series whose occurrences do
// not fit one etcd transaction is refused with 400 rest_write_too_large, and nothing of it is kept; a
// short one is written.
func TestClusterWriteTooLarge(t *testing.T) {
	s := startServer(t, clusterEnv(t)...)
	series := func(count int) map[string]any {
		return map[string]any{"title": "Choir", "start_date": "2027-01-05 19:00:00", "end_date": "2027-01-05 21:00:00",
			"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=" + strconv.Itoa(count)}}
	}
	res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: series(60)})
	if res.status != 400 || res.json(t)["code"] != "rest_write_too_large" {
		t.Fatalf("a series of 60 on etcd's default limits: %d %s", res.status, res.body)
	}
	if got := s.do(req{method: "GET", path: "/calendar/events/v1/events?search=choir"}).header.Get("X-TEC-Total"); got != "0" {
		t.Errorf("events of the refused series: %s", got)
	}
	s.create("/calendar/events/v1/events", series(4))
}

// TestClusterMode: the real server with its records in etcd answers the same requests with the same
// bytes as on its bbolt file; its data directory holds no store; and what it wrote is still served
// after a restart, by the same node and by a new node with an empty data directory, which rebuilds
// its index from etcd.
func TestClusterMode(t *testing.T) {
	// Within the lists' default window, which ends two years after the frozen clock.
	jazz := concert()
	jazz["start_date"], jazz["end_date"] = "2027-05-01 20:00:00", "2027-05-01 22:00:00"
	steps := []req{
		{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: jazz},
		{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: map[string]any{"title": "Quiet Morning",
			"start_date": "2027-06-01 09:00:00", "end_date": "2027-06-01 10:00:00", "categories": "Music"}},
		{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: map[string]any{"title": "Gone Soon",
			"start_date": "2027-07-01 09:00:00", "end_date": "2027-07-01 10:00:00"}},
		{method: "PATCH", path: "/calendar/events/v1/events/1", auth: adminAuth, body: map[string]any{"title": "Jazz Night, again"}},
		{method: "GET", path: "/calendar/events/v1/events/1"},
		{method: "GET", path: "/calendar/events/v1/events"},
		{method: "GET", path: "/calendar/events/v1/events?search=jazz"},
		{method: "GET", path: "/calendar/events/v1/categories"},
		{method: "DELETE", path: "/calendar/events/v1/events/5", auth: adminAuth},
		{method: "GET", path: "/calendar/events/v1/events"},
	}
	// reads are replayed after each restart: they must answer as before.
	reads := []req{{method: "GET", path: "/calendar/events/v1/events/1"}, {method: "GET", path: "/calendar/events/v1/events"},
		{method: "GET", path: "/calendar/events/v1/events?search=jazz"}}
	play := func(s *server, rs []req) []string {
		var got []string
		for _, r := range rs {
			res := s.do(r)
			if res.status >= 300 {
				t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
			}
			got = append(got, r.method+" "+r.path+" "+res.header.Get("X-WP-Total")+"\n"+string(res.body))
		}
		return got
	}
	want := play(startServer(t), steps)

	env := clusterEnv(t)
	dir := t.TempDir()
	s := startServerIn(t, dir, env...)
	got := play(s, steps)
	for i := range steps {
		if got[i] != want[i] {
			t.Errorf("on etcd, %s answered\n%s\nwant, as on bbolt,\n%s", strings.SplitN(got[i], "\n", 2)[0], got[i], want[i])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "calendar.db")); !os.IsNotExist(err) {
		t.Errorf("calendar.db in a cluster node's data directory: %v", err)
	}

	wantReads := play(s, reads)
	s = s.restart(env...)
	if got := play(s, reads); !slices.Equal(got, wantReads) {
		t.Errorf("after a restart:\n%q\nwant\n%q", got, wantReads)
	}
	s.stop()
	fresh := startServer(t, env...)
	if got := play(fresh, reads); !slices.Equal(got, wantReads) {
		t.Errorf("on a new node:\n%q\nwant\n%q", got, wantReads)
	}
}

// TestTwoNodes: two nodes on one prefix serve each other's writes once their indexes have applied the
// change log's head, which the other node's writes wake them for (storage.DB.Follow).
func TestTwoNodes(t *testing.T) {
	env := clusterEnv(t)
	a, b := startServer(t, env...), startServer(t, env...)
	event := func(title, day string) map[string]any {
		return map[string]any{"title": title, "start_date": "2027-03-" + day + " 10:00:00", "end_date": "2027-03-" + day + " 11:00:00"}
	}
	onA := a.create("/calendar/events/v1/events", event("Written on A", "01"))
	b.settle()
	onB := b.create("/calendar/events/v1/events", event("Written on B", "02"))
	a.settle()
	if onA == onB {
		t.Fatalf("both nodes gave the ID %d", onA)
	}
	for _, s := range []*server{a, b} {
		res := s.do(req{method: "GET", path: "/calendar/events/v1/events"})
		var titles []string
		for _, e := range res.json(t)["events"].([]any) {
			titles = append(titles, e.(map[string]any)["title"].(string))
		}
		if want := []string{"Written on A", "Written on B"}; !slices.Equal(titles, want) {
			t.Errorf("a node lists %q, want %q", titles, want)
		}
		if res := s.do(req{method: "GET", path: "/calendar/events/v1/events/" + strconv.FormatUint(onB, 10)}); res.status != http.StatusOK {
			t.Errorf("GET the event written on B: %d %s", res.status, res.body)
		}
	}
}

// TestClusterOutage: with etcd out of reach, a write answers 503 rest_store_unavailable with
// Retry-After within the configured timeout, never hanging and never a 500; reads keep being served
// from the node's copy, stale, with the revision they reflect, and the node stays ready; and a node
// does not start on a cluster it cannot reach.
func TestClusterOutage(t *testing.T) {
	member, err := etcdtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	const timeout = 300 * time.Millisecond
	env := []string{"CALENDAR_ETCD_ENDPOINTS=" + member.Endpoint, "CALENDAR_ETCD_TIMEOUT=" + timeout.String()}
	logs, seen := observer.New(zapcore.WarnLevel)
	s := startServerLogged(t, t.TempDir(), zap.New(zapcore.NewTee(zaptest.NewLogger(t).Core(), logs)), env...)
	created := s.create("/calendar/events/v1/events", map[string]any{"title": "Before", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00"})
	revision := s.do(req{method: "GET", path: "/calendar/events/v1/events"}).header.Get("X-Calendar-Revision")
	member.Close()

	start := time.Now()
	res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: map[string]any{"title": "During",
		"start_date": "2027-01-02 10:00", "end_date": "2027-01-02 11:00"}})
	if d := time.Since(start); d > 10*timeout {
		t.Errorf("a write took %v, with etcd requests bounded by %v", d, timeout)
	}
	if res.status != http.StatusServiceUnavailable || res.json(t)["code"] != "rest_store_unavailable" || res.header.Get("Retry-After") == "" {
		t.Errorf("a write: %d Retry-After %q %s, want 503 rest_store_unavailable with Retry-After",
			res.status, res.header.Get("Retry-After"), res.body)
	}
	// The write timed out: it may have been applied, and the answer must not say otherwise.
	if msg, _ := res.json(t)["message"].(string); !strings.Contains(msg, "may or may not have been saved") {
		t.Errorf("the 503's message %q does not say the write may have been saved", msg)
	}
	if warned := seen.FilterMessage("store unavailable").All(); len(warned) == 0 || warned[0].ContextMap()["error"] == "" {
		t.Errorf("the 503's cause is not in the log: %v", warned)
	}
	for _, path := range []string{"/calendar/events/v1/events/" + strconv.FormatUint(created, 10), "/calendar/events/v1/events?search=before"} {
		res := s.do(req{method: "GET", path: path})
		if res.status != http.StatusOK || !strings.Contains(string(res.body), `"Before"`) || res.header.Get("X-Calendar-Revision") != revision {
			t.Errorf("GET %s without etcd: %d revision %q %s, want 200 with the event, at revision %s", path, res.status,
				res.header.Get("X-Calendar-Revision"), res.body, revision)
		}
	}
	if res := s.do(req{method: "GET", path: "/readyz"}); res.status != http.StatusOK || res.json(t)["status"] != "stale" {
		t.Errorf("readyz without etcd: %d %s, want 200 stale", res.status, res.body)
	}
	start = time.Now()
	if _, err := openTestApp(t.TempDir(), zap.NewNop(), env...); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("start on an unreachable cluster: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 10*timeout {
		t.Errorf("the failed start took %v, with the first contact bounded by %v", d, timeout)
	}
}

// TestClusterConfig: the etcd settings are checked at start-up, so that a typo fails there rather
// than on every request.
func TestClusterConfig(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string
		want    []string // endpoints
	}{
		{name: "embedded store by default"},
		{name: "endpoints", env: map[string]string{"CALENDAR_ETCD_ENDPOINTS": "http://10.0.0.1:2379, https://etcd.example:2379,"},
			want: []string{"http://10.0.0.1:2379", "https://etcd.example:2379"}},
		{name: "flag over variable", env: map[string]string{"CALENDAR_ETCD_ENDPOINTS": "http://a:2379"},
			args: []string{"--etcd-endpoints", "http://b:2379"}, want: []string{"http://b:2379"}},
		{name: "not a URL", env: map[string]string{"CALENDAR_ETCD_ENDPOINTS": "etcd:2379"}, wantErr: `"etcd:2379" is not a URL`},
		{name: "TLS without endpoints", env: map[string]string{"CALENDAR_ETCD_CA": "ca.pem"}, wantErr: "need etcd-endpoints"},
		{name: "certificate without key", env: map[string]string{"CALENDAR_ETCD_ENDPOINTS": "https://a:2379", "CALENDAR_ETCD_CERT": "c.pem"},
			wantErr: "etcd-cert and etcd-key go together"},
		{name: "user without password", env: map[string]string{"CALENDAR_ETCD_ENDPOINTS": "https://a:2379", "CALENDAR_ETCD_USER": "cal"},
			wantErr: "etcd-user and etcd-password go together"},
		{name: "empty prefix", args: []string{"--etcd-endpoints", "http://a:2379", "--etcd-prefix", ""}, wantErr: "etcd-prefix must not be empty"},
		{name: "bad timeout", args: []string{"--etcd-timeout", "0"}, wantErr: "etcd-timeout must be a positive duration"},
		{name: "bad operation limit", args: []string{"--etcd-max-txn-ops", "0"}, wantErr: "etcd-max-txn-ops must be a positive integer"},
		{name: "bad size limit", args: []string{"--etcd-max-request-bytes", "1.5MiB"}, wantErr: "etcd-max-request-bytes must be a positive integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ok := parseTestConfig(t, tc.args, tc.env, tc.wantErr)
			if !ok {
				return
			}
			if tc.want == nil {
				if cfg.etcd != nil {
					t.Errorf("cluster mode without endpoints: %+v", cfg.etcd)
				}
				return
			}
			if cfg.etcd == nil || !slices.Equal(cfg.etcd.Endpoints, tc.want) || cfg.etcd.Prefix != "/calendard/" {
				t.Errorf("etcd config = %+v, want endpoints %q under /calendard/", cfg.etcd, tc.want)
			}
		})
	}
}

// TestClusterModeFullConfig: TLS files and credentials reach the store's configuration.
func TestClusterModeFullConfig(t *testing.T) {
	env := map[string]string{"CALENDAR_ETCD_ENDPOINTS": "https://a:2379", "CALENDAR_ETCD_PREFIX": "/cal/", "CALENDAR_ETCD_CA": "ca.pem",
		"CALENDAR_ETCD_CERT": "c.pem", "CALENDAR_ETCD_KEY": "k.pem", "CALENDAR_ETCD_USER": "cal", "CALENDAR_ETCD_PASSWORD": "secret",
		"CALENDAR_ETCD_TIMEOUT": "2s", "CALENDAR_ETCD_MAX_TXN_OPS": "10000", "CALENDAR_ETCD_MAX_REQUEST_BYTES": "8388608"}
	cfg, _ := parseTestConfig(t, nil, env, "")
	e := cfg.etcd
	if e == nil || e.Prefix != "/cal/" || e.CAFile != "ca.pem" || e.CertFile != "c.pem" || e.KeyFile != "k.pem" ||
		e.Username != "cal" || e.Password != "secret" || e.DialTimeout != 2*time.Second || e.RequestTimeout != 2*time.Second ||
		e.MaxTxnOps != 10000 || e.MaxRequestBytes != 8<<20 {
		t.Errorf("etcd config = %+v", e)
	}
	// Without them, etcd's own defaults.
	cfg, _ = parseTestConfig(t, nil, map[string]string{"CALENDAR_ETCD_ENDPOINTS": "http://a:2379"}, "")
	if e := cfg.etcd; e.MaxTxnOps != 128 || e.MaxRequestBytes != 1536*1024 || e.RequestTimeout != 5*time.Second {
		t.Errorf("default etcd config = %+v", e)
	}
}

// TestMigrateAndBackupRoundTrip: a calendar.db moved into etcd (migrate --to-etcd) serves the same
// answers in cluster mode, and a backup taken in cluster mode is a calendar.db that restores into the
// embedded mode and serves them again.
func TestMigrateAndBackupRoundTrip(t *testing.T) {
	cluster := clusterEnv(t)
	withCluster := func(dir string) func(string) string {
		base := importEnv(dir)
		vars := map[string]string{}
		for _, kv := range cluster {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		return func(k string) string {
			if v, ok := vars[k]; ok {
				return v
			}
			return base(k)
		}
	}
	command := func(env func(string) string, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, env, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String()
	}
	reads := []req{{method: "GET", path: "/calendar/events/v1/events?per_page=50"}, {method: "GET", path: "/calendar/events/v1/events/1"},
		{method: "GET", path: "/calendar/events/v1/venues"}, {method: "GET", path: "/calendar/events/v1/events?search=choir&hide_subsequent_recurrences=1"}}
	answers := func(s *server) []string {
		var out []string
		for _, r := range reads {
			res := s.do(r)
			out = append(out, fmt.Sprintf("%d %s", res.status, res.body))
		}
		return out
	}

	dir := t.TempDir()
	s := startServerIn(t, dir, fileEnv) // the calendar.db that migrate moves into etcd
	jazz := concert()
	jazz["start_date"], jazz["end_date"] = "2027-05-01 20:00:00", "2027-05-01 22:00:00"
	s.create("/calendar/events/v1/events", jazz)
	s.create("/calendar/events/v1/events", map[string]any{"title": "Choir", "start_date": "2027-01-05 19:00:00",
		"end_date": "2027-01-05 21:00:00", "recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=8"}})
	want := answers(s)
	s.stop()

	if out := command(withCluster(dir), "migrate", "--to-etcd", "--data-dir", dir); !strings.Contains(out, "copied") {
		t.Errorf("migrate output: %s", out)
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "--to-etcd", "--data-dir", dir}, withCluster(dir), io.Discard, &stderr); err == nil || !strings.Contains(err.Error(), "holds a store already") {
		t.Errorf("a second migrate into the same prefix: %v", err)
	}
	c := startServer(t, cluster...)
	if d := cmp.Diff(want, answers(c)); d != "" {
		t.Errorf("in cluster mode after migrate (-embedded +cluster):\n%s", d)
	}

	backup := filepath.Join(t.TempDir(), "cluster-backup.db")
	var progress bytes.Buffer
	if err := run(context.Background(), []string{"backup", "--to", backup, "--data-dir", c.dir, "--progress-every", "1us"}, withCluster(c.dir), io.Discard, &progress); err != nil {
		t.Fatalf("backup: %v\n%s", err, progress.String())
	}
	// Copied key by key, the backup still tells how many bytes it has written.
	if out := progress.String(); !strings.Contains(out, "backing up: done, ") || strings.Contains(out, "done, 0 B") {
		t.Errorf("the cluster backup's progress:\n%s", out)
	}
	restored := t.TempDir()
	command(importEnv(restored), "restore", "--from", backup, "--data-dir", restored)
	r := startServerIn(t, restored, fileEnv) // the embedded mode the backup restores into
	if d := cmp.Diff(want, answers(r)); d != "" {
		t.Errorf("the cluster backup restored into a file (-embedded +restored):\n%s", d)
	}
}

// jobNode is a server running its jobs (startJobs, as serve does) that tells on leading when it
// becomes or stops being the cluster's job leader.
type jobNode struct {
	s       *server
	leading chan bool
	stop    func()
}

func startJobNode(t *testing.T, env ...string) *jobNode {
	t.Helper()
	n := &jobNode{s: startServer(t, env...), leading: make(chan bool, 8)}
	n.s.app.jobLeader = func(lead bool) { n.leading <- lead }
	stop, err := n.s.app.startJobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n.stop = stop
	t.Cleanup(func() { n.stop() })
	return n
}

// published is how many times publication ran on n.
func (n *jobNode) published(t *testing.T) uint64 {
	t.Helper()
	for _, st := range n.s.app.jobs.Stats() {
		if st.Name == "publish-due" {
			return st.Runs
		}
	}
	t.Fatal("no publish-due job")
	return 0
}

// waitLead waits until n is elected, for at most within.
func (n *jobNode) waitLead(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case l := <-n.leading:
		if !l {
			t.Fatal("told it stopped leading, want it elected")
		}
	case <-time.After(within):
		t.Fatalf("not elected within %v", within)
	}
}

// ranPublication runs the jobs once on n and tells whether publication ran there. The start-up's run
// or the minute's scheduled one may be running it at the same moment (RunOnce then skips it), so a
// leader's count is awaited; a follower's never moves.
func (n *jobNode) ranPublication(t *testing.T) bool {
	t.Helper()
	before := n.published(t)
	if err := n.s.app.jobs.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); n.published(t) == before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	return n.published(t) > before
}

// TestJobLeaderFailover: of two nodes on one cluster, the elected one runs the cluster's jobs
// (publication) and the other skips them; when the leader stops, the other is elected and runs them,
// at once and then on schedule.
func TestJobLeaderFailover(t *testing.T) {
	cluster := clusterEnv(t)
	a := startJobNode(t, cluster...)
	a.waitLead(t, 15*time.Second)
	b := startJobNode(t, cluster...)
	if !a.ranPublication(t) {
		t.Error("the leader did not run publication")
	}
	if b.ranPublication(t) {
		t.Error("the follower ran publication")
	}
	a.stop() // resigns
	a.stop = func() {}
	b.waitLead(t, 15*time.Second)
	// Its start-up's run and the one above skipped publication: elected, it publishes at once, not at
	// the next minute's scheduled run.
	for deadline := time.Now().Add(5 * time.Second); b.published(t) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if b.published(t) == 0 {
		t.Error("the new leader did not publish on its election")
	}
	if !b.ranPublication(t) {
		t.Error("the new leader did not run publication")
	}
}

// TestRevokeAcrossNodes: users and application passwords live in etcd, and each node reads them from
// its copy, which follows etcd: a user created on one node logs in on the other, and a password
// revoked through one node is refused by the other within a second.
func TestRevokeAcrossNodes(t *testing.T) {
	cluster := clusterEnv(t)
	a, b := startServer(t, cluster...), startServer(t, cluster...)
	creds := a.user("editor1", storage.RoleEditor)
	drafts := req{method: "GET", path: "/calendar/events/v1/events?status=draft", auth: creds}
	answers := func(status int, within time.Duration) bool {
		for deadline := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
			if b.do(drafts).status == status {
				return true
			}
			if time.Now().After(deadline) {
				return false
			}
		}
	}
	if !answers(http.StatusOK, time.Second) {
		t.Fatalf("a user created on one node is refused on the other a second later")
	}
	if err := a.app.db.RevokeAppPassword(context.Background(), "editor1", "test"); err != nil {
		t.Fatal(err)
	}
	if !answers(http.StatusUnauthorized, time.Second) {
		t.Errorf("a password revoked on one node still works on the other a second later")
	}
}

// readYourWrite creates an event through from and reads it on to, sending the revision the write
// answered with as X-Calendar-Min-Revision: to must answer with the event, by its ID at once. It
// returns the event's ID and to's answer to the list request path at that revision.
func readYourWrite(t *testing.T, from, to *server, event map[string]any, path string) (uint64, *response) {
	t.Helper()
	res := from.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: event})
	rev := res.header.Get("X-Calendar-Revision")
	if res.status != http.StatusCreated || rev == "" || rev == "0" {
		t.Fatalf("create: %d, revision %q\n%s", res.status, rev, res.body)
	}
	id := uint64(res.json(t)["id"].(float64))
	atRev := map[string]string{"X-Calendar-Min-Revision": rev}
	if got := to.do(req{method: "GET", path: "/calendar/events/v1/events/" + utoa(id), header: atRev}); got.status != http.StatusOK {
		t.Fatalf("read of event %d at revision %s on the other node: %d %s", id, rev, got.status, got.body)
	}
	return id, to.do(req{method: "GET", path: path, header: atRev})
}

// TestReadYourWritesAcrossNodes: the revision a write through one node answers with, sent back to the
// other node as X-Calendar-Min-Revision, makes that node answer with the write applied.
func TestReadYourWritesAcrossNodes(t *testing.T) {
	cluster := clusterEnv(t)
	a, b := startServer(t, cluster...), startServer(t, cluster...)
	for i := range 5 {
		_, list := readYourWrite(t, a, b, map[string]any{"title": fmt.Sprintf("Written on a %d", i),
			"start_date": "2027-02-01 19:00:00", "end_date": "2027-02-01 21:00:00"}, "/calendar/events/v1/events?search=written")
		if total := list.header.Get("X-TEC-Total"); total != strconv.Itoa(i+1) {
			t.Errorf("list on b after write %d: %s events, want %d", i, total, i+1)
		}
	}
}

// TestWritesThroughAnyNode: an event created through one node is updated through the other at once,
// without X-Calendar-Min-Revision: the other node's copy may not have the event yet, and its checks
// must not answer 404 for a record the cluster holds; some are trashed the same way. Two
// writers, one each way, make 100 such pairs (without the catch-up, about one in ten failed).
func TestWritesThroughAnyNode(t *testing.T) {
	cluster := clusterEnv(t)
	nodes := []*server{startServer(t, cluster...), startServer(t, cluster...)}
	const pairs = 100
	var wg sync.WaitGroup
	errs := make(chan error, pairs)
	for w := range 2 {
		from, to := nodes[w], nodes[1-w]
		wg.Go(func() {
			for i := w; i < pairs; i += 2 {
				if err := writeThroughOther(from, to, i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// writeThroughOther creates an event through from and updates it through to at once; every tenth
// pair also creates one through to and trashes it through from.
func writeThroughOther(from, to *server, i int) error {
	ctx := context.Background()
	create := func(s *server, title string) (uint64, error) {
		res, err := s.send(ctx, req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: dayEvent(title, i)})
		if err != nil {
			return 0, err
		}
		if res.status != http.StatusCreated {
			return 0, fmt.Errorf("pair %d: create: %d %s", i, res.status, res.body)
		}
		var e struct{ ID uint64 }
		return e.ID, json.Unmarshal(res.body, &e)
	}
	write := func(s *server, what string, r req) error {
		res, err := s.send(ctx, r)
		if err != nil {
			return err
		}
		if res.status != http.StatusOK {
			return fmt.Errorf("pair %d: the %s through the other node: %d %s", i, what, res.status, res.body)
		}
		return nil
	}
	id, err := create(from, fmt.Sprintf("Relay %d", i))
	if err != nil {
		return err
	}
	if err := write(to, "update", req{method: "POST", path: "/calendar/events/v1/events/" + utoa(id), auth: adminAuth,
		body: map[string]any{"title": fmt.Sprintf("Relay %d again", i)}}); err != nil {
		return err
	}
	if i%10 != 0 {
		return nil
	}
	if id, err = create(to, fmt.Sprintf("Relay trashed %d", i)); err != nil {
		return err
	}
	return write(from, "trash", req{method: "DELETE", path: "/calendar/events/v1/events/" + utoa(id), auth: adminAuth})
}

// TestReadyzFollowsTheCluster: a node whose index has not applied what another node wrote is not
// ready (503 "catching up", with how far behind), so a load balancer leaves it out until it has.
func TestReadyzFollowsTheCluster(t *testing.T) {
	cluster := clusterEnv(t)
	a, b := startServer(t, cluster...), startServer(t, cluster...)
	b.stopSync() // b's index stops following the change log
	b.stopSync = func() {}
	a.create("/calendar/events/v1/events", map[string]any{"title": "Written on a", "start_date": "2027-02-01 19:00:00", "end_date": "2027-02-01 21:00:00"})
	res := b.do(req{method: "GET", path: "/readyz"})
	if body := res.json(t); res.status != http.StatusServiceUnavailable || body["status"] != "catching up" || body["behind"].(float64) < 1 {
		t.Fatalf("readyz of a node behind the cluster: %d %s", res.status, res.body)
	}
	b.stopSync = b.app.startSync()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if res = b.do(req{method: "GET", path: "/readyz"}); res.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz once following again: %d %s", res.status, res.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunJobTrimInClusterMode: calendard run-job trim-changes, a process of its own on the cluster,
// trims the cluster's change log as the elected node does: to the horizon, which in cluster mode is
// an hour at least whatever is configured, not to the checkpoint of its own data directory's index.
func TestRunJobTrimInClusterMode(t *testing.T) {
	cluster := clusterEnv(t)
	s := startServer(t, cluster...)
	s.create("/calendar/events/v1/events", concert())
	var out bytes.Buffer
	getenv := lookup(map[string]string{"CALENDAR_DATA_DIR": t.TempDir(), "CALENDAR_NOW": testNow, "CALENDAR_CHANGES_HORIZON": "0"}, cluster...)
	if err := runJob(context.Background(), []string{"trim-changes"}, getenv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	changes, err := s.app.db.Changes(context.Background(), 0, 100)
	if err != nil || len(changes) == 0 {
		t.Errorf("change log after run-job trim-changes with a horizon of 0: %d entries, %v; want them kept an hour", len(changes), err)
	}
}
