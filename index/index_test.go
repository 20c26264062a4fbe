package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
)

func TestEveryLanguageHasAMapping(t *testing.T) {
	for _, l := range storage.Langs {
		if _, err := newMapping(l); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
}

func TestParseSearch(t *testing.T) {
	tests := []struct {
		in   string
		want []searchTerm
	}{
		{"jazz night", []searchTerm{{text: "jazz"}, {text: "night"}}},
		{"jazz,night+blues", []searchTerm{{text: "jazz"}, {text: "night"}, {text: "blues"}}},
		{`"open air" -rock`, []searchTerm{{text: "open air", phrase: true}, {text: "rock", negated: true}}},
		{`-"open air"`, []searchTerm{{text: "open air", phrase: true, negated: true}}},
		{`"unterminated quote`, []searchTerm{{text: "unterminated quote", phrase: true}}},
		{"a - b", []searchTerm{{text: "a"}, {text: "-"}, {text: "b"}}},
		{`""  ,,`, nil},
	}
	for _, tc := range tests {
		if got := parseSearch(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("parseSearch(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestLanguageSearch shows, per language, a stemmed match and an accent-folded match through the
// query a search term becomes, on a real (in-memory) index with the language's mapping (CONTRACT 5.2).
func TestLanguageSearch(t *testing.T) {
	tests := []struct {
		lang              storage.Lang
		indexed, searched string
	}{
		{"en", "Summer Concert", "concerts"},
		{"en", "Café Müller", "cafe"},
		{"en", "Jazz night", "jaz"},
		{"fr", "Grand Concert", "concerts"},
		{"fr", "Fête de l'été", "ete"},
		{"fr", "Théâtre", "theatre"},
		{"de", "Das Konzert", "Konzerte"},
		{"de", "Müller und Söhne", "muller"},
		{"nl", "Het concert", "concerten"},
		{"nl", "Op het café", "cafe"},
		{"it", "Un concerto", "concerti"},
		{"it", "La città", "citta"},
		{"es", "Un concierto", "conciertos"},
		{"es", "Música en vivo", "musica"},
		{"pl", "Koncert w teatrze", "teatr"},
		{"pl", "Festiwal koncertów", "koncert"},
		{"pl", "Kraków nocą", "krakow"},
	}
	for _, tc := range tests {
		t.Run(string(tc.lang)+" "+tc.searched, func(t *testing.T) {
			m, err := newMapping(tc.lang)
			if err != nil {
				t.Fatal(err)
			}
			idx, err := bleve.NewMemOnly(m)
			if err != nil {
				t.Fatal(err)
			}
			defer idx.Close()
			l := &lang{code: tc.lang, bleve: idx, mapping: m}
			doc := document{kind: storage.TypeEvent, id: 1, text: []string{tc.indexed}}
			other := document{kind: storage.TypeEvent, id: 2, text: []string{"nothing here"}}
			b := idx.NewBatch()
			if err := doc.index(b); err != nil {
				t.Fatal(err)
			}
			if err := other.index(b); err != nil {
				t.Fatal(err)
			}
			if err := idx.Batch(b); err != nil {
				t.Fatal(err)
			}
			got, err := l.textMatches(context.Background(), storage.TypeEvent, tc.searched, Version{})
			if err != nil {
				t.Fatal(err)
			}
			if !got.has(1) || got.has(2) {
				t.Errorf("%q does not find %q (matches %v)", tc.searched, tc.indexed, got)
			}
		})
	}
}

func openIndex(t *testing.T, dir string, db *storage.DB) *Index {
	t.Helper()
	ix, err := Open(context.Background(), dir, db, zaptest.NewLogger(t))
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
		if err := w.ix.catchUp(ctx); err != nil {
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

// TestBoxHoldsTheCircle checks the geo prefilter never rules out a point within the radius: anywhere
// on the globe, across the date line and near the poles.
func TestBoxHoldsTheCircle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 200000 {
		lat, lng := rng.Float64()*180-90, rng.Float64()*360-180
		radius := []float64{1, 25, 300, 5000, 20000}[rng.IntN(5)]
		b := boxAround(lat, lng, radius)
		plat, plng := lat+(rng.Float64()*2-1)*rng.Float64()*90, lng+(rng.Float64()*2-1)*rng.Float64()*180
		plat = max(-90, min(90, plat))
		if plng > 180 {
			plng -= 360
		} else if plng < -180 {
			plng += 360
		}
		if Distance(lat, lng, plat, plng) <= radius && !b.contains(plat, plng) {
			t.Fatalf("box around (%v, %v) r=%v excludes (%v, %v) at %v km", lat, lng, radius, plat, plng, Distance(lat, lng, plat, plng))
		}
	}
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
