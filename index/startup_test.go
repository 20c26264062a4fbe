package index

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage"
)

// countStore is a store of as many events as records, numbered up to 2^40 (a mirroring store's own
// IDs), whose change log answers with err.
type countStore struct {
	Store
	records int
	err     error
	// counts counts the calls of Count.
	counts *int
}

func (s countStore) Scan(_ context.Context, t storage.PostType, _ uint64, limit int) (*storage.Records, error) {
	page := &storage.Records{LastID: 1 << 40}
	if t == storage.TypeEvent {
		page.Events = make([]*storage.Event, min(limit, s.records))
	}
	return page, nil
}

func (s countStore) Count(_ context.Context, t storage.PostType) (int, error) {
	*s.counts++
	if t == storage.TypeEvent {
		return s.records, nil
	}
	return 0, nil
}

func (s countStore) Changes(context.Context, uint64, int) ([]storage.Change, error) {
	return nil, s.err
}

func TestReplayCostsMore(t *testing.T) {
	tests := []struct {
		name             string
		checkpoint, head uint64
		records          int
		err              error
		want, wantCount  bool
	}{
		{"at the head", 500, 500, 900, nil, false, false},
		{"a few entries behind, a page of events more", 490, 500, 900, nil, false, false},
		{"behind by two thirds of the records", 0, 600, 900, nil, false, true},
		{"behind by more than two thirds of the records", 0, 601, 900, nil, true, true},
		{"far behind, from a later checkpoint", 4000, 10000, 900, nil, true, true},
		{"an empty store, one entry behind", 1, 2, 0, nil, true, true},
		{"entries trimmed: openLang tells why", 0, 10000, 900, storage.ErrCompacted, false, false},
		{"unreadable change log: openLang reports it", 0, 10000, 900, errors.New("disk"), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := countStore{records: tc.records, err: tc.err, counts: new(int)}
			check := &replayCheck{store: store, head: tc.head}
			if got := check.replayCostsMore(context.Background(), tc.checkpoint); got != tc.want {
				t.Errorf("replayCostsMore(%d, %d) over %d records = %v, want %v", tc.checkpoint, tc.head, tc.records, got, tc.want)
			}
			if counted := *store.counts > 0; counted != tc.wantCount {
				t.Errorf("the records were counted %d times, want them counted: %v", *store.counts, tc.wantCount)
			}
		})
	}
}

// TestReplayCheckCountsOnce: one start's check counts the store's records once, however many
// checkpoints far behind the head it weighs.
func TestReplayCheckCountsOnce(t *testing.T) {
	store := countStore{records: 9000, counts: new(int)}
	check := &replayCheck{store: store, head: 10000}
	for _, checkpoint := range []uint64{9000, 9500, 10000, 9000, 9999} {
		if why, err := check.unreplayable(context.Background(), checkpoint); why != "" || err != nil {
			t.Fatalf("unreplayable(%d) = %q, %v; want \"\", nil", checkpoint, why, err)
		}
	}
	if *store.counts != 3 {
		t.Errorf("the three kinds of records were counted %d times in all, want once each", *store.counts)
	}
}

// recordCounter counts the calls of Count to the store it wraps.
type recordCounter struct {
	Store
	counts *int
}

func (s recordCounter) Count(ctx context.Context, t storage.PostType) (int, error) {
	*s.counts++
	return s.Store.Count(ctx, t)
}

// TestStartUpRebuildsWhenReplayCostsMore: an index a few entries behind catches up by replaying
// them, one behind by more entries than a rebuild costs is rebuilt, and both answer as the store does.
// Neither start counts the store's records more than once for all the languages' indexes and
// projections.
func TestStartUpRebuildsWhenReplayCostsMore(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name        string
		venueMoves  int // rounds of moving every venue, each logging an entry per event at the venue
		wantRebuilt bool
	}{
		{"a few entries behind", 0, false},
		{"every venue moved three times", 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 5, 80)
			dir := filepath.Join(t.TempDir(), "index")
			w.reopenWithin(t, dir)
			if _, err := w.ix.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			w.ix.Close()
			for range 3 {
				w.mutate(t)
			}
			venues, err := w.db.Scan(ctx, storage.TypeVenue, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for round := range tc.venueMoves {
				for i, v := range venues.Venues {
					in := &storage.VenueInput{Geo: &storage.Geo{Lat: 40 + float64(round), Lng: float64(i)}}
					if _, err := w.db.UpdateVenue(ctx, w.users[0], v.ID, in); err != nil {
						t.Fatal(err)
					}
				}
			}
			core, logs := observer.New(zapcore.InfoLevel)
			counts := 0
			ix, err := Open(ctx, dir, recordCounter{Store: w.db, counts: &counts}, Options{Logger: zap.New(core)})
			if err != nil {
				t.Fatal(err)
			}
			if counts > 3 {
				t.Errorf("the start counted the three kinds of records %d times in all, want once each at most", counts)
			}
			w.ix = ix
			t.Cleanup(func() { ix.Close() })
			// Checkpoint stored one position for every language, so all are rebuilt or none.
			want := 0
			if tc.wantRebuilt {
				want = len(storage.Langs)
			}
			if got := logs.FilterMessage("index is further behind than a rebuild costs: rebuilding").Len(); got != want {
				t.Errorf("%d languages rebuilt for being far behind, want %d", got, want)
			}
			sameAnswers(t, w)
			if n, err := w.ix.Check(ctx); err != nil || n != 0 {
				t.Errorf("Check = %d, %v; want 0, nil", n, err)
			}
		})
	}
}
