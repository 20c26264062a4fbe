package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/jobs"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
)

// TestTrimAndCompactPastTheTransactionLimit: 10,000 change-log entries on a cluster whose nodes keep
// etcd's default limit of 128 operations a transaction are trimmed whole by the trim-changes job,
// which then compacts etcd's history; a node stopped before them starts again behind both, copies
// the cluster again, rebuilds its index and serves what it missed.
func TestTrimAndCompactPastTheTransactionLimit(t *testing.T) {
	member, err := etcdtest.Start() // of its own: the test compacts the cluster's history
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(member.Close)         // after the nodes'
	env := etcdEnv(member.Config()) // etcd's default limits
	a, b := startServer(t, env...), startServer(t, env...)
	readYourWrite(t, a, b, dayEvent("Lighthouse before", 1), "/calendar/events/v1/events?search=lighthouse")
	b.stop()

	// The entries are written through a store with the member's larger limits, cheaply: a venue's
	// new position makes an entry for the venue and one for each event at it, so 100 moves of a venue
	// with 99 events make 10,000.
	const events, moves, changes = 99, 100, 10_000
	ctx := context.Background()
	writer := openClusterStore(t, append(env, "CALENDAR_ETCD_MAX_TXN_OPS="+strconv.Itoa(etcdtest.MaxTxnOps),
		"CALENDAR_ETCD_MAX_REQUEST_BYTES="+strconv.Itoa(etcdtest.MaxRequestBytes))...)
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	start, err := datetime.Parse("2027-03-10 10:00:00")
	if err != nil {
		t.Fatal(err)
	}
	hall := "Lighthouse hall"
	venue, _, err := writer.CreateVenue(ctx, admin, "en", &storage.VenueInput{PostInput: storage.PostInput{Title: &hall}})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]uint64, events)
	writes := make([]func(*storage.Bulk) error, events)
	for i := range events {
		title := fmt.Sprintf("Lighthouse %d", i)
		in := &storage.EventInput{PostInput: storage.PostInput{Title: &title}, Start: &start, End: &start, Venue: &storage.VenueRef{ID: venue.ID}}
		writes[i] = func(bk *storage.Bulk) error {
			e, err := bk.CreateEvent("en", in)
			if err == nil {
				ids[i] = e.ID
			}
			return err
		}
	}
	if err := (&bulkWriter{db: writer, a: admin}).write(ctx, writes); err != nil {
		t.Fatal(err)
	}
	for i := range moves {
		geo := storage.Geo{Lat: 52 + float64(i)/1000, Lng: 4}
		if _, err := writer.UpdateVenue(ctx, admin, venue.ID, &storage.VenueInput{Geo: &geo}); err != nil {
			t.Fatal(err)
		}
	}
	head, err := writer.ChangeHead(ctx)
	if err != nil || head < changes {
		t.Fatalf("change-log head %d, %v: want %d entries at least", head, err, changes)
	}

	// The job as the elected node runs it, on a store with no horizon so that it trims everything:
	// its first run trims and notes the revision its second compacts to.
	trimmer := openClusterStore(t, env...)
	j := jobs.New(trimmer, a.app.index, zaptest.NewLogger(t), time.UTC, trimmer.Now)
	if err := j.Run(ctx, "trim-changes"); err != nil {
		t.Fatalf("trim-changes over %d entries at etcd's default limits: %v", head, err)
	}
	if left, err := trimmer.Changes(ctx, 0, 1); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("after the trim: %d entries left, %v; want the log trimmed", len(left), err)
	}
	after := a.create("/calendar/events/v1/events", dayEvent("Lighthouse after", 2))
	if err := j.Run(ctx, "trim-changes"); err != nil {
		t.Fatalf("trim-changes compacting: %v", err)
	}

	logs, seen := observer.New(zapcore.InfoLevel)
	b = startServerLogged(t, b.dir, zap.New(zapcore.NewTee(zaptest.NewLogger(t).Core(), logs)), env...)
	for _, msg := range []string{"local copy is behind the cluster's history: copying the cluster again", "index is behind the trimmed change log: rebuilding"} {
		if seen.FilterMessage(msg).Len() == 0 {
			t.Errorf("the node behind the trim and the compaction did not log %q", msg)
		}
	}
	if res := b.do(req{method: "GET", path: "/readyz"}); res.status != http.StatusOK {
		t.Errorf("readyz of the restarted node: %d %s", res.status, res.body)
	}
	for _, id := range []uint64{ids[0], ids[events-1], after} {
		if res := b.do(req{method: "GET", path: "/calendar/events/v1/events/" + utoa(id)}); res.status != http.StatusOK {
			t.Errorf("event %d on the restarted node: %d %s", id, res.status, res.body)
		}
	}
	if got := b.do(req{method: "GET", path: "/calendar/events/v1/events?search=lighthouse&per_page=1"}).header.Get("X-TEC-Total"); got != strconv.Itoa(events+2) {
		t.Errorf("the restarted node's search finds %s events, want %d", got, events+2)
	}
}
