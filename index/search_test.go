package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/calendard/calendard/storage"
)

// TestLanguageSearch shows, per language, a stemmed match and an accent-folded match through the
// query a search term becomes, on a real (in-memory) index with the language's mapping (docs/API.md "Events list parameters").
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
		{"fr", "L'Exposition d'été", "expo"}, // a capital article is elided too
		{"it", "L'Estate Romana", "estate"},
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
			l := diskLang(t, tc.lang)
			indexTexts(t, l, map[uint64]string{1: tc.indexed, 2: "nothing here"})
			got, err := l.textMatches(context.Background(), tc.searched, Version{}, false)
			if err != nil {
				t.Fatal(err)
			}
			if !contains(got, 1) || contains(got, 2) {
				t.Errorf("%q does not find %q (matches %v)", tc.searched, tc.indexed, got)
			}
		})
	}
}

// TestPrefixSearch: a term of two characters or more also matches every word that begins with it,
// through the indexed prefixes, one term lookup whatever the dictionary holds (docs/API.md "Events list parameters").
func TestPrefixSearch(t *testing.T) {
	texts := map[uint64]string{
		1: "Jazzfestival tonight",
		2: "Jazz",
		3: "abcdefghijklmnopqrstuvwxyz",
		4: "Müllerstraße",
		5: "nothing here",
	}
	// A dictionary of words sharing one prefix, which a prefix search must not walk.
	var poison strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&poison, "qx%d ", i)
	}
	texts[6] = poison.String()
	l := diskLang(t, "en")
	indexTexts(t, l, texts)
	tests := []struct {
		search string
		want   []uint64
	}{
		{"ja", []uint64{1, 2}},
		{"jazzf", []uint64{1}},
		{"JAZZFESTIVAL", []uint64{1}},
		{"azz", nil}, // inside a word, not at its start
		{"j", nil},   // one character: whole words only
		{"mull", []uint64{4}},
		{"mullerstrasse", []uint64{4}},
		{"abcdefghijklmnopqrst", []uint64{3}},
		{"abcdefghijklmnopqrstuvwxyz", []uint64{3}},
		// Longer than maxPrefixRunes: the term stands for its first 20 characters.
		{"abcdefghijklmnopqrstXYZ", []uint64{3}},
		{"abcdefghijklmnopqrsX", nil},
		{"qx1999", []uint64{6}},
		{"qx", []uint64{6}},
	}
	for _, tc := range tests {
		t.Run(tc.search, func(t *testing.T) {
			got, err := l.textMatches(context.Background(), tc.search, Version{}, false)
			if err != nil {
				t.Fatal(err)
			}
			var ids []uint64
			for id := range texts {
				if contains(got, id) {
					ids = append(ids, id)
				}
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tc.want) {
				t.Errorf("search %q matches %v, want %v", tc.search, ids, tc.want)
			}
		})
	}
	// Structurally: a prefix is one term of the prefix field, never an expansion over the dictionary.
	a, _ := analyseTerm(l.mapping, searchTerm{text: "qx"}, false)
	q := a.query(allText)
	d, ok := q.(*query.DisjunctionQuery)
	if !ok || len(d.Disjuncts) != 2 {
		t.Fatalf("query for a prefix: %T %+v, want a disjunction of the word and the prefix", q, q)
	}
	for _, sub := range d.Disjuncts {
		if _, ok := sub.(*query.TermQuery); !ok {
			t.Errorf("part of the prefix query is a %T, want a term query", sub)
		}
	}
}

// TestLongPhrase: a phrase is matched by its first maxPhraseWords words in order, so its cost stays
// bounded however long it is.
func TestLongPhrase(t *testing.T) {
	var words []string
	for i := range 40 {
		words = append(words, fmt.Sprint("w", i))
	}
	l := diskLang(t, "en")
	indexTexts(t, l, map[uint64]string{1: strings.Join(words, " "), 2: strings.Join(words[:31], " ")})
	for _, tc := range []struct {
		phrase []string
		want   [2]bool
	}{
		{words, [2]bool{true, false}},
		{append(slices.Clone(words[:32]), "unrelated", "words"), [2]bool{true, false}},
		{words[:31], [2]bool{true, true}},
		{append(slices.Clone(words[:31]), "unrelated"), [2]bool{false, false}},
	} {
		search := `"` + strings.Join(tc.phrase, " ") + `"`
		got, err := l.textMatches(context.Background(), search, Version{}, false)
		if err != nil {
			t.Fatal(err)
		}
		if contains(got, 1) != tc.want[0] || contains(got, 2) != tc.want[1] {
			t.Errorf("phrase of %d words: matches 1 %v, 2 %v; want %v", len(tc.phrase), contains(got, 1), contains(got, 2), tc.want)
		}
	}
}

// expiringCtx reports itself cancelled from its nth look at Err on: a deadline that passes in the
// middle of a search, at a point the test chooses.
type expiringCtx struct {
	context.Context
	looks, n int
}

func (c *expiringCtx) Err() error {
	if c.looks++; c.looks >= c.n {
		return context.Canceled
	}
	return nil
}

// TestSearchStopsAtItsDeadline: a phrase that no document holds, over documents that all hold its
// words, is one long step of Bleve's searcher; the search still stops when its context ends
// (docs/API.md "Limits"), because the postings it reads look at the context.
func TestSearchStopsAtItsDeadline(t *testing.T) {
	texts := map[uint64]string{}
	for id := range uint64(3000) {
		texts[id+1] = "jazz concert"
	}
	l := diskLang(t, "en")
	indexTexts(t, l, texts)
	ctx := &expiringCtx{Context: context.Background(), n: 3}
	set, err := l.textMatches(ctx, `"concert jazz"`, Version{}, false)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("search went on past its context: %v matches, %v", set, err)
	}
}

// indexTexts indexes into l's Bleve index one event document per text, under its ID.
func indexTexts(tb testing.TB, l *lang, texts map[uint64]string) {
	tb.Helper()
	b := l.bleve.NewBatch()
	for id, text := range texts {
		doc := document{kind: storage.TypeEvent, id: id, text: []string{text}}
		if err := doc.index(b); err != nil {
			tb.Fatal(err)
		}
	}
	if err := l.bleve.Batch(b); err != nil {
		tb.Fatal(err)
	}
}

// contains reports whether a text match holds id; nil, no restriction, holds nothing.
func contains(set *roaring64.Bitmap, id uint64) bool {
	return set != nil && set.Contains(id)
}
