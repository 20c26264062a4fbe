package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/boltkv"
)

func TestBackupRoundTrip(t *testing.T) {
	db := mustOpenDB(t)
	var ids []uint64
	for _, title := range []string{"Concert", "Opera", "Ballet"} {
		in := newEvent(t, title)
		in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr(title + " Hall")}}}
		in.Categories = &[]string{"Music"}
		ids = append(ids, mustCreateEvent(t, db, admin, in).ID)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	written := 0
	n, err := db.BackupFile(ctx, path, func(n int) { written += n })
	if err != nil || n == 0 || int64(written) != n {
		t.Fatalf("backup: %d bytes (told of %d written), %v", n, written, err)
	}
	// A write after the backup is not in it.
	late := mustCreateEvent(t, db, admin, newEvent(t, "Late"))
	if info, err := os.Stat(path); err != nil || info.Size() != n || info.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", info, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	if schema, err := Inspect(path, time.Second); err != nil || schema != schemaVersion {
		t.Fatalf("inspect: %d %v", schema, err)
	}

	cp, err := Open(path, Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	for _, id := range ids {
		want, wantRel, err := db.Event(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got, gotRel, err := cp.Event(ctx, id)
		if err != nil {
			t.Fatalf("event %d in the copy: %v", id, err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotRel.Venues, wantRel.Venues) {
			t.Errorf("event %d differs in the copy:\n%+v\n%+v", id, got, want)
		}
	}
	if _, _, err := cp.Event(ctx, late.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a write after the backup is in it: %v", err)
	}
	wantTerms, _ := db.Terms(ctx, TaxCategory)
	gotTerms, _ := cp.Terms(ctx, TaxCategory)
	if !reflect.DeepEqual(gotTerms, wantTerms) {
		t.Errorf("categories differ: %+v vs %+v", gotTerms, wantTerms)
	}
	// The copy keeps the change log.
	if h1, _ := cp.ChangeHead(ctx); h1 == 0 {
		t.Error("the copy has no change log")
	}
}

func TestBackupFileKeepsTargetOnFailure(t *testing.T) {
	db := mustOpenDB(t)
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(path, []byte("previous"), 0o600); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := db.BackupFile(cctx, path, nil); err == nil {
		t.Fatal("a cancelled backup succeeded")
	}
	if data, _ := os.ReadFile(path); string(data) != "previous" {
		t.Errorf("the target was replaced by a failed backup: %q", data)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestInspectRejects(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, make([]byte, 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Inspect(junk, 100*time.Millisecond); !errors.Is(err, ErrNotAStore) {
		t.Errorf("junk file: %v", err)
	}
	if _, err := Inspect(filepath.Join(dir, "missing.db"), 100*time.Millisecond); err == nil {
		t.Error("missing file accepted")
	}
	// A store held by a writer is reported as locked.
	path := filepath.Join(dir, "calendar.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := Inspect(path, 100*time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Errorf("locked store: %v", err)
	}
}

// TestInspectNamesWhatIsMissing: Inspect accepts a store and gives its schema, and names what a
// file of bbolt's format lacks to be one: the meta bucket, the schema version, a record bucket.
func TestInspectNamesWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "calendar.db")
	db, err := Open(store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if schema, err := Inspect(store, time.Second); err != nil || schema != schemaVersion {
		t.Errorf("a store: schema %d, %v; want %d", schema, err, schemaVersion)
	}
	for _, tc := range []struct {
		name    string
		buckets []string
		schema  []byte
		want    string
	}{
		{"no meta bucket", []string{"events"}, nil, "has no meta bucket"},
		{"no schema version", []string{"meta"}, nil, "has no schema version"},
		{"a newer schema", []string{"meta"}, u64(schemaVersion + 1), fmt.Sprintf("has schema %d, this calendard reads up to %d", schemaVersion+1, schemaVersion)},
		{"no users bucket", []string{"meta", "events", "venues", "organizers", "categories", "tags", "outbox"}, u64(schemaVersion), "has no users bucket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".db")
			file, err := boltkv.Open(path, boltkv.Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = file.Update(ctx, func(tx kv.RwTx) error {
				for _, b := range tc.buckets {
					if err := tx.CreateBucketIfNotExists([]byte(b)); err != nil {
						return err
					}
				}
				if tc.schema != nil {
					return tx.Put(bMeta, kSchema, tc.schema)
				}
				return nil
			})
			if cerr := file.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Inspect(path, time.Second); !errors.Is(err, ErrNotAStore) || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("Inspect = %v, want ErrNotAStore ending %q", err, tc.want)
			}
		})
	}
}
