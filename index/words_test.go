package index

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// sameWords fails unless wordsTokenizer finds in s the tokens Bleve's Unicode tokenizer finds, and
// returns them.
func sameWords(t *testing.T, s string) []analysis.Token {
	t.Helper()
	got, want := tokenValues(wordsTokenizer{}.Tokenize([]byte(s))), tokenValues(unicode.NewUnicodeTokenizer().Tokenize([]byte(s)))
	if !slices.EqualFunc(got, want, func(a, b analysis.Token) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
		t.Fatalf("tokens of %q:\n got %v\nwant %v", s, got, want)
	}
	return got
}

func tokenValues(ts analysis.TokenStream) []analysis.Token {
	out := make([]analysis.Token, len(ts))
	for i, tok := range ts {
		out[i] = *tok
	}
	return out
}

func TestWordsAsBleves(t *testing.T) {
	for _, tc := range []struct {
		in    string
		terms []string
		types string // N for a number, A for any other word, I for an ideograph
	}{
		{"", nil, ""},
		{"   ", nil, ""},
		{"Jazz in the Park", []string{"Jazz", "in", "the", "Park"}, "AAAA"},
		{"don't stop", []string{"don't", "stop"}, "AA"},
		{"'quoted' words.", []string{"quoted", "words"}, "AA"},
		{"doors at 10:30, ends 22:00", []string{"doors", "at", "10", "30", "ends", "22", "00"}, "AANNANN"},
		{"re:invent e.g. U.S.A.", []string{"re:invent", "e.g", "U.S.A"}, "AAA"},
		{"1,000.50 EUR 1'000 3;4", []string{"1,000.50", "EUR", "1'000", "3;4"}, "NANN"},
		{"a,b a;b 1:2", []string{"a", "b", "a", "b", "1", "2"}, "AAAANN"},
		{"snake_case _1_ __ a_1 1_a", []string{"snake_case", "_1_", "__", "a_1", "1_a"}, "ANAAA"},
		{"a.1 1.a a1.b 1a.b a1.2", []string{"a", "1", "1", "a", "a1", "b", "1a.b", "a1.2"}, "ANNAAAAA"},
		{"a_.b a._b a..b 1..2 a.'b", []string{"a_", "b", "a", "_b", "a", "b", "1", "2", "a", "b"}, "AAAAAANNAA"},
		{"tab\tline\nbreak\r\nend-of-line", []string{"tab", "line", "break", "end", "of", "line"}, "AAAAAA"},
		{"café au lait, Müller's Straße", []string{"café", "au", "lait", "Müller's", "Straße"}, "AAAAA"},
		{"koncertów w Łodzi 2026", []string{"koncertów", "w", "Łodzi", "2026"}, "AAAN"},
		{"東京 コンサート 2026年", []string{"東", "京", "コンサート", "2026", "年"}, "IIINI"},
		{"soft\u00adhyphen e\u0301te \u0301x", []string{"soft\u00adhyphen", "e\u0301te", "x"}, "AAA"},
		{"emoji 🎷 jazz", []string{"emoji", "jazz"}, "AA"},
		// Bleve's tokenizer stops at a byte that is not UTF-8.
		{"bad \xff byte", []string{"bad"}, "A"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			toks := sameWords(t, tc.in)
			var terms []string
			types := ""
			for _, tok := range toks {
				terms = append(terms, string(tok.Term))
				types += map[analysis.TokenType]string{analysis.Numeric: "N", analysis.AlphaNumeric: "A", analysis.Ideographic: "I"}[tok.Type]
			}
			if !slices.Equal(terms, tc.terms) || types != tc.types {
				t.Errorf("tokens of %q: %q %s, want %q %s", tc.in, terms, types, tc.terms, tc.types)
			}
		})
	}
}

// TestWordsOfEveryShortASCIIString compares the tokenizers on every string of up to five characters
// over the characters that join or break words, and the two the input is cut at.
func TestWordsOfEveryShortASCIIString(t *testing.T) {
	const alphabet = "a1_.,:;' -\n"
	var walk func(prefix string, n int)
	walk = func(prefix string, n int) {
		sameWords(t, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			walk(prefix+string(c), n-1)
		}
	}
	walk("", 5)
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"Jazz in the Park", "doors at 10:30, ends 22:00", "1,000.50 e.g. don't a_1",
		"café au lait, Müller's Straße", "東京 コンサート", "soft\u00adhyphen \u0301x", "bad \xff byte",
		strings.Repeat("a.", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sameWords(t, s)
	})
}

// BenchmarkTokenize compares the tokenizers on a description in each of three languages.
func BenchmarkTokenize(b *testing.B) {
	texts := [][]byte{
		[]byte("Jazz in the Park returns for its 12th season.\nBring a blanket: doors open at 18:30, and the first set starts at 19:00. Tickets cost 15.50 EUR; children under 12 go free. Don't miss it!"),
		[]byte("Das Sommerfest im Stadtpark kehrt zurück.\nBringen Sie eine Decke mit: Einlass ist um 18:30 Uhr, das Konzert beginnt um 19 Uhr. Karten kosten 15,50 €; Kinder unter 12 Jahren haben freien Eintritt."),
		[]byte("Koncert w Łodzi wraca po raz dwunasty.\nWeź koc: wejście od 18:30, pierwszy występ o 19:00. Bilety kosztują 15,50 zł; dzieci do lat 12 wchodzą za darmo."),
	}
	for name, tok := range map[string]analysis.Tokenizer{"bleve": unicode.NewUnicodeTokenizer(), "calendard": wordsTokenizer{}} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, text := range texts {
					tok.Tokenize(text)
				}
			}
		})
	}
}
