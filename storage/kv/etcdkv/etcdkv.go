// Package etcdkv is the kv.Store on an etcd cluster: calendard's store in cluster mode (DESIGN 8).
//
// # Basics
//
// Every key lives under one prefix (Config.Prefix, "/calendard/" by default), so several stores can
// share a cluster:
//
//	<prefix>k/<bucket> 0x00 <key>   a bucket's key, with its value as stored
//	<prefix>s/<bucket>              the bucket's sequence, 8 bytes big-endian; absent means 0
//	<prefix>d/<bucket>              the bucket's deletion mark: rewritten by every commit that deletes
//	                                from the bucket, so that a guarded range read notices deletions
//
// A bucket name must not hold a 0x00 byte: the byte ends the name, so that no bucket's keys fall in
// the range of another whose name it begins. A bucket exists once named: CreateBucketIfNotExists
// has nothing to create.
//
// A read transaction (View) reads at one revision, fixed by its first read: it sees one consistent
// snapshot, as a bbolt read transaction does. A read-write transaction (Update) is optimistic, the
// shape of clientv3/concurrency's serializable STM: it reads at one revision, buffers its writes
// (reading them back itself), and commits them in one etcd Txn whose comparisons check that nothing
// it read has changed since. When something has, the function runs again from the start, so it
// must be idempotent (kv: Basics). STM compares the keys read by Get only; here a range read through
// GuardedCursor is checked as well: each span it walked must hold no key modified or created after
// the revision (a comparison over the range), and its bucket's deletion mark must not have moved (a
// key deleted from the span leaves no modified key to compare).
//
// # Caveats
//
// etcd bounds one transaction: 128 operations and as many comparisons, and 1.5 MiB per request, by
// default (its --max-txn-ops and --max-request-bytes). A commit over Config.MaxTxnOps or
// Config.MaxRequestBytes fails with ErrTooLarge before it is sent, and one the server refuses fails
// the same way: nothing of it is written. A write is never split across etcd transactions, because
// the halves would be seen apart and a failure between them would leave half a write, which the
// store's rules (a record with its slugs, links and change-log entry) forbid. The writes that touch
// many keys (a series' occurrences, a bulk import) need a cluster run with larger limits, and the
// same limits given here. Point reads beyond the comparison limit are compared per bucket, as one
// range from the first to the last key read, with the bucket's deletion mark: coarser (an unrelated
// write in the range conflicts too) but still exact about what was read.
//
// Reads can fail over a network: a failed read aborts the transaction, and View or Update returns
// its error. Every request is bounded by Config.RequestTimeout as well as by the caller's context,
// and a cluster that does not answer in time, or has no leader, is reported as ErrUnavailable, so
// that the service answers 503 rather than hanging. Within that bound a request is sent again after
// each attempt of a second that found no leader or got no answer: a leader's death costs about the
// election of the next. A commit sent again may have been applied by an earlier attempt whose answer
// was lost; when the next attempt's comparisons fail, the keys it puts are read back: found as it
// wrote them, the commit succeeded, and otherwise its outcome is unknown (ErrUnavailable), never run
// again, which could write it twice.
//
// A read transaction's revision must stay in etcd's history until it ends: one that outlives a
// compaction fails (etcd's ErrCompacted); a read-write transaction is then run again.
package etcdkv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/pause"
)

// Defaults of Config.
const (
	DefaultPrefix         = "/calendard/"
	DefaultDialTimeout    = 5 * time.Second
	DefaultRequestTimeout = 5 * time.Second
	// DefaultMaxTxnOps and DefaultMaxRequestBytes are etcd's own defaults.
	DefaultMaxTxnOps       = 128
	DefaultMaxRequestBytes = 1536 * 1024
	// maxAttempts bounds the runs of one Update that keeps conflicting: past it the store is too
	// contended for the write, which fails rather than spinning until its context ends.
	maxAttempts = 64
	// pageSize is the number of keys a cursor reads per request.
	pageSize = 256
	// attemptTimeout bounds one attempt of a request, and attemptPause is the pause before the next:
	// a request sent to a member whose leader just died waits for an answer that never comes, while
	// the cluster elects another leader within a second or two (etcd's election timeout is 1 s). A
	// request is sent again, as long as the caller's request timeout allows, so that a leader change
	// costs about what the election takes rather than the whole request timeout.
	attemptTimeout = time.Second
	attemptPause   = 50 * time.Millisecond
)

// Errors.
var (
	// ErrUnavailable is returned when the etcd cluster did not answer within the request timeout, or
	// answered that it cannot serve (no leader), and the same call can succeed once the cluster is
	// back. A commit whose answer was lost so may have been applied (kv.ErrUnavailable).
	ErrUnavailable = kv.ErrUnavailable

	// ErrTooLarge is returned by an Update whose commit exceeds etcd's limits of one transaction
	// (Config.MaxTxnOps, Config.MaxRequestBytes, or the server's own): nothing of it was written.
	ErrTooLarge = kv.ErrTooLarge

	// ErrContended is returned by an Update that conflicted with other writes on every one of its
	// runs: the store is too busy for it now, and it is an ErrUnavailable, which the same call may
	// not meet later.
	ErrContended = fmt.Errorf("%w: write conflicted with others on every attempt", kv.ErrUnavailable)
)

// Config configures a Store. The zero value of every field but Endpoints has a usable default.
type Config struct {
	// Endpoints are the client URLs of the cluster's members.
	Endpoints []string
	// Prefix is put before every key. Defaults to DefaultPrefix.
	Prefix string
	// CAFile, CertFile and KeyFile, when set, are the PEM files of TLS: the CA that signed the
	// members' certificates, and this client's certificate and key.
	CAFile, CertFile, KeyFile string
	// Username and Password, when set, authenticate to the cluster.
	Username, Password string
	// DialTimeout bounds Open's first contact with the cluster.
	DialTimeout time.Duration
	// RequestTimeout bounds each request to the cluster, the attempts it is sent in included.
	RequestTimeout time.Duration
	// MaxTxnOps and MaxRequestBytes are the cluster's limits of one transaction (etcd's
	// --max-txn-ops and --max-request-bytes); defaults are etcd's.
	MaxTxnOps, MaxRequestBytes int
	// Logger receives the client's log lines. Defaults to a no-op logger.
	Logger *zap.Logger
}

// Store is a kv.Store on an etcd cluster.
type Store struct {
	client *clientv3.Client
	cfg    Config
	// writing holds a token while one of this process's writes runs and commits: every write takes
	// the change log's next sequence number, so two of them in flight at once conflict, and one
	// of them runs again. One at a time, as on bbolt, a process's writes never conflict with each
	// other, only with other nodes': eight writers in flight together were slower
	// (BenchmarkConcurrentWriters), and under load some gave up with ErrContended.
	writing chan struct{}
	// clusterID is the cluster's, read at Open (Identity).
	clusterID uint64
	// campaigns are the election campaigns in flight, which may outlive their Elect (campaign).
	campaigns sync.WaitGroup
}

var _ kv.Store = (*Store)(nil)

// Open connects to the cluster and checks that it answers. It returns ErrUnavailable when no member
// answers within the dial timeout.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("etcdkv: no endpoints")
	}
	cfg.Prefix = cmpOr(cfg.Prefix, DefaultPrefix)
	cfg.DialTimeout = cmpOr(cfg.DialTimeout, DefaultDialTimeout)
	cfg.RequestTimeout = cmpOr(cfg.RequestTimeout, DefaultRequestTimeout)
	cfg.MaxTxnOps = cmpOr(cfg.MaxTxnOps, DefaultMaxTxnOps)
	cfg.MaxRequestBytes = cmpOr(cfg.MaxRequestBytes, DefaultMaxRequestBytes)
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	ccfg := clientv3.Config{Endpoints: cfg.Endpoints, DialTimeout: cfg.DialTimeout, Username: cfg.Username,
		Password: cfg.Password, Logger: cfg.Logger}
	if cfg.CAFile != "" || cfg.CertFile != "" || cfg.KeyFile != "" {
		tlsInfo := transport.TLSInfo{TrustedCAFile: cfg.CAFile, CertFile: cfg.CertFile, KeyFile: cfg.KeyFile}
		tc, err := tlsInfo.ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("etcdkv: tls: %w", err)
		}
		ccfg.TLS = tc
	}
	client, err := clientv3.New(ccfg)
	if err != nil {
		return nil, fmt.Errorf("etcdkv: connect to %s: %w", strings.Join(cfg.Endpoints, ","), classify(ctx, err))
	}
	s := &Store{client: client, cfg: cfg, writing: make(chan struct{}, 1)}
	// The client dials in the background: one read tells now whether the cluster answers.
	pctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	resp, err := client.Get(pctx, cfg.Prefix+"s/", clientv3.WithCountOnly())
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("etcdkv: connect to %s: %w", strings.Join(cfg.Endpoints, ","), classify(ctx, err))
	}
	s.clusterID = resp.Header.ClusterId
	return s, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Close closes the connection to the cluster, which ends the election campaigns left in flight.
func (s *Store) Close() error {
	err := s.client.Close()
	s.campaigns.Wait()
	return err
}

// classify turns a failed request into what the caller can act on: the caller's own context error,
// ErrUnavailable, ErrTooLarge, or the error as it is.
func classify(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	switch {
	case errors.Is(err, rpctypes.ErrTooManyOps), errors.Is(err, rpctypes.ErrRequestTooLarge):
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, rpctypes.ErrNoLeader),
		errors.Is(err, rpctypes.ErrTimeout), errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail),
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost), errors.Is(err, rpctypes.ErrLeaderChanged),
		errors.Is(err, rpctypes.ErrNotCapable), errors.Is(err, rpctypes.ErrStopped):
		// The cause is told, not wrapped: a request timeout is the cluster's failure, not the
		// caller's deadline, and must not match context.DeadlineExceeded.
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if st, ok := status.FromError(err); ok && (st.Code() == codes.Unavailable || st.Code() == codes.DeadlineExceeded) {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return fmt.Errorf("etcdkv: %w", err)
}

// Keys of the layout (package doc).
func (s *Store) keyPrefix(bucket []byte) string {
	if bytes.IndexByte(bucket, 0) >= 0 {
		panic(fmt.Sprintf("etcdkv: bucket name %q holds a 0x00 byte", bucket))
	}
	return s.cfg.Prefix + "k/" + string(bucket) + "\x00"
}
func (s *Store) key(bucket, key []byte) string { return s.keyPrefix(bucket) + string(key) }

// bucketEnd is the end of the bucket's key range: the byte after the name's end mark.
func (s *Store) bucketEnd(bucket []byte) string { return s.cfg.Prefix + "k/" + string(bucket) + "\x01" }
func (s *Store) seqKey(bucket []byte) string    { return s.cfg.Prefix + "s/" + string(bucket) }
func (s *Store) markKey(bucket []byte) string   { return s.cfg.Prefix + "d/" + string(bucket) }

// readFailed carries a failed read out of the transaction's function, which kv's reads give no error
// to return: View and Update recover it (as STM does).
type readFailed struct{ err error }

// run calls fn, turning a failed read's panic back into its error.
func run(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			rf, ok := r.(readFailed)
			if !ok {
				panic(r)
			}
			err = rf.err
		}
	}()
	return fn()
}

// snapshot reads at one revision, fixed by its first read.
type snapshot struct {
	s   *Store
	ctx context.Context
	rev int64
}

// get runs one read at the snapshot's revision and fixes the revision on the first. The first read is
// linearizable (it sees every commit before it); the others, at a fixed revision, are serializable
// (the member answers from its own state, without asking the leader, as STM reads): a member behind
// that revision says so (ErrFutureRev), and the read is then made linearizable.
func (r *snapshot) get(key string, opts ...clientv3.OpOption) *clientv3.GetResponse {
	if r.rev > 0 {
		opts = append(opts, clientv3.WithRev(r.rev))
	}
	var resp *clientv3.GetResponse
	err := r.s.attempts(r.ctx, func(ctx context.Context) (err error) {
		if r.rev > 0 {
			resp, err = r.s.client.Get(ctx, key, append(opts, clientv3.WithSerializable())...)
			if !errors.Is(err, rpctypes.ErrFutureRev) {
				return err
			}
		}
		resp, err = r.s.client.Get(ctx, key, opts...)
		return err
	})
	if err != nil {
		panic(readFailed{classify(r.ctx, err)})
	}
	if r.rev == 0 {
		r.rev = resp.Header.Revision
	}
	return resp
}

// attempts calls send with a context bounded by attemptTimeout, again after each attempt that found
// the cluster unavailable (no leader, or no answer in time), until one succeeds or fails otherwise, or
// the request timeout or ctx ends; it returns the last attempt's error as classify tells it.
func (s *Store) attempts(ctx context.Context, send func(context.Context) error) error {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	for {
		actx, acancel := context.WithTimeout(rctx, min(attemptTimeout, s.cfg.RequestTimeout))
		err := send(actx)
		acancel()
		if err == nil {
			return nil
		}
		if err = classify(ctx, err); !errors.Is(err, ErrUnavailable) || pause.Sleep(rctx, attemptPause) != nil {
			return err
		}
	}
}

// value returns a stored value as kv hands it out: an empty value is a non-nil empty slice.
func value(stored *mvccpb.KeyValue) []byte {
	if stored.Value == nil {
		return []byte{}
	}
	return stored.Value
}

func decodeSeq(v []byte) uint64 {
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// View implements kv.Store.
func (s *Store) View(ctx context.Context, fn func(kv.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &readTx{snapshot{s: s, ctx: ctx}}
	return run(func() error { return fn(t) })
}

type readTx struct{ snapshot }

func (t *readTx) Get(bucket, key []byte) []byte {
	resp := t.get(t.s.key(bucket, key))
	if len(resp.Kvs) == 0 {
		return nil
	}
	return value(resp.Kvs[0])
}

func (t *readTx) Sequence(bucket []byte) uint64 {
	resp := t.get(t.s.seqKey(bucket))
	if len(resp.Kvs) == 0 {
		return 0
	}
	return decodeSeq(resp.Kvs[0].Value)
}

func (t *readTx) Cursor(bucket []byte) kv.Cursor {
	return &cursor{r: &t.snapshot, start: t.s.keyPrefix(bucket), end: t.s.bucketEnd(bucket)}
}

func (t *readTx) Count(bucket []byte) int {
	return int(t.get(t.s.keyPrefix(bucket), clientv3.WithRange(t.s.bucketEnd(bucket)), clientv3.WithCountOnly()).Count)
}

// cursor walks a bucket's keys at the snapshot's revision, a page at a time.
type cursor struct {
	r          *snapshot
	start, end string
	page       []*mvccpb.KeyValue
	i          int
	more       bool
	// walked, when set, is told each span of keys read: the guard of a guarded cursor.
	walked func(from, to string)
}

func (c *cursor) fetch(from string) (key, value []byte) {
	resp := c.r.get(from, clientv3.WithRange(c.end), clientv3.WithLimit(pageSize))
	c.page, c.i, c.more = resp.Kvs, 0, resp.More
	if c.walked != nil {
		to := c.end
		if c.more {
			to = string(c.page[len(c.page)-1].Key) + "\x00"
		}
		c.walked(from, to)
	}
	return c.current()
}

func (c *cursor) current() (key, val []byte) {
	if c.i >= len(c.page) {
		return nil, nil
	}
	stored := c.page[c.i]
	return stored.Key[len(c.start):], value(stored)
}

func (c *cursor) First() (key, value []byte) { return c.fetch(c.start) }

func (c *cursor) Seek(seek []byte) (key, value []byte) { return c.fetch(c.start + string(seek)) }

func (c *cursor) Next() (key, value []byte) {
	if c.i >= len(c.page) {
		return nil, nil
	}
	c.i++
	if c.i == len(c.page) && c.more {
		return c.fetch(string(c.page[len(c.page)-1].Key) + "\x00")
	}
	return c.current()
}

var _ kv.Watcher = (*Store)(nil)

// Watch implements kv.Watcher with an etcd watch over the bucket's keys, from the store's current
// revision on. The client resumes a watch whose connection dropped by itself; a watch etcd cancels
// (its revision compacted while disconnected) is started again from the current revision, after
// telling changed once, since commits may have been missed meanwhile. A leaderless cluster ends the
// watch (WithRequireLeader), so that a partitioned member does not keep a silent one.
func (s *Store) Watch(ctx context.Context, bucket []byte, changed func()) error {
	for {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for resp := range s.client.Watch(wctx, s.keyPrefix(bucket), clientv3.WithRange(s.bucketEnd(bucket)),
			clientv3.WithFilterDelete()) {
			if resp.Err() != nil {
				break
			}
			if len(resp.Events) > 0 {
				changed()
			}
		}
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		changed()
		// A cluster without a leader ends a watch at once: wait before the next, rather than spin.
		if err := pause.Sleep(ctx, watchRetry); err != nil {
			return err
		}
	}
}

// watchRetry is the wait before a watch that ended is started again.
const watchRetry = time.Second

// Update implements kv.Store.
func (s *Store) Update(ctx context.Context, fn func(kv.RwTx) error) error {
	_, err := s.UpdateAt(ctx, fn)
	return err
}

var _ kv.Source = (*Store)(nil)

// UpdateAt implements kv.Source.
func (s *Store) UpdateAt(ctx context.Context, fn func(kv.RwTx) error) (int64, error) {
	for attempt := range maxAttempts {
		if attempt > 0 {
			// Another node's write took the change log's sequence number, or a key read: without a
			// pause, the same writers would collide again at once.
			if err := pause.Sleep(ctx, backoff(attempt)); err != nil {
				return 0, err
			}
		}
		rev, err := s.try(ctx, fn)
		if errors.Is(err, rpctypes.ErrCompacted) {
			continue // the revision it read at is gone: read again at a newer one
		}
		if err != nil {
			return 0, err
		}
		if rev >= 0 {
			return rev, nil
		}
	}
	return 0, ErrContended
}

// try runs fn and commits what it wrote, as the process's only write in flight (Store.writing). It
// returns the commit's revision, 0 when fn wrote nothing, and -1 when a key fn read changed
// meanwhile and nothing was written.
func (s *Store) try(ctx context.Context, fn func(kv.RwTx) error) (int64, error) {
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	defer func() { <-s.writing }()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	t := newWriteTx(s, ctx)
	if err := run(func() error { return fn(t) }); err != nil {
		return 0, err
	}
	return t.commit()
}

// backoff is the pause before the attempt-th run of a conflicting Update: random (so that the
// writers that collided spread out), up to a bound that doubles with each attempt from 1 ms to 64 ms.
func backoff(attempt int) time.Duration {
	return time.Duration(rand.Int64N(int64(time.Millisecond) << min(attempt, 6)))
}

// write is a buffered write of one key: a value, or a deletion.
type write struct {
	value []byte
	del   bool
}

// bucketWrites are a transaction's writes to one bucket.
type bucketWrites struct {
	// cleared: the bucket was deleted in this transaction, so nothing stored before is read.
	cleared bool
	keys    map[string]write
	// seq, when set, is the sequence to commit.
	seq *uint64
	// deleted: a key was deleted, so the bucket's deletion mark moves at commit.
	deleted bool
}

// span is a range of keys a guarded cursor read, in its bucket.
type span struct{ from, to string }

type writeTx struct {
	snapshot
	writes map[string]*bucketWrites
	// reads holds the modification revision of each key read by key (0: absent), as STM's read set.
	reads map[string]int64
	// readBuckets holds the bucket of each key read by key, for comparisons taken per bucket.
	readBuckets map[string]string
	// guards are the spans guarded cursors walked, by bucket.
	guards map[string][]span
}

func newWriteTx(s *Store, ctx context.Context) *writeTx {
	return &writeTx{snapshot: snapshot{s: s, ctx: ctx}, writes: map[string]*bucketWrites{},
		reads: map[string]int64{}, readBuckets: map[string]string{}, guards: map[string][]span{}}
}

func (t *writeTx) bucket(bucket []byte) *bucketWrites {
	b, ok := t.writes[string(bucket)]
	if !ok {
		b = &bucketWrites{keys: map[string]write{}}
		t.writes[string(bucket)] = b
	}
	return b
}

// stored reads a key as committed at the snapshot, once, and records it for the commit's check.
func (t *writeTx) stored(bucket []byte, key string) *mvccpb.KeyValue {
	resp := t.get(key)
	t.readBuckets[key] = string(bucket)
	if len(resp.Kvs) == 0 {
		t.reads[key] = 0
		return nil
	}
	t.reads[key] = resp.Kvs[0].ModRevision
	return resp.Kvs[0]
}

func (t *writeTx) Get(bucket, key []byte) []byte {
	b := t.writes[string(bucket)]
	if b != nil {
		if w, ok := b.keys[string(key)]; ok {
			if w.del {
				return nil
			}
			return w.value
		}
		if b.cleared {
			return nil
		}
	}
	if stored := t.stored(bucket, t.s.key(bucket, key)); stored != nil {
		return value(stored)
	}
	return nil
}

func (t *writeTx) Sequence(bucket []byte) uint64 {
	if b := t.writes[string(bucket)]; b != nil {
		if b.seq != nil {
			return *b.seq
		}
		if b.cleared {
			return 0
		}
	}
	if stored := t.stored(bucket, t.s.seqKey(bucket)); stored != nil {
		return decodeSeq(stored.Value)
	}
	return 0
}

func (t *writeTx) Put(bucket, key, value []byte) error {
	if len(key) == 0 {
		return errors.New("etcdkv: put: empty key")
	}
	// A nil value is stored as an empty one, which reads back as a present key (kv.Getter).
	t.bucket(bucket).keys[string(key)] = write{value: append([]byte{}, value...)}
	return nil
}

func (t *writeTx) Delete(bucket, key []byte) error {
	b := t.bucket(bucket)
	b.keys[string(key)] = write{del: true}
	b.deleted = true
	return nil
}

func (t *writeTx) NextSequence(bucket []byte) (uint64, error) {
	n := t.Sequence(bucket) + 1
	t.bucket(bucket).seq = &n
	return n, nil
}

func (t *writeTx) SetSequence(bucket []byte, n uint64) error {
	t.bucket(bucket).seq = &n
	return nil
}

// CreateBucketIfNotExists has nothing to do: a bucket exists once named (package doc).
func (t *writeTx) CreateBucketIfNotExists([]byte) error { return nil }

func (t *writeTx) DeleteBucket(bucket []byte) error {
	b := t.bucket(bucket)
	*b = bucketWrites{cleared: true, keys: map[string]write{}, deleted: true}
	return nil
}

// GuardedCursor walks the bucket as stored at the snapshot merged with the transaction's own writes,
// and records every span it reads from the store for the commit's check.
func (t *writeTx) GuardedCursor(bucket []byte) kv.Cursor {
	name := string(bucket)
	var own []ownKey
	b := t.writes[name]
	if b != nil {
		for k, w := range b.keys {
			own = append(own, ownKey{key: []byte(k), write: w})
		}
		slices.SortFunc(own, func(a, b ownKey) int { return bytes.Compare(a.key, b.key) })
	}
	stored := &cursor{r: &t.snapshot, start: t.s.keyPrefix(bucket), end: t.s.bucketEnd(bucket),
		walked: func(from, to string) { t.guards[name] = append(t.guards[name], span{from, to}) }}
	if b != nil && b.cleared {
		stored = nil
	}
	return &mergedCursor{stored: stored, own: own}
}

type ownKey struct {
	key []byte
	write
}

// mergedCursor merges the stored keys with the transaction's own writes, which win.
type mergedCursor struct {
	stored       *cursor // nil when the bucket was cleared
	own          []ownKey
	sk, sv       []byte // the stored cursor's current key and value
	oi           int    // the index of the current own key
	curFromStore bool
	curFromOwn   bool
}

func (c *mergedCursor) First() (key, value []byte) {
	if c.stored != nil {
		c.sk, c.sv = c.stored.First()
	}
	c.oi = 0
	return c.settle()
}

func (c *mergedCursor) Seek(seek []byte) (key, value []byte) {
	if c.stored != nil {
		c.sk, c.sv = c.stored.Seek(seek)
	}
	c.oi, _ = slices.BinarySearchFunc(c.own, seek, func(o ownKey, k []byte) int { return bytes.Compare(o.key, k) })
	return c.settle()
}

func (c *mergedCursor) Next() (key, value []byte) {
	if c.curFromStore {
		c.sk, c.sv = c.stored.Next()
	}
	if c.curFromOwn {
		c.oi++
	}
	return c.settle()
}

// settle returns the smaller of the two current keys, skipping own deletions and the stored keys
// they hide, and remembers which side(s) Next must advance.
func (c *mergedCursor) settle() (key, value []byte) {
	for {
		c.curFromStore, c.curFromOwn = false, false
		hasOwn := c.oi < len(c.own)
		switch {
		case c.sk == nil && !hasOwn:
			return nil, nil
		case !hasOwn || (c.sk != nil && bytes.Compare(c.sk, c.own[c.oi].key) < 0):
			c.curFromStore = true
			return c.sk, c.sv
		}
		o := c.own[c.oi]
		c.curFromOwn = true
		c.curFromStore = c.sk != nil && bytes.Equal(c.sk, o.key)
		if !o.del {
			return o.key, o.value
		}
		// A key this transaction deleted: move past it on both sides and look again.
		if c.curFromStore {
			c.sk, c.sv = c.stored.Next()
		}
		c.oi++
	}
}

// commit sends the buffered writes in one etcd Txn, on the condition that nothing read has changed
// since the snapshot's revision, and returns the commit's revision (0 when nothing was written). It
// returns -1 when something had changed: the transaction runs again.
func (t *writeTx) commit() (int64, error) {
	ops, size := t.ops()
	if len(ops) == 0 {
		return 0, nil // nothing written: what was read was one consistent snapshot
	}
	cmps := t.cmps()
	if len(cmps) > t.s.cfg.MaxTxnOps || len(ops) > t.s.cfg.MaxTxnOps {
		return 0, fmt.Errorf("%w: %d operations and %d comparisons, at most %d each (etcd --max-txn-ops)",
			ErrTooLarge, len(ops), len(cmps), t.s.cfg.MaxTxnOps)
	}
	if size > t.s.cfg.MaxRequestBytes {
		return 0, fmt.Errorf("%w: %d bytes, at most %d (etcd --max-request-bytes)", ErrTooLarge, size, t.s.cfg.MaxRequestBytes)
	}
	// An attempt that failed may have been applied (its answer lost with the leader), and the next
	// one then fails its comparisons, as it would after another node's write: the keys are read back
	// before the function runs again, which would write twice.
	var resp *clientv3.TxnResponse
	tries := 0
	err := t.s.attempts(t.ctx, func(ctx context.Context) (err error) {
		tries++
		resp, err = t.s.client.Txn(ctx).If(cmps...).Then(ops...).Commit()
		return err
	})
	switch {
	case err == nil && resp.Succeeded:
		return resp.Header.Revision, nil
	case err == nil && tries == 1:
		return -1, nil
	case t.ctx.Err() != nil:
		return 0, err
	}
	if rev, ok := t.landed(ops); ok {
		return rev, nil
	}
	if err == nil {
		err = fmt.Errorf("%w: an attempt of the commit may have been applied", ErrUnavailable)
	}
	// The caller learns ErrUnavailable, as for any write whose answer was lost: it may have happened.
	return 0, err
}

// landed reports whether the commit of ops was applied although no attempt's answer told it, and at
// which revision: the key it puts with the longest value (a record's, as a rule) holds that value,
// written after the snapshot, and at that revision every key it puts held its value, written then.
// Another commit writing every one of those values would be the same write.
func (t *writeTx) landed(ops []clientv3.Op) (int64, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), min(attemptTimeout, t.s.cfg.RequestTimeout))
	defer cancel()
	var puts []clientv3.Op
	for _, op := range ops {
		if op.IsPut() {
			puts = append(puts, op)
		}
	}
	if len(puts) == 0 {
		return 0, false
	}
	witness := slices.MaxFunc(puts, func(a, b clientv3.Op) int { return len(a.ValueBytes()) - len(b.ValueBytes()) })
	resp, err := t.s.client.Get(ctx, string(witness.KeyBytes()))
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].ModRevision <= t.rev || !bytes.Equal(resp.Kvs[0].Value, witness.ValueBytes()) {
		return 0, false
	}
	rev := resp.Kvs[0].ModRevision
	gets := make([]clientv3.Op, len(puts))
	for i, op := range puts {
		gets[i] = clientv3.OpGet(string(op.KeyBytes()), clientv3.WithRev(rev))
	}
	at, err := t.s.client.Txn(ctx).Then(gets...).Commit()
	if err != nil {
		return 0, false
	}
	for i, r := range at.Responses {
		kvs := r.GetResponseRange().Kvs
		if len(kvs) != 1 || kvs[0].ModRevision != rev || !bytes.Equal(kvs[0].Value, puts[i].ValueBytes()) {
			return 0, false
		}
	}
	return rev, true
}

// opOverhead approximates the bytes of one operation's framing in a request, beyond its key and value.
const opOverhead = 16

// ops lists the commit's operations, and the request's approximate size. A cleared bucket is deleted
// as the ranges between the keys written into it again: etcd refuses a Txn that both deletes a range
// and puts a key inside it.
func (t *writeTx) ops() ([]clientv3.Op, int) {
	var ops []clientv3.Op
	size := 0
	add := func(op clientv3.Op, n int) { ops = append(ops, op); size += n + opOverhead }
	for _, name := range slices.Sorted(maps.Keys(t.writes)) {
		b, bucket := t.writes[name], []byte(name)
		keys := slices.Sorted(maps.Keys(b.keys))
		if b.cleared {
			from := t.s.keyPrefix(bucket)
			for _, k := range keys {
				if b.keys[k].del {
					continue
				}
				key := t.s.key(bucket, []byte(k))
				if from < key {
					add(clientv3.OpDelete(from, clientv3.WithRange(key)), len(from)+len(key))
				}
				from = key + "\x00"
			}
			add(clientv3.OpDelete(from, clientv3.WithRange(t.s.bucketEnd(bucket))), 2*len(from))
			if b.seq == nil {
				add(clientv3.OpDelete(t.s.seqKey(bucket)), len(t.s.seqKey(bucket)))
			}
		}
		for _, k := range keys {
			w, key := b.keys[k], t.s.key(bucket, []byte(k))
			switch {
			case !w.del:
				add(clientv3.OpPut(key, string(w.value)), len(key)+len(w.value))
			case !b.cleared:
				add(clientv3.OpDelete(key), len(key))
			}
		}
		if b.seq != nil {
			var v [8]byte
			binary.BigEndian.PutUint64(v[:], *b.seq)
			add(clientv3.OpPut(t.s.seqKey(bucket), string(v[:])), len(t.s.seqKey(bucket))+8)
		}
		if b.deleted {
			add(clientv3.OpPut(t.s.markKey(bucket), ""), len(t.s.markKey(bucket)))
		}
	}
	return ops, size
}

// cmps lists the commit's conditions: every key read by key is as it was read (its modification
// revision, 0 for an absent key, as STM compares), and every span a guarded cursor read holds no key
// written since the snapshot and lost none (its bucket's deletion mark has not moved). When the point
// reads alone exceed the limit, they are compared per bucket as one span each (package doc).
func (t *writeTx) cmps() []clientv3.Cmp {
	var cmps []clientv3.Cmp
	marks := map[string]bool{}
	unchanged := func(from, to string) clientv3.Cmp {
		return clientv3.Compare(clientv3.ModRevision(from), "<", t.rev+1).WithRange(to)
	}
	if len(t.reads) <= t.s.cfg.MaxTxnOps/2 {
		for key, rev := range t.reads {
			cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(key), "=", rev))
		}
	} else {
		// A bucket's sequence key lies apart from its keys: a span of its own, not one over
		// everything between them.
		spans := map[string]span{}
		for key, bucket := range t.readBuckets {
			group := bucket
			if key == t.s.seqKey([]byte(bucket)) {
				group = "\x00" + bucket
			} else {
				marks[bucket] = true
			}
			sp, ok := spans[group]
			if !ok {
				sp = span{key, key}
			}
			sp.from, sp.to = min(sp.from, key), max(sp.to, key)
			spans[group] = sp
		}
		for _, sp := range spans {
			cmps = append(cmps, unchanged(sp.from, sp.to+"\x00"))
		}
	}
	for bucket, spans := range t.guards {
		marks[bucket] = true
		for _, sp := range spans {
			cmps = append(cmps, unchanged(sp.from, sp.to))
		}
	}
	for bucket := range marks {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(t.s.markKey([]byte(bucket))), "<", t.rev+1))
	}
	return cmps
}
