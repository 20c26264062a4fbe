package main

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage"
)

// TestNodeResyncsPastTheTrimmedLog: a running node whose index stopped following while the cluster's
// change log was trimmed past it (a node cut off for longer than the horizon) resyncs its index
// from its copy of the store once it follows again, and serves what was written meanwhile: an event
// created, one renamed, one trashed.
func TestNodeResyncsPastTheTrimmedLog(t *testing.T) {
	env := clusterEnv(t)
	a, b := startServer(t, env...), startServer(t, env...)
	event := func(title string) map[string]any {
		return map[string]any{"title": title, "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00", "status": "publish"}
	}
	renamed, trashed := a.create("/calendar/events/v1/events", event("Concert")), a.create("/calendar/events/v1/events", event("Lecture"))
	b.settle()
	b.stopSync()
	b.stopSync = func() {}

	a.create("/calendar/events/v1/events", event("Opera"))
	for _, r := range []req{
		{method: "POST", path: "/calendar/events/v1/events/" + utoa(renamed), auth: adminAuth, body: map[string]any{"title": "Symphony"}},
		{method: "DELETE", path: "/calendar/events/v1/events/" + utoa(trashed), auth: adminAuth},
	} {
		if res := a.do(r); res.status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
		}
	}
	trimChanges(t, env...)
	// B's copy of the store applies the trimming a moment later: until it has, B's log still holds
	// what its index has not applied, and no resync is needed.
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, err := b.app.db.Changes(context.Background(), b.app.index.Applied(), 1)
		if errors.Is(err, storage.ErrCompacted) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B's copy of the log was not trimmed past its index: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}

	b.stopSync = b.app.startSync()
	b.settle()
	for search, want := range map[string]string{"symphony": "1", "opera": "1", "concert": "0", "lecture": "0"} {
		res := b.do(req{method: "GET", path: "/calendar/events/v1/events?search=" + search})
		if got := res.header.Get("X-TEC-Total"); res.status != http.StatusOK || got != want {
			t.Errorf("search %s on the resynced node: %d, %s found, want %s", search, res.status, got, want)
		}
	}
}

// TestChangeFeedOnAnyNode: the change feed works in cluster mode on every node: a cursor one node
// handed out is followed on another, which lists the first node's write, and both nodes hand out the
// same cursor for the same position.
func TestChangeFeedOnAnyNode(t *testing.T) {
	env := clusterEnv(t)
	a, b := startServer(t, env...), startServer(t, env...)
	start := a.changes(t, changesPath, "")
	id := a.create("/calendar/events/v1/events", concert())
	b.settle()
	f := b.changes(t, changesPath+"?since="+start.Next, "")
	if f.actions()["event "+utoa(id)] != "upsert" {
		t.Errorf("node B's feed after A's cursor: %+v, want event %d upserted", f.actions(), id)
	}
	if again := a.changes(t, changesPath+"?since="+start.Next, ""); again.Next != f.Next {
		t.Errorf("the nodes' cursors differ for one position: A %q, B %q", again.Next, f.Next)
	}
}

// TestLogCopy: a copy of the cluster logs its count of keys each time it passes a multiple of the
// step, whatever the sizes of the batches that pass it.
func TestLogCopy(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	copied := logCopy(zap.New(core), 25)
	for _, n := range []int{10, 10, 10, 30, 5, 40} {
		copied(n)
	}
	var got []int64
	for _, e := range logs.All() {
		got = append(got, e.ContextMap()["keys"].(int64))
	}
	if want := []int64{30, 60, 105}; !slices.Equal(got, want) {
		t.Errorf("logged at %v keys, want %v", got, want)
	}
}
