// Package etcdtest runs etcd inside a test binary (go.etcd.io/etcd/server/v3/embed), so that the
// tests of the etcd backend, of the store on it and of the server in cluster mode need nothing but Go.
//
// A member starts in about a second, so a package shares one: Main starts none until a test asks for
// it (Shared), and stops it after the last test. Each store a test opens gets a prefix of its own.
package etcdtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/calendard/calendard/storage/kv/etcdkv"
)

// MaxTxnOps is the transaction limit of the members started here: larger than etcd's default, so
// that the store's tests can write a series' occurrences in one transaction (etcdkv: Caveats).
const MaxTxnOps = 4096

// MaxRequestBytes is the members' request limit, larger than etcd's default for the same reason.
const MaxRequestBytes = 8 << 20

// Server is one etcd member on loopback ports.
type Server struct {
	e     *embed.Etcd
	dir   string
	close sync.Once
	// Endpoint is the member's client URL.
	Endpoint string
}

// freePort returns a loopback port nothing listens on now. etcd's embed needs its ports before it
// listens (it advertises them), so they are picked here; another process could take one in between,
// which on a test machine does not happen in practice.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start starts a single-member cluster with its data in a new temporary directory. Writes are not
// synced to disk (etcd's --unsafe-no-fsync): a test's data need not outlive the machine.
func Start() (*Server, error) { return start(true) }

// StartDurable is Start with every commit synced to disk, as a production member does: for
// benchmarks comparing etcd's write latency with the bbolt file's, which syncs too.
func StartDurable() (*Server, error) { return start(false) }

func start(noFsync bool) (*Server, error) {
	dir, err := os.MkdirTemp("", "etcdtest-*")
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Name = "test"
	cfg.UnsafeNoFsync = noFsync
	cfg.MaxTxnOps = MaxTxnOps
	cfg.MaxRequestBytes = MaxRequestBytes
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	var urls [2]url.URL
	for i := range urls {
		port, err := freePort()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		urls[i] = url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{urls[0]}, []url.URL{urls[0]}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{urls[1]}, []url.URL{urls[1]}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("etcdtest: start: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("etcdtest: the member was not ready within 30 s")
	case err := <-e.Err():
		e.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("etcdtest: start: %w", err)
	}
	return &Server{e: e, dir: dir, Endpoint: urls[0].String()}, nil
}

// Close stops the member and deletes its data. A test that stops the member early (an outage) may
// also defer Close: the second call does nothing, as embed's would panic.
func (s *Server) Close() {
	s.close.Do(func() {
		s.e.Close()
		os.RemoveAll(s.dir)
	})
}

// Compact compacts the member's history up to its current revision, as etcd's auto-compaction (or
// the jobs, in cluster mode) would: reads at an older revision then fail with ErrCompacted.
func (s *Server) Compact(ctx context.Context) error {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{s.Endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer c.Close()
	resp, err := c.Get(ctx, "compact")
	if err != nil {
		return err
	}
	_, err = c.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical())
	return err
}

var prefixes atomic.Uint64

// Config returns the configuration of a store on the member under a prefix no other store of this
// process uses, with the member's transaction limits.
func (s *Server) Config() etcdkv.Config {
	return etcdkv.Config{Endpoints: []string{s.Endpoint}, Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1)),
		MaxTxnOps: MaxTxnOps, MaxRequestBytes: MaxRequestBytes}
}

// Open opens a store on the member under a prefix of its own (Config), for the caller to close.
func (s *Server) Open(tb testing.TB) *etcdkv.Store {
	tb.Helper()
	st, err := etcdkv.Open(context.Background(), s.Config())
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

var shared struct {
	once sync.Once
	s    *Server
	err  error
}

// Shared returns the package's shared member, starting it on the first call.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	shared.once.Do(func() { shared.s, shared.err = Start() })
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.s
}

// Main runs the package's tests (call it from TestMain) and then stops the shared member, if one
// started.
func Main(m *testing.M) {
	code := m.Run()
	if shared.s != nil {
		shared.s.Close()
	}
	os.Exit(code)
}
