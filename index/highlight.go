package index

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/calendard/calendard/storage"
)

// Highlighter finds the words of a record's text that a search matched (docs/API.md "Highlighted
// matches"). Bleve's highlighter reads the stored text of a field and its term vectors; the index
// stores no text (the records are in the store) and no vectors for the prefixes, and both would grow it
// by about the text indexed. So the few texts of a page are analysed again with the analyzers of the
// language's fields, and their words compared with the search's terms as analyseSearch reads them: a
// word is found exactly when the search's query matches it.
type Highlighter struct {
	m *mapping.IndexMappingImpl
	// terms are the search's terms that a record must match; negated terms mark nothing.
	terms []analysedTerm
	// typoPrefixes and typoStems are, under typo tolerance, the indexed prefixes and stems the terms
	// were corrected to (typoWords).
	typoPrefixes, typoStems map[string]bool
}

// Span is the byte range of a found word in a text.
type Span struct{ Start, End int }

// Highlighter returns the Highlighter of search for records of lang. typos says the list was answered
// with typo tolerance (Page.TypoTolerant): the words the terms were corrected to are then read from
// the dictionary again, as the search read them, which costs a dictionary walk per widened term.
func (ix *Index) Highlighter(ctx context.Context, lang storage.Lang, search string, typos bool) (*Highlighter, error) {
	return ix.langs[lang].highlighter(ctx, search, ix.Version(), typos)
}

// highlighter is Index.Highlighter in l at version v of the index, whose corrections (l.fixes) the
// typo-tolerant search of the page has left.
func (l *lang) highlighter(ctx context.Context, search string, v Version, typos bool) (*Highlighter, error) {
	h := &Highlighter{m: l.mapping}
	var widened []*analysedTerm
	for _, a := range analyseSearch(l.mapping, search, typos) {
		if a.negated {
			continue
		}
		h.terms = append(h.terms, a)
		if a.edits > 0 {
			widened = append(widened, &h.terms[len(h.terms)-1])
		}
	}
	if len(widened) == 0 {
		return h, nil
	}
	r, err := l.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ctx = l.fixes.at(ctx, v)
	h.typoPrefixes, h.typoStems = map[string]bool{}, map[string]bool{}
	for _, a := range widened {
		for _, near := range a.typoTerms(allText) {
			words, err := corrected(ctx, deadlineReader{r}, near[0], near[1], a.edits)
			if err != nil {
				return nil, err
			}
			into := h.typoStems
			if near[0] == fieldPrefix {
				into = h.typoPrefixes
			}
			for _, w := range words {
				into[w] = true
			}
		}
	}
	return h, nil
}

// MaxHighlightedText bounds the text of one field that Matches reads, in bytes: analysing text costs
// about a microsecond per 20 bytes and analyser, and a page of 100 events with descriptions of 65,535
// characters made one request analyse 26 MB (8 s on a loaded machine). Descriptions of real events are
// a few kilobytes.
const MaxHighlightedText = 8 << 10

// Matches returns the words of text that the search matched, in order: the words equal to a term
// after the text analysis (form, folding, stem), those that begin with a term's prefix, those a term
// was corrected to under typo tolerance, and the words of a phrase where all of them stand in order.
// Only the first MaxHighlightedText bytes of text are read, up to a space.
func (h *Highlighter) Matches(text string) []Span {
	if len(h.terms) == 0 || text == "" {
		return nil
	}
	if len(text) > MaxHighlightedText {
		text = CutText(text, MaxHighlightedText)
	}
	words := h.m.AnalyzerNamed(analyzerText).Analyze([]byte(text))
	// The folded words are every word of the text, in order; the text's words drop stop words but
	// keep their positions, so marks are kept by position and read out in the folded words' order.
	folded := h.m.AnalyzerNamed(analyzerPrefix).Analyze([]byte(text))
	last := 0
	if len(folded) > 0 {
		last = folded[len(folded)-1].Position
	}
	marked := make([]bool, last+1)
	mark := func(tok *analysis.Token) {
		if tok.Position < len(marked) {
			marked[tok.Position] = true
		}
	}
	for _, tok := range words {
		if h.typoStems[string(tok.Term)] || slices.ContainsFunc(h.terms, func(a analysedTerm) bool {
			return !a.isPhrase() && bytes.Equal(a.words[0].Term, tok.Term)
		}) {
			mark(tok)
		}
	}
	for i := range h.terms {
		if h.terms[i].isPhrase() {
			for _, tok := range phraseMatches(h.terms[i].words, words) {
				mark(tok)
			}
		}
	}
	var found []Span
	for _, tok := range folded {
		if marked[tok.Position] || h.prefixed(string(tok.Term)) {
			found = append(found, Span{tok.Start, tok.End})
		}
	}
	return found
}

// prefixed reports whether the folded word begins with a term's prefix or, under typo tolerance, with
// one of the indexed prefixes a term was corrected to: the prefixes indexed of a word are its
// beginnings of 2 to maxPrefixRunes characters.
func (h *Highlighter) prefixed(word string) bool {
	for _, a := range h.terms {
		if a.prefix != "" && strings.HasPrefix(word, a.prefix) {
			return true
		}
	}
	if len(h.typoPrefixes) == 0 {
		return false
	}
	runes := 0
	for end := range word {
		if runes >= 2 && h.typoPrefixes[word[:end]] {
			return true
		}
		if runes++; runes > maxPrefixRunes {
			return false
		}
	}
	return runes >= 2 && h.typoPrefixes[word]
}

// phraseMatches returns the words of text (analysed) where phrase (analysed) stands: its words at
// the same distances from one another, as Bleve's phrase search reads positions, so that a stop word
// left out of both leaves the same gap.
func phraseMatches(phrase, text analysis.TokenStream) []*analysis.Token {
	at := make(map[int]*analysis.Token, len(text))
	for _, tok := range text {
		at[tok.Position] = tok
	}
	var found []*analysis.Token
	for _, first := range text {
		if !bytes.Equal(first.Term, phrase[0].Term) {
			continue
		}
		var toks []*analysis.Token
		for _, p := range phrase {
			tok := at[first.Position+p.Position-phrase[0].Position]
			if tok == nil || !bytes.Equal(tok.Term, p.Term) {
				toks = nil
				break
			}
			toks = append(toks, tok)
		}
		found = append(found, toks...)
	}
	return found
}

// corrections remembers, for one version of the index, the indexed words a term was corrected to under
// typo tolerance (typoWords), by field, term and edits: the search walks the dictionary for them, and
// the highlighter of its pages needs them again, which would cost as many walks again (a millisecond or
// more each at 100k events). Its zero value is empty.
type corrections struct {
	mu      sync.Mutex
	version Version
	m       map[string][]string
}

// maxCorrections bounds the walks remembered: past it, the memory starts again empty. A walk finds at
// most maxTypoWords words, so the memory holds at most about 2.5 MB of words (of 20 letters at most,
// maxPrefixRunes); a search widens at most maxTypoTerms terms, two walks each, and its page is
// highlighted right after it, so the walks of the last hundred typo-tolerant searches are plenty.
const maxCorrections = 1024

// correctionsKey is the context key of the corrections a search or a highlighter reads and adds to.
type correctionsKey struct{}

// correctionsAt are the corrections at one version of the index.
type correctionsAt struct {
	c *corrections
	v Version
}

// at returns ctx carrying c at version v, for corrected: a typoQuery's searcher gets only the context
// of its search.
func (c *corrections) at(ctx context.Context, v Version) context.Context {
	return context.WithValue(ctx, correctionsKey{}, correctionsAt{c, v})
}

// corrected is typoWords, remembered in the corrections ctx carries, if any.
func corrected(ctx context.Context, r bindex.IndexReader, field, term string, edits int) ([]string, error) {
	at, ok := ctx.Value(correctionsKey{}).(correctionsAt)
	if !ok {
		return typoWords(ctx, r, field, term, edits)
	}
	key := field + "\x00" + term + "\x00" + strconv.Itoa(edits)
	at.c.mu.Lock()
	words, found := at.c.m[key]
	found = found && at.c.version == at.v
	at.c.mu.Unlock()
	if found {
		return words, nil
	}
	words, err := typoWords(ctx, r, field, term, edits)
	if err != nil {
		return nil, err
	}
	at.c.mu.Lock()
	defer at.c.mu.Unlock()
	if at.c.m == nil || at.c.version != at.v || len(at.c.m) >= maxCorrections {
		at.c.version, at.c.m = at.v, map[string][]string{}
	}
	at.c.m[key] = words
	return words, nil
}
