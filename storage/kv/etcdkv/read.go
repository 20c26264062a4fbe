package etcdkv

import (
	"context"
	"encoding/binary"
	"errors"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/calendard/calendard/storage/kv"
)

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
