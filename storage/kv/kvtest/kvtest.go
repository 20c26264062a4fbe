// Package kvtest is the contract of kv.Store written as tests, for every backend to run: what the
// store's logic relies on holds for each, or its tests fail.
package kvtest

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/calendard/calendard/storage/kv"
)

var (
	bucket = []byte("records")
	other  = []byte("other")
)

// Run runs the contract tests, each on a new, empty store that open returns; Run closes it.
func Run(t *testing.T, open func(t *testing.T) kv.Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s kv.Store)
	}{
		{"PointReadsAndWrites", testPointReadsAndWrites},
		{"RollbackOnError", testRollbackOnError},
		{"Sequences", testSequences},
		{"CursorOrder", testCursorOrder},
		{"GuardedCursorReadsOwnWrites", testGuardedCursor},
		{"DeleteBucket", testDeleteBucket},
		{"Snapshot", testSnapshot},
		{"CancelledContext", testCancelledContext},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			defer func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			}()
			update(t, s, func(tx kv.RwTx) error {
				if err := tx.CreateBucketIfNotExists(bucket); err != nil {
					return err
				}
				return tx.CreateBucketIfNotExists(other)
			})
			tc.test(t, s)
		})
	}
}

func update(t *testing.T, s kv.Store, fn func(kv.RwTx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

func view(t *testing.T, s kv.Store, fn func(kv.Tx) error) {
	t.Helper()
	if err := s.View(context.Background(), fn); err != nil {
		t.Fatalf("view: %v", err)
	}
}

func put(tx kv.RwTx, pairs ...string) error {
	for i := 0; i < len(pairs); i += 2 {
		if err := tx.Put(bucket, []byte(pairs[i]), []byte(pairs[i+1])); err != nil {
			return err
		}
	}
	return nil
}

// wantValue checks a point read; want nil means absent.
func wantValue(t *testing.T, g kv.Getter, key string, want []byte) {
	t.Helper()
	got := g.Get(bucket, []byte(key))
	if (got == nil) != (want == nil) || !bytes.Equal(got, want) {
		t.Errorf("Get(%q) = %q (nil: %v), want %q (nil: %v)", key, got, got == nil, want, want == nil)
	}
}

func testPointReadsAndWrites(t *testing.T, s kv.Store) {
	update(t, s, func(tx kv.RwTx) error {
		if err := put(tx, "a", "1", "b", "2"); err != nil {
			return err
		}
		// An empty value is a present key, in the writing transaction too.
		if err := tx.Put(bucket, []byte("empty"), nil); err != nil {
			return err
		}
		wantValue(t, tx, "a", []byte("1"))
		wantValue(t, tx, "empty", []byte{})
		if err := tx.Delete(bucket, []byte("absent")); err != nil {
			t.Errorf("deleting an absent key: %v", err)
		}
		return nil
	})
	view(t, s, func(tx kv.Tx) error {
		wantValue(t, tx, "a", []byte("1"))
		wantValue(t, tx, "b", []byte("2"))
		wantValue(t, tx, "empty", []byte{})
		wantValue(t, tx, "absent", nil)
		if got := tx.Get(other, []byte("a")); got != nil {
			t.Errorf("a key of one bucket is read from another: %q", got)
		}
		return nil
	})
	update(t, s, func(tx kv.RwTx) error {
		if err := tx.Put(bucket, []byte("a"), []byte("3")); err != nil {
			return err
		}
		return tx.Delete(bucket, []byte("b"))
	})
	view(t, s, func(tx kv.Tx) error {
		wantValue(t, tx, "a", []byte("3"))
		wantValue(t, tx, "b", nil)
		return nil
	})
}

func testRollbackOnError(t *testing.T, s kv.Store) {
	errFail := errors.New("fail")
	err := s.Update(context.Background(), func(tx kv.RwTx) error {
		if err := put(tx, "a", "1"); err != nil {
			return err
		}
		if _, err := tx.NextSequence(bucket); err != nil {
			return err
		}
		return errFail
	})
	if !errors.Is(err, errFail) {
		t.Fatalf("Update = %v, want the function's error", err)
	}
	wantEmpty(t, s, "after a rollback")
}

// wantEmpty checks that the bucket has neither key "a" nor a sequence.
func wantEmpty(t *testing.T, s kv.Store, when string) {
	t.Helper()
	view(t, s, func(tx kv.Tx) error {
		wantValue(t, tx, "a", nil)
		if got := tx.Sequence(bucket); got != 0 {
			t.Errorf("sequence %d %s, want 0", got, when)
		}
		return nil
	})
}

func testSequences(t *testing.T, s kv.Store) {
	next := func(tx kv.RwTx, b []byte, want uint64) {
		t.Helper()
		got, err := tx.NextSequence(b)
		if err != nil || got != want {
			t.Errorf("NextSequence(%s) = %d, %v; want %d", b, got, err, want)
		}
	}
	update(t, s, func(tx kv.RwTx) error {
		next(tx, bucket, 1)
		next(tx, bucket, 2)
		next(tx, other, 1)
		if got := tx.Sequence(bucket); got != 2 {
			t.Errorf("Sequence in the transaction = %d, want 2", got)
		}
		return nil
	})
	view(t, s, func(tx kv.Tx) error {
		if got := tx.Sequence(bucket); got != 2 {
			t.Errorf("Sequence = %d, want 2", got)
		}
		return nil
	})
	update(t, s, func(tx kv.RwTx) error {
		next(tx, bucket, 3)
		return nil
	})
	// SetSequence moves the counter in one step; NextSequence continues after it.
	update(t, s, func(tx kv.RwTx) error {
		if err := tx.SetSequence(bucket, 1000); err != nil {
			t.Errorf("SetSequence: %v", err)
		}
		next(tx, bucket, 1001)
		return nil
	})
	view(t, s, func(tx kv.Tx) error {
		if got := tx.Sequence(bucket); got != 1001 {
			t.Errorf("Sequence after SetSequence = %d, want 1001", got)
		}
		return nil
	})
}

// walk lists the keys from the cursor's position on.
func walk(k []byte, c kv.Cursor) []string {
	var keys []string
	for ; k != nil; k, _ = c.Next() {
		keys = append(keys, string(k))
	}
	return keys
}

func testCursorOrder(t *testing.T, s kv.Store) {
	update(t, s, func(tx kv.RwTx) error {
		return put(tx, "b", "", "ab", "", "\xff", "", "a", "v", "\x00", "", "aa", "")
	})
	view(t, s, func(tx kv.Tx) error {
		c := tx.Cursor(bucket)
		k, _ := c.First()
		if got, want := walk(k, c), []string{"\x00", "a", "aa", "ab", "b", "\xff"}; !slices.Equal(got, want) {
			t.Errorf("First..Next = %q, want %q", got, want)
		}
		if k, v := c.Seek([]byte("a")); string(k) != "a" || string(v) != "v" {
			t.Errorf("Seek(a) = %q, %q; want the key and its value", k, v)
		}
		for _, tc := range []struct{ seek, want string }{{"ab", "ab"}, {"abc", "b"}, {"", "\x00"}} {
			if k, _ := c.Seek([]byte(tc.seek)); string(k) != tc.want {
				t.Errorf("Seek(%q) = %q, want %q", tc.seek, k, tc.want)
			}
		}
		if k, _ := c.Seek([]byte("\xff\x00")); k != nil {
			t.Errorf("Seek past the last key = %q, want nil", k)
		}
		if k, _ := tx.Cursor(other).First(); k != nil {
			t.Errorf("First of an empty bucket = %q, want nil", k)
		}
		if got := tx.Count(bucket); got != 6 {
			t.Errorf("Count = %d, want 6", got)
		}
		return nil
	})
}

func testGuardedCursor(t *testing.T, s kv.Store) {
	update(t, s, func(tx kv.RwTx) error { return put(tx, "a", "", "c", "") })
	update(t, s, func(tx kv.RwTx) error {
		if err := put(tx, "b", ""); err != nil {
			return err
		}
		if err := tx.Delete(bucket, []byte("c")); err != nil {
			return err
		}
		c := tx.GuardedCursor(bucket)
		k, _ := c.First()
		if got, want := walk(k, c), []string{"a", "b"}; !slices.Equal(got, want) {
			t.Errorf("guarded cursor = %q, want %q", got, want)
		}
		return nil
	})
}

func testDeleteBucket(t *testing.T, s kv.Store) {
	update(t, s, func(tx kv.RwTx) error {
		if _, err := tx.NextSequence(bucket); err != nil {
			return err
		}
		return put(tx, "a", "1")
	})
	update(t, s, func(tx kv.RwTx) error {
		// Creating an existing bucket keeps it.
		if err := tx.CreateBucketIfNotExists(bucket); err != nil {
			return err
		}
		wantValue(t, tx, "a", []byte("1"))
		if err := tx.DeleteBucket(bucket); err != nil {
			return err
		}
		return tx.CreateBucketIfNotExists(bucket)
	})
	wantEmpty(t, s, "in a re-created bucket")
}

// testSnapshot commits a write while a read transaction is open: the reader keeps its snapshot. The
// write must not wait for the reader: bbolt's would when it grows the file's memory map, so its store
// is opened with room to write (bolt.Options.InitialMmapSize).
func testSnapshot(t *testing.T, s kv.Store) {
	update(t, s, func(tx kv.RwTx) error { return put(tx, "a", "1") })
	view(t, s, func(tx kv.Tx) error {
		wantValue(t, tx, "a", []byte("1"))
		done := make(chan error)
		go func() {
			done <- s.Update(context.Background(), func(tx kv.RwTx) error { return put(tx, "a", "2", "b", "2") })
		}()
		if err := <-done; err != nil {
			t.Fatalf("update during a read: %v", err)
		}
		wantValue(t, tx, "a", []byte("1"))
		wantValue(t, tx, "b", nil)
		return nil
	})
	view(t, s, func(tx kv.Tx) error {
		wantValue(t, tx, "a", []byte("2"))
		return nil
	})
}

func testCancelledContext(t *testing.T, s kv.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := s.View(ctx, func(kv.Tx) error { ran = true; return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("View = %v, want context.Canceled", err)
	}
	if err := s.Update(ctx, func(kv.RwTx) error { ran = true; return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Update = %v, want context.Canceled", err)
	}
	if ran {
		t.Error("a transaction ran with a cancelled context")
	}
}
