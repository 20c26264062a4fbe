package index

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"
)

// searchTerm is one term of a search string (docs/API.md "Events list parameters"): a word or a quoted phrase, maybe negated.
type searchTerm struct {
	text    string
	phrase  bool
	negated bool
}

// maxSearchTerms is how many distinct terms of a search are used (docs/API.md "Events list parameters", "Limits"): a bound on
// what one request can cost.
const maxSearchTerms = 32

// parseSearch splits a search string on whitespace, ',' and '+'; a double-quoted part is one phrase
// term and a leading '-' negates a term. An unterminated quote runs to the end of the string. A term
// repeated counts once, and of more than maxSearchTerms distinct terms the later ones are ignored.
func parseSearch(s string) []searchTerm {
	var terms []searchTerm
	for i := 0; i < len(s) && len(terms) < maxSearchTerms; {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ',' || c == '+' {
			i++
			continue
		}
		t := searchTerm{}
		if c == '-' && i+1 < len(s) && !isSeparator(s[i+1]) {
			t.negated = true
			i++
		}
		if s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				end = len(s) - i - 1
			}
			t.text, t.phrase = s[i+1:i+1+end], true
			i += end + 2
		} else {
			end := i
			for end < len(s) && !isSeparator(s[end]) {
				end++
			}
			t.text = s[i:end]
			i = end
		}
		if strings.TrimSpace(t.text) != "" && !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	return terms
}

func isSeparator(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ',' || c == '+'
}

// textQuery builds the Bleve query for a search string, or nil when the string has no term that
// survives analysis (only stop words: everything matches). With typos, each of the first maxTypoTerms
// words that typoEdits allows also matches the indexed words within that many edits of it, and widened
// reports whether any did.
func textQuery(m *mapping.IndexMappingImpl, search string, typos bool) (must, mustNot []query.Query, widened bool) {
	n := 0
	for _, t := range parseSearch(search) {
		q, w := termQuery(m, t, typos && !t.negated && n < maxTypoTerms, allText)
		if q == nil {
			continue // a stop word, or nothing searchable: ignored
		}
		if w {
			n++
		}
		widened = widened || w
		if t.negated {
			mustNot = append(mustNot, q)
		} else {
			must = append(must, q)
		}
	}
	return must, mustNot, widened
}

// maxPhraseWords bounds the words of a phrase that are matched: a phrase walks the postings of each of
// its words, so its cost grows with its length; a longer phrase matches by its first maxPhraseWords
// words, in order.
const maxPhraseWords = maxSearchTerms

// searchFields names the fields a term is searched in: the text and its prefixes.
type searchFields struct{ text, prefix string }

var (
	// allText is every searched field of a record: what a search matches.
	allText = searchFields{fieldText, fieldPrefix}
	// titleText is the title alone: what orderby=relevance ranks first (relevance).
	titleText = searchFields{fieldTitle, fieldTitlePrefix}
)

// termQuery matches one term in the fields in: the analysed words in order (a phrase when there are
// several), or, for a single word of at least two characters, any word that begins with it; with
// typos, a single word also matches the words within typoEdits of it, and widened says so.
func termQuery(m *mapping.IndexMappingImpl, t searchTerm, typos bool, in searchFields) (q query.Query, widened bool) {
	tokens := m.AnalyzerNamed(analyzerText).Analyze([]byte(t.text))
	if len(tokens) == 0 {
		return nil, false
	}
	if len(tokens) > 1 || t.phrase {
		text := t.text
		if len(tokens) > maxPhraseWords {
			text = text[:tokens[maxPhraseWords-1].End]
		}
		q := bleve.NewMatchPhraseQuery(text)
		q.SetField(in.text)
		q.Analyzer = analyzerText
		return q, false
	}
	match := bleve.NewTermQuery(string(tokens[0].Term))
	match.SetField(in.text)
	folded := analyze(m, analyzerPrefix, t.text)
	if len(folded) != 1 || utf8.RuneCountInString(folded[0]) < 2 {
		return match, false
	}
	prefix := bleve.NewTermQuery(indexedPrefix(folded[0]))
	prefix.SetField(in.prefix)
	if edits := typoEdits(folded[0]); typos && edits > 0 {
		// Near the folded words' beginnings, for a typo the stemmer does not see through (exhibitoin
		// for exhibition), and near the stem, for a typo in an inflected form (koncrety, stem koncret,
		// for koncert). A stem longer than the longest prefix indexed stands for no word: the
		// automaton of so long a word costs more than the rest of the search (a 1,000-letter word took
		// 23 ms), and its beginning is searched anyway.
		near := bleve.NewDisjunctionQuery(match, prefix, &typoQuery{field: in.prefix, term: indexedPrefix(folded[0]), edits: edits})
		if stem := string(tokens[0].Term); utf8.RuneCountInString(stem) <= maxPrefixRunes {
			near.AddQuery(&typoQuery{field: in.text, term: stem, edits: edits})
		}
		return near, true
	}
	return bleve.NewDisjunctionQuery(match, prefix), false
}

// typoEdits is how many edits a searched word may be from an indexed one when a search is answered
// with typo tolerance (the rule of Meilisearch and Typesense): none below 5 letters, one
// from 5 to 8, two from 9 on. It counts the letters of the word as typed, folded.
func typoEdits(word string) int {
	switch n := utf8.RuneCountInString(word); {
	case n >= 9:
		return 2
	case n >= 5:
		return 1
	}
	return 0
}

// maxTypoTerms bounds the words of one search that typo tolerance widens: each costs two walks of a
// dictionary (about 1.4 ms each at 100k events, docs/SECURITY.md), and a search of 32 words widened
// would cost 90 ms. A later word must be typed right.
const maxTypoTerms = 4

// maxTypoWords bounds the indexed words one term matches with typo tolerance: a term's neighbours
// within two edits are few in a calendar's dictionary, but anyone who may write a draft can add
// thousands, and each costs a postings walk.
const maxTypoWords = 64

// fuzzyDictionary is the part of Bleve's IndexReaderFuzzy that typoQuery uses.
type fuzzyDictionary interface {
	FieldDictFuzzy(field, term string, fuzziness int, prefix string) (bindex.FieldDict, error)
}

// errNoFuzzyDictionary is returned when an index cannot enumerate the words near a term.
var errNoFuzzyDictionary = errors.New("index: the index has no fuzzy dictionary")

// typoQuery matches the words of field within edits (Damerau-Levenshtein: a swap of two letters is
// one edit) of term, at most maxTypoWords of them. Bleve's FuzzyQuery would do the same without the
// bound.
type typoQuery struct {
	field, term string
	edits       int
}

func (q *typoQuery) Searcher(ctx context.Context, r bindex.IndexReader, _ mapping.IndexMapping, opts search.SearcherOptions) (search.Searcher, error) {
	fr, ok := r.(fuzzyDictionary)
	if !ok {
		return nil, errNoFuzzyDictionary
	}
	// The dictionary is walked through a Levenshtein automaton: only the branches that can still end
	// within the edits are visited, which is why the walk is bounded by the words it finds.
	dict, err := fr.FieldDictFuzzy(q.field, q.term, q.edits, "")
	if err != nil {
		return nil, err
	}
	defer dict.Close()
	var words []string
	for len(words) < maxTypoWords {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := dict.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		words = append(words, e.Term)
	}
	if len(words) == 0 {
		return searcher.NewMatchNoneSearcher(r)
	}
	return searcher.NewMultiTermSearcher(ctx, r, words, q.field, 1, opts, false)
}

// indexedPrefix is the prefix term that stands for a folded search word: the word itself, or its first
// maxPrefixRunes characters, the longest prefix indexed.
func indexedPrefix(word string) string {
	n := 0
	for i := range word {
		if n == maxPrefixRunes {
			return word[:i]
		}
		n++
	}
	return word
}
