package slug_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calendard/calendard/storage/slug"
)

var normalizeTests = []struct {
	name string
	in   string
	want string
}{
	// Appendix B examples.
	{"apostrophe and accents", "Palais de l'Élysée", "palais-de-lelysee"},
	{"digits", "Event 01", "event-01"},
	{"slash and dot", "Foo / Bar.Baz", "foo-bar-baz"},
	{"sharp s", "Straße", "strasse"},

	// Step 1: tags.
	{"tags", "<b>Bold</b> move", "bold-move"},
	{"script element", "<script>alert(1)</script>Hello", "hello"},
	{"style element", "<STYLE type=\"text/css\">p { color: red }</style>Hi", "hi"},
	{"unclosed script", "Hi<script>alert(1)", "hi"},
	{"not a script element", "<scripts>x</scripts>", "x"},
	{"quoted greater-than in tag", `<a title="x>y">link</a>`, "link"},
	{"comment", "<!-- note -->Visible", "visible"},
	{"less-than before space is text", "a < b", "a-b"},
	{"unclosed tag runs to the end", "a<b c", "a"},
	{"only markup", "<p></p>", ""},

	// Step 2: transliteration.
	{"special letters", "Ærøskøbing Łódź Þór Đakovo", "aeroskobing-lodz-thor-dakovo"},
	{"capital specials", "ĲSSEL ẞ Ŋ", "ijssel-ss-n"},
	{"dotless and dotted i", "Işık İstanbul", "isik-istanbul"},
	{"decomposed input", "Cafe\u0301", "cafe"},
	{"stray combining mark", "\u0301a\u0301", "a"},

	// Step 3.
	{"upper case", "HELLO World", "hello-world"},

	// Step 4: replacements and deletions.
	{"named entity", "Tom &amp; Jerry", "tom-jerry"},
	{"upper-case entity", "Tom &AMP; Jerry", "tom-jerry"},
	{"numeric entities", "&#169; &#x263A; x", "x"},
	{"nbsp entity", "Tom&nbsp;Jerry", "tom-jerry"},
	{"dash entities", "a&ndash;b&mdash;c&#8211;d&#x2014;e&#160;f", "a-b-c-d-e-f"},
	{"bare ampersand", "Tom & Jerry; more", "tom-jerry-more"},
	{"no-break space", "a\u00a0b", "a-b"},
	{"other white space", "a\tb\nc\u2003d\u3000e", "a-b-c-d-e"},
	{"en and em dash", "2020–2021 — live", "2020-2021-live"},
	{"hyphen runs", "--a---b--", "a-b"},
	{"times", "3×4", "3x4"},
	{"curly quotes", "“Quoted” ‘text’ «guillemets» „low“ ‚single‘ ‹x›", "quoted-text-guillemets-low-single-x"},
	{"straight quotes and accents", "It's \"ok\" `now` ´then´", "its-ok-now-then"},
	{"inverted punctuation", "¡Hola! ¿Qué?", "hola-que"},
	{"soft hyphen", "soft\u00adhyphen", "softhyphen"},
	{"zero-width", "zero\u200bwidth\u200cnon\u200djoin\u2060wj\ufeffbom\u200erlm", "zerowidthnonjoinwjbomrlm"},
	{"stray percent", "100% off 50%", "100-off-50"},
	{"percent before non-hex", "%zz %4g", "zz-4g"},
	{"valid octets kept", "a%20b %C3%A9", "a%20b-%c3%a9"},
	{"octet from transliteration", "%é1", "%e1"},

	// Step 5: percent-encoding.
	{"cyrillic", "Привет, мир", "%d0%bf%d1%80%d0%b8%d0%b2%d0%b5%d1%82-%d0%bc%d0%b8%d1%80"},
	{"cyrillic short i keeps its breve", "Й", "%d0%b9"},
	{"greek keeps its tonos", "Αθήνα", "%ce%b1%ce%b8%ce%ae%ce%bd%ce%b1"},
	{"cjk", "東京 2025", "%e6%9d%b1%e4%ba%ac-2025"},
	{"kana keeps its dakuten", "が", "%e3%81%8c"},
	{"hangul is recomposed", "한", "%ed%95%9c"},
	{"emoji", "I ❤ Go", "i-%e2%9d%a4-go"},

	// Step 6.
	{"punctuation deleted", "Hello, World! (2025) #1 @home", "hello-world-2025-1-home"},
	{"underscore kept", "snake_case name", "snake_case-name"},
	{"invalid utf-8 dropped", "a\xffb", "ab"},

	// Step 7.
	{"trim", "  - Hello -  ", "hello"},
	{"empty", "", ""},
	{"only punctuation", "!!! ???", ""},

	// Step 8.
	{"truncate ascii", strings.Repeat("a", 250), strings.Repeat("a", 200)},
	{"exact limit", strings.Repeat("a", 200), strings.Repeat("a", 200)},
	{"octet after the cut", strings.Repeat("a", 200) + "ж", strings.Repeat("a", 200)},
	{"cut after percent", strings.Repeat("a", 199) + "ж", strings.Repeat("a", 199)},
	{"cut inside octet", strings.Repeat("a", 198) + "ж", strings.Repeat("a", 198)},
	{"cut between octets", strings.Repeat("a", 197) + "ж", strings.Repeat("a", 197) + "%d0"},
	{"cut leaves hyphen", strings.Repeat("a", 199) + " b", strings.Repeat("a", 199)},
	{"cut inside octet leaves hyphen", strings.Repeat("a", 197) + "-ж", strings.Repeat("a", 197)},
}

func TestNormalize(t *testing.T) {
	for _, tc := range normalizeTests {
		t.Run(tc.name, func(t *testing.T) {
			if got := slug.Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNormalize_Idempotent(t *testing.T) {
	for _, tc := range normalizeTests {
		t.Run(tc.name, func(t *testing.T) {
			once := slug.Normalize(tc.in)
			if got := slug.Normalize(once); got != once {
				t.Errorf("Normalize(%q) = %q, want it unchanged", once, got)
			}
		})
	}
}

func TestWithSuffix(t *testing.T) {
	a := strings.Repeat
	tests := []struct {
		name string
		base string
		n    int
		want string
	}{
		{"short", "foo", 2, "foo-2"},
		{"record id", "57", 3, "57-3"},
		{"room left", a("a", 198), 2, a("a", 198) + "-2"},
		{"shortened", a("a", 200), 2, a("a", 198) + "-2"},
		{"longer number", a("a", 200), 123, a("a", 196) + "-123"},
		{"octet at the cut", a("a", 197) + "%c3", 2, a("a", 197) + "-2"},
		{"octet before the cut", a("a", 195) + "%c3%a9", 2, a("a", 195) + "%c3-2"},
		{"octet straddles the cut", a("a", 196) + "%c3a", 2, a("a", 196) + "-2"},
		{"hyphen at the cut", a("a", 197) + "-bc", 2, a("a", 197) + "-2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := slug.WithSuffix(tc.base, tc.n)
			if got != tc.want {
				t.Errorf("WithSuffix(%q, %d) = %q, want %q", tc.base, tc.n, got, tc.want)
			}
			if len(got) > slug.MaxLen {
				t.Errorf("len(WithSuffix(%q, %d)) = %d, want <= %d", tc.base, tc.n, len(got), slug.MaxLen)
			}
			if norm := slug.Normalize(got); norm != got {
				t.Errorf("Normalize(%q) = %q, want it unchanged", got, norm)
			}
		})
	}
}

func TestWithSuffix_PanicsBelowTwo(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("WithSuffix(\"a\", 1) did not panic")
		}
	}()
	slug.WithSuffix("a", 1)
}

func FuzzNormalize(f *testing.F) {
	for _, tc := range normalizeTests {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := slug.Normalize(in)
		checkSlug(t, got)
		if again := slug.Normalize(got); again != got {
			t.Fatalf("Normalize(%q) = %q, Normalize of that = %q", in, got, again)
		}
		if got == "" {
			return
		}
		for _, n := range []int{2, 10, 1000} {
			s := slug.WithSuffix(got, n)
			checkSlug(t, s)
			if again := slug.Normalize(s); again != s {
				t.Fatalf("Normalize(WithSuffix(%q, %d)) = %q, want %q", got, n, again, s)
			}
		}
	})
}

// checkSlug fails t unless s has the form the package documentation promises.
func checkSlug(t *testing.T, s string) {
	t.Helper()
	if len(s) > slug.MaxLen {
		t.Fatalf("slug %q is %d bytes long, want <= %d", s, len(s), slug.MaxLen)
	}
	if strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
		t.Fatalf("slug %q has a leading, trailing or doubled '-'", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isLowerHex(s[i+1]) || !isLowerHex(s[i+2]) {
				t.Fatalf("slug %q: '%%' at %d does not start a %%xx group", s, i)
			}
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			t.Fatalf("slug %q contains %q", s, c)
		}
	}
}

func isLowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

func ExampleNormalize() {
	fmt.Println(slug.Normalize("Palais de l'Élysée"))
	fmt.Println(slug.Normalize("Tom &amp; Jerry"))
	fmt.Println(slug.Normalize("Москва"))
	// Output:
	// palais-de-lelysee
	// tom-jerry
	// %d0%bc%d0%be%d1%81%d0%ba%d0%b2%d0%b0
}

func ExampleWithSuffix() {
	fmt.Println(slug.WithSuffix("summer-concert", 2))
	// Output: summer-concert-2
}

func BenchmarkNormalize(b *testing.B) {
	inputs := []struct{ name, in string }{
		{"ascii", "Summer Concert: The Best of Mozart & Friends (2025 Edition)"},
		{"latin", "Palais de l'Élysée – Visite guidée « Les coulisses »"},
		{"cyrillic", "Новогодний концерт в Большом зале консерватории"},
		{"long", strings.Repeat("Tom &amp; Jerry <b>x</b> é ", 40)},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			for b.Loop() {
				slug.Normalize(in.in)
			}
		})
	}
}
