package storage

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/boltkv"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
	"github.com/google/go-cmp/cmp"
)

// dump is every bucket of a store's layout: its sequence and its keys with their values.
func dump(t *testing.T, s kv.Store) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	err := s.View(ctx, func(tx kv.Tx) error {
		for _, name := range topBuckets {
			b := map[string]string{"#sequence": string(u64(tx.Sequence([]byte(name))))}
			c := tx.Cursor([]byte(name))
			for k, v := c.First(); k != nil; k, v = c.Next() {
				b[string(k)] = string(v)
			}
			out[name] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCopyRoundTrip: a calendar.db copied into an etcd prefix (migrate --to-etcd), and from there into
// a new file (BackupFile in cluster mode), holds every bucket, key, value and sequence of the original,
// and opens as a store on either backend, in small transactions as etcd takes them.
func TestCopyRoundTrip(t *testing.T) {
	src := mustOpenDB(t)
	mustCreateEvent(t, src, admin, newEvent(t, "Concert"))
	if _, err := src.CreateEvent(ctx, admin, "fr", weekly(t, "RRULE:FREQ=WEEKLY;COUNT=30")); err != nil {
		t.Fatal(err)
	}
	if err := src.Bulk(ctx, admin, func(b *Bulk) error {
		_, _, err := b.PutEvent(900, "en", newEvent(t, "Imported"))
		if err != nil {
			return err
		}
		return b.Link("https://site.example/wp-json", "event:900", Doc{DocEvent, 900}, "2026-01-01 00:00:00")
	}); err != nil {
		t.Fatal(err)
	}
	want := dump(t, src.kv)

	member := etcdtest.Shared(t)
	cfg := member.Config()
	etcd, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var reported int
	var reportedBytes int64
	if err := src.CopyTo(ctx, etcd, CopyLimits{Ops: 10}, func(n int, b int64) { reported, reportedBytes = n, b }); err != nil {
		t.Fatalf("copy to etcd: %v", err)
	}
	if reported == 0 || reportedBytes < int64(reported) {
		t.Errorf("progress reported %d keys, %d bytes", reported, reportedBytes)
	}
	if d := cmp.Diff(want, dump(t, etcd)); d != "" {
		t.Errorf("etcd copy (-want +got):\n%s", d)
	}
	onEtcd, err := OpenStore(etcd, Options{Now: src.now})
	if err != nil {
		t.Fatalf("open the etcd copy: %v", err)
	}
	defer onEtcd.Close()
	if e, _, err := onEtcd.Event(ctx, 900); err != nil || e.Title != "Imported" {
		t.Errorf("an event of the etcd copy: %+v %v", e, err)
	}

	// A backup in cluster mode: the etcd store into a new file.
	path := filepath.Join(t.TempDir(), "backup.db")
	written := 0
	if n, err := onEtcd.BackupFile(ctx, path, func(n int) { written += n }); err != nil || n == 0 {
		t.Fatalf("backup of the etcd copy: %d bytes, %v", n, err)
	}
	// The progress of a copy key by key: the keys' and values' bytes, those CopyTo reported.
	if int64(written) != reportedBytes {
		t.Errorf("the backup told of %d bytes written, want the %d of the store's keys and values", written, reportedBytes)
	}
	file, err := boltkv.Open(path, boltkv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := dump(t, file)
	file.Close()
	// Opening the etcd copy wrote its schema version again, the same value: nothing differs.
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("backup of the etcd copy (-want +got):\n%s", d)
	}
	back, err := Open(path, Options{Now: src.now})
	if err != nil {
		t.Fatalf("open the file copy: %v", err)
	}
	back.Close()

	// A copy into a store that holds keys is refused, and leaves it as it was.
	if err := src.CopyTo(ctx, etcd, CopyLimits{}, nil); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("copy into a full prefix: %v, want ErrNotEmpty", err)
	}
	if d := cmp.Diff(want, dump(t, etcd)); d != "" {
		t.Errorf("the refused copy changed its destination:\n%s", d)
	}
}

// TestCopyCutShort: a copy interrupted midway leaves a store that Open refuses as unfinished.
func TestCopyCutShort(t *testing.T) {
	src := mustOpenDB(t)
	for range 5 {
		mustCreateEvent(t, src, admin, newEvent(t, "Concert"))
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	file, err := boltkv.Open(path, boltkv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	err = src.CopyTo(cctx, file, CopyLimits{Ops: 2}, func(int, int64) { cancel() })
	file.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted copy: %v", err)
	}
	if db, err := Open(path, Options{}); !errors.Is(err, ErrIncomplete) {
		if err == nil {
			db.Close()
		}
		t.Errorf("open an unfinished copy: %v, want ErrIncomplete", err)
	}
}
