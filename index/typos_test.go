package index

import (
	"context"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/calendard/calendard/storage"
)

// TestTypoTolerance: a search that finds nothing is answered again with typo tolerance (one edit from
// 5 letters, two from 9, none below 5) and the page says so; one that finds something is never
// widened, and a word unrelated to the data still finds nothing.
func TestTypoTolerance(t *testing.T) {
	l := diskLang(t, "en")
	texts := map[uint64]string{
		1: "Summer Concert",
		2: "Summer concern",
		3: "Photography exhibition",
		4: "Jazz night",
		5: "Interdisciplinary workshop",
	}
	b := l.bleve.NewBatch()
	for id, text := range texts {
		doc := document{kind: storage.TypeEvent, id: id, text: []string{text}}
		if err := doc.index(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.bleve.Batch(b); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		search   string
		want     []uint64
		tolerant bool
	}{
		{"concert", []uint64{1}, false},            // found as typed: concern is one edit away, but not widened
		{"concret", []uint64{1}, true},             // two letters swapped: one edit
		{"cocnerts", []uint64{1}, true},            // in an inflected form
		{"exhibitoin", []uint64{3}, true},          // a typo the stemmer does not see through
		{"interdiciplinery", []uint64{5}, true},    // 16 letters: two edits
		{"jazx", nil, false},                       // four letters: no edit allowed
		{"nihgt", []uint64{4}, true},               // five letters: one edit
		{"nxhgt", nil, true},                       // five letters, two edits
		{"xylophone", nil, true},                   // unrelated to the data
		{"summer -concret", []uint64{1, 2}, false}, // a negated term is never widened; found as typed
		{`"concret summer"`, nil, false},           // a phrase is not widened
		{"summer concret", []uint64{1}, true},      // every term must match, the widened one included
	}
	for _, tc := range tests {
		t.Run(tc.search, func(t *testing.T) {
			got, err := l.answer(context.Background(), tc.search, Version{}, func(text *roaring64.Bitmap, _ bool) (Page, error) {
				var p Page
				for id := range texts {
					if text == nil || text.Contains(id) {
						p.IDs = append(p.IDs, id)
					}
				}
				slices.Sort(p.IDs)
				p.Total = len(p.IDs)
				return p, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.IDs, tc.want) || got.TypoTolerant != tc.tolerant {
				t.Errorf("search %q: %v (typo-tolerant %v), want %v (%v)", tc.search, got.IDs, got.TypoTolerant, tc.want, tc.tolerant)
			}
		})
	}
}

// TestTypoToleranceWidensFourWords: of a search's words, the first maxTypoTerms that can be widened
// are; a later one must be typed right.
func TestTypoToleranceWidensFourWords(t *testing.T) {
	m, err := newMapping("en")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		search string
		want   int
	}{
		{"concret nightt summerr jazzzz", 4},
		{"concret nightt summerr jazzzz workshpo", 4},
		{"-concret nightt", 1},
		{`"concret nightt" summerr`, 1},
		{"jaz night", 1},
	} {
		must, _, _ := textQuery(m, tc.search, true)
		got := 0
		for _, q := range must {
			if d, ok := q.(*query.DisjunctionQuery); ok {
				for _, sub := range d.Disjuncts {
					if _, ok := sub.(*typoQuery); ok {
						got++
						break
					}
				}
			}
		}
		if got != tc.want {
			t.Errorf("%q: %d words widened, want %d", tc.search, got, tc.want)
		}
	}
}
