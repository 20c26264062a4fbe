package input

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting accepted in a JSON body (the top-level object
// is depth 1, every array or object inside adds one) and the most bracket pairs
// accepted in a form or query-string name (docs/API.md "Limits").
const MaxDepth = 32

// JSON error codes, with the values of PHP's json_last_error so that clients
// of the WordPress reference read data.json_error_code the same way.
const (
	JSONErrorDepth         = 1  // nesting deeper than MaxDepth
	JSONErrorStateMismatch = 2  // "]" closing an object or "}" closing an array
	JSONErrorCtrlChar      = 3  // a control character, or an unterminated string
	JSONErrorSyntax        = 4  // any other syntax error, and a top level that is not an object
	JSONErrorUTF8          = 5  // malformed UTF-8
	JSONErrorUTF16         = 10 // a \u escape holding an unpaired UTF-16 surrogate
)

// JSONError describes a body that is not a JSON object. The handler answers
// 400 rest_invalid_json with data.json_error_code = Code and
// data.json_error_message = Message.
type JSONError struct {
	Code    int    // one of the JSONError* constants
	Message string // PHP's json_last_error_msg text for Code, or a sentence for a non-object body
}

// Error implements error.
func (e *JSONError) Error() string {
	return fmt.Sprintf("input: invalid JSON body: %s (json_error_code %d)", e.Message, e.Code)
}

// The messages are PHP's json_last_error_msg texts, so that responses match the
// reference word for word.
var (
	errDepth         = &JSONError{Code: JSONErrorDepth, Message: "Maximum stack depth exceeded"}
	errStateMismatch = &JSONError{Code: JSONErrorStateMismatch, Message: "State mismatch (invalid or malformed JSON)"}
	errCtrlChar      = &JSONError{Code: JSONErrorCtrlChar, Message: "Control character error, possibly incorrectly encoded"}
	errSyntax        = &JSONError{Code: JSONErrorSyntax, Message: "Syntax error"}
	errUTF8          = &JSONError{Code: JSONErrorUTF8, Message: "Malformed UTF-8 characters, possibly incorrectly encoded"}
	errUTF16         = &JSONError{Code: JSONErrorUTF16, Message: "Single unpaired UTF-16 surrogate in unicode escape"}
	errNotObject     = &JSONError{Code: JSONErrorSyntax, Message: "Syntax error: the body must be a JSON object"}
)

// JSON decodes a request body that must be a JSON object. An empty or
// whitespace-only body means "no parameters" and gives an empty map.
//
// Returns a *JSONError for malformed JSON, for anything after the object, for
// a top level that is not an object ([1,2], "text", 42, null), for invalid
// UTF-8, for a \u escape holding an unpaired surrogate, and for nesting deeper
// than MaxDepth. Duplicate member names: the last one wins.
//
// The decoder is hand-written rather than a wrapper around encoding/json for
// two reasons: the depth limit must stop the scan at the offending bracket
// instead of after decoding an arbitrarily deep document, and the error codes
// must follow PHP's, which encoding/json's errors do not carry.
func JSON(body []byte) (map[string]any, error) {
	d := decoder{data: body}
	d.skipSpace()
	if d.pos == len(d.data) {
		return map[string]any{}, nil
	}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.unexpected()
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errNotObject
	}
	return m, nil
}

type decoder struct {
	data  []byte
	pos   int
	depth int
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// unexpected reports the token at d.pos, which the grammar does not allow
// there. PHP's scanner reads a whole token before its parser looks at it, so
// a token that cannot even be scanned reports the scanner's error: a string
// is scanned to its end (an unterminated one is a control-character error), a
// control byte is a control-character error and a byte that does not start
// valid UTF-8 is a UTF-8 error. Anything else is a syntax error.
func (d *decoder) unexpected() error {
	if d.pos >= len(d.data) {
		return errSyntax
	}
	c := d.data[d.pos]
	switch {
	case c == '"':
		if _, err := d.str(); err != nil {
			return err
		}
	case c < 0x20:
		return errCtrlChar
	case c >= utf8.RuneSelf:
		if r, size := utf8.DecodeRune(d.data[d.pos:]); r == utf8.RuneError && size == 1 {
			return errUTF8
		}
	}
	return errSyntax
}

func (d *decoder) value() (any, error) {
	if d.pos >= len(d.data) {
		return nil, errSyntax
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.unexpected()
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return errSyntax
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) object() (any, error) {
	m := make(map[string]any)
	closed, err := d.enter('}', ']')
	if err != nil {
		return nil, err
	}
	if closed {
		return m, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.unexpected()
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.unexpected()
		}
		d.pos++
		d.skipSpace()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
		closed, err := d.next('}', ']')
		if err != nil {
			return nil, err
		}
		if closed {
			return m, nil
		}
	}
}

func (d *decoder) array() (any, error) {
	// A non-nil empty slice, so that [] and a missing value stay distinguishable.
	a := []any{}
	closed, err := d.enter(']', '}')
	if err != nil {
		return nil, err
	}
	if closed {
		return a, nil
	}
	for {
		d.skipSpace()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		closed, err := d.next(']', '}')
		if err != nil {
			return nil, err
		}
		if closed {
			return a, nil
		}
	}
}

// enter opens the container whose opening byte is at pos and reports whether it is empty, closed at
// once by end.
func (d *decoder) enter(end, other byte) (closed bool, err error) {
	if d.depth >= MaxDepth {
		return false, errDepth
	}
	d.depth++
	d.pos++
	d.skipSpace()
	return d.closing(end, other)
}

// next moves past what follows a container's element, a comma or the container's end, and reports
// whether it was the end.
func (d *decoder) next(end, other byte) (closed bool, err error) {
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ',' {
		d.pos++
		return false, nil
	}
	if closed, err = d.closing(end, other); !closed && err == nil {
		err = d.unexpected()
	}
	return closed, err
}

// closing consumes end if it is at pos; the other container's closer there is a state mismatch, not
// a plain syntax error.
func (d *decoder) closing(end, other byte) (bool, error) {
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case end:
			d.pos++
			d.depth--
			return true, nil
		case other:
			return false, errStateMismatch
		}
	}
	return false, nil
}

// number scans the longest prefix matching the JSON number grammar, as a
// lexer would; whatever follows is the caller's next token, so "01" and "1."
// fail there with a syntax error.
func (d *decoder) number() (any, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.pos < len(d.data) && '1' <= d.data[d.pos] && d.data[d.pos] <= '9':
		d.skipDigits()
	default:
		d.pos = start
		return nil, errSyntax
	}
	if d.pos+1 < len(d.data) && d.data[d.pos] == '.' && isDigit(d.data[d.pos+1]) {
		d.pos++
		d.skipDigits()
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		p := d.pos + 1
		if p < len(d.data) && (d.data[p] == '+' || d.data[p] == '-') {
			p++
		}
		if p < len(d.data) && isDigit(d.data[p]) {
			d.pos = p
			d.skipDigits()
		}
	}
	return json.Number(d.data[start:d.pos]), nil
}

func (d *decoder) skipDigits() {
	for d.pos < len(d.data) && isDigit(d.data[d.pos]) {
		d.pos++
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (d *decoder) str() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	// Most strings in an event body hold no escapes and no non-ASCII bytes:
	// take them in one slice, without a scratch buffer.
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		d.pos++
	}
	buf := make([]byte, d.pos-start, d.pos-start+16)
	copy(buf, d.data[start:d.pos])
	for {
		if d.pos >= len(d.data) {
			// PHP's scanner sees its end-of-input NUL inside the string
			// and reports a control character, not a syntax error.
			return "", errCtrlChar
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c == '\\':
			var err error
			if buf, err = d.escape(buf); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", errCtrlChar
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", errUTF8
			}
			buf = append(buf, d.data[d.pos:d.pos+size]...)
			d.pos += size
		}
	}
}

// escape decodes the escape sequence at d.pos (a backslash) onto buf.
func (d *decoder) escape(buf []byte) ([]byte, error) {
	if d.pos+1 >= len(d.data) {
		return nil, errSyntax
	}
	c := d.data[d.pos+1]
	d.pos += 2
	switch c {
	case '"', '\\', '/':
		return append(buf, c), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'n':
		return append(buf, '\n'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'u':
	default:
		return nil, errSyntax
	}
	r, ok := d.hex4()
	if !ok {
		return nil, errSyntax
	}
	switch {
	case 0xDC00 <= r && r <= 0xDFFF:
		return nil, errUTF16
	case 0xD800 <= r && r <= 0xDBFF:
		// encoding/json would quietly turn an unpaired surrogate into
		// U+FFFD; PHP rejects it, and so does the reference.
		if d.pos+1 >= len(d.data) || d.data[d.pos] != '\\' || d.data[d.pos+1] != 'u' {
			return nil, errUTF16
		}
		d.pos += 2
		lo, ok := d.hex4()
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return nil, errUTF16
		}
		r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
	}
	return utf8.AppendRune(buf, r), nil
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}
