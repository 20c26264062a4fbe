package etcdkv

import (
	"context"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/calendard/calendard/storage/kv"
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
		if err := kv.Sleep(ctx, watchRetry); err != nil {
			return err
		}
	}
}

// campaign runs one session: it waits to be elected, leads until the session or ctx ends, and
// resigns.
func (s *Store) campaign(ctx context.Context, name string, lead func(bool)) error {
	session, err := concurrency.NewSession(s.client, concurrency.WithTTL(ElectionTTL), concurrency.WithContext(ctx))
	if err != nil {
		return err
	}
	defer session.Close() // revokes the lease: a follower's campaign key goes too
	e := concurrency.NewElection(session, s.cfg.Prefix+"election/"+name)
	if err := e.Campaign(ctx, "leader"); err != nil {
		return err
	}
	lead(true)
	select {
	case <-ctx.Done():
		// Stop leading before resigning, so that this node and the next leader never both lead.
		lead(false)
		rctx, cancel := context.WithTimeout(context.Background(), s.cfg.RequestTimeout)
		defer cancel()
		_ = e.Resign(rctx) // at once, rather than when the lease runs out
		return ctx.Err()
	case <-session.Done():
		// The lease is gone (the cluster out of reach past its TTL): another node may lead already.
		lead(false)
		return nil
	}
}
