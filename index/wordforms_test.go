package index

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/calendard/calendard/storage"
)

// minWordFormRecall is the share of word forms that must find the other forms of their word, in every
// language.
const minWordFormRecall = 0.95

// readWordForms reads testdata/wordforms/<lang>.txt: one word a line, its forms separated by spaces;
// lines starting with # are comments.
func readWordForms(t testing.TB, lang storage.Lang) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "wordforms", string(lang)+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var words [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		forms := strings.Fields(line)
		if len(forms) < 2 {
			t.Fatalf("%s: %q has one form: nothing to find", lang, line)
		}
		words = append(words, forms)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return words
}

// TestWordFormRecall indexes every form of the word-form set as a document of its own, through the
// language's real mapping, and searches every form through the search path of the lists: recall is
// the share of (searched form, other form of the same word) pairs found. Run with -v for the recall
// per language that docs/BENCHMARKS.md gives (section "Search") and the pairs missed.
func TestWordFormRecall(t *testing.T) {
	for _, code := range storage.Langs {
		t.Run(string(code), func(t *testing.T) {
			words := readWordForms(t, code)
			found, pairs, missed := wordFormRecall(t, diskLang(t, code), words)
			recall := float64(found) / float64(pairs)
			t.Logf("| %s | %d | %d | %.1f %% |", code, len(words), pairs, 100*recall)
			t.Logf("missed: %s", strings.Join(missed, " "))
			if recall < minWordFormRecall {
				t.Errorf("recall %.3f (%d of %d pairs), want at least %.2f", recall, found, pairs, minWordFormRecall)
			}
		})
	}
}

// wordFormRecall indexes every form of words into l, one document each, and searches each form:
// pairs is the number of (searched form, other form of its word) pairs, found those the search found,
// and missed names the others.
func wordFormRecall(t *testing.T, l *lang, words [][]string) (found, pairs int, missed []string) {
	t.Helper()
	b := l.bleve.NewBatch()
	ids := map[[2]int]uint64{}
	for w, forms := range words {
		for f, form := range forms {
			id := uint64(len(ids) + 1)
			ids[[2]int{w, f}] = id
			doc := document{kind: storage.TypeEvent, id: id, text: []string{form}}
			if err := doc.index(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := l.bleve.Batch(b); err != nil {
		t.Fatal(err)
	}
	for w, forms := range words {
		for s, searched := range forms {
			got, err := l.textMatches(context.Background(), searched, Version{}, false)
			if err != nil {
				t.Fatal(err)
			}
			for f, form := range forms {
				if f == s {
					continue
				}
				pairs++
				if contains(got, ids[[2]int{w, f}]) {
					found++
				} else {
					missed = append(missed, searched+"→"+form)
				}
			}
		}
	}
	return found, pairs, missed
}

// diskLang is an empty index of language code with its real mapping, on disk as in production: an
// in-memory Bleve index has no fuzzy dictionary.
func diskLang(tb testing.TB, code storage.Lang) *lang {
	tb.Helper()
	m, err := newMapping(code)
	if err != nil {
		tb.Fatal(err)
	}
	idx, err := bleve.NewUsing(filepath.Join(tb.TempDir(), string(code)+".bleve"), m, scorch.Name, scorch.Name, runtimeConfig())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { closeBleve(idx) })
	return &lang{code: code, bleve: idx, mapping: m, proj: newProjection(), texts: &textCache{}}
}

// BenchmarkSearchWordForms measures a search for each form of the word-form set, per language, over
// 10k events whose text is drawn from every form of the set: the analysis and the postings walk of the
// lists' search path, with the remembered matches missed (a new version for every search).
func BenchmarkSearchWordForms(b *testing.B) {
	for _, code := range storage.Langs {
		b.Run(string(code), func(b *testing.B) {
			words := readWordForms(b, code)
			var forms []string
			for _, w := range words {
				forms = append(forms, w...)
			}
			l := diskLang(b, code)
			batch := l.bleve.NewBatch()
			rng := rand.New(rand.NewPCG(1, 2))
			for id := range uint64(10000) {
				text := make([]string, 8)
				for i := range text {
					text[i] = forms[rng.IntN(len(forms))]
				}
				doc := document{kind: storage.TypeEvent, id: id + 1, text: []string{strings.Join(text, " ")}}
				if err := doc.index(batch); err != nil {
					b.Fatal(err)
				}
			}
			if err := l.bleve.Batch(batch); err != nil {
				b.Fatal(err)
			}
			var v uint64
			for b.Loop() {
				v++
				if _, err := l.textMatches(context.Background(), forms[int(v)%len(forms)], Version{Applied: v}, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
