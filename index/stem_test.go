package index

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestStemPL: the forms of one word reduce to one stem, whatever its case, number, gender or
// consonant changes, and words of different meaning stay apart.
func TestStemPL(t *testing.T) {
	tests := []struct {
		stem  string
		forms []string
	}{
		{"koncert", []string{"koncert", "koncerty", "koncertow", "koncercie", "koncertami", "koncertowi"}},
		{"wystaw", []string{"wystawa", "wystawy", "wystawie", "wystawe", "wystaw", "wystawach"}},
		{"teatr", []string{"teatr", "teatrze", "teatrow", "teatrem"}},
		{"wyklad", []string{"wyklad", "wykladzie", "wykladow"}},
		{"tank", []string{"taniec", "tanca", "tance", "tancem", "tancach"}},
		{"wycieczk", []string{"wycieczka", "wycieczce", "wycieczek", "wycieczkami"}},
		{"dziek", []string{"dziecko", "dzieckiem", "dzieci", "dzieciom", "dziecmi"}},
		{"muzyczn", []string{"muzyczny", "muzycznego", "muzycznej", "muzycznymi", "muzycznemu"}},
		{"spiew", []string{"spiewac", "spiewamy", "spiewaja", "spiewa"}},
		{"nok", []string{"noc", "nocy", "noce", "nocami"}},
		{"plak", []string{"plac", "placu", "placem"}}, // a short noun that ends like an infinitive
		{"kot", []string{"kot"}},            // too short to lose anything
		{"café", []string{"café"}},          // only folded words are stemmed
		{"festiwal", []string{"festiwali"}}, // a genitive plural, not a past tense
	}
	for _, tc := range tests {
		for _, form := range tc.forms {
			if got := stemPL(form); got != tc.stem {
				t.Errorf("stemPL(%q) = %q, want %q", form, got, tc.stem)
			}
		}
	}
}

func TestPluralNL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"cursuss", "cursus"},
		{"less", "les"},
		{"families", "familie"},
		{"musea", "museum"},
		{"podia", "podium"},
		{"dans", "dan"},
		{"kermis", "kermis"}, // s after a vowel stays
		{"concert", "concert"},
	}
	for _, tc := range tests {
		if got := pluralNL(tc.in); got != tc.want {
			t.Errorf("pluralNL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzStem: the stemmers take any token without panicking, and never lengthen a word by more than
// the endings they write back (Latin plurals gain a letter), nor empty it.
func FuzzStem(f *testing.F) {
	for _, s := range []string{"koncertow", "koncercie", "taniec", "wycieczek", "dzieci", "a", "", "cie", "xiec",
		"ek", "rz", "musea", "cursuss", "zażółć", "ab\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		for name, stem := range map[string]func(string) string{"pl": stemPL, "nl": pluralNL} {
			got := stem(w)
			if len(got) > len(w)+1 {
				t.Errorf("%s: %q grew to %q", name, w, got)
			}
			if w != "" && got == "" {
				t.Errorf("%s: %q stemmed to nothing", name, w)
			}
			if utf8.ValidString(w) && !utf8.ValidString(got) {
				t.Errorf("%s: %q stemmed to invalid UTF-8 %q", name, w, got)
			}
			if name == "pl" && !isASCII([]byte(w)) && got != w {
				t.Errorf("pl: unfolded %q changed to %q", w, got)
			}
			if name == "pl" && !strings.HasPrefix(w, got[:min(len(got), 1)]) {
				t.Errorf("pl: %q lost its first letter: %q", w, got)
			}
		}
	})
}
