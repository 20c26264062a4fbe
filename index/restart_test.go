package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// reopenWithin closes w's index and opens it again from dir, failing the test when the start-up
// does not end within a minute: a catch-up that never ends must fail the test, not hang it.
func (w *world) reopenWithin(t *testing.T, dir string) {
	t.Helper()
	w.ix.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ix, err := Open(ctx, dir, w.db, Options{Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatalf("reopening the index: %v", err)
	}
	w.ix = ix
}

// TestRestartsAfterTrims is the property behind the restart defect: whatever the order of
// writes (to some languages and not others), syncs, trims of the change log up to what the index
// reports as stored, and restarts, every restart comes back and answers as the store does.
func TestRestartsAfterTrims(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(*seeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			w := newWorld(t, seed, 60)
			dir := filepath.Join(t.TempDir(), "index")
			w.reopenWithin(t, dir)
			t.Cleanup(func() { w.ix.Close() })
			admin := w.users[0]
			var restarts, trims int
			for step := range 60 {
				switch op := w.rng.IntN(10); {
				case op < 4:
					// One language at a time, so the others' stored checkpoints fall behind.
					l := langs[w.rng.IntN(len(langs))]
					start, err := datetime.Parse(testNow.AddDate(0, 0, w.rng.IntN(300)).Format(datetime.DB))
					if err != nil {
						t.Fatal(err)
					}
					in := &storage.EventInput{PostInput: w.postInput(words(w.rng, 2)), Start: &start, End: &start}
					if _, err := w.db.CreateEvent(ctx, admin, l, in); err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
				case op < 6:
					w.mutate(t)
				case op < 7:
					if _, err := w.ix.SyncOnce(ctx); err != nil {
						t.Fatalf("step %d: sync: %v", step, err)
					}
				case op < 9:
					cp, err := w.ix.Checkpoint(ctx)
					if err != nil {
						t.Fatalf("step %d: checkpoint: %v", step, err)
					}
					if _, err := w.db.TrimChanges(ctx, cp); err != nil {
						t.Fatal(err)
					}
					trims++
				default:
					w.reopenWithin(t, dir)
					restarts++
					sameAnswers(t, w)
				}
			}
			if restarts == 0 || trims == 0 {
				t.Fatalf("the sequence had %d restarts and %d trims: it tests nothing", restarts, trims)
			}
			w.reopenWithin(t, dir)
			sameAnswers(t, w)
			if n, err := w.ix.Check(ctx); err != nil || n != 0 {
				t.Errorf("after the last restart: Check = %d, %v; want 0, nil", n, err)
			}
		})
	}
}
