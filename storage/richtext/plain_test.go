package richtext

import (
	"strings"
	"testing"
)

var plainTextTests = []struct {
	name string
	in   string
	want string
}{
	{"empty", "", ""},
	{"one line", "Jazz Night", "Jazz Night"},
	{"entities decoded", "Tom &amp; Jerry&#39;s &lt;b&gt;", "Tom & Jerry's <b>"},
	{"stored paragraphs", "A great\r\n\r\n\r\nconcert", "A great\n\nconcert"},
	{"stored line break", "line one\nline two", "line one\nline two"},
	{"html paragraphs", "<p>One</p><p>Two</p>", "One\n\nTwo"},
	{"list", "Intro\n\n<ul><li>a</li>\n<li>b</li></ul>\n\nOutro", "Intro\n\na\nb\n\nOutro"},
	{"inline tags and spaces", "<b>bold</b>  and \t <i>spaced</i>  ", "bold and spaced"},
	{"script dropped", "<script>alert(1)</script>text", "text"},
	{"two breaks leave a blank line", "a<br><br><br>b", "a\n\nb"},
	{"no-break space is content", "a\u00a0\u00a0b", "a\u00a0\u00a0b"},
	{"table cells", "<table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table>", "1 2\n3"},
	{"marks in the input are not breaks", "a\x01b\x02c", "abc"},
}

func TestPlainText(t *testing.T) {
	for _, tc := range plainTextTests {
		t.Run(tc.name, func(t *testing.T) {
			if got := PlainText(tc.in); got != tc.want {
				t.Errorf("PlainText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzPlainText checks that PlainText never panics, that its shortcut for text without markup answers
// what the HTML path does, and that no line starts or ends with white space and no two blank lines
// follow each other.
func FuzzPlainText(f *testing.F) {
	for _, tc := range plainTextTests {
		f.Add(tc.in)
	}
	for _, tc := range filterTests {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := PlainText(in)
		if html := plainHTML(withoutMarks(in)); got != html {
			t.Fatalf("PlainText(%q) = %q, but through HTML %q", in, got, html)
		}
		if strings.Contains(got, "\n\n\n") {
			t.Fatalf("PlainText(%q) = %q has two blank lines in a row", in, got)
		}
		for line := range strings.SplitSeq(got, "\n") {
			if strings.Trim(line, asciiSpace) != line {
				t.Fatalf("PlainText(%q) = %q has line %q with white space around it", in, got, line)
			}
		}
	})
}
