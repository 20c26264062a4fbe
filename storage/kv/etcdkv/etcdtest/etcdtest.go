// Package etcdtest runs etcd inside a test binary (go.etcd.io/etcd/server/v3/embed), so that the
// tests of the etcd backend, of the store on it and of the server in cluster mode need nothing but Go.
//
// A member starts in about a second, so a package shares one: Main starts none until a test asks for
// it (Shared), and stops it after the last test. Each store a test opens gets a prefix of its own.
// A test of failures starts a Cluster of its own, whose members it stops and starts again.
package etcdtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
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

// freePorts returns n loopback ports nothing listens on now. etcd's embed needs its ports before it
// listens (it advertises them), so they are picked here, all held until the last is picked so that
// none comes twice; another process could take one in between, which on a test machine does not
// happen in practice.
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// member is what a member is started from, again after a stop: its name, data and URLs, and the
// cluster it was founded in.
type member struct {
	name, dir string
	noFsync   bool
	// quota is the member's --quota-backend-bytes; zero is etcd's default.
	quota int64
	// client is the URL clients use; listen is where the member serves them, the same unless a
	// gate stands between the two.
	client, listen, peer url.URL
	initialCluster       string
}

// newMembers picks the names, data directories (new temporary ones) and ports of the n members of a
// new cluster; gated, each member's clients reach it through a port of its own, for a gate.
func newMembers(n int, noFsync, gated bool) ([]*member, error) {
	perMember := 2
	if gated {
		perMember = 3
	}
	ports, err := freePorts(perMember * n)
	if err != nil {
		return nil, err
	}
	loopback := func(port int) url.URL { return url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)} }
	ms := make([]*member, n)
	var peers []string
	for i := range ms {
		dir, err := os.MkdirTemp("", "etcdtest-*")
		if err != nil {
			removeAll(ms[:i])
			return nil, err
		}
		p := ports[perMember*i:]
		m := &member{name: fmt.Sprintf("m%d", i+1), dir: dir, noFsync: noFsync, client: loopback(p[0]), listen: loopback(p[0]), peer: loopback(p[1])}
		if gated {
			m.listen = loopback(p[2])
		}
		ms[i] = m
		peers = append(peers, m.name+"="+m.peer.String())
	}
	for _, m := range ms {
		m.initialCluster = strings.Join(peers, ",")
	}
	return ms, nil
}

func removeAll(ms []*member) {
	for _, m := range ms {
		os.RemoveAll(m.dir)
	}
}

// launch starts the member without waiting for it to be ready: the members of a new cluster become
// ready together, once a quorum of them runs.
func (m *member) launch() (*embed.Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Dir = m.dir
	cfg.Name = m.name
	cfg.UnsafeNoFsync = m.noFsync
	cfg.MaxTxnOps = MaxTxnOps
	cfg.MaxRequestBytes = MaxRequestBytes
	cfg.QuotaBackendBytes = m.quota
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{m.listen}, []url.URL{m.client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{m.peer}, []url.URL{m.peer}
	// Read only when the data directory is new: a member started again rejoins the cluster its data
	// names.
	cfg.InitialCluster = m.initialCluster
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdtest: start %s: %w", m.name, err)
	}
	return e, nil
}

// readyWithin is how long a member has to become ready: a new cluster's election included.
const readyWithin = 30 * time.Second

// waitReady waits until e serves clients, which a member of a cluster does once it has joined it.
// A member that fails or is not ready in time is closed.
func waitReady(e *embed.Etcd) error {
	select {
	case <-e.Server.ReadyNotify():
		return nil
	case <-time.After(readyWithin):
		e.Close()
		return fmt.Errorf("etcdtest: the member was not ready within %v", readyWithin)
	case err := <-e.Err():
		e.Close()
		return fmt.Errorf("etcdtest: start: %w", err)
	}
}

// Start starts a single-member cluster with its data in a new temporary directory. Writes are not
// synced to disk (etcd's --unsafe-no-fsync): a test's data need not outlive the machine.
func Start() (*Server, error) { return start(true, 0) }

// StartDurable is Start with every commit synced to disk, as a production member does: for
// benchmarks comparing etcd's write latency with the bbolt file's, which syncs too.
func StartDurable() (*Server, error) { return start(false, 0) }

// StartWithQuota is Start with a space quota of that many bytes (etcd's --quota-backend-bytes): once
// the member's data passes it, etcd raises its NOSPACE alarm and refuses every write.
func StartWithQuota(bytes int64) (*Server, error) { return start(true, bytes) }

func start(noFsync bool, quota int64) (*Server, error) {
	ms, err := newMembers(1, noFsync, false)
	if err != nil {
		return nil, err
	}
	m := ms[0]
	m.quota = quota
	e, err := m.launch()
	if err == nil {
		err = waitReady(e)
	}
	if err != nil {
		removeAll(ms)
		return nil, err
	}
	return &Server{e: e, dir: m.dir, Endpoint: m.client.String()}, nil
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
func (s *Server) Compact(ctx context.Context) error { return compact(ctx, []string{s.Endpoint}) }

func compact(ctx context.Context, endpoints []string) error {
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
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
func (s *Server) Config() etcdkv.Config { return config([]string{s.Endpoint}) }

func config(endpoints []string) etcdkv.Config {
	return etcdkv.Config{Endpoints: endpoints, Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1)),
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

// Cluster is a cluster of several members on loopback ports, for the tests of failures: a member
// can be stopped, as if it crashed, and started again on its data while the others keep the quorum.
// Its methods are for one goroutine, the test's.
type Cluster struct {
	Members []*Member
}

// Member is one member of a Cluster. Its clients reach it through a gate, which its Stop closes
// first: etcd's own stop keeps the connected clients for seconds (up to its request timeout), and
// forwards their lease keep-alives meanwhile, so that a client of a crashed member would keep its
// leases, as it cannot after a crash.
type Member struct {
	m    *member
	e    *embed.Etcd // nil while stopped
	gate *gate
	// Endpoint is the member's client URL.
	Endpoint string
}

// StartCluster starts a cluster of n members, with their data in new temporary directories and, as
// Start's, not synced to disk. It returns once every member serves.
func StartCluster(n int) (*Cluster, error) {
	ms, err := newMembers(n, true, true)
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	for _, m := range ms {
		c.Members = append(c.Members, &Member{m: m, Endpoint: m.client.String()})
	}
	for _, m := range c.Members {
		if err := m.launch(); err != nil {
			c.Close()
			return nil, err
		}
	}
	for _, m := range c.Members {
		if err := waitReady(m.e); err != nil {
			m.e = nil // waitReady closed it
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// launch opens the member's gate and starts it, without waiting for it to be ready.
func (m *Member) launch() error {
	g, err := openGate(m.m.client.Host, m.m.listen.Host)
	if err != nil {
		return err
	}
	e, err := m.m.launch()
	if err != nil {
		g.close()
		return err
	}
	m.e, m.gate = e, g
	return nil
}

// Endpoints are the client URLs of every member, stopped or not, as a client of the cluster is
// configured.
func (c *Cluster) Endpoints() []string {
	out := make([]string, len(c.Members))
	for i, m := range c.Members {
		out[i] = m.Endpoint
	}
	return out
}

// Config returns the configuration of a store on the cluster, under a prefix no other store of this
// process uses, with the members' transaction limits.
func (c *Cluster) Config() etcdkv.Config { return config(c.Endpoints()) }

// Leader returns the running member that leads the cluster now, or nil while none does (during an
// election, or without a quorum).
func (c *Cluster) Leader() *Member {
	for _, m := range c.Members {
		if m.e != nil && m.e.Server.Leader() == m.e.Server.MemberID() {
			return m
		}
	}
	return nil
}

// Compact compacts the cluster's history up to its current revision, as Server.Compact does.
func (c *Cluster) Compact(ctx context.Context) error { return compact(ctx, c.Endpoints()) }

// Stop stops the member as a crash would: its clients' connections drop, and its raft node stops at
// once, without handing its leadership over (which etcd's graceful stop does), so that the others
// elect a leader when they no longer hear from it. Its data stays, for Restart. Stopping a stopped
// member does nothing.
func (m *Member) Stop() {
	if m.e == nil {
		return
	}
	m.gate.close()
	m.e.Server.HardStop()
	m.e.Close()
	m.e = nil
}

// Restart starts a stopped member again on its data, and returns once it has rejoined the cluster
// and serves.
func (m *Member) Restart() error {
	if err := m.launch(); err != nil {
		return err
	}
	if err := waitReady(m.e); err != nil {
		m.gate.close()
		m.e = nil
		return err
	}
	return nil
}

// Close stops every member and deletes their data. The members stop together: each stop waits about
// a second for its peers' connections to close.
func (c *Cluster) Close() {
	var wg sync.WaitGroup
	for _, m := range c.Members {
		wg.Go(func() {
			m.Stop()
			os.RemoveAll(m.m.dir)
		})
	}
	wg.Wait()
}

// gate forwards the connections it accepts to a member's client port until it is closed, which
// drops the connections open through it too.
type gate struct {
	ln     net.Listener
	to     string
	mu     sync.Mutex
	conns  map[net.Conn]struct{} // both ends of every forwarded connection; nil once closed
	copies sync.WaitGroup
}

func openGate(addr, to string) (*gate, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("etcdtest: gate: %w", err)
	}
	g := &gate{ln: ln, to: to, conns: map[net.Conn]struct{}{}}
	g.copies.Go(g.accept)
	return g, nil
}

func (g *gate) accept() {
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return // closed
		}
		up, err := net.Dial("tcp", g.to)
		if err != nil {
			c.Close()
			continue
		}
		g.mu.Lock()
		if g.conns == nil {
			g.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		g.conns[c], g.conns[up] = struct{}{}, struct{}{}
		g.mu.Unlock()
		// Either direction's end ends the connection: the other's copy then ends too.
		for _, pair := range [][2]net.Conn{{c, up}, {up, c}} {
			g.copies.Go(func() {
				_, _ = io.Copy(pair[0], pair[1])
				g.drop(c, up)
			})
		}
	}
}

// drop closes the connections and forgets them.
func (g *gate) drop(conns ...net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range conns {
		c.Close()
		delete(g.conns, c)
	}
}

// close stops accepting, closes every forwarded connection and waits for the copies to end.
func (g *gate) close() {
	g.ln.Close()
	g.mu.Lock()
	for c := range g.conns {
		c.Close()
	}
	g.conns = nil
	g.mu.Unlock()
	g.copies.Wait()
}
