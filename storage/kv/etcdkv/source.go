package etcdkv

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/calendard/calendard/storage/kv"
)

// snapshotPage is the number of keys one request of Snapshot reads: at a few hundred bytes a key, a
// response of about a megabyte.
const snapshotPage = 4096

// op turns one etcd key of the layout (package doc) into the kv operation it stands for: a bucket's
// key or its sequence, stored with val or deleted. Deletion marks and keys of no bucket (elections)
// stand for none: false.
func (s *Store) op(key, val []byte, del bool) (kv.Op, bool) {
	rest, ok := bytes.CutPrefix(key, []byte(s.cfg.Prefix))
	if !ok || len(rest) < 2 {
		return kv.Op{}, false
	}
	switch string(rest[:2]) {
	case "k/":
		bucket, k, ok := bytes.Cut(rest[2:], []byte{0})
		return kv.Op{Bucket: bucket, Key: k, Value: val, Delete: del}, ok
	case "s/":
		op := kv.Op{Bucket: rest[2:], Sequence: true, Delete: del}
		if !del {
			op.Seq = decodeSeq(val)
		}
		return op, true
	}
	return kv.Op{}, false
}

// Snapshot implements kv.Source with range reads at one revision, a page at a time: the first read
// fixes the revision (snapshot.get), as a read transaction's does. etcd counts every key of a
// range for each page it answers, so the pages are read bucket by bucket, each range ending with its
// bucket: pages over the whole prefix cost time in the square of the store's keys (135 s for the
// 1.26 million keys of 100,000 events, in pages of 1,000 keys). A read of one key finds each next
// bucket; the sequences come after the buckets.
func (s *Store) Snapshot(ctx context.Context, put func(kv.Op) error) (int64, error) {
	r := &snapshot{s: s, ctx: ctx}
	err := run(func() error {
		// "0" is the byte after "/": the end of the keys' range, and of the sequences'.
		for from, end := s.cfg.Prefix+"k/", s.cfg.Prefix+"k0"; ; {
			next := r.get(from, clientv3.WithRange(end), clientv3.WithLimit(1), clientv3.WithKeysOnly())
			if len(next.Kvs) == 0 {
				break
			}
			op, ok := s.op(next.Kvs[0].Key, nil, false)
			if !ok {
				return fmt.Errorf("etcdkv: key %q is no bucket's", next.Kvs[0].Key)
			}
			from = s.bucketEnd(op.Bucket)
			if err := r.each(s.keyPrefix(op.Bucket), from, put); err != nil {
				return err
			}
		}
		return r.each(s.cfg.Prefix+"s/", s.cfg.Prefix+"s0", put)
	})
	if errors.Is(err, rpctypes.ErrCompacted) {
		// The revision was compacted while the snapshot read it: the caller takes a newer one.
		return 0, fmt.Errorf("%w: %w", kv.ErrHistoryGone, err)
	}
	return r.rev, err
}

// each calls put with the operation of every key from from up to end, a page at a time.
func (r *snapshot) each(from, end string, put func(kv.Op) error) error {
	for {
		resp := r.get(from, clientv3.WithRange(end), clientv3.WithLimit(snapshotPage))
		for _, stored := range resp.Kvs {
			if op, ok := r.s.op(stored.Key, value(stored), false); ok {
				if err := put(op); err != nil {
					return err
				}
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// Follow implements kv.Source with an etcd watch over the prefix from revision after+1. etcd sends
// a commit's events together and in order, each carrying the commit's revision, so consecutive
// events of one revision are one commit; each watch response is told as one batch. A commit of keys
// outside every bucket (an election's) is told with no operations, so that the follower's revision
// moves on. So is the cluster's revision when Progress asks for it (a progress notification). A
// watch the cluster cancels for want of a leader (WithRequireLeader) ends with ErrUnavailable rather
// than staying silent.
func (s *Store) Follow(ctx context.Context, after int64, apply func([]kv.Commit) error) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for resp := range s.client.Watch(wctx, s.cfg.Prefix, clientv3.WithPrefix(), clientv3.WithRev(after+1)) {
		if resp.CompactRevision != 0 || errors.Is(resp.Err(), rpctypes.ErrCompacted) {
			return fmt.Errorf("%w: revision %d, compacted up to %d", kv.ErrHistoryGone, after, resp.CompactRevision)
		}
		if err := resp.Err(); err != nil {
			return classify(ctx, err)
		}
		if resp.IsProgressNotify() {
			if err := apply([]kv.Commit{{Rev: resp.Header.Revision}}); err != nil {
				return err
			}
			continue
		}
		var commits []kv.Commit
		for _, ev := range resp.Events {
			if n := len(commits); n == 0 || commits[n-1].Rev != ev.Kv.ModRevision {
				commits = append(commits, kv.Commit{Rev: ev.Kv.ModRevision})
			}
			if op, ok := s.op(ev.Kv.Key, value(ev.Kv), ev.Type == mvccpb.DELETE); ok {
				c := &commits[len(commits)-1]
				c.Ops = append(c.Ops, op)
			}
		}
		if len(commits) > 0 {
			if err := apply(commits); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%w: the watch ended", ErrUnavailable)
}

// Progress implements kv.Source with a progress request on the watch's stream (the client keys its
// streams by the context's metadata, which WithRequireLeader sets as Follow's does). The member
// answers only when the watch has caught up and the revision is past the watch's start; otherwise the
// request is dropped, and the caller asks again.
func (s *Store) Progress(ctx context.Context) error {
	if err := s.client.RequestProgress(clientv3.WithRequireLeader(ctx)); err != nil {
		return classify(ctx, err)
	}
	return nil
}

// Revision implements kv.Source: a linearizable read's header tells the cluster's revision.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	resp, err := s.client.Get(cctx, s.seqKey(nil), clientv3.WithCountOnly())
	if err != nil {
		return 0, classify(ctx, err)
	}
	return resp.Header.Revision, nil
}

// Compact implements kv.Source. etcd's history is the cluster's, not the prefix's: compaction
// discards every prefix's old revisions, as Kubernetes' does (keys' current values stay).
func (s *Store) Compact(ctx context.Context, rev int64) error {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	// Another process may have compacted further already: that is what was asked.
	if _, err := s.client.Compact(cctx, rev); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return classify(ctx, err)
	}
	return nil
}

// Identity implements kv.Source: the cluster's ID and the prefix. A cluster restored from an etcd
// snapshot gets a new ID, and its revisions are not the old cluster's.
func (s *Store) Identity() string {
	return fmt.Sprintf("etcd cluster %x, prefix %s", s.clusterID, s.cfg.Prefix)
}
