package boltkv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/kvtest"
)

// openBolt opens a new bbolt file. Its memory map starts large enough for the tests' writes: a write
// that grows it waits for every open read transaction, and the Snapshot test writes during a read.
func openBolt(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "kv.db"), 0o600, &bolt.Options{Timeout: time.Second, InitialMmapSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestContract(t *testing.T) {
	kvtest.Run(t, func(t *testing.T) kv.Store { return New(openBolt(t)) })
}

// TestSameFile: what the seam writes is what bbolt alone reads (bucket, key, value, sequence), and
// the reverse, so files written before the seam open through it unchanged.
func TestSameFile(t *testing.T) {
	ctx := context.Background()
	bdb := openBolt(t)
	s := New(bdb)
	defer s.Close()
	err := bdb.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("old"))
		if err != nil {
			return err
		}
		if err := b.SetSequence(41); err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("written by bbolt"))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx kv.RwTx) error {
		if got := string(tx.Get([]byte("old"), []byte("k"))); got != "written by bbolt" {
			t.Errorf("the seam reads %q", got)
		}
		if n, err := tx.NextSequence([]byte("old")); err != nil || n != 42 {
			t.Errorf("NextSequence of bbolt's sequence 41 = %d, %v", n, err)
		}
		if err := tx.CreateBucketIfNotExists([]byte("new")); err != nil {
			return err
		}
		if _, err := tx.NextSequence([]byte("new")); err != nil {
			return err
		}
		if err := tx.Put([]byte("new"), []byte("k"), []byte("written by the seam")); err != nil {
			return err
		}
		return tx.Put([]byte("new"), []byte("empty"), nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = bdb.View(func(tx *bolt.Tx) error {
		if got := tx.Bucket([]byte("old")).Sequence(); got != 42 {
			t.Errorf("bbolt reads sequence %d, want 42", got)
		}
		b := tx.Bucket([]byte("new"))
		if b == nil {
			t.Fatal("the seam's bucket is no bbolt bucket")
		}
		if got := b.Sequence(); got != 1 {
			t.Errorf("bbolt reads sequence %d, want 1", got)
		}
		if got := string(b.Get([]byte("k"))); got != "written by the seam" {
			t.Errorf("bbolt reads %q", got)
		}
		if got := b.Get([]byte("empty")); got == nil || len(got) != 0 {
			t.Errorf("bbolt reads %q for an empty value", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadTxBuckets: a read transaction that reads more buckets than it keeps open reads each right,
// on its first lookup and again.
func TestReadTxBuckets(t *testing.T) {
	s := New(openBolt(t))
	defer s.Close()
	var names [][]byte
	for i := range readCacheSize + 3 {
		names = append(names, []byte(fmt.Sprint("bucket ", i)))
	}
	ctx := context.Background()
	err := s.Update(ctx, func(tx kv.RwTx) error {
		for _, name := range names {
			if err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
			if err := tx.Put(name, []byte("name"), name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx kv.Tx) error {
		for range 2 {
			for _, name := range names {
				if got := tx.Get(name, []byte("name")); string(got) != string(name) {
					t.Errorf("bucket %s holds %q", name, got)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpen: Open creates a file and reports a file another process holds as kv.ErrLocked once the
// wait is over; a read-only open of a file that is not bbolt's fails with bbolt's error.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kv.db")
	s, err := Open(path, Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Path() != path {
		t.Errorf("Path = %q, want %q", s.Path(), path)
	}
	if _, err := Open(path, Options{Timeout: 50 * time.Millisecond, ReadOnly: true}); !errors.Is(err, kv.ErrLocked) {
		t.Errorf("a file held by a writer: %v, want kv.ErrLocked", err)
	}
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, make([]byte, 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(junk, Options{ReadOnly: true}); err == nil || errors.Is(err, kv.ErrLocked) {
		t.Errorf("a file of zeros: %v, want bbolt's error", err)
	}
}

// TestBackup: a backup is a bbolt file holding what the store held when it began, with its buckets
// and sequences, and its pages check out; a cancelled context ends it with its error.
func TestBackup(t *testing.T) {
	ctx := context.Background()
	s := New(openBolt(t))
	defer s.Close()
	err := s.Update(ctx, func(tx kv.RwTx) error {
		for _, b := range []string{"b", "a"} {
			if err := tx.CreateBucketIfNotExists([]byte(b)); err != nil {
				return err
			}
		}
		if _, err := tx.NextSequence([]byte("a")); err != nil {
			return err
		}
		return tx.Put([]byte("b"), []byte("k"), []byte("v"))
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := s.Backup(ctx, &buf)
	if err != nil || n != int64(buf.Len()) || n == 0 {
		t.Fatalf("Backup = %d, %v; wrote %d bytes", n, err, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	back, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if err := back.Check(); err != nil {
		t.Errorf("the backup's pages: %v", err)
	}
	if names, err := back.Buckets(); err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("the backup's buckets: %q, %v; want a, b", names, err)
	}
	err = back.View(ctx, func(tx kv.Tx) error {
		if v := tx.Get([]byte("b"), []byte("k")); string(v) != "v" || tx.Sequence([]byte("a")) != 1 {
			t.Errorf("the backup holds b/k = %q, sequence of a %d", v, tx.Sequence([]byte("a")))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if n, err := s.Backup(cctx, io.Discard); !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("Backup with a cancelled context = %d, %v", n, err)
	}
}

// TestNoSpace: a commit the file system has no room for (ENOSPC, EDQUOT) is kv.ErrNoSpace and keeps
// the file system's error and message; other failures are returned as they are.
func TestNoSpace(t *testing.T) {
	ctx := context.Background()
	s := New(openBolt(t))
	defer s.Close()
	other := errors.New("another failure")
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"a full disk", &os.PathError{Op: "write", Path: "kv.db", Err: syscall.ENOSPC}, true},
		{"a quota", fmt.Errorf("sync: %w", syscall.EDQUOT), true},
		{"another failure", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(ctx, func(kv.RwTx) error { return tc.err })
			if got := errors.Is(err, kv.ErrNoSpace); got != tc.want || !errors.Is(err, tc.err) || err.Error() != tc.err.Error() {
				t.Errorf("Update = %v (ErrNoSpace %v), want ErrNoSpace %v around %v", err, got, tc.want, tc.err)
			}
		})
	}
}
