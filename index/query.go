package index

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// searchTerm is one term of a search string (CONTRACT 5.2): a word or a quoted phrase, maybe negated.
type searchTerm struct {
	text    string
	phrase  bool
	negated bool
}

// maxSearchTerms is how many distinct terms of a search are used (CONTRACT 5.2, 10.1): a bound on
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
// survives analysis (only stop words: everything matches).
func textQuery(m *mapping.IndexMappingImpl, search string) (must []query.Query, mustNot []query.Query) {
	for _, t := range parseSearch(search) {
		q := termQuery(m, t)
		if q == nil {
			continue // a stop word, or nothing searchable: ignored
		}
		if t.negated {
			mustNot = append(mustNot, q)
		} else {
			must = append(must, q)
		}
	}
	return must, mustNot
}

// maxPhraseWords bounds the words of a phrase that are matched: a phrase walks the postings of each of
// its words, so its cost grows with its length; a longer phrase matches by its first maxPhraseWords
// words, in order.
const maxPhraseWords = maxSearchTerms

// termQuery matches one term: the analysed words in order (a phrase when there are several), or, for
// a single word of at least two characters, any word that begins with it.
func termQuery(m *mapping.IndexMappingImpl, t searchTerm) query.Query {
	tokens := m.AnalyzerNamed(analyzerText).Analyze([]byte(t.text))
	if len(tokens) == 0 {
		return nil
	}
	if len(tokens) > 1 || t.phrase {
		text := t.text
		if len(tokens) > maxPhraseWords {
			text = text[:tokens[maxPhraseWords-1].End]
		}
		q := bleve.NewMatchPhraseQuery(text)
		q.SetField(fieldText)
		q.Analyzer = analyzerText
		return q
	}
	match := bleve.NewTermQuery(string(tokens[0].Term))
	match.SetField(fieldText)
	folded := analyze(m, analyzerPrefix, t.text)
	if len(folded) != 1 || utf8.RuneCountInString(folded[0]) < 2 {
		return match
	}
	prefix := bleve.NewTermQuery(indexedPrefix(folded[0]))
	prefix.SetField(fieldPrefix)
	return bleve.NewDisjunctionQuery(match, prefix)
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
