package index

import "strings"

// stemPLName is calendard's Polish stemmer, a token filter that runs on folded words. It replaces
// Bleve's stempel, whose table was trained on written Polish with diacritics and stems most inflected
// forms of one noun apart (`koncert`, `koncerty`, `koncertów` become three different terms, and
// `koncertow` typed without diacritics a fourth): on the word-form set of index/testdata it found 58 %
// of the forms of a word from another form; this finds 98 % (docs/BENCHMARKS.md, section "Search").
//
// It is a light stemmer in the manner of Savoy's for the other languages Bleve stems lightly, and of
// Dolamic and Savoy's for Czech ("Indexing and stemming approaches for the Czech language", 2009): it
// removes one case, number or gender ending and then undoes the consonant changes that endings cause,
// so that every form of a word reduces to one stem, which need not be a word. Because it works on
// folded words (`ó` is already `o`, `ł` is `l`), a form typed without its diacritics reduces to the
// same stem as the one written with them.
const stemPLName = "calendard_stem_pl"

// plEndings are the endings removed, longest first within each length so that the longest that fits
// wins: the noun and adjective declensions, and the infinitive and present-tense verb endings.
// Past-tense endings (-ali, -ała) are left out on purpose: `festiwali` is a genitive plural.
var plEndings = []string{
	"iego", "iemu", "owie", "iach", "iami",
	"ach", "ami", "ego", "emu", "ych", "ymi", "imi", "ich", "iej", "owi", "iem", "iom", "amy", "emy", "imy",
	"ymy", "aja", "eja",
	"ow", "om", "em", "ej", "ym", "im", "ie", "ia", "iu", "um", "mi",
	"a", "e", "i", "o", "u", "y",
}

// plVerbEndings are the infinitive endings, removed only from longer words: short nouns end in them
// too (`plac`, `pałac`).
var plVerbEndings = []string{"ac", "ic", "yc"}

// minPLStem is the shortest stem an ending is removed down to: shorter stems would join unrelated
// words.
const minPLStem = 3

// stemPL reduces a folded, lower-case Polish word to its stem.
func stemPL(w string) string {
	if !isASCII([]byte(w)) {
		return w
	}
	if strings.HasSuffix(w, "cie") && len(w)-3 >= minPLStem {
		// koncercie, warsztacie: the locative turns a stem's t into c.
		return strings.TrimSuffix(w, "cie") + "t"
	}
	if stem, ok := stripPL(w); ok {
		return plConsonants(stem)
	}
	// Without an ending, the word may be a nominative or a genitive plural whose last syllable has
	// the vowel e that the other forms lose (taniec, tańca; wycieczek, wycieczka).
	switch {
	case len(w) > minPLStem+1 && strings.HasSuffix(w, "iec"):
		w = w[:len(w)-3] + "c"
	case len(w) > minPLStem+1 && strings.HasSuffix(w, "ek") && !isVowel(w[len(w)-3]):
		w = w[:len(w)-2] + "k"
	}
	return velar(w)
}

// stripPL removes the longest ending that leaves a long enough stem, reporting whether there was one.
func stripPL(w string) (string, bool) {
	for _, e := range plVerbEndings {
		if strings.HasSuffix(w, e) && len(w)-len(e) > minPLStem {
			return w[:len(w)-len(e)], true
		}
	}
	for _, e := range plEndings {
		if strings.HasSuffix(w, e) && len(w)-len(e) >= minPLStem {
			return w[:len(w)-len(e)], true
		}
	}
	return w, false
}

// plConsonants undoes the changes a stem's last consonants go through with an ending: a soft stem
// keeps an i before some endings (dzieci-om), and the locative softens r to rz and d to dz (teatrze,
// paradzie).
func plConsonants(w string) string {
	if len(w) > minPLStem && w[len(w)-1] == 'i' {
		w = w[:len(w)-1]
	}
	if len(w) > minPLStem && (strings.HasSuffix(w, "rz") || strings.HasSuffix(w, "dz")) {
		w = w[:len(w)-1]
	}
	return velar(w)
}

// velar writes a stem's last c as the k it alternates with (muzyka, muzyce; dziecko, dzieci; noc,
// nocy): every form of a word then ends alike, whichever of the two it shows. A word of one or two
// letters is left as it is.
func velar(w string) string {
	switch {
	case len(w) < minPLStem:
		return w
	case strings.HasSuffix(w, "ck"):
		return w[:len(w)-2] + "k"
	case strings.HasSuffix(w, "c"):
		return w[:len(w)-1] + "k"
	}
	return w
}

func isVowel(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'
}
