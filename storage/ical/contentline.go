package ical

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// property is one content line (RFC 5545 section 3.1): "NAME;PARAM=a,b;OTHER="x:y":value".
type property struct {
	name   string // upper case
	params []param
	value  string // as written: TEXT escapes are still in place
	line   int    // first physical line of the content line; 0 when not read from a file
}

// param is one property parameter; its values are unquoted and RFC 6868-decoded.
type param struct {
	name   string // upper case
	values []string
}

// param returns the first value of the parameter name, or "".
func (p *property) param(name string) string {
	for _, pr := range p.params {
		if pr.name == name && len(pr.values) > 0 {
			return pr.values[0]
		}
	}
	return ""
}

// parseProperty parses one unfolded content line.
func parseProperty(s string) (property, error) {
	i := tokenEnd(s)
	if i == 0 || i == len(s) || (s[i] != ';' && s[i] != ':') {
		return property{}, fmt.Errorf("%w: malformed content line %.40q", ErrSyntax, s)
	}
	p := property{name: strings.ToUpper(s[:i])}
	s = s[i:]
	for s[0] == ';' {
		s = s[1:]
		j := tokenEnd(s)
		if j == 0 || j == len(s) || s[j] != '=' {
			return property{}, fmt.Errorf("%w: malformed parameter in %s", ErrSyntax, p.name)
		}
		pr := param{name: strings.ToUpper(s[:j])}
		s = s[j+1:]
		for {
			var v string
			var err error
			v, s, err = parseParamValue(s)
			if err != nil {
				return property{}, fmt.Errorf("%w in %s", err, p.name)
			}
			pr.values = append(pr.values, v)
			if s == "" {
				return property{}, fmt.Errorf("%w: %s has no value", ErrSyntax, p.name)
			}
			if s[0] != ',' {
				break
			}
			s = s[1:]
		}
		p.params = append(p.params, pr)
		if s[0] != ';' && s[0] != ':' {
			return property{}, fmt.Errorf("%w: malformed parameter in %s", ErrSyntax, p.name)
		}
	}
	p.value = s[1:]
	return p, nil
}

// parseLine parses one unfolded content line as read from a file, first decoding it to UTF-8 when it
// is written in another charset: the one its CHARSET parameter names (RFC 2445 writers and
// vCalendar-era Outlook add it), else, for a line that is not UTF-8, Windows-1252, the code page of
// the Windows tools that write one, whose printable characters include all of Latin-1's. Names
// follow the WHATWG Encoding Standard, as browsers read them ("ISO-8859-1" is Windows-1252 there).
//
// A line is refused when its encoding cannot be told (valid UTF-8 sequences beside bytes that are
// not), when its CHARSET is unknown, or when decoding it gives replacement characters: text stored
// with U+FFFD in it would look right to no one.
func parseLine(text []byte, warn *warnings) (property, error) {
	p, err := parseProperty(string(text))
	if err != nil {
		return property{}, err
	}
	valid := utf8.Valid(text)
	charset := p.param("CHARSET")
	var enc encoding.Encoding
	switch {
	case charset != "":
		if enc, err = htmlindex.Get(charset); err != nil {
			return property{}, fmt.Errorf("%w: %s has an unknown CHARSET %.40q", ErrSyntax, p.name, charset)
		}
		switch name, _ := htmlindex.Name(enc); name {
		case "utf-8":
			if !valid {
				return property{}, fmt.Errorf("%w: %s says CHARSET=%s but is not", ErrSyntax, p.name, charset)
			}
			return p, nil
		case "utf-16le", "utf-16be":
			return property{}, fmt.Errorf("%w: %s says CHARSET=%s inside a line that is not", ErrSyntax, p.name, charset)
		}
	case valid:
		return p, nil
	case mixesUTF8(text):
		return property{}, fmt.Errorf("%w: %s mixes UTF-8 with bytes that are not: its encoding cannot be told", ErrSyntax, p.name)
	default:
		enc = charmap.Windows1252
		warn.add(warnNotUTF8)
	}
	decoded, err := enc.NewDecoder().Bytes(text)
	if err != nil || (bytes.Contains(decoded, replacement) && !bytes.Contains(text, replacement)) {
		name, _ := htmlindex.Name(enc)
		return property{}, fmt.Errorf("%w: %s is neither UTF-8 nor %s", ErrSyntax, p.name, name)
	}
	return parseProperty(string(decoded))
}

// replacement is U+FFFD in UTF-8. (bytes.ContainsRune would find it in any byte that is not UTF-8.)
var replacement = []byte(string(utf8.RuneError))

// mixesUTF8 reports whether text, which is not valid UTF-8, has a valid multi-byte UTF-8 sequence.
func mixesUTF8(text []byte) bool {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if r != utf8.RuneError || size > 1 {
			return true
		}
		i += size
	}
	return false
}

// tokenEnd returns the length of the name (iana-token or x-name: letters, digits, '-') s starts with.
func tokenEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return i
		}
	}
	return len(s)
}

// parseParamValue reads one parameter value from the start of s and returns it with the rest of s.
func parseParamValue(s string) (value, rest string, err error) {
	if strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", "", fmt.Errorf("%w: unterminated quoted parameter value", ErrSyntax)
		}
		return decodeParamValue(s[1 : 1+end]), s[end+2:], nil
	}
	end := strings.IndexAny(s, `;:,"`)
	if end < 0 {
		end = len(s)
	}
	if end < len(s) && s[end] == '"' {
		return "", "", fmt.Errorf("%w: quote inside parameter value", ErrSyntax)
	}
	return decodeParamValue(s[:end]), s[end:], nil
}

// decodeParamValue undoes RFC 6868's caret encoding (^n newline, ^' quote, ^^ caret), the only way a
// parameter value can hold those characters, and cleans the text as plain text.
func decodeParamValue(v string) string {
	v = cleanText(v, false)
	if strings.IndexByte(v, '^') >= 0 {
		v = caretDecoder.Replace(v)
	}
	return v
}

var (
	caretDecoder = strings.NewReplacer("^n", "\n", "^N", "\n", "^'", `"`, "^^", "^")
	caretEncoder = strings.NewReplacer("^", "^^", "\n", "^n", `"`, "^'")
)

// appendProperty appends the unfolded content line of a property whose value is already in its
// written form (escaped when it is TEXT).
func appendProperty(b []byte, name string, params []param, value string) []byte {
	b = append(b, name...)
	for _, p := range params {
		b = append(b, ';')
		b = append(b, p.name...)
		b = append(b, '=')
		for i, v := range p.values {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendParamValue(b, v)
		}
	}
	b = append(b, ':')
	return append(b, value...)
}

// appendParamValue appends v as a parameter value: quoted when it holds ':', ';' or ',' (RFC 5545
// section 3.2), with quotes, newlines and carets in RFC 6868's caret encoding.
func appendParamValue(b []byte, v string) []byte {
	v = cleanText(v, true)
	if strings.ContainsAny(v, "^\n\"") {
		v = caretEncoder.Replace(v)
	}
	if !strings.ContainsAny(v, ":;,") {
		return append(b, v...)
	}
	b = append(b, '"')
	b = append(b, v...)
	return append(b, '"')
}

// cleanText returns s as valid UTF-8 without control characters other than tab, and, when
// newlines is true, with "\r\n" and lone "\r" turned into "\n" (kept); otherwise every line break
// is dropped too. RFC 5545 allows no other control character in a value, and a byte that is not
// UTF-8 could otherwise be split when the line is folded.
func cleanText(s string, newlines bool) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		switch c := s[i]; {
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			clean = r != utf8.RuneError || size > 1
			i += size - 1
		case c < 0x20 && c != '\t' && (c != '\n' || !newlines), c == 0x7f:
			clean = false
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		case c == '\r' && newlines:
			if i+1 >= len(s) || s[i+1] != '\n' {
				b.WriteByte('\n')
			}
		case c == '\n' && newlines, c == '\t':
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

// appendText appends s as a TEXT value (RFC 5545 section 3.3.11): backslash, semicolon, comma and
// newline escaped, after cleanText.
func appendText(b []byte, s string) []byte {
	s = cleanText(s, true)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', ';', ',':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, c)
		}
	}
	return b
}

// parseText undoes appendText. It is lenient, as files in the wild are: "\N" is a newline too, a
// backslash before any other character is dropped, and a trailing backslash is ignored.
func parseText(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return cleanText(s, true)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break
		}
		switch s[i] {
		case 'n', 'N':
			b.WriteByte('\n')
		default:
			b.WriteByte(s[i])
		}
	}
	return cleanText(b.String(), true)
}

// splitTextList splits a multi-valued TEXT value (CATEGORIES) at its unescaped commas, unescapes
// each item and drops the empty ones.
func splitTextList(s string) []string {
	var items []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] == '\\' {
			i++
			continue
		}
		if i == len(s) || s[i] == ',' {
			if item := parseText(s[start:i]); item != "" {
				items = append(items, item)
			}
			start = i + 1
		}
	}
	return items
}

// maxLineOctets is the longest a physical line may be, CRLF excluded (RFC 5545 section 3.1).
const maxLineOctets = 75

// writeFolded writes one content line folded to maxLineOctets with its CRLF. A fold goes before a
// UTF-8 sequence, never inside one; the space that starts a continuation line counts toward its 75
// octets. line must be valid UTF-8 (everything the encoder writes went through cleanText).
func writeFolded(w *bufio.Writer, line []byte) {
	limit := maxLineOctets
	for len(line) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		w.Write(line[:cut])
		w.WriteString("\r\n ")
		line = line[cut:]
		limit = maxLineOctets - 1
	}
	w.Write(line)
	w.WriteString("\r\n")
}
