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
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/pause"
)

// Update implements kv.Store.
func (s *Store) Update(ctx context.Context, fn func(kv.RwTx) error) error {
	_, err := s.UpdateAt(ctx, fn)
	return err
}

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
