package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/kv/etcdkv"
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
	trimAll(t, env)
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

// trimAll trims the whole change log of the cluster env names, through a store of its own on the same
// prefix, as the elected node's trimming does to entries older than the horizon.
func trimAll(t *testing.T, env []string) {
	t.Helper()
	var cfg etcdkv.Config
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "CALENDAR_ETCD_ENDPOINTS":
			cfg.Endpoints = strings.Split(v, ",")
		case "CALENDAR_ETCD_PREFIX":
			cfg.Prefix = v
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.OpenStore(st, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	head, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.TrimChanges(ctx, head); err != nil || n == 0 {
		t.Fatalf("trim the change log: %d entries, %v", n, err)
	}
}
