package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/task"
)

// recordsByLang counts the records of the store in each language with a Bleve document of their own:
// the occurrences that share their series parent's text have none (parentTexts).
func recordsByLang(t *testing.T, db *storage.DB) map[storage.Lang]uint64 {
	t.Helper()
	out := map[storage.Lang]uint64{}
	for _, pt := range []storage.PostType{storage.TypeEvent, storage.TypeVenue, storage.TypeOrganizer} {
		recs, err := db.Scan(context.Background(), pt, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[uint64]*storage.Event{}
		for _, e := range recs.Events {
			byID[e.ID] = e
		}
		for _, e := range recs.Events {
			// An occurrence with its series' text has no document: its parent's stands for it.
			if p := byID[e.Parent]; p != nil && len(p.Recurrence) > 0 && p.Lang == e.Lang &&
				p.Title == e.Title && p.Excerpt == e.Excerpt && p.Description == e.Description {
				continue
			}
			out[e.Lang]++
		}
		for _, v := range recs.Venues {
			out[v.Lang]++
		}
		for _, o := range recs.Organizers {
			out[o.Lang]++
		}
	}
	return out
}

// sameDocuments fails the test where a language's Bleve index does not hold one document for each
// of its records but the occurrences that share their parent's text.
func sameDocuments(t *testing.T, ix *Index, want map[storage.Lang]uint64) {
	t.Helper()
	for _, code := range storage.Langs {
		n, err := ix.langs[code].bleve.DocCount()
		if err != nil {
			t.Fatal(err)
		}
		if n != want[code] {
			t.Errorf("%s: %d documents, want %d", code, n, want[code])
		}
	}
}

// A build indexes every language's records through its offline builder, reports the merging of each
// language, and leaves no segment behind but those of the indexes.
func TestBuildMergesEveryLanguage(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, 21, 60)
	var loading Loading
	var merged []task.Progress
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(ctx, dir, &mergeWatcher{Store: w.db, loading: &loading, seen: &merged}, Options{Logger: zaptest.NewLogger(t), Loading: &loading})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	want := recordsByLang(t, w.db)
	if len(want) < 2 {
		t.Fatalf("records in %d languages, want several", len(want))
	}
	sameDocuments(t, ix, want)
	if len(merged) == 0 || merged[0] != (task.Progress{Phase: PhaseMerging, Done: uint64(len(storage.Langs)), Total: uint64(len(storage.Langs)), Started: merged[0].Started}) {
		t.Errorf("after the scan: %+v, want %s of every language, all done", merged, PhaseMerging)
	}
	if _, err := os.Stat(buildPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the build directory is still there: %v", err)
	}
	// A language without records got an empty index, which takes the records written later.
	if want["it"] != 0 {
		t.Fatalf("the world has %d records in Italian, want none", want["it"])
	}
	in := w.eventInput(t, w.to.cats, w.to.tags, w.to.venues["en"], w.to.orgs["en"])
	in.Title, in.Venue, in.Organizers = ptr("Zanzibarotto in piazza"), nil, nil
	e, err := w.db.CreateEvent(ctx, w.users[0], "it", in)
	if err != nil {
		t.Fatal(err)
	}
	syncAll(t, ix)
	got, err := ix.langs["it"].textMatches(ctx, "zanzib", Version{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(got, e.ID) || got.GetCardinality() != 1 {
		t.Errorf("search in the language built empty: %v, want event %d", got, e.ID)
	}
}

// mergeWatcher records the progress when the load asks for the change log's head after its scan, once
// the builders are done.
type mergeWatcher struct {
	Store
	loading *Loading
	seen    *[]task.Progress
}

func (s *mergeWatcher) ChangeHead(ctx context.Context) (uint64, error) {
	if p := s.loading.Progress(); p.Phase == PhaseMerging {
		*s.seen = append(*s.seen, p)
	}
	return s.Store.ChangeHead(ctx)
}

// What a build interrupted by a crash left (segments not merged, an index without its store) is
// removed, and the languages are built again.
func TestBuildAfterAnInterruptedOne(t *testing.T) {
	w := newWorld(t, 22, 30)
	dir := filepath.Join(t.TempDir(), "index")
	stale := filepath.Join(buildPath(dir), "scorch-offline-build1")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "000000000001.zap"), []byte("half a segment"), 0o600); err != nil {
		t.Fatal(err)
	}
	half := bleveDir(dir, "en")
	if err := os.MkdirAll(half, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(half, "index_meta.json"), []byte(`{"storage":"scorch","index_type":"scorch"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The stale segments are gone before the scan begins: they take disk room the new build needs.
	staleAtScan := false
	ix, err := Open(context.Background(), dir, &scanWatcher{Store: w.db, first: func() {
		_, err := os.Stat(stale)
		staleAtScan = !errors.Is(err, os.ErrNotExist)
	}}, Options{Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if staleAtScan {
		t.Error("the interrupted build's segments were still there when the scan began")
	}
	sameDocuments(t, ix, recordsByLang(t, w.db))
	if _, err := os.Stat(buildPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the build directory is still there: %v", err)
	}
}

// scanWatcher calls first at the first page the scan reads.
type scanWatcher struct {
	Store
	once  sync.Once
	first func()
}

func (s *scanWatcher) Scan(ctx context.Context, t storage.PostType, after uint64, limit int) (*storage.Records, error) {
	if limit > 0 {
		s.once.Do(s.first)
	}
	return s.Store.Scan(ctx, t, after, limit)
}

// A build whose scan fails stops its builders without merging, and returns the failure; the next
// start builds again.
func TestBuildStoppedByAFailingScan(t *testing.T) {
	w := newWorld(t, 23, 30)
	dir := filepath.Join(t.TempDir(), "index")
	broken := errors.New("disk read error")
	_, err := Open(context.Background(), dir, failingScan{Store: w.db, err: broken}, Options{Logger: zaptest.NewLogger(t)})
	if !errors.Is(err, broken) {
		t.Fatalf("Open with a failing scan: %v, want %v", err, broken)
	}
	for _, code := range storage.Langs {
		if _, err := os.Stat(filepath.Join(bleveDir(dir, code), "store")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a stopped build merged its index: %v", code, err)
		}
	}
	ix := openIndex(t, dir, w.db)
	defer ix.Close()
	sameDocuments(t, ix, recordsByLang(t, w.db))
}

// failingScan fails the scan of events, after the venues and organizers went to the builders.
type failingScan struct {
	Store
	err error
}

func (s failingScan) Scan(ctx context.Context, t storage.PostType, after uint64, limit int) (*storage.Records, error) {
	if t == storage.TypeEvent && limit > 0 {
		return nil, s.err
	}
	return s.Store.Scan(ctx, t, after, limit)
}
