package richtext

import (
	"fmt"
	"strings"
	"testing"
)

// renderTests is shared by TestRender and the FuzzRender seed corpus.
var renderTests = []struct {
	name string
	in   string
	want string
}{
	{"empty", "", ""},
	{"blank", " \n\t\r\n ", ""},
	{"one line", "Event 01 description", "<p>Event 01 description</p>"},
	{"line break", "a\nb", "<p>a<br />\nb</p>"},
	{"paragraphs", "a\n\n\nb", "<p>a</p>\n<p>b</p>"},
	{"crlf", "a\r\nb\r\n\r\nc", "<p>a<br />\nb</p>\n<p>c</p>"},
	{"cr", "a\rb\r\rc", "<p>a<br />\nb</p>\n<p>c</p>"},
	{"white-space-only line separates", "a\n \t \nb", "<p>a</p>\n<p>b</p>"},
	{"blocks trimmed", "  a  \n\n  b  ", "<p>a</p>\n<p>b</p>"},
	{"no-break space is content", "a\n\u00a0\nb", "<p>a<br />\n\u00a0<br />\nb</p>"},
	{"inline markup wrapped", "<b>x</b>\ny", "<p><b>x</b><br />\ny</p>"},
	{"paragraph kept", "<p>x</p>", "<p>x</p>"},
	{"list kept with its newlines", "<ul>\n<li>a</li>\n</ul>", "<ul>\n<li>a</li>\n</ul>"},
	{"heading with attribute", `<H2 class="x">T</H2>`, `<H2 class="x">T</H2>`},
	{"self-closing block", "<hr/>", "<hr/>"},
	{"newline after name", "<div\nclass=x>y</div>", "<div\nclass=x>y</div>"},
	{"pre kept", "<pre>a\nb</pre>", "<pre>a\nb</pre>"},
	{"h6 and table", "<h6>a</h6>\n\n<table><tr><td>1</td></tr></table>", "<h6>a</h6>\n<table><tr><td>1</td></tr></table>"},
	{"name prefix is not a block", "<pa>x</pa>", "<p><pa>x</pa></p>"},
	{"span is not a block", "<span>x</span>", "<p><span>x</span></p>"},
	{"end tag is not a block", "</div>", "<p></div></p>"},
	{"name at end is not a block", "<p", "<p><p</p>"},
	{"mixed", "Intro\n\n<ul><li>a</li></ul>\n\nOutro\nline", "<p>Intro</p>\n<ul><li>a</li></ul>\n<p>Outro<br />\nline</p>"},
}

func TestRender(t *testing.T) {
	for _, tc := range renderTests {
		t.Run(tc.name, func(t *testing.T) {
			got := Render(tc.in)
			if got != tc.want {
				t.Errorf("Render(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if again := Render(got); again != got {
				t.Errorf("Render(%q) = %q, not stable", got, again)
			}
		})
	}
}

func FuzzRender(f *testing.F) {
	for _, tc := range renderTests {
		f.Add(tc.in)
	}
	for _, tc := range filterTests {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := Render(in)
		if strings.Contains(got, "\r") {
			t.Fatalf("Render(%q) = %q contains CR", in, got)
		}
		if again := Render(got); again != got {
			t.Fatalf("not idempotent:\n in: %q\n 1st: %q\n 2nd: %q", in, got, again)
		}
	})
}

func ExampleRender() {
	fmt.Println(Render("Doors open at 19:00.\r\nBring a friend.\r\n\r\n<ul><li>Free</li></ul>"))
	// Output:
	// <p>Doors open at 19:00.<br />
	// Bring a friend.</p>
	// <ul><li>Free</li></ul>
}
