package index

import (
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
