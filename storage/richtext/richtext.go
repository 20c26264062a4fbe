// Package richtext sanitises user text on write and renders it on read, as
// docs/API.md "Event fields" describes.
//
// # Basics
//
// There are three kinds of user text, and one function for each on write:
//
//   - Name (C.1): titles, venue and organizer names, term names. Trimmed; tags
//     are removed unless the caller has unfiltered_html.
//   - ShortText (C.2): address parts, phone, e-mail, website, cost items. Tags
//     removed and whitespace collapsed to single spaces, for every caller.
//   - Filter (C.3): description and excerpt from callers without
//     unfiltered_html. An allow-list filter in the style of WordPress kses.
//
// On read, Render (C.3) turns a stored description or excerpt into paragraphs,
// approximating WordPress wpautop, Summary produces the plain-text json_ld
// description (3.7), and PlainText the text of formats that take no HTML, with
// its paragraphs and entities decoded (the iCalendar feed).
//
// All HTML is read with the golang.org/x/net/html tokenizer, never with
// regular expressions, so the package sees tags where a browser sees them.
//
// # Caveats
//
//   - Text is kept as the client wrote it: entities are neither decoded nor
//     added (Tom's &amp; Jerry's stays byte for byte). The only text that
//     changes is a '<' that would start a tag, comment or doctype once the
//     markup around it has been removed (for example "<<b>script>" with the b
//     tag removed): Filter writes that '<' as "&lt;", StripTags drops it.
//     This is what makes Filter(Filter(x)) == Filter(x) and
//     StripTags(StripTags(x)) == StripTags(x).
//   - Filter does not balance tags: an unclosed <b> stays unclosed, as in
//     WordPress kses. Balancing would need a tree builder, and the HTML5 tree
//     builder reorders content (foster parenting out of tables) in ways a
//     client would not expect from a filter. Clients that embed a description
//     inside their own markup should do so inside an element of their own.
//   - Filter writes void elements as "<br />", "<hr />" and "<img … />", the
//     form Render writes, and drops their end tags ("</br>").
//   - Whitespace: Name, ShortText and Summary use Unicode white space
//     (strings.TrimSpace, strings.Fields), so a no-break space counts as
//     space there. Render uses ASCII white space only, which is what HTML
//     treats as inter-element white space and what wpautop's \s matches.
//   - Summary does not decode entities: "&amp;" in a description stays
//     "&amp;" in the json_ld text, as in WordPress.
package richtext

import (
	"strings"

	"golang.org/x/net/html"
)

// StripTags removes every HTML tag, comment and doctype, and <script> and
// <style> elements together with their content. Text, including entities as
// written, is kept verbatim, except that a '<' which would form a tag once the
// surrounding markup is gone is dropped (see the package Caveats), so the
// result never contains markup and StripTags is idempotent.
func StripTags(s string) string {
	if !strings.ContainsRune(s, '<') {
		// Fast path for the common case: without '<' there is no markup.
		return s
	}
	w := writer{escape: false}
	walk(s, &w, func(*html.Tokenizer, html.TokenType, string) {})
	return w.String()
}

// Name sanitises a plain name (C.1): title, venue, organizer or term name.
// The result is trimmed; when unfiltered is false (the caller lacks
// unfiltered_html) all tags are removed as by StripTags and the result is
// trimmed again. No entity encoding or typographic conversion is applied.
func Name(s string, unfiltered bool) string {
	s = strings.TrimSpace(s)
	if unfiltered {
		return s
	}
	return strings.TrimSpace(StripTags(s))
}

// ShortText sanitises a short text field (C.2) for every caller: tags are
// removed as by StripTags, CR, LF and TAB become spaces, runs of white space
// collapse to one space and the result is trimmed.
func ShortText(s string) string {
	// strings.Fields splits at runs of Unicode white space, which includes
	// CR, LF and TAB, and drops leading and trailing space: joining the
	// fields is replacement, collapse and trim in one step.
	return strings.Join(strings.Fields(StripTags(s)), " ")
}

// Summary returns the plain text used as the json_ld description (3.7): HTML
// removed as by StripTags, white space collapsed to single spaces, trimmed,
// and cut to maxWords words with "…" appended when something was cut.
// maxWords <= 0 means no limit. Words are separated by white space; entities
// are not decoded.
func Summary(s string, maxWords int) string {
	words := strings.Fields(StripTags(s))
	if maxWords <= 0 || len(words) <= maxWords {
		return strings.Join(words, " ")
	}
	// WordPress wp_trim_words appends its "more" string directly to the last
	// word, with no space.
	return strings.Join(words[:maxWords], " ") + "…"
}
