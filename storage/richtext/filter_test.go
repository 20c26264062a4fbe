package richtext

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// filterTests is shared by TestFilter and the FuzzFilter seed corpus.
var filterTests = []struct {
	name string
	in   string
	want string
}{
	{"empty", "", ""},
	{"plain text", "Event 01 description", "Event 01 description"},
	{"text kept raw", "Tom's & Jerry's &amp; &lt;b&gt; caf&eacute;", "Tom's & Jerry's &amp; &lt;b&gt; caf&eacute;"},
	{"newlines kept", "a\n\nb\r\nc", "a\n\nb\r\nc"},
	{"stray lt", "a < b, 1<2, I <3 you, x <", "a < b, 1<2, I <3 you, x <"},

	// C.3 judgement: script and style go with their content.
	{"script with content", "<script>alert(1)</script><p>ok</p>", "<p>ok</p>"},
	{"style with content", "<style>p{color:red}</style>text", "text"},
	{"script upper case", "<SCRIPT type=text/javascript>x()</SCRIPT >y", "y"},
	{"script unclosed", "a<script>alert(1)", "a"},
	{"script self-closing", "<script/>alert(1)</script>b", "b"},
	{"script hides end tag in string", `<script>var s="</p>";</script>z`, "z"},
	{"script inside svg", "<svg><script>alert(1)</script></svg>", ""},
	{"stray script end tag", "a</script>b", "ab"},

	// Tags outside the allow-list lose the tag, keep the text.
	{"unknown tag", `<font color="red">hi</font>`, "hi"},
	{"form controls", `<form action="/x"><input name="q">go</form>`, "go"},
	{"iframe content filtered", `<iframe src="https://x"><b>fallback</b></iframe>`, "<b>fallback</b>"},
	{"title content filtered", `<title><img src=x onerror=alert(1)></title>`, `<img src="x" />`},
	{"textarea content filtered", "<textarea><b>x</b></textarea>", "<b>x</b>"},
	{"plaintext content filtered", "<plaintext><script>alert(1)</script>t", "t"},
	{"noscript attribute trick", `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`, "<p>"},
	{"comment", "a<!-- c -->b<!---->c", "abc"},
	{"conditional comment", "<!--[if IE]><script>x</script><![endif]-->d", "d"},
	{"doctype", "<!DOCTYPE html>x", "x"},
	{"processing instruction", "<?php echo 1; ?>x", "x"},
	{"cdata is a bogus comment in HTML", "<![CDATA[<b>]]>x", "]]>x"},
	{"tag cut off at end", `x <a href="`, "x "},

	// Attributes.
	{"attributes removed", `<p onclick="x" class="y">t</p>`, "<p>t</p>"},
	{"div style removed", `<div style="x" id="y">t</div>`, "<div>t</div>"},
	{"anchor attributes kept", `<a href="https://example.org/" title="t" target="_blank" rel="noopener">x</a>`, `<a href="https://example.org/" title="t" target="_blank" rel="noopener">x</a>`},
	{"img attributes", `<img src="/a.png" onerror="x" alt="A" width="10" height=20 style="s">`, `<img src="/a.png" alt="A" width="10" height="20" />`},
	{"canonical case and quotes", `<P><A HREF='http://x' TITLE=t>y</A></P>`, `<p><a href="http://x" title="t">y</a></p>`},
	{"first duplicate wins", `<a title="1" title="2">x</a>`, `<a title="1">x</a>`},
	{"value escaped", `<a title="a &amp; &quot;b&quot; <c> Tom's">x</a>`, `<a title="a &amp; &quot;b&quot; &lt;c&gt; Tom's">x</a>`},
	{"empty value", `<a title>x</a>`, `<a title="">x</a>`},
	{"end tag attributes dropped", `<p>x</p class="y">`, "<p>x</p>"},

	// URL schemes.
	{"javascript href", `<a href="javascript:alert(1)" title="t">x</a>`, `<a title="t">x</a>`},
	{"mixed case scheme", `<a href="JaVaScRiPt:alert(1)">x</a>`, "<a>x</a>"},
	{"leading blanks", "<a href=\" \x01\x1f javascript:alert(1)\">x</a>", "<a>x</a>"},
	{"tab inside scheme", "<a href=\"java\tscript:alert(1)\">x</a>", "<a>x</a>"},
	{"encoded tab inside scheme", `<a href="java&#x09;script:alert(1)">x</a>`, "<a>x</a>"},
	{"encoded newline first", `<a href="&#10;javascript:alert(1)">x</a>`, "<a>x</a>"},
	{"decimal entity", `<a href="&#106;avascript:alert(1)">x</a>`, "<a>x</a>"},
	{"entity without semicolon", `<a href="&#x6A&#x61vascript:alert(1)">x</a>`, "<a>x</a>"},
	{"named colon entity", `<a href="javascript&colon;alert(1)">x</a>`, "<a>x</a>"},
	{"nul inside scheme", "<a href=\"java\x00script:alert(1)\">x</a>", "<a>x</a>"},
	{"no-break space first", "<a href=\"\u00a0javascript:alert(1)\">x</a>", "<a>x</a>"},
	{"vbscript", `<a href="vbscript:msgbox(1)">x</a>`, "<a>x</a>"},
	{"data src", `<img src="data:image/png;base64,AAAA" alt="a">`, `<img alt="a" />`},
	{"mailto href", `<a href="mailto:info@example.org">m</a>`, `<a href="mailto:info@example.org">m</a>`},
	{"mailto src", `<img src="mailto:info@example.org">`, "<img />"},
	{"upper-case https", `<a href="HTTPS://example.org">x</a>`, `<a href="HTTPS://example.org">x</a>`},
	{"relative path", `<a href="page.html">x</a>`, `<a href="page.html">x</a>`},
	{"colon after slash", `<a href="/a:b">x</a>`, `<a href="/a:b">x</a>`},
	{"colon in query", `<a href="?q=a:b">x</a>`, `<a href="?q=a:b">x</a>`},
	{"colon in fragment", `<a href="#a:b">x</a>`, `<a href="#a:b">x</a>`},
	{"scheme-relative", `<a href="//example.org/x">x</a>`, `<a href="//example.org/x">x</a>`},
	{"query ampersand", `<a href="/e?a=1&b=2">x</a>`, `<a href="/e?a=1&amp;b=2">x</a>`},

	// Void and unbalanced elements.
	{"void elements", "a<br>b<BR/>c<br />d<hr>e</br>f", "a<br />b<br />c<br />d<hr />ef"},
	{"lt before dropped void end tag", "<</Br>A", "&lt;A"},
	{"self-closing non-void", "<p/>x", "<p>x"},
	{"unclosed kept", "<b>bold", "<b>bold"},
	{"stray end tag kept", "x</b>", "x</b>"},

	// Text joined by a removed tag must not form markup.
	{"lt joined to tag name", "<<x>script>alert(1)<</x>/script>", "&lt;script>alert(1)&lt;/script>"},
	{"lt run joined", "<<<x>b>", "<&lt;b>"},
	{"lt joined to comment", "<<x>!-- c -->", "&lt;!-- c -->"},
	{"lt before kept tag", "<<b>x</b>", "<<b>x</b>"},
}

func TestFilter(t *testing.T) {
	for _, tc := range filterTests {
		t.Run(tc.name, func(t *testing.T) {
			got := Filter(tc.in)
			if got != tc.want {
				t.Errorf("Filter(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if again := Filter(got); again != got {
				t.Errorf("Filter(%q) = %q, not stable", got, again)
			}
		})
	}
}

func TestSafeURL(t *testing.T) {
	tests := []struct {
		key, val string
		want     bool
	}{
		{"title", "javascript:alert(1)", true},
		{"href", "", true},
		{"href", "http://x", true},
		{"href", "mailto:a@b", true},
		{"href", "tel:+3212", false},
		{"href", "\u212Aavascript:x", false},
		{"src", "https://x/a.png", true},
		{"src", "mailto:a@b", false},
		{"src", "a.png", true},
		{"src", "photo:1.png", false},
	}
	for _, tc := range tests {
		t.Run(tc.key+"="+tc.val, func(t *testing.T) {
			if got := safeURL(tc.key, tc.val); got != tc.want {
				t.Errorf("safeURL(%q, %q) = %v, want %v", tc.key, tc.val, got, tc.want)
			}
		})
	}
}

// FuzzFilter checks the properties callers rely on: Filter never panics, its
// output is stable, and the output holds no script, no event handler, no tag
// or attribute outside the allow-list and no URL with a forbidden scheme.
func FuzzFilter(f *testing.F) {
	for _, tc := range filterTests {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := Filter(in)
		if again := Filter(got); again != got {
			t.Fatalf("not idempotent:\n in: %q\n 1st: %q\n 2nd: %q", in, got, again)
		}
		if strings.Contains(strings.ToLower(got), "<script") {
			t.Fatalf("Filter(%q) = %q contains <script", in, got)
		}
		if err := checkFiltered(got); err != nil {
			t.Fatalf("Filter(%q) = %q: %v", in, got, err)
		}
	})
}

// checkFiltered tokenizes Filter output the way a browser would and reports
// the first markup that Filter should have removed.
func checkFiltered(s string) error {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return nil
		case html.CommentToken, html.DoctypeToken:
			return fmt.Errorf("kept %s %q", tt, z.Raw())
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			attrs, ok := allowed[tok.Data]
			if !ok {
				return fmt.Errorf("kept tag %q", tok.Data)
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(a.Key, "on") {
					return fmt.Errorf("kept event handler %q", a.Key)
				}
				if !strings.Contains(" "+strings.Join(attrs, " ")+" ", " "+a.Key+" ") {
					return fmt.Errorf("kept attribute %q on %q", a.Key, tok.Data)
				}
				if !safeURL(a.Key, a.Val) {
					return fmt.Errorf("kept URL %q", a.Val)
				}
			}
		}
	}
}

func ExampleFilter() {
	fmt.Println(Filter(`<p onclick="steal()">Tom's <b>band</b> & <a href="javascript:alert(1)" title="t">friends</a><script>alert(1)</script></p>`))
	// Output: <p>Tom's <b>band</b> & <a title="t">friends</a></p>
}
