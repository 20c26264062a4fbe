package etcdkv

import (
	"context"

	"github.com/calendard/calendard/storage/kv"
)

// Landed runs fn in a write transaction of s, commits it when commit is set, calls between, and
// returns the commit's revision and what landed then finds of it: as after an attempt of the commit
// whose answer was lost.
func Landed(ctx context.Context, s *Store, fn func(kv.RwTx) error, commit bool, between func()) (committed, found int64, ok bool, err error) {
	t := newWriteTx(s, ctx)
	if err := run(func() error { return fn(t) }); err != nil {
		return 0, 0, false, err
	}
	ops, _ := t.ops()
	if commit {
		if committed, err = t.commit(); err != nil {
			return 0, 0, false, err
		}
	}
	between()
	found, ok = t.landed(ops)
	return committed, found, ok, nil
}
