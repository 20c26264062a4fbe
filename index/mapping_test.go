package index

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/calendard/calendard/storage"
)

// edgeNgrams is the configuration of Bleve's edge n-gram filter that prefixFilter replaces; the
// tests find the filter by its type's name, as an old index's stored mapping does.
var edgeNgrams = map[string]any{"type": "edge_ngram", "min": 2.0, "max": float64(maxPrefixRunes)}

// The prefix filter must yield exactly the terms of Bleve's edge n-gram filter with the bounds it
// replaces: indexes written before it hold those terms, and a search must find the same words in both.
func TestPrefixFilterMatchesEdgeNgrams(t *testing.T) {
	bleveGrams, err := registry.NewCache().DefineTokenFilter("grams", edgeNgrams)
	if err != nil {
		t.Fatal(err)
	}
	for _, words := range [][]string{
		{},
		{""},
		{"a"},
		{"ab"},
		{"concert"},
		{"é", "été", "żółć", "日本語"},
		{strings.Repeat("x", maxPrefixRunes-1), strings.Repeat("y", maxPrefixRunes), strings.Repeat("z", maxPrefixRunes+1)},
		{strings.Repeat("ł", maxPrefixRunes+5), "a", "", "jazzfestival"},
	} {
		got, want := terms(prefixFilter{}.Filter(stream(words))), terms(bleveGrams.Filter(stream(words)))
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", words, got, want)
		}
	}
}

func stream(words []string) analysis.TokenStream {
	var out analysis.TokenStream
	for i, w := range words {
		out = append(out, &analysis.Token{Term: []byte(w), Position: i + 1, Start: 10 * i, End: 10*i + len(w), Type: analysis.AlphaNumeric})
	}
	return out
}

// terms lists a stream's tokens with what a posting keeps of them.
func terms(ts analysis.TokenStream) []string {
	var out []string
	for _, tok := range ts {
		out = append(out, string(tok.Term)+"@"+utoa(uint64(tok.Position))+":"+utoa(uint64(tok.Start))+"-"+utoa(uint64(tok.End)))
	}
	return out
}

// An index whose stored mapping names Bleve's edge n-gram filter, as every index written before
// prefixFilter does, must still open: otherwise each would be rebuilt on upgrade.
func TestIndexWithEdgeNgramMappingOpens(t *testing.T) {
	m, err := newMapping("en")
	if err != nil {
		t.Fatal(err)
	}
	err = m.AddCustomTokenFilter("calendard_prefix_grams", edgeNgrams)
	if err != nil {
		t.Fatal(err)
	}
	m.CustomAnalysis.Analyzers[analyzerPrefixes]["token_filters"] = []any{"to_lower", foldName, "calendard_prefix_grams"}
	path := filepath.Join(t.TempDir(), "en.bleve")
	idx, err := bleve.NewUsing(path, m, scorch.Name, scorch.Name, runtimeConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := closeBleve(idx); err != nil { // Close alone may not have persisted the mapping yet
		t.Fatal(err)
	}
	idx, err = bleve.OpenUsing(path, runtimeConfig())
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	closeBleve(idx)
}

func TestEveryLanguageHasAMapping(t *testing.T) {
	for _, l := range storage.Langs {
		if _, err := newMapping(l); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
}
