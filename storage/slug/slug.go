// Package slug turns titles, names and supplied slugs into URL slugs
// (docs/API.md "Event fields").
//
// # Basics
//
// Normalize implements Appendix B steps 1 to 8. Its result holds only the
// bytes [a-z0-9%_-], is at most MaxLen bytes long, never starts or ends with
// '-', and every '%' in it starts a "%xx" group of two lower-case hex digits.
// It may be "": step 9, falling back to the record ID, is left to the caller,
// which knows the ID. WithSuffix builds the "-2", "-3", … variants that make a
// slug unique.
//
// # Caveats
//
// Normalize is applied to generated slugs, to supplied slugs and to by-slug
// lookups, so it is idempotent: Normalize(Normalize(x)) == Normalize(x). A
// stored slug therefore always finds itself when it is looked up again.
//
// Where Appendix B is silent or contradicts itself, this package decides:
//   - Tags are removed as PHP strip_tags does (a '<' not followed by
//     whitespace opens a tag that runs to the matching '>', or to the end of
//     the text), after <script> and <style> elements have been removed with
//     their content, as WordPress's wp_strip_all_tags does.
//   - Combining marks are dropped only after Latin letters and symbols. After
//     a letter of another script they carry meaning (Cyrillic й, Japanese が,
//     Greek ά) and are kept, recomposed (NFC) and percent-encoded.
//   - Every Unicode white-space character, not only the space, separates
//     words: step 6 would otherwise delete a tab or a newline and glue the
//     words on either side together.
//   - An HTML entity is "&name;", "&#digits;" or "&#xhex;". The entities of
//     a no-break space, an en dash and an em dash become '-', like the
//     characters themselves (and as in WordPress); other entities are deleted.
//   - Invalid UTF-8 bytes are dropped.
package slug

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxLen is the maximum length of a slug in bytes. Slugs are ASCII, so this is
// also their length in characters.
const MaxLen = 200

// Normalize applies Appendix B steps 1 to 8 to s and returns the slug, which
// may be "" (see the package documentation).
func Normalize(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = stripTags(s) // step 1
	// Lower-casing (step 3) before transliterating (step 2) gives the same
	// result for every letter Appendix B lists, and also maps their capitals
	// that step 2 does not list (ẞ, Ĳ, Ŋ) instead of percent-encoding them.
	s = strings.ToLower(s)
	s = Transliterate(s)  // step 2
	s = replace(s)        // step 4
	s = encode(s)         // steps 5 and 6
	s = joinWords(s)      // step 7
	return cut(s, MaxLen) // step 8
}

// WithSuffix returns the slug base+"-"+n used when base is taken. It shortens
// base, without splitting a "%xx" group and without leaving a trailing '-', so
// that the result is at most MaxLen bytes long. base must be a non-empty
// result of Normalize (or a record ID); Normalize then leaves the result
// unchanged.
//
// WithSuffix panics if n < 2: the first taken slug gets "-2", as in WordPress.
func WithSuffix(base string, n int) string {
	if n < 2 {
		panic("slug: WithSuffix called with n < 2")
	}
	suffix := "-" + strconv.Itoa(n)
	return cut(base, MaxLen-len(suffix)) + suffix
}

// stripTags removes <script> and <style> elements with their content, then
// every remaining tag, as WordPress's wp_strip_all_tags does.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	return stripMarkup(stripElements(s))
}

// stripElements removes <script> and <style> elements with their content. An
// element that is never closed runs to the end of s, as in an HTML parser:
// script source is never meant as visible text.
func stripElements(s string) string {
	var b strings.Builder
	for {
		start, name := findRawElement(s)
		if start < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:start])
		rest := s[start:]
		gt := strings.IndexByte(rest, '>')
		if gt < 0 {
			// An unterminated start tag: stripMarkup drops it and the rest.
			b.WriteString(rest)
			return b.String()
		}
		rest = rest[gt+1:]
		end := indexFold(rest, "</"+name)
		if end < 0 {
			return b.String()
		}
		rest = rest[end:]
		gt = strings.IndexByte(rest, '>')
		if gt < 0 {
			return b.String()
		}
		s = rest[gt+1:]
	}
}

// findRawElement returns the index of the first "<script" or "<style" start
// tag in s and the element's name, or -1.
func findRawElement(s string) (int, string) {
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		for _, name := range [...]string{"script", "style"} {
			rest := s[i+1:]
			if len(rest) < len(name) || !strings.EqualFold(rest[:len(name)], name) {
				continue
			}
			// "<scripts>" is not a script element.
			if len(rest) == len(name) || isTagNameEnd(rest[len(name)]) {
				return i, name
			}
		}
	}
	return -1, ""
}

func isTagNameEnd(c byte) bool {
	return c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// indexFold is strings.Index with ASCII case folding, enough for tag names.
func indexFold(s, substr string) int {
	for i := 0; i+len(substr) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(substr)], substr) {
			return i
		}
	}
	return -1
}

// stripMarkup removes tags and comments the way PHP's strip_tags does, which
// is what the reference's sanitize_title uses: a '<' followed by white space
// is text; any other '<' opens a tag that ends at the matching '>' outside
// quotes (nested '<' need their own '>'), or at the end of s.
func stripMarkup(s string) string {
	const (
		text = iota
		tag
		comment
	)
	var b strings.Builder
	b.Grow(len(s))
	state := text
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case text:
			if c != '<' {
				b.WriteByte(c)
				continue
			}
			if i+1 < len(s) && isASCIISpace(s[i+1]) {
				b.WriteByte(c)
				continue
			}
			if strings.HasPrefix(s[i:], "<!--") {
				state = comment
				i += len("<!--") - 1
				continue
			}
			state, depth, quote = tag, 0, 0
		case tag:
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '<':
				depth++
			case c == '>':
				if depth > 0 {
					depth--
				} else {
					state = text
				}
			}
		case comment:
			if strings.HasPrefix(s[i:], "-->") {
				state = text
				i += len("-->") - 1
			}
		}
	}
	return b.String()
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// special maps the letters of Appendix B step 2 that NFD does not decompose.
// Only lower-case forms are needed: Normalize lower-cases first.
var special = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ð': "d",
	'þ': "th", 'ł': "l", 'ı': "i", 'ĳ': "ij", 'ŋ': "n",
}

// Transliterate implements Appendix B step 2 on lower-case text: accented Latin
// letters become ASCII (é → e, ß → ss, ł → l). Step 2 is about accented Latin
// letters, so marks are dropped only after Latin (or script-neutral) bases;
// dropping the dakuten of が would turn it into a different word (か). The search
// index folds words with it too, so that `muller` finds `Müller`.
func Transliterate(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	keepMarks, nonASCII := false, false
	for _, r := range norm.NFD.String(s) {
		if r < utf8.RuneSelf {
			b.WriteByte(byte(r))
			keepMarks = false
			continue
		}
		if unicode.Is(unicode.M, r) {
			if keepMarks {
				b.WriteRune(r)
			}
			continue
		}
		keepMarks = !unicode.In(r, unicode.Latin, unicode.Common, unicode.Inherited)
		if t, ok := special[r]; ok {
			b.WriteString(t)
			continue
		}
		b.WriteRune(r)
		nonASCII = true
	}
	if !nonASCII {
		return b.String()
	}
	// NFD also split Hangul syllables and non-Latin letters with marks;
	// put them back together so they are encoded in their usual (NFC) form.
	return norm.NFC.String(b.String())
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// replace implements Appendix B step 4 (after step 3: s is lower-case).
func replace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == '&' {
			if n, dash := entity(s[i:]); n > 0 {
				if dash {
					b.WriteByte('-')
				}
				i += n
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '/' || r == '.' || r == '\u2013' || r == '\u2014' || unicode.IsSpace(r):
			// unicode.IsSpace includes the no-break space.
			b.WriteByte('-')
		case r == '×':
			b.WriteByte('x')
		case isDeleted(r):
		default:
			b.WriteRune(r)
		}
	}
	return dropStrayPercent(b.String())
}

// entity reports the length of the HTML entity at the start of s ("&name;",
// "&#digits;" or "&#xhex;", lower-case), or 0 if there is none, and whether
// it stands for a no-break space, an en dash or an em dash.
func entity(s string) (n int, dash bool) {
	start, base := 1, 0 // base 0: a named entity
	switch {
	case strings.HasPrefix(s, "&#x"):
		start, base = 3, 16
	case strings.HasPrefix(s, "&#"):
		start, base = 2, 10
	}
	end := start
	for end < len(s) && isEntityByte(s[end], base) {
		end++
	}
	if end == start || end == len(s) || s[end] != ';' || base == 0 && !isLower(s[start]) {
		return 0, false
	}
	name := s[start:end]
	if base == 0 {
		return end + 1, name == "nbsp" || name == "ndash" || name == "mdash"
	}
	v, err := strconv.ParseUint(name, base, 32)
	return end + 1, err == nil && (v == 0xa0 || v == 0x2013 || v == 0x2014)
}

func isEntityByte(c byte, base int) bool {
	switch base {
	case 16:
		return isHex(c)
	case 10:
		return isDigit(c)
	}
	return isLower(c) || isDigit(c)
}

// isDeleted reports whether step 4 deletes r: the listed quotes and accents,
// soft hyphens and zero-width characters.
func isDeleted(r rune) bool {
	switch r {
	case '¡', '¿', '«', '»', '‹', '›', '‘', '’', '‚', '“', '”', '„', '\'', '"', '´', '`',
		'\u00ad': // soft hyphen
		return true
	}
	return isZeroWidth(r)
}

// isZeroWidth reports whether r is an invisible character without width: the
// zero-width space, (non-)joiners, word joiner, byte order mark, invisible
// operators and the bidirectional marks, embeddings, overrides and isolates
// (WordPress deletes most of these too).
func isZeroWidth(r rune) bool {
	return r >= '\u200b' && r <= '\u200f' ||
		r >= '\u202a' && r <= '\u202e' ||
		r >= '\u2060' && r <= '\u2064' ||
		r >= '\u2066' && r <= '\u2069' ||
		r == '\ufeff'
}

// dropStrayPercent deletes every '%' that is not followed by two hex digits,
// so that every '%' left starts a "%xx" group. It runs after the other step 4
// changes, so nothing later can break a group up.
func dropStrayPercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// encode implements steps 5 and 6: it percent-encodes non-ASCII characters
// and deletes ASCII ones outside [a-z0-9 %_-].
func encode(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		case isLower(c) || isDigit(c) || c == ' ' || c == '%' || c == '_' || c == '-':
			b.WriteByte(c)
		}
	}
	return b.String()
}

// joinWords implements step 7. Step 4 already turned other white space into
// '-', so only spaces are left.
func joinWords(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '-' {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteByte(c)
	}
	return b.String()
}

// cut truncates the slug s to at most n bytes without splitting a "%xx" group,
// then trims trailing '-' (step 8).
func cut(s string, n int) string {
	if len(s) > n {
		// Every '%' in s starts a group, so a group straddles the cut exactly
		// when one of the last two kept bytes is a '%'.
		switch {
		case n >= 1 && s[n-1] == '%':
			n--
		case n >= 2 && s[n-2] == '%':
			n -= 2
		}
		s = s[:n]
	}
	return strings.TrimRight(s, "-")
}

func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
