package index

import (
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/edgengram"
)

// The prefix filter must yield exactly the terms of Bleve's edge n-gram filter with the bounds it
// replaces: indexes written before it hold those terms, and a search must find the same words in both.
func TestPrefixFilterMatchesEdgeNgrams(t *testing.T) {
	bleveGrams := edgengram.NewEdgeNgramFilter(edgengram.FRONT, 2, maxPrefixRunes)
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
