package index

import (
	"context"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// relevance ranks the matches of a search for orderby=relevance (docs/API.md "Ordering"). Every
// match holds every term of the search not negated, so a rank counts how well it holds them: first in
// how many its title holds them (a title match before one elsewhere, all terms before some), then how
// many it holds exactly (a form of the word itself; a phrase always is exact), then how many as typed
// (exactly or by a word's beginning), the others being held through a typo. Each count comes from
// one set of records per term, remembered in the text cache like a search's matches: the rank of a
// match is a few probes, where Bleve's scoring would read the postings of every match again.
type relevance struct{ terms []termRank }

// termRank are the sets of records a term matches in the title, exactly, and as typed; a nil exact
// or typed set stands for every record the term matches (a phrase, or a search without typos). They
// are bitsets (bitsOf), as a scan's search is: every match probes them, and probing the compressed
// sets took more than half of a relevance list of 9,400 matches (docs/BENCHMARKS.md, "Orders").
type termRank struct{ title, exact, typed *idSet }

// rankBits is how many bits each count takes in a rank: more than maxSearchTerms needs.
const rankBits = 6

// rank is how well record id matches, higher being better.
func (rel *relevance) rank(id uint64) int {
	title, exact, typed := 0, 0, 0
	for _, t := range rel.terms {
		if t.title.Contains(id) {
			title++
		}
		if t.exact == nil || t.exact.Contains(id) {
			exact++
		}
		if t.typed == nil || t.typed.Contains(id) {
			typed++
		}
	}
	return title<<(2*rankBits) | exact<<rankBits | typed
}

// relevance builds the ranking of search's matches, found with typo tolerance when typos. The terms
// are read as textQuery reads them (analyseSearch), so that the same ones are widened.
func (l *lang) relevance(ctx context.Context, search string, v Version, typos bool) (*relevance, error) {
	rel := &relevance{}
	for _, a := range analyseSearch(l.mapping, search, typos) {
		if a.negated {
			continue
		}
		t, w := a.searchTerm, a.edits > 0
		title := a.query(titleText)
		key := "\x00" + string(l.code) + "\x00" + strconv.FormatBool(t.phrase) + "\x00" + t.text
		var sets [3]*roaring64.Bitmap // title, exact, typed
		var err error
		if sets[0], err = l.cachedMatches(ctx, "rank title "+strconv.FormatBool(w)+key, v, func() query.Query { return title }); err != nil {
			return nil, err
		}
		if words := analyze(l.mapping, analyzerText, t.text); len(words) == 1 && !t.phrase {
			exact := bleve.NewTermQuery(words[0])
			exact.SetField(fieldText)
			if sets[1], err = l.cachedMatches(ctx, "rank exact"+key, v, func() query.Query { return exact }); err != nil {
				return nil, err
			}
		}
		if w {
			plain := a
			plain.edits = 0
			typed := plain.query(allText)
			if sets[2], err = l.cachedMatches(ctx, "rank typed"+key, v, func() query.Query { return typed }); err != nil {
				return nil, err
			}
		}
		rel.terms = append(rel.terms, termRank{title: bitsOf(sets[0]), exact: bitsOf(sets[1]), typed: bitsOf(sets[2])})
	}
	return rel, nil
}
