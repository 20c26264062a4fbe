package index

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/calendard/calendard/storage"
)

// FuzzParseSearch splits arbitrary search strings (the `search` parameter of every list) and builds
// their queries in every language. The terms are what the string holds, in its order; written back
// as a search string they split the same way; and every query comes from one of them.
func FuzzParseSearch(f *testing.F) {
	for _, seed := range []string{
		"", "jazz", "jazz night", "jazz,night+blues", `"open air" -rock`, `-"open air"`, `"unterminated quote`,
		"a - b", `""  ,,`, "--x", `-"`, `a"b"c`, "Café Müller", "l'été", "concerts -\"live music\" +jazz",
		"the and of", "\t\n\v\f\r", "-", `"-a" - "`, "日本 音楽", "\xff\xfe", "a\x00b",
	} {
		f.Add(seed)
	}
	var maps []*mapping.IndexMappingImpl
	for _, l := range storage.Langs {
		m, err := newMapping(l)
		if err != nil {
			f.Fatal(err)
		}
		maps = append(maps, m)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := parseSearch(s)
		if len(terms) > maxSearchTerms {
			t.Fatalf("%q gave %d terms, more than %d", s, len(terms), maxSearchTerms)
		}
		for i, term := range terms {
			if slices.Contains(terms[:i], term) {
				t.Fatalf("%q gave %+v twice", s, term)
			}
		}
		rest := s
		for _, term := range terms {
			switch {
			case strings.TrimSpace(term.text) == "":
				t.Fatalf("blank term %+v", term)
			case term.phrase && strings.Contains(term.text, `"`):
				t.Fatalf("phrase with a quote %+v", term)
			case !term.phrase && strings.ContainsAny(term.text, " \t\n\r\f\v,+"):
				t.Fatalf("word with a separator %+v", term)
			}
			i := strings.Index(rest, term.text)
			if i < 0 {
				t.Fatalf("term %+v is not in %q after the terms before it", term, s)
			}
			rest = rest[i+len(term.text):]
		}
		var b strings.Builder
		for _, term := range terms {
			if term.negated {
				b.WriteByte('-')
			}
			if term.phrase {
				b.WriteString(`"` + term.text + `"`)
			} else {
				b.WriteString(term.text)
			}
			b.WriteByte(' ')
		}
		if again := parseSearch(b.String()); !slices.Equal(again, terms) {
			t.Fatalf("%q splits into %+v, written back as %q into %+v", s, terms, b.String(), again)
		}
		negated := 0
		for _, term := range terms {
			if term.negated {
				negated++
			}
		}
		for _, m := range maps {
			for _, typos := range []bool{false, true} {
				must, mustNot, _ := textQuery(m, s, typos)
				if len(must)+len(mustNot) > len(terms) || len(mustNot) > negated {
					t.Fatalf("%q (typos %v): %d terms (%d negated) gave %d must and %d must-not queries",
						s, typos, len(terms), negated, len(must), len(mustNot))
				}
			}
		}
	})
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
		// A repeated term counts once (docs/API.md "Events list parameters"); a negated or quoted one is another term.
		{"jazz jazz,jazz+jazz", []searchTerm{{text: "jazz"}}},
		{`jazz -jazz "jazz"`, []searchTerm{{text: "jazz"}, {text: "jazz", negated: true}, {text: "jazz", phrase: true}}},
		{strings.Repeat("qx ", 5000) + "night", []searchTerm{{text: "qx"}, {text: "night"}}},
	}
	for _, tc := range tests {
		if got := parseSearch(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("parseSearch(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestSearchUsesTheFirst32Terms: of more than 32 distinct terms only the first 32 are used, and
// repeats do not count towards them (docs/API.md "Events list parameters", "Limits").
func TestSearchUsesTheFirst32Terms(t *testing.T) {
	var words []string
	for i := range 40 {
		words = append(words, fmt.Sprint("w", i))
	}
	got := parseSearch("w0 w0 w1 " + strings.Join(words, " "))
	if len(got) != maxSearchTerms {
		t.Fatalf("%d terms, want %d", len(got), maxSearchTerms)
	}
	for i, term := range got {
		if want := fmt.Sprint("w", i); term.text != want {
			t.Errorf("term %d = %q, want %q", i, term.text, want)
		}
	}
}
