package index

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/task"
)

// TestOpenReportsProgress: Open counts every record of the store while building, then the change-log
// entries it replays.
func TestOpenReportsProgress(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, 9, 50)
	w.ix.Close()
	records := 0
	for _, pt := range []storage.PostType{storage.TypeEvent, storage.TypeVenue, storage.TypeOrganizer} {
		n, err := w.db.Count(ctx, pt)
		if err != nil {
			t.Fatal(err)
		}
		records += n
	}
	if records < 50 {
		t.Fatalf("the world holds %d records, want at least its 50 events", records)
	}
	var building []task.Progress
	var loading Loading
	// A nil Loading is the usual case (reindex, tests): nothing is recorded, nothing breaks.
	(*Loading)(nil).add(1)
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "index"), &countingStore{Store: w.db, loading: &loading, seen: &building}, Options{Logger: zaptest.NewLogger(t), Loading: &loading})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if len(building) == 0 {
		t.Fatal("no progress seen while building")
	}
	for _, p := range building {
		if p.Phase != PhaseBuilding || p.Total != uint64(records) || p.Done > p.Total {
			t.Errorf("while building: %+v, want %s of %d", p, PhaseBuilding, records)
		}
	}
	head, err := w.db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A fresh index starts from the head: nothing is left to replay.
	if got := loading.Progress(); got.Phase != PhaseCatchingUp || got.Total != 0 || got.Done != 0 || ix.Applied() != head {
		t.Errorf("after Open: %+v at %d, want %s of 0 at %d", got, ix.Applied(), PhaseCatchingUp, head)
	}

	// Entries written while the index is closed are replayed at the next Open, and counted.
	if _, err := ix.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "index")
	ix.Close()
	ix = openIndex(t, dir, w.db)
	if _, err := ix.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	for range 20 {
		w.mutate(t)
	}
	from := head
	if head, err = w.db.ChangeHead(ctx); err != nil {
		t.Fatal(err)
	}
	loading = Loading{}
	ix, err = Open(ctx, dir, w.db, Options{Logger: zaptest.NewLogger(t), Loading: &loading})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := loading.Progress(); got.Phase != PhaseCatchingUp || got.Total != head-from || got.Done != head-from {
		t.Errorf("after a replay: %+v, want %s %d of %d", got, PhaseCatchingUp, head-from, head-from)
	}
}

// countingStore records the progress at every scan the load makes; two scanners call it at once.
type countingStore struct {
	Store
	loading *Loading
	mu      sync.Mutex
	seen    *[]task.Progress
}

func (s *countingStore) Scan(ctx context.Context, t storage.PostType, after uint64, limit int) (*storage.Records, error) {
	if limit > 0 {
		s.mu.Lock()
		*s.seen = append(*s.seen, s.loading.Progress())
		s.mu.Unlock()
	}
	return s.Store.Scan(ctx, t, after, limit)
}
