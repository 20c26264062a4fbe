package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
)

// The cluster tests on a three-member etcd cluster with two calendard nodes: what the cluster
// mode promises when a member, a node or the job leader fails. Each test starts a cluster of its own
// (a fraction of a second), since most stop a member of it.

// startCluster3 starts a three-member cluster, closed when the test ends (after its nodes, which
// the test starts later).
func startCluster3(t *testing.T) *etcdtest.Cluster {
	t.Helper()
	c, err := etcdtest.StartCluster(3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// dayEvent is an event on a day of March 2027, within the lists' default window.
func dayEvent(title string, day int) map[string]any {
	date := fmt.Sprintf("2027-03-%02d", day%28+1)
	return map[string]any{"title": title, "start_date": date + " 10:00:00", "end_date": date + " 11:00:00"}
}

// eventIDs are the IDs of the events of a list answer, in its order.
func eventIDs(t *testing.T, list *response) []uint64 {
	t.Helper()
	var ids []uint64
	for _, e := range list.json(t)["events"].([]any) {
		ids = append(ids, uint64(e.(map[string]any)["id"].(float64)))
	}
	return ids
}

// listedIDs returns the IDs of every event the list request path (without paging) finds on s, page
// by page.
func listedIDs(t *testing.T, s *server, path string) []uint64 {
	t.Helper()
	var ids []uint64
	for page := 1; ; page++ {
		res := s.do(req{method: "GET", path: fmt.Sprintf("%s&per_page=100&page=%d", path, page)})
		if res.status != http.StatusOK {
			t.Fatalf("GET %s page %d: %d %s", path, page, res.status, res.body)
		}
		onPage := eventIDs(t, res)
		ids = append(ids, onPage...)
		if total, _ := strconv.Atoi(res.header.Get("X-TEC-Total")); len(ids) >= total || len(onPage) == 0 {
			return ids
		}
	}
}

// TestThreeMembersReadYourWrites: writes through either node are read on the other at the revision
// they answered with, by ID and in a search, on a three-member cluster.
func TestThreeMembersReadYourWrites(t *testing.T) {
	env := etcdEnv(startCluster3(t).Config())
	nodes := []*server{startServer(t, env...), startServer(t, env...)}
	for i := range 6 {
		from, to := nodes[i%2], nodes[(i+1)%2]
		id, list := readYourWrite(t, from, to, dayEvent(fmt.Sprintf("Rehearsal %d", i), i), "/calendar/events/v1/events?search=rehearsal&per_page=100")
		if listed := eventIDs(t, list); list.status != http.StatusOK || !slices.Contains(listed, id) {
			t.Errorf("write %d (event %d): the other node's search at its revision: %d, events %v", i, id, list.status, listed)
		}
	}
}

// outcome is what one write of a load got: an answer, or a failure to get one.
type outcome struct {
	res  *response
	err  error
	took time.Duration
}

// cleanFailure tells what is wrong with a write's answer that is not an acknowledgement, or "": a
// failed write must be told with the error envelope (docs/API.md "Errors"), as a 503 with Retry-After (the
// store out of reach: retry), never a 500.
func cleanFailure(res *response) string {
	var env struct {
		Code    string
		Message string
		Data    struct{ Status int }
	}
	if err := json.Unmarshal(res.body, &env); err != nil || env.Code == "" || env.Message == "" || env.Data.Status != res.status {
		return fmt.Sprintf("%d without the error envelope: %s", res.status, res.body)
	}
	if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" {
		return fmt.Sprintf("%d %s (Retry-After %q), want 503 with Retry-After", res.status, env.Code, res.header.Get("Retry-After"))
	}
	return ""
}

// TestEtcdLeaderKilledUnderLoad: writers create events through both nodes while the etcd leader is
// killed. Every acknowledged write is then on both nodes, by ID and in their indexes; every other one
// was answered cleanly and in time. A write that failed may still have been committed (its answer was
// lost with the leader), so the unacknowledged ones may or may not be there. The member started
// again rejoins the cluster.
func TestEtcdLeaderKilledUnderLoad(t *testing.T) {
	c := startCluster3(t)
	// A request to a member that died waits for etcd's answer at most this long: a write that fails
	// must be told so within a few of it, the deadline of the test's requests.
	const etcdTimeout = 2 * time.Second
	const requestDeadline = 5 * etcdTimeout
	env := append(etcdEnv(c.Config()), "CALENDAR_ETCD_TIMEOUT="+etcdTimeout.String())
	nodes := []*server{startServer(t, env...), startServer(t, env...)}

	var (
		mu       sync.Mutex
		outcomes []outcome
		acked    int
	)
	ackedCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return acked
	}
	ctx, stop := context.WithCancel(context.Background())
	var writers sync.WaitGroup
	for w := range 4 {
		s := nodes[w%2]
		writers.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				rctx, cancel := context.WithTimeout(context.Background(), requestDeadline)
				start := time.Now()
				res, err := s.send(rctx, req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
					body: dayEvent(fmt.Sprintf("Stormy %d-%d", w, i), i)})
				cancel()
				mu.Lock()
				outcomes = append(outcomes, outcome{res, err, time.Since(start)})
				if err == nil && res.status == http.StatusCreated {
					acked++
				}
				mu.Unlock()
			}
		})
	}
	defer writers.Wait()
	defer stop()
	// waitAcked waits until n writes more than now are acknowledged: the load runs, or runs again.
	waitAcked := func(n int, what string) {
		t.Helper()
		want := ackedCount() + n
		for deadline := time.Now().Add(time.Minute); ackedCount() < want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d writes acknowledged, want %d", what, ackedCount(), want)
			}
		}
	}
	waitAcked(10, "before the kill")
	leader := c.Leader()
	if leader == nil {
		t.Fatal("no etcd leader under load")
	}
	killed := time.Now()
	leader.Stop()
	waitAcked(10, "after the kill")
	t.Logf("writes went on %v after the leader was killed", time.Since(killed).Round(time.Millisecond))
	stop()
	writers.Wait()

	var ids []uint64
	failed := 0
	var slowest time.Duration
	for _, o := range outcomes {
		slowest = max(slowest, o.took)
		switch {
		case o.err != nil:
			t.Errorf("a write got no answer after %v: %v", o.took, o.err)
		case o.res.status == http.StatusCreated:
			ids = append(ids, uint64(o.res.json(t)["id"].(float64)))
		default:
			failed++
			if why := cleanFailure(o.res); why != "" {
				t.Errorf("a failed write after %v: %s", o.took, why)
			}
		}
	}
	t.Logf("%d writes: %d acknowledged, %d failed; the slowest answered in %v", len(outcomes), len(ids), failed, slowest.Round(time.Millisecond))
	if slices.Sort(ids); len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("two acknowledged writes have the same ID: %v", ids)
	}
	for i, s := range nodes {
		s.settle()
		listed := listedIDs(t, s, "/calendar/events/v1/events?search=stormy")
		if i == 0 {
			t.Logf("%d events written, %d of them unacknowledged", len(listed), len(listed)-len(ids))
		}
		for _, id := range ids {
			if !slices.Contains(listed, id) {
				t.Errorf("acknowledged event %d is not in a node's index (%d listed)", id, len(listed))
			}
			if res := s.do(req{method: "GET", path: "/calendar/events/v1/events/" + utoa(id)}); res.status != http.StatusOK {
				t.Errorf("acknowledged event %d on a node: %d %s", id, res.status, res.body)
			}
		}
	}

	if err := leader.Restart(); err != nil {
		t.Fatalf("the killed member does not rejoin: %v", err)
	}
	readYourWrite(t, nodes[0], nodes[1], dayEvent("Stormy after", 1), "/calendar/events/v1/events?search=stormy")
}

// compactPast trims the cluster's change log up to its head and compacts etcd's history, as the
// elected node's trimming does once the entries are older than the horizon: a node stopped before
// then finds its checkpoint gone when it starts.
func compactPast(t *testing.T, c *etcdtest.Cluster, env ...string) {
	t.Helper()
	trimChanges(t, env...)
	if err := c.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestNodeRestartsPastCompaction: a node stopped while the other writes, and the change log trimmed
// and etcd compacted past its checkpoint, rebuilds its index when it starts again, and then serves
// the writes it missed and follows the new ones.
func TestNodeRestartsPastCompaction(t *testing.T) {
	c := startCluster3(t)
	env := etcdEnv(c.Config())
	a, b := startServer(t, env...), startServer(t, env...)
	readYourWrite(t, a, b, dayEvent("Harbour before", 1), "/calendar/events/v1/events?search=harbour")
	checkpoint := b.app.index.Applied()
	b.stop()
	var missed []uint64
	for i := range 3 {
		missed = append(missed, a.create("/calendar/events/v1/events", dayEvent(fmt.Sprintf("Harbour while down %d", i), i)))
	}
	compactPast(t, c, env...)
	if _, err := openClusterStore(t, env...).Changes(context.Background(), checkpoint, 1); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("changes after the stopped node's checkpoint %d: %v, want them trimmed", checkpoint, err)
	}

	logs, seen := observer.New(zapcore.InfoLevel)
	b = startServerLogged(t, b.dir, zap.New(zapcore.NewTee(zaptest.NewLogger(t).Core(), logs)), env...)
	if n := seen.FilterMessage("index is behind the trimmed change log: rebuilding").Len(); n == 0 {
		t.Errorf("the node did not rebuild its index behind the trimmed change log; its index logged %v", seen.All())
	}
	if res := b.do(req{method: "GET", path: "/readyz"}); res.status != http.StatusOK {
		t.Errorf("readyz of the restarted node: %d %s", res.status, res.body)
	}
	listed := listedIDs(t, b, "/calendar/events/v1/events?search=harbour")
	for _, id := range missed {
		if res := b.do(req{method: "GET", path: "/calendar/events/v1/events/" + utoa(id)}); res.status != http.StatusOK {
			t.Errorf("event %d written while the node was down: %d %s", id, res.status, res.body)
		}
		if !slices.Contains(listed, id) {
			t.Errorf("event %d written while the node was down is not in its index: %v", id, listed)
		}
	}
	readYourWrite(t, a, b, dayEvent("Harbour after", 5), "/calendar/events/v1/events?search=harbour")
}

// TestJobLeaderDies: the node leading the jobs dies (its connection to the cluster drops, so its
// lease is neither renewed nor revoked) while an event is scheduled; the other node is elected
// within the lease's TTL and publishes the event. The clocks are frozen: the leader's before the
// event's publication date, the other's after it, so the event is due only for the other node; a
// store on the first clock reads the status stored, which a due event's reads would otherwise
// report as published before any job runs.
func TestJobLeaderDies(t *testing.T) {
	c := startCluster3(t)
	cfg := c.Config()
	// The leader talks to one member, not the etcd leader, so that the member's death is the node's
	// and the cluster keeps its leader.
	var via *etcdtest.Member
	for _, m := range c.Members {
		if m != c.Leader() {
			via = m
		}
	}
	const etcdTimeout = time.Second
	a := startJobNode(t, append(etcdEnv(etcdkv.Config{Endpoints: []string{via.Endpoint}, Prefix: cfg.Prefix}),
		"CALENDAR_ETCD_TIMEOUT="+etcdTimeout.String())...)
	a.waitLead(t, 15*time.Second)
	const later = "2026-11-22T12:00:00Z" // after the publication date below; testNow is before it
	b := startJobNode(t, append(etcdEnv(cfg), "CALENDAR_NOW="+later)...)
	event := dayEvent("Premiere", 1)
	event["status"], event["date_utc"] = "future", "2026-11-22 11:00:00"
	id := a.s.create("/calendar/events/v1/events", event)
	stored := openClusterStore(t, etcdEnv(cfg)...)
	storedStatus := func() storage.Status {
		t.Helper()
		e, _, err := stored.Event(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return e.Status
	}

	// A follower skips publication (TestJobLeaderFailover), whatever its clock says is due.
	if err := b.s.app.jobs.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := storedStatus(); got != storage.StatusFuture {
		t.Fatalf("the follower published the event: stored %q", got)
	}
	died := time.Now()
	via.Stop()
	b.waitLead(t, time.Until(died.Add((etcdkv.ElectionTTL+3)*time.Second)))
	t.Logf("the other node was elected %v after the leader died", time.Since(died).Round(time.Millisecond))
	if !b.ranPublication(t) {
		t.Fatal("the new leader did not run publication")
	}
	if got := storedStatus(); got != storage.StatusPublish {
		t.Errorf("stored status after the new leader's publication: %q, want publish", got)
	}
	res := b.s.do(req{method: "GET", path: "/calendar/events/v1/events/" + utoa(id), auth: adminAuth})
	if got := res.json(t)["status"]; res.status != http.StatusOK || got != "publish" {
		t.Errorf("the event on the new leader: %d status %v", res.status, got)
	}
	// Cut off rather than dead, the node finds its lease gone too and stops leading: at about the
	// moment the other node is elected (each side times the lease), not before it.
	select {
	case l := <-a.leading:
		if l {
			t.Error("the cut-off node was elected again")
		}
	case <-time.After(time.Until(died.Add(2 * etcdkv.ElectionTTL * time.Second))):
		t.Error("the cut-off node still leads, as it believes, two lease TTLs after it lost the cluster")
	}
}

// restartMembers starts the stopped members of c again, together: one alone has no quorum to be ready.
func restartMembers(t *testing.T, c *etcdtest.Cluster) {
	t.Helper()
	var wg sync.WaitGroup
	for _, m := range c.Members {
		wg.Go(func() {
			if err := m.Restart(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestStopWithTheClusterDown: with every etcd member stopped, the job leader and a follower each stop
// through the graceful stop within its bound (shutdownTimeout), whatever their campaign, watches and
// resignation were waiting on; the writes they acknowledged before are all in the cluster once it is
// back.
func TestStopWithTheClusterDown(t *testing.T) {
	c := startCluster3(t)
	env := append(etcdEnv(c.Config()), "CALENDAR_ETCD_TIMEOUT=1s")
	leader := startJobNode(t, env...)
	leader.waitLead(t, 15*time.Second)
	follower := startJobNode(t, env...)
	var ids []uint64
	for i, n := range []*jobNode{leader, follower} {
		ids = append(ids, n.s.create("/calendar/events/v1/events", dayEvent(fmt.Sprintf("Blackout %d", i), i)))
	}
	var wg sync.WaitGroup
	for _, m := range c.Members {
		wg.Go(m.Stop)
	}
	wg.Wait()

	restarted := false
	for _, n := range []struct {
		name string
		node *jobNode
	}{{"follower", follower}, {"leader", leader}} {
		start := time.Now()
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			n.node.stop()
			n.node.s.stop()
		}()
		select {
		case <-stopped:
			t.Logf("the %s stopped in %v", n.name, time.Since(start).Round(time.Millisecond))
		case <-time.After(shutdownTimeout):
			t.Errorf("the %s did not stop within %v with the cluster down", n.name, shutdownTimeout)
			restartMembers(t, c) // lets it end
			restarted = true
			<-stopped
		}
		n.node.stop = func() {}
	}

	if !restarted {
		restartMembers(t, c)
	}
	stored := openClusterStore(t, env...)
	for _, id := range ids {
		if _, _, err := stored.Event(context.Background(), id); err != nil {
			t.Errorf("acknowledged event %d after the stop: %v", id, err)
		}
	}
}
