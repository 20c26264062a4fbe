package etcdkv_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
)

// TestConcurrentIncrements: read-modify-write transactions that conflict run again, so no increment
// is lost.
func TestConcurrentIncrements(t *testing.T) {
	s := open(t, nil)
	const writers, each = 3, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Go(func() {
			for range each {
				err := s.Update(ctx, func(tx kv.RwTx) error {
					n, _ := strconv.Atoi(string(tx.Get(recs, []byte("n"))))
					return tx.Put(recs, []byte("n"), []byte(strconv.Itoa(n+1)))
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	err := s.View(ctx, func(tx kv.Tx) error {
		if got := string(tx.Get(recs, []byte("n"))); got != strconv.Itoa(writers*each) {
			t.Errorf("n = %s, want %d", got, writers*each)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadsConflict: a write whose reads were changed by another commit between its read and its
// commit runs again and writes from what is stored then; one whose reads were not changed runs once.
// The other commit, another node's, is made from inside the first run, so the interleaving is certain.
func TestReadsConflict(t *testing.T) {
	tests := []struct {
		name string
		// read is what the transaction reads: it stores what it read as "seen".
		read func(tx kv.RwTx) string
		// meanwhile is the other commit.
		meanwhile func(tx kv.RwTx) error
		wantRuns  int
	}{
		{"a key read is changed", readKey("b"), putOne(links, "b", "new"), 2},
		{"a key read is deleted", readKey("b"), deleteOne(links, "b"), 2},
		{"an absent key read is created", readKey("bb"), putOne(links, "bb", "new"), 2},
		{"another key is changed", readKey("b"), putOne(links, "c", "new"), 1},
		{"a key is added to a guarded range", walkFrom(""), putOne(links, "bb", ""), 2},
		{"a key is deleted from a guarded range", walkFrom(""), deleteOne(links, "c"), 2},
		{"a key in a guarded range is changed", walkFrom("b"), putOne(links, "c", "new"), 2},
		{"a key is added before the guarded span", walkFrom("b"), putOne(links, "a0", ""), 1},
		{"a key is added to another bucket", walkFrom(""), putOne(recs, "x", ""), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, other := twoNodes(t, nil)
			mustUpdate(t, s, func(tx kv.RwTx) error { return putKeys(tx, links, "a", "b", "c") })
			runs := 0
			var want string
			mustUpdate(t, s, func(tx kv.RwTx) error {
				runs++
				seen := tc.read(tx)
				if runs == 1 {
					mustUpdate(t, other, tc.meanwhile)
					// What a run started now reads: the value the retried run must store.
					if err := other.Update(ctx, func(tx kv.RwTx) error { want = tc.read(tx); return errors.New("read only") }); err == nil {
						t.Fatal("the probe committed")
					}
				}
				return tx.Put(recs, []byte("seen"), []byte(seen))
			})
			if runs != tc.wantRuns {
				t.Errorf("the transaction ran %d times, want %d", runs, tc.wantRuns)
			}
			err := s.View(ctx, func(tx kv.Tx) error {
				if got := string(tx.Get(recs, []byte("seen"))); got != want {
					t.Errorf("stored %q, read from before the other commit; want %q", got, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func readKey(key string) func(tx kv.RwTx) string {
	return func(tx kv.RwTx) string { return fmt.Sprintf("%q", tx.Get(links, []byte(key))) }
}

// walkFrom reads the links bucket from seek to its end through a guarded cursor.
func walkFrom(seek string) func(tx kv.RwTx) string {
	return func(tx kv.RwTx) string {
		var b strings.Builder
		c := tx.GuardedCursor(links)
		for k, v := c.Seek([]byte(seek)); k != nil; k, v = c.Next() {
			fmt.Fprintf(&b, "%s=%s,", k, v)
		}
		return b.String()
	}
}

func putOne(bucket []byte, key, value string) func(kv.RwTx) error {
	return func(tx kv.RwTx) error { return tx.Put(bucket, []byte(key), []byte(value)) }
}

func deleteOne(bucket []byte, key string) func(kv.RwTx) error {
	return func(tx kv.RwTx) error { return tx.Delete(bucket, []byte(key)) }
}

// TestCompactedMidway: a write whose revision is compacted away while it runs reads again at a newer
// one (it runs again) and commits; a read transaction in the same case fails with etcd's
// ErrCompacted, since kv runs a View's function once.
func TestCompactedMidway(t *testing.T) {
	srv := etcdtest.Shared(t)
	s, other := twoNodes(t, nil)
	mustUpdate(t, s, func(tx kv.RwTx) error { return putKeys(tx, recs, "a", "b") })
	// compactAfterFirstRead reads "a", moves the store past the revision read at (another node's
	// write), compacts, and reads "b" at that revision.
	compactAfterFirstRead := func(g kv.Getter) {
		g.Get(recs, []byte("a"))
		mustUpdate(t, other, putOne(links, "x", "moves the revision on"))
		if err := srv.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		g.Get(recs, []byte("b"))
	}
	runs := 0
	mustUpdate(t, s, func(tx kv.RwTx) error {
		runs++
		if runs == 1 {
			compactAfterFirstRead(tx)
		}
		return putKeys(tx, recs, "c")
	})
	if runs != 2 {
		t.Errorf("the write ran %d times, want 2", runs)
	}
	err := s.View(ctx, func(tx kv.Tx) error { compactAfterFirstRead(tx); return nil })
	if !errors.Is(err, rpctypes.ErrCompacted) {
		t.Errorf("View = %v, want ErrCompacted", err)
	}
}

// TestContended: a write that conflicts on every run gives up after a bounded number of runs with
// ErrContended, writing nothing, rather than spinning until its context ends; the service answers it
// as a store unavailable for now (503), not as a failure of its own.
func TestContended(t *testing.T) {
	s, other := twoNodes(t, nil)
	runs := 0
	err := s.Update(ctx, func(tx kv.RwTx) error {
		runs++
		tx.Get(recs, []byte("hot"))
		mustUpdate(t, other, putOne(recs, "hot", strconv.Itoa(runs)))
		return tx.Put(recs, []byte("mine"), nil)
	})
	if !errors.Is(err, etcdkv.ErrContended) || !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("Update = %v, want ErrContended, an ErrUnavailable", err)
	}
	if runs < 2 || runs > 100 {
		t.Errorf("%d runs, want a few, bounded", runs)
	}
	if got := keys(t, s, recs); !slices.Equal(got, []string{"hot"}) {
		t.Errorf("keys = %q, want only the other writes'", got)
	}
}

// TestTooLarge: a write over etcd's limits fails with ErrTooLarge and writes nothing, whether the
// client's limits or the server's refuse it; it is never cut down to what fits.
func TestTooLarge(t *testing.T) {
	many := func(n int) func(kv.RwTx) error {
		return func(tx kv.RwTx) error {
			for i := range n {
				if err := tx.Put(recs, fmt.Appendf(nil, "%05d", i), nil); err != nil {
					return err
				}
			}
			return nil
		}
	}
	tests := []struct {
		name  string
		edit  func(*etcdkv.Config)
		write func(kv.RwTx) error
	}{
		{"more operations than the client's limit", nil, many(etcdkv.DefaultMaxTxnOps + 1)},
		{"more bytes than the client's limit", nil, putOne(recs, "big", strings.Repeat("x", etcdkv.DefaultMaxRequestBytes))},
		{"more operations than the server's limit", func(c *etcdkv.Config) { c.MaxTxnOps = 2 * etcdtest.MaxTxnOps }, many(etcdtest.MaxTxnOps + 1)},
		{"more bytes than the server's limit", func(c *etcdkv.Config) { c.MaxRequestBytes = 2 * etcdtest.MaxRequestBytes },
			putOne(recs, "big", strings.Repeat("x", etcdtest.MaxRequestBytes+1))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, func(c *etcdkv.Config) {
				c.MaxTxnOps, c.MaxRequestBytes = 0, 0 // etcd's defaults
				if tc.edit != nil {
					tc.edit(c)
				}
			})
			if err := s.Update(ctx, tc.write); !errors.Is(err, etcdkv.ErrTooLarge) {
				t.Fatalf("Update = %v, want ErrTooLarge", err)
			}
			if got := keys(t, s, recs); len(got) != 0 {
				t.Errorf("%d keys written by a refused write", len(got))
			}
		})
	}
	// The limit is etcd's default: a write of exactly that many operations passes.
	s := open(t, func(c *etcdkv.Config) { c.MaxTxnOps = 0 })
	mustUpdate(t, s, many(etcdkv.DefaultMaxTxnOps))
}

// TestLargeWrite: a transaction of several MiB within the cluster's limits is written, beyond the
// 2 MiB the etcd client sends by default.
func TestLargeWrite(t *testing.T) {
	s := open(t, nil)
	big := strings.Repeat("x", etcdtest.MaxRequestBytes/2)
	mustUpdate(t, s, putOne(recs, "big", big))
	var got []byte
	if err := s.View(ctx, func(tx kv.Tx) error { got = tx.Get(recs, []byte("big")); return nil }); err != nil || string(got) != big {
		t.Errorf("read back %d bytes (%v), want %d", len(got), err, len(big))
	}
}

// TestConcurrentWritersAllLand: writers that all take the change log's next sequence number
// conflict on every concurrent commit; with the pauses between runs, each of them lands.
func TestConcurrentWritersAllLand(t *testing.T) {
	s := open(t, nil)
	const writers, each = 32, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				errs <- s.Update(ctx, func(tx kv.RwTx) error {
					seq, err := tx.NextSequence(recs)
					if err != nil {
						return err
					}
					return tx.Put(recs, []byte(fmt.Sprintf("%03d", seq)), []byte(fmt.Sprint(w, i)))
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a concurrent write failed: %v", err)
		}
	}
	if got := keys(t, s, recs); len(got) != writers*each {
		t.Errorf("%d keys, want %d", len(got), writers*each)
	}
}

// BenchmarkConcurrentWriters: eight writers through one store (one node), each write taking the next
// sequence number as every write of calendard takes the change log's; on the package's one embedded
// member, fsync on.
func BenchmarkConcurrentWriters(b *testing.B) {
	cfg := etcdtest.Shared(b).Config()
	s, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetParallelism(8 / runtime.GOMAXPROCS(0))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			err := s.Update(ctx, func(tx kv.RwTx) error {
				seq, err := tx.NextSequence(recs)
				if err != nil {
					return err
				}
				return tx.Put(recs, []byte(fmt.Sprintf("%08d", seq)), nil)
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}
