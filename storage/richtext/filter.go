package richtext

import (
	"bytes"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// allowed is the C.3 allow-list: tag name → the only attributes kept on it.
var allowed = map[string][]string{
	"p": nil, "br": nil, "hr": nil,
	"strong": nil, "b": nil, "em": nil, "i": nil, "u": nil, "s": nil,
	"del": nil, "ins": nil, "blockquote": nil, "q": nil, "cite": nil,
	"code": nil, "pre": nil, "ul": nil, "ol": nil, "li": nil,
	"h1": nil, "h2": nil, "h3": nil, "h4": nil, "h5": nil, "h6": nil,
	"span": nil, "div": nil,
	"table": nil, "thead": nil, "tbody": nil, "tr": nil, "th": nil, "td": nil,
	"a":   {"href", "title", "target", "rel"},
	"img": {"src", "alt", "width", "height"},
}

// void lists the allowed elements that have no content and no end tag.
var void = map[string]bool{"br": true, "hr": true, "img": true}

// urlSchemes lists, for each attribute holding a URL, the schemes it may use.
// A URL without a scheme (relative) is always allowed.
var urlSchemes = map[string][]string{
	"href": {"http", "https", "mailto"},
	"src":  {"http", "https"},
}

// attrEscaper escapes an attribute value for a double-quoted attribute. It
// leaves apostrophes alone so that titles read as written.
var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;")

// Filter is the C.3 storage filter for a description or excerpt sent by a
// caller without unfiltered_html.
//
// <script> and <style> elements are removed with their content; comments,
// doctypes and every other tag not in the allow-list are removed but their
// text is kept. Kept tags are rewritten canonically: lower-case name, only
// the attributes allowed on that tag (first occurrence wins, as in browsers),
// values escaped and double-quoted, void elements as "<br />". href and src
// values are dropped unless they are relative or use http, https or (href
// only) mailto, judged after entity decoding. Text is kept verbatim (see the
// package Caveats). Tags are not balanced.
//
// Filter is idempotent: Filter(Filter(s)) == Filter(s).
func Filter(s string) string {
	w := writer{escape: true}
	walk(s, &w, func(z *html.Tokenizer, tt html.TokenType, name string) {
		attrs, ok := allowed[name]
		if !ok {
			return
		}
		if tt == html.EndTagToken {
			// "</br>" and the like are dropped. This must happen before
			// w.markup(), which commits held text to being followed by a tag.
			if !void[name] {
				w.markup().WriteString("</" + name + ">")
			}
			return
		}
		b := w.markup()
		b.WriteString("<" + name)
		for {
			// The tokenizer has already lower-cased the key, decoded the
			// value's entities and dropped repeated keys.
			key, val, more := z.TagAttr()
			if key == nil {
				break
			}
			k := string(key)
			if slices.Contains(attrs, k) && safeURL(k, string(val)) {
				b.WriteString(" " + k + `="` + attrEscaper.Replace(string(val)) + `"`)
			}
			if !more {
				break
			}
		}
		if void[name] {
			b.WriteString(" />")
		} else {
			// "<p/>" opens a p in HTML: the slash means nothing on a
			// non-void element, so it is not written.
			b.WriteString(">")
		}
	})
	return w.String()
}

// safeURL reports whether val may be kept as the value of attribute key:
// true for attributes that hold no URL, for relative URLs and for URLs whose
// scheme is allowed for key.
func safeURL(key, val string) bool {
	schemes, isURL := urlSchemes[key]
	if !isURL {
		return true
	}
	// Browsers (WHATWG URL parsing) delete ASCII tab and newline anywhere and
	// C0 controls and spaces at both ends before reading the scheme, so
	// "java\tscript:" and "\x01 javascript:" are javascript URLs.
	val = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, val)
	val = strings.TrimLeftFunc(val, func(r rune) bool { return r <= ' ' })
	i := strings.IndexAny(val, ":/?#")
	if i < 0 || val[i] != ':' {
		// No colon before the path, query or fragment: relative.
		return true
	}
	// Anything before that colon is judged as a scheme, even characters a
	// scheme cannot contain ("java\x00script:", "\u00a0javascript:"): a URL
	// parser would call such a value relative, but older browsers did not,
	// and a relative reference cannot have a colon in its first segment.
	return slices.Contains(schemes, asciiLower(val[:i]))
}

// asciiLower lower-cases ASCII letters only. strings.ToLower would also map
// the Kelvin sign to "k", letting a non-ASCII scheme pass for an allowed one.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// walk tokenizes s and writes its text to w. It removes comments, doctypes,
// and <script> and <style> elements with their content, and hands every other
// tag (start, self-closing or end) to tag, which may write it to w with the
// attributes it reads from z. Unwritten tags are removed.
func walk(s string, w *writer, tag func(z *html.Tokenizer, tt html.TokenType, name string)) {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// A strings.Reader fails only with io.EOF, and without SetMaxBuf
			// the tokenizer has no error of its own: this is the end. A tag
			// cut off by the end of the input is dropped, as browsers do.
			return
		case html.TextToken:
			w.text(z.Raw())
		case html.StartTagToken, html.SelfClosingTagToken:
			n, _ := z.TagName()
			name := string(n)
			switch name {
			case "script", "style":
				skipTo(z, name)
				continue
			case "iframe", "noembed", "noframes", "noscript", "plaintext", "textarea", "title", "xmp":
				// The tokenizer would read the content of these as one text
				// token, markup included. Their tag is removed but their text
				// kept, so their content must be filtered like any other, or
				// "<title><img onerror=…>" would come out as live markup.
				z.NextIsNotRawText()
			}
			tag(z, tt, name)
		case html.EndTagToken:
			n, _ := z.TagName()
			tag(z, tt, string(n))
		}
	}
}

// skipTo discards tokens up to and including the end tag </name>, or to the
// end of the input. The tokenizer has just read <name> and reads its content
// as raw text, so the text is one token and cannot hide a closing tag.
func skipTo(z *html.Tokenizer, name string) {
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.EndTagToken:
			if n, _ := z.TagName(); string(n) == name {
				return
			}
		}
	}
}

// writer accumulates sanitised output. Its job is to make sure that no '<'
// written as text is followed in the final output by a byte that would make
// it start a tag, end tag, comment or doctype: removing the markup between
// two text tokens can join "<" and "script>" ("<<x>script>"). It holds back
// each trailing run of '<' until it knows the next output byte.
type writer struct {
	b strings.Builder
	// escape selects what happens to a held '<' run that would open markup:
	// true writes the run with its last '<' as "&lt;" (HTML output), false
	// drops the whole run (plain text, where "&lt;" would show as such; the
	// whole run goes, or its first '<' would take the place of the last).
	escape bool
	// pending is the length of the held run of '<'.
	pending int
}

// text writes raw text.
func (w *writer) text(s []byte) {
	for len(s) > 0 {
		n := len(s) - len(bytes.TrimLeft(s, "<"))
		w.pending += n
		s = s[n:]
		if len(s) == 0 {
			return
		}
		w.flush(s[0])
		i := bytes.IndexByte(s, '<')
		if i < 0 {
			w.b.Write(s)
			return
		}
		w.b.Write(s[:i])
		s = s[i:]
	}
}

// markup returns the builder for writing a tag, after flushing held text.
func (w *writer) markup() *strings.Builder {
	w.flush('<')
	return &w.b
}

// String returns the output.
func (w *writer) String() string {
	w.flush(0)
	return w.b.String()
}

// flush writes the held '<' run, given the byte that follows it (0 at the
// end of the output).
func (w *writer) flush(next byte) {
	if w.pending == 0 {
		return
	}
	n := w.pending
	w.pending = 0
	// These are the bytes after '<' that make the HTML tokenizer leave the
	// data state (x/net/html Tokenizer.Next, WHATWG "tag open state").
	opens := 'a' <= next && next <= 'z' || 'A' <= next && next <= 'Z' ||
		next == '/' || next == '!' || next == '?'
	switch {
	case !opens:
		w.b.WriteString(strings.Repeat("<", n))
	case w.escape:
		w.b.WriteString(strings.Repeat("<", n-1) + "&lt;")
	}
}
