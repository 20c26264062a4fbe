package index

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
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
	for _, a := range analyseSearch(m, search, typos) {
		widened = widened || a.edits > 0
		if a.negated {
			mustNot = append(mustNot, a.query(allText))
		} else {
			must = append(must, a.query(allText))
		}
	}
	return must, mustNot, widened
}

// searchFields names the fields a term is searched in: the text and its prefixes.
type searchFields struct{ text, prefix string }

var (
	// allText is every searched field of a record: what a search matches.
	allText = searchFields{fieldText, fieldPrefix}
	// titleText is the title alone: what orderby=relevance ranks first (relevance).
	titleText = searchFields{fieldTitle, fieldTitlePrefix}
)

// analysedTerm is one term of a search as the text analysis reads it: what the term's query matches,
// and what the highlighter (highlight.go) marks, so that the two never disagree.
type analysedTerm struct {
	searchTerm
	// words are the term's words through the text analyzer (stemmed and folded), in order; a phrase
	// keeps maxPhraseWords of them.
	words analysis.TokenStream
	// prefix is the indexed prefix a single word also matches ("": none, the word is shorter than two
	// characters or a phrase).
	prefix string
	// edits is how many edits a single word may be from an indexed one under typo tolerance (0: none).
	edits int
}

// analyseSearch reads the terms of search through m's analyzers, leaving out those no word of which
// survives analysis (stop words: ignored). With typos, each of the first maxTypoTerms non-negated
// words that typoEdits allows gets its edits.
func analyseSearch(m *mapping.IndexMappingImpl, search string, typos bool) []analysedTerm {
	var out []analysedTerm
	n := 0
	for _, t := range parseSearch(search) {
		a, ok := analyseTerm(m, t, typos && !t.negated && n < maxTypoTerms)
		if !ok {
			continue
		}
		if a.edits > 0 {
			n++
		}
		out = append(out, a)
	}
	return out
}

// maxPhraseWords bounds the words of a phrase that are matched: a phrase walks the postings of each of
// its words, so its cost grows with its length; a longer phrase matches by its first maxPhraseWords
// words, in order.
const maxPhraseWords = maxSearchTerms

// analyseTerm analyses one term: the analysed words in order (a phrase when there are several), or,
// for a single word of at least two characters, also any word that begins with it; with typos, a
// single word also matches the words within typoEdits of it. ok is false when no word survives.
func analyseTerm(m *mapping.IndexMappingImpl, t searchTerm, typos bool) (a analysedTerm, ok bool) {
	a = analysedTerm{searchTerm: t, words: m.AnalyzerNamed(analyzerText).Analyze([]byte(t.text))}
	if len(a.words) == 0 {
		return a, false
	}
	if a.isPhrase() {
		if len(a.words) > maxPhraseWords {
			a.words = a.words[:maxPhraseWords]
			a.text = t.text[:a.words[maxPhraseWords-1].End]
		}
		return a, true
	}
	folded := analyze(m, analyzerPrefix, t.text)
	if len(folded) != 1 || utf8.RuneCountInString(folded[0]) < 2 {
		return a, true
	}
	a.prefix = indexedPrefix(folded[0])
	if typos {
		a.edits = typoEdits(folded[0])
	}
	return a, true
}

func (a *analysedTerm) isPhrase() bool { return len(a.words) > 1 || a.phrase }

// typoTerms are the (field, term) pairs whose dictionary neighbours within a.edits a.query also
// matches: near the folded word's beginning, for a typo the stemmer does not see through
// (exhibitoin for exhibition), and near the stem, for a typo in an inflected form (koncrety, stem
// koncret, for koncert). A stem longer than the longest prefix indexed stands for no word: the
// automaton of so long a word costs more than the rest of the search (a 1,000-letter word took
// 23 ms), and its beginning is searched anyway.
func (a *analysedTerm) typoTerms(in searchFields) [][2]string {
	if a.edits == 0 {
		return nil
	}
	near := [][2]string{{in.prefix, a.prefix}}
	if stem := string(a.words[0].Term); utf8.RuneCountInString(stem) <= maxPrefixRunes {
		near = append(near, [2]string{in.text, stem})
	}
	return near
}

// query is the Bleve query of a in the fields in: its words as a phrase, or its word, its prefix
// and its typo neighbours.
func (a *analysedTerm) query(in searchFields) query.Query {
	if a.isPhrase() {
		q := bleve.NewMatchPhraseQuery(a.text)
		q.SetField(in.text)
		q.Analyzer = analyzerText
		return q
	}
	match := bleve.NewTermQuery(string(a.words[0].Term))
	match.SetField(in.text)
	if a.prefix == "" {
		return match
	}
	prefix := bleve.NewTermQuery(a.prefix)
	prefix.SetField(in.prefix)
	q := bleve.NewDisjunctionQuery(match, prefix)
	for _, near := range a.typoTerms(in) {
		q.AddQuery(&typoQuery{field: near[0], term: near[1], edits: a.edits})
	}
	return q
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
	words, err := corrected(ctx, r, q.field, q.term, q.edits)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return searcher.NewMatchNoneSearcher(r)
	}
	return searcher.NewMultiTermSearcher(ctx, r, words, q.field, 1, opts, false)
}

// typoWords returns the words of field within edits of term, at most maxTypoWords of them, in the
// dictionary's order: those a typoQuery matches.
func typoWords(ctx context.Context, r bindex.IndexReader, field, term string, edits int) ([]string, error) {
	fr, ok := r.(fuzzyDictionary)
	if !ok {
		return nil, errNoFuzzyDictionary
	}
	// The dictionary is walked through a Levenshtein automaton: only the branches that can still end
	// within the edits are visited, which is why the walk is bounded by the words it finds.
	dict, err := fr.FieldDictFuzzy(field, term, edits, "")
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
	return words, nil
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
