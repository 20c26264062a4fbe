package index

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/pl"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/calendard/calendard/storage"
)

// mappingVersion is stored in every index; an index written with another version is rebuilt. Bump it
// on any change to the mapping, the analyzers or the documents.
const mappingVersion = "1"

// Field names of the documents. Every searched field of a record goes into fieldText (stemmed,
// for word matches and phrases) and fieldPrefix (folded only, for search-as-you-type prefixes), as an
// array: Bleve keeps array elements apart, so a phrase never spans two fields.
const (
	fieldType   = "type"
	fieldText   = "text"
	fieldPrefix = "prefix"
)

const (
	analyzerText   = "calendard_text"
	analyzerPrefix = "calendard_prefix"
)

// langFilters are the token filters of each language's stemmed analyzer: Bleve's own analyzer for the
// language, after ASCII folding, so that `cafe` finds `café` and `muller` finds `Müller`.
var langFilters = map[storage.Lang][]string{
	"en": {en.PossessiveName, lowercase.Name, en.StopName, porter.Name},
	"de": {lowercase.Name, de.StopName, de.NormalizeName, de.LightStemmerName},
	"es": {lowercase.Name, es.NormalizeName, es.StopName, es.LightStemmerName},
	"fr": {fr.ElisionName, lowercase.Name, fr.StopName, fr.LightStemmerName},
	"it": {it.ElisionName, lowercase.Name, it.StopName, it.LightStemmerName},
	"nl": {lowercase.Name, nl.StopName, nl.SnowballStemmerName},
	"pl": {lowercase.Name, pl.StopName, pl.SnowballStemmerName},
}

// prefixFilters fold without stemming; elision keeps `l'été` a prefix of nothing but `ete…`.
var prefixFilters = map[storage.Lang][]string{
	"fr": {fr.ElisionName, lowercase.Name},
	"it": {it.ElisionName, lowercase.Name},
}

func newMapping(lang storage.Lang) (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	filters, ok := langFilters[lang]
	if !ok {
		return nil, fmt.Errorf("index: no analyzer for language %q", lang)
	}
	pfilters, ok := prefixFilters[lang]
	if !ok {
		pfilters = []string{lowercase.Name}
	}
	for name, tf := range map[string][]string{analyzerText: filters, analyzerPrefix: pfilters} {
		err := m.AddCustomAnalyzer(name, map[string]any{
			"type":          custom.Name,
			"char_filters":  []any{asciifolding.Name},
			"tokenizer":     unicode.Name,
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
	for field, analyzer := range map[string]string{fieldText: analyzerText, fieldPrefix: analyzerPrefix} {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store, f.IncludeInAll, f.DocValues, f.IncludeTermVectors = false, false, false, field == fieldText
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
