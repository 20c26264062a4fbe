package richtext

import (
	"html"
	"strings"

	xhtml "golang.org/x/net/html"
)

// The breaks PlainText writes for tags while it walks the rendered HTML. They are control
// characters, which PlainText removes from its input first, so a mark is always a tag's.
const (
	lineMark      = '\x01'
	paragraphMark = '\x02'
)

// PlainText returns what a reader sees of a text as Render shows it, for formats that take no HTML
// (iCalendar's DESCRIPTION): paragraphs and block elements separated by a blank line, line breaks
// and list items starting a line, table cells separated by a space, tags removed as by StripTags,
// white space inside a line collapsed as a browser collapses it (ASCII white space only: a no-break
// space stays), and entities decoded, since the result is no longer HTML ("Tom &amp; Jerry" gives
// "Tom & Jerry", and "&lt;b&gt;" the text "<b>"). A name or short text gives its one line.
func PlainText(s string) string {
	s = withoutMarks(s)
	if !strings.ContainsAny(s, "<&") {
		// Without markup or entities, what Render makes of a text is its own newlines: each one starts
		// a line and a blank line starts a paragraph (FuzzPlainText checks this against the HTML path).
		return plainLines(newlineMarks.Replace(s))
	}
	return plainHTML(s)
}

// withoutMarks removes the control characters PlainText uses as marks (and makes s valid UTF-8).
func withoutMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if r == lineMark || r == paragraphMark {
			return -1
		}
		return r
	}, s)
}

// newlineMarks turns every line end into a line mark.
var newlineMarks = strings.NewReplacer("\r\n", string(lineMark), "\r", string(lineMark), "\n", string(lineMark))

// plainHTML is PlainText through Render and the HTML tokenizer.
func plainHTML(s string) string {
	w := writer{escape: false}
	walk(Render(s), &w, func(_ *xhtml.Tokenizer, tt xhtml.TokenType, name string) {
		switch name {
		case "br":
			w.markup().WriteRune(lineMark)
		case "li", "dt", "dd", "tr":
			if tt != xhtml.EndTagToken {
				w.markup().WriteRune(lineMark)
			}
		case "td", "th":
			w.markup().WriteByte(' ')
		default:
			if blockTags[name] {
				w.markup().WriteRune(paragraphMark)
			}
		}
	})
	return plainLines(w.String())
}

// plainLines writes text whose breaks are marks as lines, with the white space of each collapsed and
// entities decoded.
func plainLines(text string) string {
	var out strings.Builder
	breaks := 0 // line breaks owed before the next text: 1 starts a line, 2 leaves a blank one
	for text != "" {
		end := strings.IndexFunc(text, func(r rune) bool { return r == lineMark || r == paragraphMark })
		if end < 0 {
			end = len(text)
		}
		// Decoded before white space is collapsed, as a browser does: "&#9;" is a tab, "&nbsp;" none.
		if words := strings.FieldsFunc(html.UnescapeString(text[:end]), isASCIISpace); len(words) > 0 {
			if out.Len() > 0 {
				out.WriteString("\n\n"[:breaks])
			}
			breaks = 0
			out.WriteString(strings.Join(words, " "))
		}
		if end < len(text) {
			if text[end] == paragraphMark {
				breaks = 2
			} else {
				breaks = min(breaks+1, 2)
			}
			end++
		}
		text = text[end:]
	}
	return out.String()
}

// isASCIISpace reports whether r is in asciiSpace; a switch, as it runs for every rune of a feed.
func isASCIISpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}
