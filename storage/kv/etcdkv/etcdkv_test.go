package etcdkv_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

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

// TestUnavailable: a cluster that does not answer fails Open, View and Update with ErrUnavailable
// within the timeouts, never a hang.
func TestUnavailable(t *testing.T) {
	const timeout = 300 * time.Millisecond
	_, err := etcdkv.Open(ctx, etcdkv.Config{Endpoints: []string{"http://127.0.0.1:1"}, DialTimeout: timeout})
	if !errors.Is(err, etcdkv.ErrUnavailable) {
		t.Errorf("Open of no cluster = %v, want ErrUnavailable", err)
	}
	srv, err := etcdtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	cfg := srv.Config()
	cfg.RequestTimeout = timeout
	s, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	defer s.Close()
	mustUpdate(t, s, func(tx kv.RwTx) error { return putKeys(tx, recs, "a") })
	srv.Close()
	start := time.Now()
	ran := false
	if err := s.View(ctx, func(tx kv.Tx) error { tx.Get(recs, []byte("a")); ran = true; return nil }); !errors.Is(err, etcdkv.ErrUnavailable) {
		t.Errorf("View = %v, want ErrUnavailable", err)
	}
	if ran {
		t.Error("a read of a stopped cluster returned")
	}
	err = s.Update(ctx, func(tx kv.RwTx) error { return putKeys(tx, recs, "b") })
	if !errors.Is(err, etcdkv.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Update = %v, want ErrUnavailable and not the caller's deadline", err)
	}
	if d := time.Since(start); d > 10*timeout {
		t.Errorf("the failures took %v, with requests bounded by %v", d, timeout)
	}
	// The caller's own deadline is reported as such.
	dctx, cancel := context.WithTimeout(ctx, timeout/3)
	defer cancel()
	if err := s.View(dctx, func(tx kv.Tx) error { tx.Get(recs, []byte("a")); return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("View past the caller's deadline = %v, want context.DeadlineExceeded", err)
	}
}

// TestElect: of the stores campaigning on one prefix one leads; one that ends resigns and another
// leads at once; one that dies (its client gone, no resignation) is replaced once its lease runs out.
func TestElect(t *testing.T) {
	cfg := etcdtest.Shared(t).Config()
	type lead struct {
		who  string
		lead bool
	}
	told := make(chan lead, 16)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	campaign := func(who string) (*etcdkv.Store, context.CancelFunc) {
		s, err := etcdkv.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		cctx, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		wg.Go(func() { _ = s.Elect(cctx, "jobs", func(l bool) { told <- lead{who, l} }) })
		return s, cancel
	}
	next := func(within time.Duration) lead {
		t.Helper()
		select {
		case l := <-told:
			return l
		case <-time.After(within):
			t.Fatalf("no change of leadership within %s", within)
			return lead{}
		}
	}
	_, stopA := campaign("a")
	if l := next(10 * time.Second); l != (lead{"a", true}) {
		t.Fatalf("first: %+v, want a leading", l)
	}
	b, _ := campaign("b")
	c, _ := campaign("c")
	stopA()
	if l := next(10 * time.Second); l != (lead{"a", false}) {
		t.Fatalf("after a ended: %+v, want a to stop leading", l)
	}
	second := next(10 * time.Second)
	if !second.lead || second.who == "a" {
		t.Fatalf("after a resigned: %+v, want b or c leading", second)
	}
	// The leader dies: its client closes without resigning. The other takes over within the lease.
	dead, other := b, "c"
	if second.who == "c" {
		dead, other = c, "b"
	}
	dead.Close()
	for {
		l := next(3 * etcdkv.ElectionTTL * time.Second)
		if l == (lead{other, true}) {
			break
		}
		if l.lead {
			t.Fatalf("after the leader died: %+v, want %s leading", l, other)
		}
	}
}

// TestElectEndsWithTheClusterDown: with the cluster out of reach, a campaign waiting to lead and a
// leader each end once their context does, rather than when the cluster comes back: etcd's own
// Campaign, cancelled, waits for the cluster to resign (issue 41).
func TestElectEndsWithTheClusterDown(t *testing.T) {
	member, err := etcdtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	cfg := member.Config()
	cfg.RequestTimeout = 200 * time.Millisecond
	leading := make(chan bool, 4)
	type campaign struct {
		cancel context.CancelFunc
		ended  chan error
	}
	start := func() campaign {
		s, err := etcdkv.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		cctx, cancel := context.WithCancel(ctx)
		ended := make(chan error, 1)
		go func() { ended <- s.Elect(cctx, "jobs", func(l bool) { leading <- l }) }()
		return campaign{cancel, ended}
	}
	leader := start()
	if l := <-leading; !l {
		t.Fatal("the first campaign was told it stopped leading")
	}
	follower := start()
	// The follower waits in etcd's Campaign once its key is in the election's queue.
	watcher, err := clientv3.New(clientv3.Config{Endpoints: cfg.Endpoints})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	for queued := int64(0); queued < 2; time.Sleep(10 * time.Millisecond) {
		resp, err := watcher.Get(ctx, cfg.Prefix+"election/jobs", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		queued = resp.Count
	}
	member.Close()
	for _, c := range []campaign{follower, leader} {
		c.cancel()
		select {
		case err := <-c.ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Elect = %v, want context.Canceled", err)
			}
		case <-time.After(10 * cfg.RequestTimeout):
			t.Fatal("a campaign did not end with its context while the cluster was down")
		}
	}
}

// TestWritesThroughALeaderChange: writes that go on while etcd's leader is killed all succeed,
// each exactly once, within a request timeout several elections long: a commit or read whose member
// lost its leader is sent again once another is elected, and a commit applied though its answer was
// lost is found applied rather than run again (issue 41).
func TestWritesThroughALeaderChange(t *testing.T) {
	c, err := etcdtest.StartCluster(3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cfg := c.Config()
	cfg.RequestTimeout = 10 * time.Second
	var mu sync.Mutex
	var failed []error
	written := map[string]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Writers enough that some write is in flight when the leader dies, each on a store (a client)
	// of its own, since a store sends one write at a time, and each to a bucket of its own: a commit
	// that conflicts with another's after an attempt that may have been applied is reported as
	// unknown, which is not what this test is about.
	buckets := make([][]byte, 8)
	for w := range buckets {
		buckets[w] = []byte(fmt.Sprint("writer", w))
		bucket := buckets[w]
		s, err := etcdkv.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				v := fmt.Sprintf("writer %d, write %d", w, i)
				err := s.Update(ctx, func(tx kv.RwTx) error {
					seq, err := tx.NextSequence(bucket)
					if err != nil {
						return err
					}
					return tx.Put(bucket, []byte(fmt.Sprintf("%08d", seq)), []byte(v))
				})
				mu.Lock()
				if err != nil {
					failed = append(failed, err)
				} else {
					written[v] = true
				}
				mu.Unlock()
			}
		})
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(written) + len(failed)
	}
	waitWrites := func(n int) {
		for want := count() + n; count() < want; time.Sleep(5 * time.Millisecond) {
		}
	}
	waitWrites(20)
	leader := c.Leader()
	if leader == nil {
		t.Fatal("no leader")
	}
	leader.Stop()
	waitWrites(40)
	close(stop)
	wg.Wait()
	for _, err := range failed {
		t.Errorf("a write across the leader change failed: %v", err)
	}
	s, err := etcdkv.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stored := map[string]int{}
	if err := s.View(ctx, func(tx kv.Tx) error {
		for _, b := range buckets {
			c := tx.Cursor(b)
			for k, v := c.First(); k != nil; k, v = c.Next() {
				stored[string(v)]++
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for v, n := range stored {
		if n > 1 {
			t.Errorf("write %s stored %d times", v, n)
		}
	}
	for v := range written {
		if stored[v] == 0 {
			t.Errorf("acknowledged write %s is not stored", v)
		}
	}
	t.Logf("%d writes acknowledged, %d stored", len(written), len(stored))
}

// TestLanded: a commit whose answer was lost is found applied, at its revision, when every key it
// put holds its value as of one revision after its snapshot; later writes of the other keys do not
// hide it, and a commit never sent, or one whose record was written again since, is not found.
func TestLanded(t *testing.T) {
	s := open(t, nil)
	record := func(v string) func(kv.RwTx) error {
		return func(tx kv.RwTx) error {
			seq, err := tx.NextSequence(recs)
			if err != nil {
				return err
			}
			return tx.Put(recs, []byte("record"), []byte(fmt.Sprintf("%s, the record's value, %d", v, seq)))
		}
	}
	write := func(fn func(kv.RwTx) error) func() {
		return func() {
			if err := s.Update(ctx, fn); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name    string
		commit  bool
		between func()
		want    bool
	}{
		{"applied", true, func() {}, true},
		{"applied, its sequence taken again since", true, write(func(tx kv.RwTx) error { _, err := tx.NextSequence(recs); return err }), true},
		{"never sent", false, func() {}, false},
		{"applied, its record written again since", true, write(record("another")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			committed, found, ok, err := etcdkv.Landed(ctx, s, record("this"), tc.commit, tc.between)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.want || ok && found != committed {
				t.Errorf("landed = %d, %v; want %v at the commit's revision %d", found, ok, tc.want, committed)
			}
		})
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
