package index

import (
	"context"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/calendard/calendard/storage"
)

// TestHighlighterMarksWhatMatched: in three languages, the highlighter finds a record's words that
// each analysis path matched (form, folding, stem, prefix, phrase, typo tolerance) and no other; and
// each record is one the search finds, answered with typo tolerance exactly when the case says.
func TestHighlighterMarksWhatMatched(t *testing.T) {
	tests := map[storage.Lang][]struct {
		name, text, search, want string
		typos                    bool
	}{
		"en": {
			{name: "exact", text: "Jazz night at the club", search: "jazz", want: "[Jazz] night at the club"},
			{name: "folded", text: "Café Müller sessions", search: "muller cafe", want: "[Café] [Müller] sessions"},
			{name: "stem", text: "Three concerts tonight", search: "concert", want: "Three [concerts] tonight"},
			{name: "prefix", text: "Jazzy evenings", search: "jaz", want: "[Jazzy] evenings"},
			{name: "every occurrence", text: "Jazz, jazz and JAZZ", search: "jazz", want: "[Jazz], [jazz] and [JAZZ]"},
			{name: "phrase", text: "A summer night, a night in summer", search: `"summer night"`, want: "A [summer] [night], a night in summer"},
			{name: "phrase over a stop word", text: "Sound of music, music of sound", search: `"sound of music"`, want: "[Sound] of [music], music of sound"},
			{name: "negated and stop words", text: "The big band", search: "the band -trio", want: "The big [band]"},
			{name: "typo", text: "Photography exhibition", search: "exhibitoin", want: "Photography [exhibition]", typos: true},
			{name: "typo in an inflected form", text: "Sunday workshops", search: "wrokshops", want: "Sunday [workshops]", typos: true},
		},
		"de": {
			{name: "exact", text: "Konzert im Park", search: "park", want: "Konzert im [Park]"},
			{name: "folded", text: "Müller spielt Schubert", search: "muller", want: "[Müller] spielt Schubert"},
			{name: "stem", text: "Ein Konzert im Garten", search: "Konzerte", want: "Ein [Konzert] im Garten"},
			{name: "prefix", text: "Sommerfest am See", search: "somm", want: "[Sommerfest] am See"},
			{name: "typo", text: "Ausstellung der Malerei", search: "ausstelung", want: "[Ausstellung] der Malerei", typos: true},
		},
		"fr": {
			{name: "exact", text: "Soirée musicale à Lyon", search: "lyon", want: "Soirée musicale à [Lyon]"},
			{name: "folded", text: "Soirée dansante", search: "soiree", want: "[Soirée] dansante"},
			{name: "stem", text: "Les concerts d'automne", search: "concert", want: "Les [concerts] d'automne"},
			{name: "prefix after an elision", text: "Vernissage de l'exposition", search: "expo", want: "Vernissage de [l'exposition]"},
			{name: "prefix after a capital elision", text: "L'Exposition de Monet", search: "expo", want: "[L'Exposition] de Monet"},
			{name: "typo", text: "Atelier de peinture", search: "peintrue", want: "Atelier de [peinture]", typos: true},
		},
	}
	ctx := context.Background()
	for code, cases := range tests {
		l := diskLang(t, code)
		texts := map[uint64]string{}
		for i, tc := range cases {
			texts[uint64(i+1)] = tc.text
		}
		indexTexts(t, l, texts)
		for i, tc := range cases {
			t.Run(string(code)+"/"+tc.name, func(t *testing.T) {
				id := uint64(i + 1)
				var found bool
				page, err := l.answer(ctx, tc.search, Version{}, func(text *roaring64.Bitmap, _ bool) (Page, error) {
					found = text == nil || text.Contains(id)
					return Page{Total: int(text.GetCardinality())}, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !found || page.TypoTolerant != tc.typos {
					t.Fatalf("search %q finds the record: %v, typo-tolerant %v; want true, %v", tc.search, found, page.TypoTolerant, tc.typos)
				}
				h, err := l.highlighter(ctx, tc.search, Version{}, page.TypoTolerant)
				if err != nil {
					t.Fatal(err)
				}
				if got := bracketed(tc.text, h.Matches(tc.text)); got != tc.want {
					t.Errorf("search %q marks %q, want %q", tc.search, got, tc.want)
				}
			})
		}
	}
}

// TestHighlighterWithoutTerms: a search of stop words only, or of negated terms only, restricts
// nothing and marks nothing.
func TestHighlighterWithoutTerms(t *testing.T) {
	l := diskLang(t, "en")
	for _, search := range []string{"the", "-jazz", "  "} {
		h, err := l.highlighter(context.Background(), search, Version{}, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Matches("The jazz of the night"); got != nil {
			t.Errorf("search %q marks %v, want nothing", search, got)
		}
	}
}

// bracketed is text with each span in brackets.
func bracketed(text string, spans []Span) string {
	var b strings.Builder
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.Start] + "[" + text[s.Start:s.End] + "]")
		at = s.End
	}
	return b.String() + text[at:]
}

// TestHighlighterReadsABoundedText: Matches reads the first MaxHighlightedText bytes of a text, up to
// a space, so that one request's cost is bounded whatever the descriptions hold.
func TestHighlighterReadsABoundedText(t *testing.T) {
	l := diskLang(t, "en")
	h, err := l.highlighter(context.Background(), "jazz", Version{}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"within the bound", strings.Repeat("x", MaxHighlightedText-5) + " jazz", 1},
		{"across the bound", strings.Repeat("x", MaxHighlightedText-2) + " jazz", 0},
		{"past the bound", "jazz " + strings.Repeat("x ", MaxHighlightedText) + "jazz", 1},
	} {
		if got := h.Matches(tc.text); len(got) != tc.want {
			t.Errorf("%s: %d matches, want %d", tc.name, len(got), tc.want)
		}
	}
}

// TestHighlighterReusesTheSearchCorrections: the words a typo-tolerant search was corrected to are
// remembered for the index's version, so that its page's highlighter reads them instead of walking
// the dictionary again; at another version it walks again.
func TestHighlighterReusesTheSearchCorrections(t *testing.T) {
	ctx := context.Background()
	l := diskLang(t, "en")
	const text = "Photography exhibition"
	indexTexts(t, l, map[uint64]string{1: text})
	v := Version{}
	page, err := l.answer(ctx, "exhibitoin", v, func(text *roaring64.Bitmap, _ bool) (Page, error) {
		return Page{Total: int(text.GetCardinality())}, nil
	})
	if err != nil || !page.TypoTolerant || len(l.fixes.m) != 2 {
		t.Fatalf("search: %+v, %v; %d corrections remembered, want a typo-tolerant answer and 2 (prefix and stem)", page, err, len(l.fixes.m))
	}
	// Were the remembered words read, a changed memory would change the marks.
	for key := range l.fixes.m {
		l.fixes.m[key] = []string{"photography", "photographi"}
	}
	for _, tc := range []struct {
		v    Version
		want string
	}{
		{v, "[Photography] exhibition"},
		{Version{Applied: 1}, "Photography [exhibition]"},
	} {
		h, err := l.highlighter(ctx, "exhibitoin", tc.v, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := bracketed(text, h.Matches(text)); got != tc.want {
			t.Errorf("at version %+v: %q, want %q", tc.v, got, tc.want)
		}
	}
}
