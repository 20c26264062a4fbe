package richtext

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// stripTagsTests is shared by TestStripTags and the FuzzStripTags seed corpus.
var stripTagsTests = []struct {
	name string
	in   string
	want string
}{
	{"empty", "", ""},
	{"plain", "Event 01", "Event 01"},
	{"tags", "<p>Hello <b>world</b></p>", "Hello world"},
	{"script and style content", "<script>x()</script>y<style>z{}</style>", "y"},
	{"comment", "a<!-- c -->b", "ab"},
	{"entities as written", "Tom's &amp; Jerry's &lt;3", "Tom's &amp; Jerry's &lt;3"},
	{"stray lt", "a < b, I <3 you, x<", "a < b, I <3 you, x<"},
	{"white space kept", " a\n\tb ", " a\n\tb "},
	{"raw text element content", "<title><b>T</b></title>", "T"},
	{"lt joined to tag name", "<<x>script>alert(1)<</x>/script>", "script>alert(1)/script>"},
	{"lt run joined", "<<<x>b>", "b>"},
	{"tag cut off at end", "a<b", "a"},
}

func TestStripTags(t *testing.T) {
	for _, tc := range stripTagsTests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StripTags(tc.in); got != tc.want {
				t.Errorf("StripTags(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		unfiltered bool
		want       string
	}{
		{"trimmed", "  Event 01 \n", false, "Event 01"},
		{"trimmed unfiltered", "  Event 01 \n", true, "Event 01"},
		{"tags removed", "<b>Bold</b> x", false, "Bold x"},
		{"tags kept for unfiltered_html", "<b>Bold</b> x", true, "<b>Bold</b> x"},
		{"trimmed after removal", " <i> x </i> ", false, "x"},
		{"script removed", "<script>alert(1)</script>Title", false, "Title"},
		{"only markup", "<b> </b>", false, ""},
		{"no entity encoding", "Tom's & Jerry's &amp; Co", false, "Tom's & Jerry's &amp; Co"},
		{"no-break space trimmed", "\u00a0Caf\u00e9\u00a0", false, "Caf\u00e9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Name(tc.in, tc.unfiltered); got != tc.want {
				t.Errorf("Name(%q, %v) = %q, want %q", tc.in, tc.unfiltered, got, tc.want)
			}
		})
	}
}

func TestShortText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"line breaks and tabs", "  12 Main St\r\n\tSuite 4  ", "12 Main St Suite 4"},
		{"runs collapsed", "a    b \n\n c", "a b c"},
		{"tags removed", `<a href="https://example.org">https://example.org</a>`, "https://example.org"},
		{"paragraphs", "<p>a</p>\n<p>b</p>", "a b"},
		{"script removed", "+32 2 <script>x</script>123", "+32 2 123"},
		{"entities as written", "Rue de l'&Eacute;glise", "Rue de l'&Eacute;glise"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShortText(tc.in); got != tc.want {
				t.Errorf("ShortText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = "w"
		}
		return strings.Join(w, " ")
	}
	tests := []struct {
		name     string
		in       string
		maxWords int
		want     string
	}{
		{"empty", "", 55, ""},
		{"html removed", "<p>A <b>great</b> concert.</p>\n", 55, "A great concert."},
		{"white space collapsed", "  a\n\n b\tc  ", 55, "a b c"},
		{"exactly 55 words", words(55), 55, words(55)},
		{"56 words cut", words(56), 55, words(55) + "…"},
		{"60 words in paragraphs cut", "<p>" + words(30) + "</p>\n\n<p>" + words(30) + "</p>", 55, words(55) + "…"},
		{"script not counted", "<script>" + words(60) + "</script>one two", 55, "one two"},
		{"small limit", "one two three", 2, "one two…"},
		{"no limit", words(100), 0, words(100)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summary(tc.in, tc.maxWords); got != tc.want {
				t.Errorf("Summary(%q, %d) = %q, want %q", tc.in, tc.maxWords, got, tc.want)
			}
		})
	}
}

// FuzzStripTags checks that the plain-text functions never panic, that their
// output is stable, and that StripTags output holds no markup at all.
func FuzzStripTags(f *testing.F) {
	for _, tc := range stripTagsTests {
		f.Add(tc.in)
	}
	for _, tc := range filterTests {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := StripTags(in)
		if again := StripTags(got); again != got {
			t.Fatalf("StripTags not idempotent:\n in: %q\n 1st: %q\n 2nd: %q", in, got, again)
		}
		z := html.NewTokenizer(strings.NewReader(got))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt != html.TextToken {
				t.Fatalf("StripTags(%q) = %q keeps %s %q", in, got, tt, z.Raw())
			}
		}
		for _, unfiltered := range []bool{false, true} {
			n := Name(in, unfiltered)
			if again := Name(n, unfiltered); again != n {
				t.Fatalf("Name(%q, %v) not idempotent: %q then %q", in, unfiltered, n, again)
			}
		}
		s := ShortText(in)
		if again := ShortText(s); again != s {
			t.Fatalf("ShortText(%q) not idempotent: %q then %q", in, s, again)
		}
		if strings.ContainsAny(s, "\r\n\t") {
			t.Fatalf("ShortText(%q) = %q keeps a line break or tab", in, s)
		}
		_ = Summary(in, 55)
	})
}
