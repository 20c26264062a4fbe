package handlers

import (
	"context"
	"html"
	"strings"
	"unicode/utf8"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/richtext"
)

// Highlighted matches (docs/API.md "Highlighted matches"): with highlight=true and a search, each item
// of the events, venues and organizers lists gains search_highlight, the fields of the record whose
// words the search matched, as HTML-escaped text with those words in <mark>.

// highlightParam is the highlight row of the lists that search; their queries embed highlighting.
var highlightParam = Param{Name: "highlight", Type: tBool, Default: false,
	Desc: "With search: each item gains search_highlight, its fields the search matched, HTML-escaped, with the matched words in <mark>. Ignored without search.",
	set:  into(func(q highlightable, b bool) { q.highlights().on = b })}

// highlighting is the highlight parameter as a list's query holds it.
type highlighting struct{ on bool }

// highlightable is a list's query, which embeds its highlighting.
type highlightable interface{ highlights() *highlighting }

func (q *highlighting) highlights() *highlighting { return q }

// of is what renderItems needs to mark the items of a page res of a list searching search, or nil
// when the list asked for no highlighting or searched nothing, where highlight is ignored.
func (q *highlighting) of(search string, res index.Page) *highlight {
	if !q.on || search == "" {
		return nil
	}
	return &highlight{search: search, typos: res.TypoTolerant}
}

// highlight is a page's search as its highlighting reads it: the words marked are those the search
// matched, and under typo tolerance the words it was corrected to.
type highlight struct {
	search string
	typos  bool
}

// highlightsAnswer reports whether the highlight parameter changes the answer of a request with
// these values: only true, and only with a search. Only then do rest_url and the list cache's key
// hold it, so that highlight=false or a highlight without search is the plain answer, cache entry
// included.
func highlightsAnswer(vals values) bool {
	on := vals.boolean("highlight")
	return on != nil && *on && vals.str("search") != nil
}

// searchedField is a field of a record that its search reads (the index's documents), under the key
// of the member that shows it; long is set for the texts shown as a snippet.
type searchedField struct {
	key, text string
	long      bool
}

// searchedFields are the searched fields of the records loaded, by ID.
func searchedFields(recs *storage.Records) map[uint64][]searchedField {
	out := make(map[uint64][]searchedField, len(recs.Events)+len(recs.Venues)+len(recs.Organizers))
	for _, e := range recs.Events {
		out[e.ID] = []searchedField{{"title", e.Title, false}, {"excerpt", e.Excerpt, true}, {"description", e.Description, true}}
	}
	for _, v := range recs.Venues {
		out[v.ID] = []searchedField{{"venue", v.Title, false}, {"description", v.Description, true},
			{"address", v.Address, false}, {"city", v.City, false}, {"province", v.Province, false}, {"state", v.State, false},
			{"stateprovince", v.StateProvince, false}, {"zip", v.Zip, false}, {"phone", v.Phone, false}}
	}
	for _, o := range recs.Organizers {
		out[o.ID] = []searchedField{{"organizer", o.Title, false}, {"description", o.Description, true},
			{"phone", o.Phone, false}, {"email", o.Email, false}, {"website", o.Website, false}}
	}
	return out
}

// highlights returns the search_highlight of each record ids of type t, or nil when rq asks for
// none. The records are read again rather than taken from the item cache, whose items are the same
// for every search and so never hold one.
func (h *Handler) highlights(ctx context.Context, rq *request, t storage.PostType, ids []uint64) (map[uint64]obj, error) {
	if rq.highlight == nil || len(ids) == 0 {
		return nil, nil
	}
	hl, err := h.index.Highlighter(ctx, rq.lang, rq.highlight.search, rq.highlight.typos)
	if err != nil {
		return nil, err
	}
	recs, _, err := h.db.Load(ctx, t, ids)
	if err != nil {
		return nil, err
	}
	out := map[uint64]obj{}
	for id, fields := range searchedFields(recs) {
		marks := obj{}
		for _, f := range fields {
			raw := cutRaw(f.text)
			text := strings.Join(strings.Fields(richtext.PlainText(raw)), " ")
			spans := hl.Matches(text)
			if len(spans) == 0 {
				continue
			}
			marked := markText(text, spans, f.long)
			if len(raw) < len(f.text) && !strings.HasSuffix(marked, " …") {
				marked += " …" // the text goes on past what was made plain; a snippet keeps room for this
			}
			marks = append(marks, member{f.key, marked})
		}
		out[id] = marks
	}
	return out, nil
}

// cutRaw is the beginning of a field's stored text that is made plain for its highlight, cut at a
// space: what Matches reads (index.MaxHighlightedText) and room for a snippet's text after the last
// marks, so that making a long description plain costs no more than its marks need.
func cutRaw(s string) string {
	if n := index.MaxHighlightedText + snippetChars*utf8.UTFMax; len(s) > n {
		return index.CutText(s, n)
	}
	return s
}

// withHighlight is item with the member search_highlight: marks, after what the page already adds to
// it (withMembers); nil marks leave it as it is.
func withHighlight(item any, marks obj) any {
	if marks == nil {
		return item
	}
	m := member{"search_highlight", marks}
	if w, ok := item.(withMembers); ok {
		w.extra = append(w.extra, m)
		return w
	}
	return withMembers{item, obj{m}}
}

// snippetChars bounds a snippet: the characters of the text shown, its ellipses and their spaces
// included, <mark> tags and HTML escapes not.
const snippetChars = 200

// markText returns text (plain, its white space single spaces) HTML-escaped, with the spans in
// <mark>; with snip, only the snippet of it around its best passage (snippet), with "… " before and
// " …" after where text was cut.
func markText(text string, spans []index.Span, snip bool) string {
	start, end := 0, len(text)
	if snip {
		start, end = snippet(text, spans)
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("… ")
	}
	at := start
	for _, s := range spans {
		s.Start, s.End = max(s.Start, start), min(s.End, end)
		if s.Start >= s.End {
			continue
		}
		b.WriteString(html.EscapeString(text[at:s.Start]))
		b.WriteString("<mark>" + html.EscapeString(text[s.Start:s.End]) + "</mark>")
		at = s.End
	}
	b.WriteString(html.EscapeString(text[at:end]))
	if end < len(text) {
		b.WriteString(" …")
	}
	return b.String()
}

// snippet returns the byte range of text to show of a long text with the spans: its best passage, the
// run of spans within snippetChars characters (room for both ellipses kept) that holds the most
// distinct words, then the most spans, the first on a tie; with as much text on either side as the
// bound leaves, and cut at spaces. Only a word longer than the bound is cut inside.
func snippet(text string, spans []index.Span) (start, end int) {
	if utf8.RuneCountInString(text) <= snippetChars {
		return 0, len(text)
	}
	const room = snippetChars - 4 // "… " and " …", two characters each
	// The characters before each span's start and end, by one walk of the text.
	starts, ends := make([]int, len(spans)), make([]int, len(spans))
	runes, at := 0, 0
	for i, s := range spans {
		runes += utf8.RuneCountInString(text[at:s.Start])
		starts[i] = runes
		runes += utf8.RuneCountInString(text[s.Start:s.End])
		ends[i] = runes
		at = s.End
	}
	// A window of spans [i, j] slides over them, counting its words.
	best, bestEnd, bestWords, bestSpans := 0, 0, 0, 0
	words := map[string]int{}
	word := func(k int) string { return strings.ToLower(text[spans[k].Start:spans[k].End]) }
	for i, j := 0, 0; j < len(spans); j++ {
		words[word(j)]++
		for i < j && ends[j]-starts[i] > room {
			if w := word(i); words[w] == 1 {
				delete(words, w)
			} else {
				words[w]--
			}
			i++
		}
		if len(words) > bestWords || len(words) == bestWords && j-i+1 > bestSpans {
			best, bestEnd, bestWords, bestSpans = i, j, len(words), j-i+1
		}
	}
	from, to := spans[best].Start, spans[bestEnd].End
	left := min(max(0, room-(ends[bestEnd]-starts[best]))/2, starts[best])
	start = back(text, from, left)
	end = ahead(text, start, room)
	if end == len(text) {
		start = back(text, end, room)
	}
	if start > 0 && text[start-1] != ' ' {
		if k := strings.IndexByte(text[start:from], ' '); k >= 0 {
			start += k + 1
		} else {
			start = from
		}
	}
	if end < len(text) && text[end] != ' ' && to <= end {
		if k := strings.LastIndexByte(text[to:end], ' '); k >= 0 {
			end = to + k
		} else {
			end = to
		}
	}
	return start, end
}

// back is the byte offset n characters before offset at in text, or 0.
func back(text string, at, n int) int {
	for ; n > 0 && at > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(text[:at])
		at -= size
	}
	return at
}

// ahead is the byte offset n characters after offset at in text, or its end.
func ahead(text string, at, n int) int {
	for ; n > 0 && at < len(text); n-- {
		_, size := utf8.DecodeRuneInString(text[at:])
		at += size
	}
	return at
}
