package index

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/pl"
	// Indexes written before prefixFilter name Bleve's edge n-gram filter in their stored mapping,
	// which Bleve parses when it opens them: without the filter registered, they would be rebuilt.
	_ "github.com/blevesearch/bleve/v2/analysis/token/edgengram"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/slug"
)

// mappingVersion is stored in every index; an index written with another version is rebuilt. Bump it
// on any change to the mapping, the analyzers or the documents.
const mappingVersion = "5"

// Field names of the documents. Every searched field of a record goes into fieldText (stemmed,
// for word matches and phrases) and fieldPrefix (the prefixes of the folded words, for
// search-as-you-type), as an array: Bleve keeps array elements apart, so a phrase never spans two
// fields.
// fieldTitle and fieldTitlePrefix hold the title alone, as fieldText and fieldPrefix do: a search
// never reads them, orderby=relevance ranks a title match first (relevance).
const (
	fieldType        = "type"
	fieldText        = "text"
	fieldPrefix      = "prefix"
	fieldTitle       = "title"
	fieldTitlePrefix = "title_prefix"
)

// Analyzers. analyzerPrefix folds a word without stemming; analyzerPrefixes indexes every prefix of
// such a word, from 2 to maxPrefixRunes characters (edge n-grams, as Elasticsearch's index_prefixes),
// so that a prefix search is one term lookup: expanding a prefix over the dictionary at search time
// costs as many lookups as there are indexed words beginning with it, which anyone who may write a
// draft can make thousands.
const (
	analyzerText     = "calendard_text"
	analyzerPrefix   = "calendard_prefix"
	analyzerPrefixes = "calendard_prefixes"
)

// maxPrefixRunes is the longest prefix indexed. A search term longer than that matches the words
// that begin with its first maxPrefixRunes characters: no word of a calendar's text shares so long a
// beginning with another and then differs, and each indexed word costs one term per prefix length.
const maxPrefixRunes = 20

// foldName is the token filter that folds accented Latin letters to ASCII, so that `cafe` finds `café`
// and `muller` finds `Müller` (docs/API.md "Events list parameters"). It runs after the language's stop words and Bleve's
// stemmers, which expect the real spelling (German's normalises `ä` to `a` itself), and before
// calendard's Polish stemmer, which works on folded words so that `koncertow` typed without its
// diacritics stems as `koncertów` does.
const foldName = "calendard_fold"

type foldFilter struct{}

func (foldFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, tok := range input {
		if !isASCII(tok.Term) {
			tok.Term = []byte(slug.Transliterate(string(tok.Term)))
		}
	}
	return input
}

// prefixesName is the token filter that replaces each word with its prefixes of 2 to maxPrefixRunes
// runes. It yields the terms of Bleve's edge n-gram filter (which indexes written before it still
// name in their stored mapping, with the same terms), at a fraction of the cost: the prefixes are
// slices of the word and their tokens share one allocation, where Bleve's filter decodes the word into
// runes and allocates each prefix and each token; it was 8 % of an index build's CPU.
const prefixesName = "calendard_prefixes"

type prefixFilter struct{}

func (prefixFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	n := 0
	for _, tok := range input {
		n += max(0, min(utf8.RuneCount(tok.Term), maxPrefixRunes)-1)
	}
	if n <= 0 {
		return input[:0]
	}
	out := make(analysis.TokenStream, 0, n)
	toks := make([]analysis.Token, 0, n)
	for _, tok := range input {
		runes := 0
		for end := range string(tok.Term) {
			// end is where a rune begins, so tok.Term[:end] holds the runes before it.
			if runes >= 2 {
				toks = append(toks, analysis.Token{Start: tok.Start, End: tok.End, Position: tok.Position, Type: tok.Type, Term: tok.Term[:end]})
				out = append(out, &toks[len(toks)-1])
			}
			if runes++; runes > maxPrefixRunes {
				break
			}
		}
		if runes >= 2 && runes <= maxPrefixRunes {
			toks = append(toks, analysis.Token{Start: tok.Start, End: tok.End, Position: tok.Position, Type: tok.Type, Term: tok.Term})
			out = append(out, &toks[len(toks)-1])
		}
	}
	return out
}

// stemFilter is a token filter that rewrites each word with its function.
type stemFilter func(string) string

func (stem stemFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, tok := range input {
		if s := stem(string(tok.Term)); s != string(tok.Term) {
			tok.Term = []byte(s)
		}
	}
	return input
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func init() {
	for name, f := range map[string]analysis.TokenFilter{
		foldName: foldFilter{}, stemPLName: stemFilter(stemPL), pluralNLName: stemFilter(pluralNL),
		prefixesName: prefixFilter{},
	} {
		err := registry.RegisterTokenFilter(name, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
			return f, nil
		})
		if err != nil {
			panic(err)
		}
	}
	err := registry.RegisterTokenizer(wordsName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return wordsTokenizer{}, nil
	})
	if err != nil {
		panic(err)
	}
}

// langFilters are the token filters of each language's stemmed analyzer: Bleve's own analyzer for the
// language, then folding. French and Italian lowercase before the elision, whose articles are lowercase
// (Bleve's order left `L'Exposition` whole, which `expo` did not find).
var langFilters = map[storage.Lang][]string{
	"en": {en.PossessiveName, lowercase.Name, en.StopName, porter.Name, foldName},
	"de": {lowercase.Name, de.StopName, de.NormalizeName, de.LightStemmerName, foldName},
	"es": {lowercase.Name, es.NormalizeName, es.StopName, es.SnowballStemmerName, foldName},
	"fr": {lowercase.Name, fr.ElisionName, fr.StopName, fr.LightStemmerName, foldName},
	"it": {lowercase.Name, it.ElisionName, it.StopName, it.LightStemmerName, it.SnowballStemmerName, foldName},
	"nl": {lowercase.Name, nl.StopName, nl.SnowballStemmerName, foldName, pluralNLName},
	"pl": {lowercase.Name, pl.StopName, foldName, stemPLName},
}

// prefixFilters fold without stemming; elision keeps `l'été` a prefix of nothing but `ete…`.
var prefixFilters = map[storage.Lang][]string{
	"fr": {lowercase.Name, fr.ElisionName, foldName},
	"it": {lowercase.Name, it.ElisionName, foldName},
}

func newMapping(lang storage.Lang) (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	filters, ok := langFilters[lang]
	if !ok {
		return nil, fmt.Errorf("index: no analyzer for language %q", lang)
	}
	pfilters, ok := prefixFilters[lang]
	if !ok {
		pfilters = []string{lowercase.Name, foldName}
	}
	analyzers := map[string][]string{analyzerText: filters, analyzerPrefix: pfilters,
		analyzerPrefixes: append(slices.Clone(pfilters), prefixesName)}
	for name, tf := range analyzers {
		err := m.AddCustomAnalyzer(name, map[string]any{
			"type":          custom.Name,
			"tokenizer":     wordsName,
			"token_filters": toAny(tf),
		})
		if err != nil {
			return nil, fmt.Errorf("index: analyzer for %s: %w", lang, err)
		}
	}
	doc := bleve.NewDocumentStaticMapping()
	kind := bleve.NewKeywordFieldMapping()
	kind.Analyzer = keyword.Name
	kind.Store, kind.IncludeInAll, kind.DocValues = false, false, false
	doc.AddFieldMappingsAt(fieldType, kind)
	for field, analyzer := range map[string]string{fieldText: analyzerText, fieldPrefix: analyzerPrefixes,
		fieldTitle: analyzerText, fieldTitlePrefix: analyzerPrefixes} {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		words := field == fieldText || field == fieldTitle
		f.Store, f.IncludeInAll, f.DocValues, f.IncludeTermVectors = false, false, false, words
		// Searches are not scored: the prefixes need no frequencies or norms, and they are most of the
		// terms indexed. The words keep their own for the phrase matching of their term vectors.
		f.SkipFreqNorm = !words
		doc.AddFieldMappingsAt(field, f)
	}
	m.DefaultMapping = doc
	m.DefaultAnalyzer = analyzerText
	m.StoreDynamic, m.IndexDynamic, m.DocValuesDynamic = false, false, false
	return m, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// analyze runs one of the mapping's analyzers over s, returning the terms.
func analyze(m *mapping.IndexMappingImpl, analyzer, s string) []string {
	a := m.AnalyzerNamed(analyzer)
	if a == nil {
		return nil
	}
	var out []string
	for _, tok := range a.Analyze([]byte(s)) {
		out = append(out, string(tok.Term))
	}
	return out
}
