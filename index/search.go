package index

import (
	"context"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// answer answers a list: list pages the records text allows, and is told whether text was found
// with typo tolerance. A search that finds nothing is answered again with typo tolerance, and the page
// says so; one that finds something is never widened.
func (l *lang) answer(ctx context.Context, search string, v Version, list func(text *roaring64.Bitmap, typos bool) (Page, error)) (Page, error) {
	text, err := l.textMatches(ctx, search, v, false)
	if err != nil {
		return Page{}, err
	}
	page, err := list(text, false)
	if err != nil || page.Total > 0 || text == nil {
		return page, err
	}
	if text, err = l.textMatches(ctx, search, v, true); err != nil || text == nil {
		return page, err
	}
	page, err = list(text, true)
	page.TypoTolerant = true
	return page, err
}

// textMatches returns the IDs of the records whose text matches search, or nil when search does not
// restrict anything. v is the index's version, read before the search. With typos, the words of search
// may be typoEdits from the indexed ones, and nil means that no word could be (all too short, phrases
// or negated): the answer would be the same as without.
//
// The set holds records of every type: a list probes it with the IDs of its own rows only, so a
// venue's ID in an events search costs nothing, whereas restricting the search to a type made Bleve
// intersect the words' postings with the type's, which hold nearly every document: at 1M events that
// was three fifths of a search's cost. Events and places lists searching the same words share a set.
func (l *lang) textMatches(ctx context.Context, search string, v Version, typos bool) (*roaring64.Bitmap, error) {
	if strings.TrimSpace(search) == "" {
		return nil, nil
	}
	key := string(l.code) + "\x00" + search
	if typos {
		key = "typos\x00" + key
		ctx = l.fixes.at(ctx, v) // the highlighter of the page reads the corrections again
	}
	return l.cachedMatches(ctx, key, v, func() query.Query {
		must, mustNot, widened := textQuery(l.mapping, search, typos)
		if len(must) == 0 && len(mustNot) == 0 || typos && !widened {
			return nil // only stop words: everything matches; or nothing to widen
		}
		b := bleve.NewBooleanQuery()
		b.AddMust(must...)
		b.AddMustNot(mustNot...)
		return b
	})
}

// cachedMatches returns the records that the query build makes matches, with the occurrences that
// share their text (withSharers), remembered in the text cache under key for version v; nil, and
// nothing remembered, when build makes no query.
func (l *lang) cachedMatches(ctx context.Context, key string, v Version, build func() query.Query) (*roaring64.Bitmap, error) {
	if set, ok := l.texts.get(key, v); ok {
		return set, nil
	}
	q := build()
	if q == nil {
		return nil, nil
	}
	set, err := l.matchingIDs(ctx, q)
	if err == nil {
		l.withSharers(set)
		l.texts.put(key, v, set)
	}
	return set, err
}

// withSharers adds to set, the records whose Bleve documents a search matched, the occurrences that
// share the text of a series parent in it (parentTexts): they have no document of their own. It
// visits whichever is smaller, the set or the series with sharers.
func (l *lang) withSharers(set *roaring64.Bitmap) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	sharers := l.proj.textEvents
	if uint64(len(sharers)) < set.GetCardinality() {
		for parent, ids := range sharers {
			if set.Contains(parent) {
				set.AddMany(ids)
			}
		}
		return
	}
	var add []uint64
	for it := set.Iterator(); it.HasNext(); {
		add = append(add, sharers[it.Next()]...)
	}
	set.AddMany(add)
}

// matchingIDs walks the documents q matches with a bare searcher: every match is needed, unscored
// and unsorted, so the top-N collector of a SearchRequest would only add a heap and allocations. The
// set is compressed: its size follows the matches, not the highest record ID, so that the text cache
// holds the searches of a large calendar (a bitset over 1M IDs took 140 KB whatever it held, and the
// cache thrashed), and a rare word's few matches can be visited instead of the window (candidates).
func (l *lang) matchingIDs(ctx context.Context, q query.Query) (*roaring64.Bitmap, error) {
	r, err := l.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := q.Searcher(ctx, deadlineReader{r}, l.mapping, search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r}
	var ids []uint64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if dm == nil {
			out := roaring64.New() // non-nil even when nothing matches: nil would mean "no restriction"
			out.AddMany(ids)
			out.RunOptimize()
			return out, nil
		}
		ext, err := r.ExternalID(dm.IndexInternalID)
		if err != nil {
			return nil, err
		}
		if id, err := strconv.ParseUint(ext[1:], 10, 64); err == nil {
			ids = append(ids, id)
		}
		sctx.DocumentMatchPool.Put(dm)
	}
}

// reader opens a reader of the language's Bleve index at its current state; the caller closes it.
func (l *lang) reader() (bindex.IndexReader, error) {
	adv, err := l.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	return adv.Reader()
}

// deadlineReader hands Bleve's searchers postings that stop when the request's context ends. Bleve
// checks no context inside a searcher, and one Next of a phrase or conjunction may walk the postings
// of every document before it finds a match, so the check sits where every searcher reads.
type deadlineReader struct{ bindex.IndexReader }

func (r deadlineReader) TermFieldReader(ctx context.Context, term []byte, field string, freq, norm, vectors bool) (bindex.TermFieldReader, error) {
	tfr, err := r.IndexReader.TermFieldReader(ctx, term, field, freq, norm, vectors)
	if err != nil {
		return nil, err
	}
	return &deadlinePostings{TermFieldReader: tfr, ctx: ctx}, nil
}

// FieldDictFuzzy passes the dictionary walk of typoQuery through: it reads no postings.
func (r deadlineReader) FieldDictFuzzy(field, term string, fuzziness int, prefix string) (bindex.FieldDict, error) {
	fr, ok := r.IndexReader.(fuzzyDictionary)
	if !ok {
		return nil, errNoFuzzyDictionary
	}
	return fr.FieldDictFuzzy(field, term, fuzziness, prefix)
}

// deadlineCheckEvery is how many postings a reader visits between two looks at its context: reading
// one costs tens of nanoseconds, a look at a deadline's context about as much.
const deadlineCheckEvery = 256

// deadlinePostings keeps the context of its search because Bleve's postings interface has no context
// parameter; it lives only as long as that search.
type deadlinePostings struct {
	bindex.TermFieldReader
	ctx  context.Context
	read int
}

func (p *deadlinePostings) check() error {
	if p.read++; p.read%deadlineCheckEvery == 0 {
		return p.ctx.Err()
	}
	return nil
}

func (p *deadlinePostings) Next(pre *bindex.TermFieldDoc) (*bindex.TermFieldDoc, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	return p.TermFieldReader.Next(pre)
}

func (p *deadlinePostings) Advance(id bindex.IndexInternalID, pre *bindex.TermFieldDoc) (*bindex.TermFieldDoc, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	return p.TermFieldReader.Advance(id, pre)
}
