package etcdkv

import (
	"context"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/pause"
)

var _ kv.Elector = (*Store)(nil)

// ElectionTTL is the lease of a leadership, in seconds: a leader that dies without resigning is
// replaced this long after its last keep-alive.
const ElectionTTL = 5

// Elect implements kv.Elector with etcd's concurrency.Election under the store's prefix. Each
// campaign holds a session (a lease kept alive by the client); when the session ends (the cluster
// out of reach past the lease), leadership is lost and the campaign starts again on a new session.
func (s *Store) Elect(ctx context.Context, name string, lead func(bool)) error {
	for {
		if err := s.campaign(ctx, name, lead); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := pause.Sleep(ctx, watchRetry); err != nil {
			return err
		}
	}
}

// campaign runs one session: it waits to be elected, leads until the session or ctx ends, and
// revokes the session's lease.
//
// etcd's Campaign, cancelled while it waits, resigns with the client's own context, which ends only
// when the client closes: with the cluster out of reach it would hold a stopping node until then.
// So it runs in a goroutine of its own, which Close waits for, and a campaign ends when ctx does.
func (s *Store) campaign(ctx context.Context, name string, lead func(bool)) error {
	session, err := concurrency.NewSession(s.client, concurrency.WithTTL(ElectionTTL), concurrency.WithContext(ctx))
	if err != nil {
		return err
	}
	defer s.revoke(session)
	e := concurrency.NewElection(session, s.cfg.Prefix+"election/"+name)
	elected := make(chan error, 1)
	s.campaigns.Go(func() { elected <- e.Campaign(ctx, "leader") })
	select {
	case err := <-elected:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	lead(true)
	// Stop leading before the lease goes, so that this node and the next leader never both lead.
	select {
	case <-ctx.Done():
		lead(false)
		return ctx.Err()
	case <-session.Done():
		// The lease is gone (the cluster out of reach past its TTL): another node may lead already.
		lead(false)
		return nil
	}
}

// revoke ends a campaign's session and revokes its lease, which deletes its key: a leader's
// leadership passes on at once rather than when the lease runs out, and a follower leaves the queue.
// It waits at most the request timeout: a cluster out of reach lets the lease run out by itself.
func (s *Store) revoke(session *concurrency.Session) {
	session.Orphan()
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.RequestTimeout)
	defer cancel()
	_, _ = s.client.Revoke(ctx, session.Lease())
}
