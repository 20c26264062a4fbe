// Package etcdkv is the kv.Store on an etcd cluster: calendard's store in cluster mode (docs/CLUSTER.md).
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
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

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
	// grpcOverhead is what a request's gRPC message may hold beyond its etcd request: the margin the
	// etcd server allows over --max-request-bytes.
	grpcOverhead = 512 * 1024
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
	// The client sends at most 2 MiB a request unless told otherwise, less than the limits docs/CLUSTER.md
	// sets: it may send what the cluster takes, with the room gRPC's framing needs (etcd's own margin).
	ccfg := clientv3.Config{Endpoints: cfg.Endpoints, DialTimeout: cfg.DialTimeout, Username: cfg.Username,
		Password: cfg.Password, Logger: cfg.Logger, MaxCallSendMsgSize: cfg.MaxRequestBytes + grpcOverhead}
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
	case errors.Is(err, rpctypes.ErrNoSpace):
		// The cluster's space quota is used up (its NOSPACE alarm): no write is taken until an
		// operator compacts, defragments and disarms it (docs/CLUSTER.md), as on a full disk.
		return fmt.Errorf("%w: %v", kv.ErrNoSpace, err)
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
	if st, ok := status.FromError(err); ok && st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "larger than max") {
		// A message larger than a gRPC limit of the client or the server: nothing of it was sent on.
		return fmt.Errorf("%w: %v", ErrTooLarge, err)
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

var _ kv.Source = (*Store)(nil)
