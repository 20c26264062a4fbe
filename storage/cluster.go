package storage

import (
	"context"
	"fmt"

	"github.com/calendard/calendard/storage/kv"
)

// Shared reports whether other processes write the store too: cluster mode, whether the DB's reads
// are served by a local copy of the cluster's store (a server: package replica, kv.Copy) or read
// from the cluster itself (a command such as run-job or backup).
func (db *DB) Shared() bool {
	_, ok := db.cluster()
	return ok
}

// cluster returns the store every node shares, when there is one.
func (db *DB) cluster() (kv.Source, bool) {
	switch st := db.kv.(type) {
	case kv.Copy:
		return st.Primary(), true
	case kv.Source:
		return st, true
	}
	return nil, false
}

// PrimaryChangeHead returns the change-log head of the store the cluster shares: the position a node
// has caught up with once its index has applied it. On an embedded store it is ChangeHead. It
// fails, with ErrUnavailable, when the cluster is out of reach.
func (db *DB) PrimaryChangeHead(ctx context.Context) (uint64, error) {
	src, ok := db.cluster()
	if !ok {
		return db.ChangeHead(ctx)
	}
	var seq uint64
	err := src.View(ctx, func(tx kv.Tx) error {
		seq = tx.Sequence(bOutbox)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("storage: change-log head: %w", err)
	}
	return seq, nil
}

// CompactHistory discards the cluster's history of commits up to the revision its previous call
// found (etcd's compaction, in cluster mode), and remembers the current one for the next call: with
// calls ten minutes apart, the history covers the last ten to twenty minutes, as Kubernetes keeps
// five. A node whose copy of the store falls further behind makes a new copy (package replica). It
// does nothing on an embedded store, whose only history is the change log, nor on the first call of
// a process (calendard run-job trim-changes compacts nothing: the elected server does).
func (db *DB) CompactHistory(ctx context.Context) error {
	src, ok := db.cluster()
	if !ok {
		return nil
	}
	rev, err := src.Revision(ctx)
	if err != nil {
		return fmt.Errorf("storage: compact history: %w", err)
	}
	if prev := db.compactAt.Swap(rev); prev > 0 {
		if err := src.Compact(ctx, prev); err != nil {
			return fmt.Errorf("storage: compact history: %w", err)
		}
	}
	return nil
}
