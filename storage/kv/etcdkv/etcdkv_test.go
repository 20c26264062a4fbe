package etcdkv_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
	"github.com/calendard/calendard/storage/kv/kvtest"
)

func TestMain(m *testing.M) { etcdtest.Main(m) }

var (
	ctx   = context.Background()
	recs  = []byte("records")
	links = []byte("links")
)

func TestContract(t *testing.T) {
	srv := etcdtest.Shared(t)
	kvtest.Run(t, func(t *testing.T) kv.Store { return srv.Open(t) })
}

// open opens a store on the shared member under a new prefix, changed by edit when not nil.
func open(t *testing.T, edit func(*etcdkv.Config)) *etcdkv.Store {
	t.Helper()
	cfg := etcdtest.Shared(t).Config()
	if edit != nil {
		edit(&cfg)
	}
	return openConfig(t, cfg)
}

// twoNodes opens two stores on one new prefix, as two nodes of a cluster: a process runs one write
// at a time, so a write that must meet another's commit in the middle of its run meets another
// node's.
func twoNodes(t *testing.T, edit func(*etcdkv.Config)) (*etcdkv.Store, *etcdkv.Store) {
	t.Helper()
	cfg := etcdtest.Shared(t).Config()
	if edit != nil {
		edit(&cfg)
	}
	return openConfig(t, cfg), openConfig(t, cfg)
}

func openConfig(t *testing.T, cfg etcdkv.Config) *etcdkv.Store {
	t.Helper()
	s, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustUpdate(t *testing.T, s kv.Store, fn func(kv.RwTx) error) {
	t.Helper()
	if err := s.Update(ctx, fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

func putKeys(tx kv.RwTx, bucket []byte, keys ...string) error {
	for _, k := range keys {
		if err := tx.Put(bucket, []byte(k), []byte("v"+k)); err != nil {
			return err
		}
	}
	return nil
}

// keys lists a bucket's keys as a read transaction walks them.
func keys(t *testing.T, s kv.Store, bucket []byte) []string {
	t.Helper()
	var got []string
	err := s.View(ctx, func(tx kv.Tx) error {
		c := tx.Cursor(bucket)
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			got = append(got, string(k))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestWatch: a store is told of commits another store (another node) makes to the watched bucket,
// and its watch ends when its context does.
func TestWatch(t *testing.T) {
	cfg := etcdtest.Shared(t).Config()
	a, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := open(t, func(c *etcdkv.Config) { c.Prefix = cfg.Prefix })
	changed := make(chan struct{}, 1)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		done <- b.Watch(wctx, recs, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
	}()
	// The watch starts at the revision current when it is set up, which this test cannot see: it
	// writes until told, a bounded number of times.
	told := false
	for i := 0; i < 100 && !told; i++ {
		mustUpdate(t, a, putOne(recs, "k", strconv.Itoa(i)))
		select {
		case <-changed:
			told = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !told {
		t.Error("no commit of the other store was told")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not end with its context")
	}
}

// TestManyReads: a write that read more keys than etcd compares in one transaction is checked per
// bucket instead, and still notices a change to what it read.
func TestManyReads(t *testing.T) {
	s, other := twoNodes(t, func(c *etcdkv.Config) { c.MaxTxnOps = 8 })
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("k%02d", i))
	}
	for chunk := range slices.Chunk(names, 5) {
		mustUpdate(t, s, func(tx kv.RwTx) error { return putKeys(tx, links, chunk...) })
	}
	runs := 0
	mustUpdate(t, s, func(tx kv.RwTx) error {
		runs++
		total := 0
		for _, k := range names {
			total += len(tx.Get(links, []byte(k)))
		}
		if runs == 1 {
			mustUpdate(t, other, putOne(links, "k07", "longer value"))
		}
		return tx.Put(recs, []byte("total"), []byte(strconv.Itoa(total)))
	})
	if runs != 2 {
		t.Errorf("the transaction ran %d times, want 2", runs)
	}
}

// TestCursorPages: cursors read a bucket in pages, and a guarded cursor merges the transaction's own
// writes in; both read every key once, in order, across page boundaries.
func TestCursorPages(t *testing.T) {
	s := open(t, nil)
	var stored []string
	for i := range 700 {
		stored = append(stored, fmt.Sprintf("%04d", 2*i))
	}
	mustUpdate(t, s, func(tx kv.RwTx) error { return putKeys(tx, recs, stored...) })
	if got := keys(t, s, recs); !slices.Equal(got, stored) {
		t.Fatalf("read %d keys, want %d in order", len(got), len(stored))
	}
	err := s.View(ctx, func(tx kv.Tx) error {
		if got := tx.Count(recs); got != len(stored) {
			t.Errorf("Count = %d, want %d", got, len(stored))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// In a write: odd keys added, every tenth stored key deleted, one changed.
	var want []string
	err = s.Update(ctx, func(tx kv.RwTx) error {
		want = want[:0]
		for i := range 1400 {
			k := fmt.Sprintf("%04d", i)
			switch {
			case i%2 == 1:
				if err := tx.Put(recs, []byte(k), []byte("new")); err != nil {
					return err
				}
			case i%20 == 0:
				if err := tx.Delete(recs, []byte(k)); err != nil {
					return err
				}
				continue
			}
			want = append(want, k)
		}
		if err := tx.Put(recs, []byte("0002"), []byte("changed")); err != nil {
			return err
		}
		c := tx.GuardedCursor(recs)
		var got []string
		for k, v := c.First(); k != nil; k, v = c.Next() {
			got = append(got, string(k))
			if string(k) == "0002" && string(v) != "changed" {
				t.Errorf("0002 = %q, want the transaction's own value", v)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("guarded cursor read %d keys, want %d in order", len(got), len(want))
		}
		if k, _ := c.Seek([]byte("0020")); string(k) != "0021" {
			t.Errorf("Seek(0020) = %q, want 0021 (0020 deleted)", k)
		}
		return errors.New("roll back")
	})
	if err == nil || err.Error() != "roll back" {
		t.Fatal(err)
	}
}

// TestDeleteBucketAndRefill: a bucket deleted and written again in one transaction keeps only the new
// keys (etcd refuses a range deletion over a key the same transaction puts), and a bucket whose name
// begins another's keeps apart from it.
func TestDeleteBucketAndRefill(t *testing.T) {
	s := open(t, nil)
	sub := []byte("records/sub")
	mustUpdate(t, s, func(tx kv.RwTx) error {
		if err := putKeys(tx, recs, "a", "b", "c", "d"); err != nil {
			return err
		}
		if _, err := tx.NextSequence(recs); err != nil {
			return err
		}
		return putKeys(tx, sub, "a")
	})
	mustUpdate(t, s, func(tx kv.RwTx) error {
		if err := tx.DeleteBucket(recs); err != nil {
			return err
		}
		if got := tx.Get(recs, []byte("a")); got != nil {
			t.Errorf("a deleted bucket's key reads %q", got)
		}
		return putKeys(tx, recs, "b", "e")
	})
	if got, want := keys(t, s, recs), []string{"b", "e"}; !slices.Equal(got, want) {
		t.Errorf("keys = %q, want %q", got, want)
	}
	if got, want := keys(t, s, sub), []string{"a"}; !slices.Equal(got, want) {
		t.Errorf("the other bucket's keys = %q, want %q", got, want)
	}
	err := s.View(ctx, func(tx kv.Tx) error {
		if got := tx.Sequence(recs); got != 0 {
			t.Errorf("sequence = %d after the bucket's deletion", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPrefixesKeepApart: two stores on one cluster under different prefixes see nothing of each other.
func TestPrefixesKeepApart(t *testing.T) {
	a, b := open(t, nil), open(t, nil)
	mustUpdate(t, a, func(tx kv.RwTx) error { return putKeys(tx, recs, "a") })
	if got := keys(t, b, recs); len(got) != 0 {
		t.Errorf("the other prefix reads %q", got)
	}
}
