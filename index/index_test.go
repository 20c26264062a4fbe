package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
)

func openIndex(t *testing.T, dir string, db *storage.DB) *Index {
	t.Helper()
	ix, err := Open(context.Background(), dir, db, Options{Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// sameAnswers checks a handful of queries against the brute-force reading.
func sameAnswers(t *testing.T, w *world) {
	t.Helper()
	for i := range 40 {
		w.checkEvents(t, i, w.randomEventFilter())
	}
}

func TestRecovery(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, 42, 120)
	dir := filepath.Join(t.TempDir(), "index")
	reopen := func() {
		t.Helper()
		w.ix.Close()
		w.ix = openIndex(t, dir, w.db)
		sameAnswers(t, w)
	}
	w.ix.Close()
	w.ix = openIndex(t, dir, w.db)
	t.Cleanup(func() { w.ix.Close() })

	t.Run("reopen replays what it missed", func(t *testing.T) {
		w.ix.Close()
		for range 10 {
			w.mutate(t) // written while no index is open
		}
		w.ix = openIndex(t, dir, w.db)
		sameAnswers(t, w)
	})
	t.Run("deleted index is rebuilt", func(t *testing.T) {
		w.ix.Close()
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		w.ix = openIndex(t, dir, w.db)
		sameAnswers(t, w)
	})
	t.Run("other mapping version is rebuilt", func(t *testing.T) {
		if err := w.ix.langs["en"].bleve.SetInternal(keyMapping, []byte("0")); err != nil {
			t.Fatal(err)
		}
		reopen()
	})
	t.Run("index ahead of a restored store is rebuilt", func(t *testing.T) {
		// An index built over a newer store than the one it is opened with: its checkpoint is past
		// the store's change-log head.
		head, _ := w.db.ChangeHead(ctx)
		for _, l := range w.ix.langs {
			if err := l.bleve.SetInternal(keyCheckpoint, u64be(head+1000)); err != nil {
				t.Fatal(err)
			}
		}
		reopen()
	})
	t.Run("index behind the trimmed change log is rebuilt", func(t *testing.T) {
		// As an earlier calendard left a language no write concerned: its stored checkpoint is older
		// than the change log's first kept entry, so the entries it needs are gone.
		w.mutate(t)
		if err := w.ix.catchUp(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := w.ix.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		if err := w.ix.langs["de"].bleve.SetInternal(keyCheckpoint, u64be(0)); err != nil {
			t.Fatal(err)
		}
		head, _ := w.db.ChangeHead(ctx)
		if _, err := w.db.TrimChanges(ctx, head); err != nil {
			t.Fatal(err)
		}
		reopen()
	})
	t.Run("unreadable index is rebuilt", func(t *testing.T) {
		w.ix.Close()
		if err := os.WriteFile(filepath.Join(dir, "fr.bleve", "index_meta.json"), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		w.ix = openIndex(t, dir, w.db)
		sameAnswers(t, w)
	})
}

func u64be(v uint64) []byte {
	return []byte{byte(v >> 56), byte(v >> 48), byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// TestCloseRightAfterWrites closes indexes while Bleve is still persisting what was just written. With
// a bare Close, Bleve v2.5.7 races with itself there, which -race (always on in make test) reports
// within these iterations; every document must also be on disk when the index reopens.
func TestCloseRightAfterWrites(t *testing.T) {
	for i := range 30 {
		path := filepath.Join(t.TempDir(), strconv.Itoa(i))
		idx, err := bleve.NewUsing(path, bleve.NewIndexMapping(), scorch.Name, scorch.Name, runtimeConfig())
		if err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			b := idx.NewBatch()
			for k := range 50 {
				if err := b.Index(fmt.Sprint(j, "-", k), map[string]any{"title": "hello world"}); err != nil {
					t.Fatal(err)
				}
			}
			if err := idx.Batch(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := closeBleve(idx); err != nil {
			t.Fatal(err)
		}
		idx, err = bleve.OpenUsing(path, runtimeConfig())
		if err != nil {
			t.Fatal(err)
		}
		n, err := idx.DocCount()
		if err != nil || n != 150 {
			t.Fatalf("reopened index holds %d documents (%v), want 150", n, err)
		}
		if err := closeBleve(idx); err != nil {
			t.Fatal(err)
		}
	}
}
