package boltkv

import (
	"context"
	"fmt"
	"path/filepath"
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
