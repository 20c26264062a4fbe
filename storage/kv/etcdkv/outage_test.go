package etcdkv_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
)

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
// Campaign, cancelled, waits for the cluster to resign.
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
// lost is found applied rather than run again.
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

// TestQuotaUsedUp: a cluster whose space quota is used up (etcd's NOSPACE alarm) refuses writes with
// kv.ErrNoSpace, as a full disk does, and still serves reads.
func TestQuotaUsedUp(t *testing.T) {
	srv, err := etcdtest.StartWithQuota(4 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s := openConfig(t, srv.Config())
	value := strings.Repeat("x", 512<<10)
	var werr error
	for i := 0; i < 64 && werr == nil; i++ {
		werr = s.Update(ctx, putOne(recs, fmt.Sprint(i), value))
	}
	if !errors.Is(werr, kv.ErrNoSpace) {
		t.Fatalf("writes past the quota: %v, want kv.ErrNoSpace", werr)
	}
	if got := keys(t, s, recs); len(got) == 0 {
		t.Error("no key readable after the quota was used up")
	}
}
