package handlers

import (
	"html"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/calendard/calendard/index"
)

// spansOf are the spans of every occurrence of each of words in text, in order.
func spansOf(text string, words ...string) []index.Span {
	var spans []index.Span
	for at := 0; at < len(text); at++ {
		for _, w := range words {
			if strings.HasPrefix(text[at:], w) {
				spans = append(spans, index.Span{Start: at, End: at + len(w)})
			}
		}
	}
	return spans
}

// TestMarkText: a field is HTML-escaped whole, whatever it holds, with <mark> around its spans as
// its only markup.
func TestMarkText(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		words      []string
		want       string
	}{
		{"one word", "The Jazz Night", []string{"Jazz"}, "The <mark>Jazz</mark> Night"},
		{"words side by side", "jazz night", []string{"jazz", "night"}, "<mark>jazz</mark> <mark>night</mark>"},
		{"hostile text", `<script>alert("x")</script> & 'Jazz' <mark>`, []string{"Jazz"},
			"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;<mark>Jazz</mark>&#39; &lt;mark&gt;"},
		{"a mark typed in the text", "<mark>Jazz</mark>", []string{"Jazz"}, "&lt;mark&gt;<mark>Jazz</mark>&lt;/mark&gt;"},
		{"an entity in the text", "Rock &amp; Roll", []string{"Roll"}, "Rock &amp;amp; <mark>Roll</mark>"},
		{"multi-byte letters", "Żółć i Müller", []string{"Müller", "Żółć"}, "<mark>Żółć</mark> i <mark>Müller</mark>"},
		{"a long text unasked to be cut", strings.Repeat("word ", 60) + "jazz", []string{"jazz"}, strings.Repeat("word ", 60) + "<mark>jazz</mark>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := markText(tc.text, spansOf(tc.text, tc.words...), false); got != tc.want {
				t.Errorf("markText(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// TestSnippet: a long text is cut to at most 200 characters around its best passage, at spaces, with
// an ellipsis where text was left out; a short one is whole.
func TestSnippet(t *testing.T) {
	filler := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	for _, tc := range []struct {
		name, text string
		words      []string
		// want is what the snippet must hold; cutStart and cutEnd say where it must be cut.
		want             string
		cutStart, cutEnd bool
	}{
		{"short text whole", "An evening of jazz standards.", []string{"jazz"}, "An evening of <mark>jazz</mark> standards.", false, false},
		{"200 characters whole", filler("abc", 49) + " jazz", []string{"jazz"}, "abc <mark>jazz</mark>", false, false},
		{"match at the start", "Jazz tonight. " + filler("later", 60), []string{"Jazz"}, "<mark>Jazz</mark> tonight. later", false, true},
		{"match in the middle", filler("before", 40) + " an evening of jazz standards " + filler("after", 40), []string{"jazz"},
			"an evening of <mark>jazz</mark> standards", true, true},
		{"match at the end", filler("before", 60) + " the end is jazz.", []string{"jazz"}, "before the end is <mark>jazz</mark>.", true, false},
		{"the passage with most distinct words", "jazz " + filler("filler", 50) + " jazz and blues " + filler("filler", 50), []string{"jazz", "blues"},
			"<mark>jazz</mark> and <mark>blues</mark>", true, true},
		{"multi-byte text at both cuts", filler("żółć", 60) + " jazz " + filler("ąęść", 60), []string{"jazz"}, "żółć <mark>jazz</mark> ąęść", true, true},
		{"escapes count as one character", filler("a&b", 60) + " jazz " + filler("<c>", 60), []string{"jazz"}, "a&amp;b <mark>jazz</mark> &lt;c&gt;", true, true},
		{"a word longer than a snippet", "jazz" + strings.Repeat("y", 300) + " after", []string{"jazz" + strings.Repeat("y", 300)}, "<mark>jazzyyy", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := markText(tc.text, spansOf(tc.text, tc.words...), true)
			if !strings.Contains(got, tc.want) {
				t.Errorf("snippet %q does not hold %q", got, tc.want)
			}
			if strings.HasPrefix(got, "… ") != tc.cutStart || strings.HasSuffix(got, " …") != tc.cutEnd {
				t.Errorf("snippet %q: want it cut at the start %v, at the end %v", got, tc.cutStart, tc.cutEnd)
			}
			shown := strings.NewReplacer("<mark>", "", "</mark>", "", "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(got)
			if n := utf8.RuneCountInString(shown); n > snippetChars || !utf8.ValidString(got) {
				t.Errorf("snippet %q: %d characters (valid UTF-8: %v), want at most %d", got, n, utf8.ValidString(got), snippetChars)
			}
			// Cut at spaces: what is shown between the ellipses is a run of whole words of the text, a
			// word longer than a snippet aside.
			inner := strings.TrimSuffix(strings.TrimPrefix(shown, "… "), " …")
			at := strings.Index(tc.text, inner)
			if at < 0 || tc.name != "a word longer than a snippet" && (at > 0 && tc.text[at-1] != ' ' ||
				at+len(inner) < len(tc.text) && tc.text[at+len(inner)] != ' ') {
				t.Errorf("snippet %q is not whole words of the text", got)
			}
		})
	}
}

// TestHighlightKeysTheListCacheOnlyWhenItChangesTheAnswer: highlight=false, or highlight without a
// search, is the plain answer and its cache entry; highlight=true with a search is an answer of its
// own, and the plain answer after it is still plain.
func TestHighlightKeysTheListCacheOnlyWhenItChangesTheAnswer(t *testing.T) {
	h := compressionHandler(t)
	const events = "/calendar/events/v1/events"
	for plain, same := range map[string]string{events + "?search=jazz": events + "?search=jazz&highlight=false", events: events + "?highlight=true"} {
		first := ask(h, "GET", plain, nil)
		before := h.lists.Stats()
		if w := ask(h, "GET", same, nil); w.Code != 200 || w.Body.String() != first.Body.String() {
			t.Errorf("%s: %d %s\nwant the answer to %s: %s", same, w.Code, w.Body, plain, first.Body)
		}
		if after := h.lists.Stats(); after.Hits != before.Hits+1 || after.Entries != before.Entries {
			t.Errorf("%s: %d hits, %d entries; want the entry of %s", same, after.Hits-before.Hits, after.Entries-before.Entries, plain)
		}
	}
	plain := ask(h, "GET", events+"?search=jazz", nil).Body.String()
	before := h.lists.Stats()
	marked := ask(h, "GET", events+"?search=jazz&highlight=true", nil)
	if after := h.lists.Stats(); after.Entries != before.Entries+1 || !strings.Contains(marked.Body.String(), `"search_highlight":{"title":"<mark>Jazz</mark> concert"`) {
		t.Errorf("highlight=true: %d new entries, body %s; want one new entry, with the highlight", after.Entries-before.Entries, marked.Body)
	}
	if again := ask(h, "GET", events+"?search=jazz", nil).Body.String(); again != plain {
		t.Errorf("the plain answer after a highlighted one:\n%s\nwant\n%s", again, plain)
	}
}

// TestCutRaw: a long stored text is cut to what the highlighter reads and a snippet's room, before
// a space, so that no word is cut.
func TestCutRaw(t *testing.T) {
	n := index.MaxHighlightedText + snippetChars*utf8.UTFMax
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"short", "jazz", 4},
		{"at the bound", strings.Repeat("a", n), n},
		{"a word across the bound", strings.Repeat("a", n-3) + " jazz", n - 3},
		{"no space: at a letter's start", strings.Repeat("a", n-1) + "ż" + "tail", n - 1},
	} {
		if got := cutRaw(tc.text); len(got) != tc.want || !utf8.ValidString(got) {
			t.Errorf("%s: %d bytes (valid UTF-8: %v), want %d", tc.name, len(got), utf8.ValidString(got), tc.want)
		}
	}
}

// FuzzMarkText: whatever the text and however its words are marked, a snippet is valid UTF-8 when the
// text is, holds no markup but the marks, shows at most snippetChars characters of a long text, and
// shows a run of the text itself between its ellipses.
func FuzzMarkText(f *testing.F) {
	f.Add(strings.Repeat("An evening of jazz standards. ", 20), "jazz")
	f.Add("<script>alert(1)</script> & jazz &amp; \"jazz\"", "jazz")
	f.Add(strings.Repeat("żółć ", 100)+"jazz "+strings.Repeat("ąę ", 100), "jazz")
	f.Add("jazz"+strings.Repeat("y", 400), "jazz"+strings.Repeat("y", 400))
	f.Fuzz(func(t *testing.T, text, word string) {
		if !utf8.ValidString(text) {
			return // stored text is valid UTF-8
		}
		text = strings.Join(strings.Fields(text), " ") // as highlights makes it
		var spans []index.Span
		at := 0
		for _, w := range strings.Split(text, " ") {
			if w != "" && strings.EqualFold(w, word) {
				spans = append(spans, index.Span{Start: at, End: at + len(w)})
			}
			at += len(w) + 1
		}
		if len(spans) == 0 {
			return // a field without marks is not shown
		}
		got := markText(text, spans, true)
		if !utf8.ValidString(got) {
			t.Fatalf("snippet %q is not valid UTF-8", got)
		}
		plain := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(got)
		if strings.ContainsAny(plain, "<>") {
			t.Fatalf("snippet %q holds markup", got)
		}
		shown := html.UnescapeString(plain)
		if utf8.RuneCountInString(text) > snippetChars && utf8.RuneCountInString(shown) > snippetChars {
			t.Fatalf("snippet %q shows %d characters", got, utf8.RuneCountInString(shown))
		}
		if inner := strings.TrimSuffix(strings.TrimPrefix(shown, "… "), " …"); !strings.Contains(text, inner) {
			t.Fatalf("snippet %q shows %q, which the text does not hold", got, inner)
		}
	})
}
