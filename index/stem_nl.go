package index

import "strings"

// pluralNLName is a token filter that runs after Bleve's Dutch Snowball stemmer and reduces the
// plurals it leaves apart from their singular to the singular's stem: Snowball's Dutch undoubles
// only kk, dd and tt (cursussen stays cursuss, lessen less), removes the s that ends a singular after a
// consonant but keeps it once the plural's -en is gone (dans becomes dan, dansen dans), keeps the s of
// -ies (families), and knows no Latin plurals (musea, podia).
const pluralNLName = "calendard_plural_nl"

// nlPlurals are the endings rewritten, checked in order; the first that fits applies.
var nlPlurals = []struct{ from, to string }{
	{"ss", "s"},
	{"ies", "ie"},
	{"ea", "eum"},
	{"ia", "ium"},
}

// pluralNL rewrites the plural ending of a stem, keeping at least two letters before it.
func pluralNL(w string) string {
	for _, r := range nlPlurals {
		if strings.HasSuffix(w, r.from) && len(w)-len(r.from) >= 2 {
			return w[:len(w)-len(r.from)] + r.to
		}
	}
	// Snowball's own rule for a final s, applied to what is left of a plural.
	if n := len(w); n > 3 && w[n-1] == 's' && !isVowel(w[n-2]) && w[n-2] != 'j' && w[n-2] != 's' {
		return w[:n-1]
	}
	return w
}
