package input

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
)

// ErrMultipart is wrapped by the error Multipart returns for a body that is
// not well-formed multipart/form-data.
var ErrMultipart = errors.New("input: malformed multipart body")

// Form decodes application/x-www-form-urlencoded data or a query string with
// PHP's rules, as WordPress sees them (docs/API.md "Parameters and bodies"):
//
//   - pairs are separated by "&" only; empty pairs are skipped; a pair without
//     "=" has the value "";
//   - names and values are percent-decoded, "+" is a space, and an invalid
//     escape such as "%zz" is kept literally;
//   - "a[]=1&a[]=2" gives []any{"1", "2"}; "a[k]=x" gives map{"k": "x"};
//     brackets nest ("a[b][]=1");
//   - a container whose keys are all integers >= 0 becomes an []any of its
//     values in insertion order, like WordPress's wp_is_numeric_array check
//     followed by array_values; "a[1]=y&a[0]=x" gives []any{"y", "x"}. Keys
//     are integers only in PHP's canonical form, so "a[01]=x" gives a map;
//   - a name given again replaces the earlier value, whatever its shape:
//     "a=1&a=2" gives "2", "a[]=1&a=2" gives "2", "a=1&a[]=2" gives []any{"2"}.
//
// The package documentation lists PHP's name mangling, which Form applies too.
// Form never fails: every input gives some map, possibly empty.
func Form(raw string) map[string]any {
	var f form
	for len(raw) > 0 {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		f.add(phpURLDecode(name), phpURLDecode(value))
	}
	return f.result()
}

// Multipart decodes a multipart/form-data body with the name rules of Form.
// Parts with a filename parameter (even an empty one) are file uploads, which
// PHP keeps out of the parameters, and are skipped; so are parts without a
// name. Part bodies are taken as they are: Content-Transfer-Encoding and
// charsets are not applied, as in PHP. An empty body gives an empty map.
//
// maxBytes bounds the whole read. Returns an error wrapping
// *http.MaxBytesError if the body is longer, and an error wrapping
// ErrMultipart if it is malformed (no closing boundary, a bad part header).
func Multipart(r io.Reader, boundary string, maxBytes int64) (map[string]any, error) {
	if boundary == "" {
		return nil, fmt.Errorf("%w: no boundary", ErrMultipart)
	}
	maxBytes = max(maxBytes, 0)
	br := bufio.NewReader(&limitReader{r: r, left: maxBytes, limit: maxBytes})
	if _, err := br.Peek(1); err != nil {
		if err == io.EOF {
			return map[string]any{}, nil
		}
		return nil, multipartError(err)
	}
	mr := multipart.NewReader(br, boundary)
	var f form
	for {
		// NextRawPart, because NextPart would decode quoted-printable
		// parts, which PHP does not.
		p, err := mr.NextRawPart()
		if err == io.EOF {
			return f.result(), nil
		}
		if err != nil {
			return nil, multipartError(err)
		}
		name, ok := partName(p.Header.Get("Content-Disposition"))
		if !ok {
			continue
		}
		value, err := io.ReadAll(p)
		if err != nil {
			return nil, multipartError(err)
		}
		f.add(name, string(value))
	}
}

func multipartError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return fmt.Errorf("input: multipart: %w", err)
	}
	return fmt.Errorf("%w: %v", ErrMultipart, err)
}

// limitReader fails with *http.MaxBytesError, like http.MaxBytesReader, so
// that the handler maps one error type to 413 whichever reader hit the limit.
type limitReader struct {
	r     io.Reader
	left  int64
	limit int64
	err   error
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Read one byte more than allowed to tell "exactly at the limit"
	// from "over it".
	if int64(len(p))-1 > l.left {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) <= l.left {
		l.left -= int64(n)
		l.err = err
		return n, err
	}
	n = int(l.left)
	l.left = 0
	l.err = &http.MaxBytesError{Limit: l.limit}
	return n, l.err
}

// partName returns the name parameter of a part's Content-Disposition
// header, and false for a file part or a part without a name. It parses
// like PHP's rfc1867 code rather than mime.ParseMediaType, which rejects
// names such as form-data; name=a[] that browsers and PHP accept.
func partName(disposition string) (string, bool) {
	var name string
	var hasName, hasFile bool
	rest := strings.TrimLeft(disposition, phpSpace)
	for rest != "" {
		var pair string
		pair, rest = phpGetWord(rest, ';')
		rest = strings.TrimLeft(rest, phpSpace)
		if !strings.Contains(pair, "=") {
			continue
		}
		key, value := phpGetWord(pair, '=')
		switch {
		case asciiEqualFold(key, "name"):
			name, hasName = phpGetWordConf(value), true
		case asciiEqualFold(key, "filename"), asciiEqualFold(key, "filename*"):
			hasFile = true
		}
	}
	if !hasName || hasFile {
		return "", false
	}
	return name, true
}

// phpSpace is C's isspace set.
const phpSpace = " \t\n\v\f\r"

// phpGetWord is PHP's php_ap_getword: the text up to the first stop byte
// outside quotes, and the rest after any run of stop bytes.
func phpGetWord(s string, stop byte) (word, rest string) {
	i := 0
	for i < len(s) && s[i] != stop {
		if q := s[i]; q == '"' || q == '\'' {
			i++
			for i < len(s) && s[i] != q {
				if s[i] == '\\' && i+1 < len(s) && s[i+1] == q {
					i += 2
				} else {
					i++
				}
			}
			if i < len(s) {
				i++
			}
		} else {
			i++
		}
	}
	word, rest = s[:i], s[i:]
	for rest != "" && rest[0] == stop {
		rest = rest[1:]
	}
	return word, rest
}

// phpGetWordConf is PHP's php_ap_getword_conf: a quoted value with \" and
// \\ unescaped, or an unquoted value up to the first space.
func phpGetWordConf(s string) string {
	s = strings.TrimLeft(s, phpSpace)
	var quote byte
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		quote = s[0]
		s = s[1:]
	} else if i := strings.IndexAny(s, phpSpace); i >= 0 {
		s = s[:i]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 && c == quote {
			break
		}
		if c == '\\' && i+1 < len(s) && (s[i+1] == '\\' || (quote != 0 && s[i+1] == quote)) {
			i++
			c = s[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}

// phpURLDecode is PHP's urldecode: "+" is a space and an escape that is not
// "%" followed by two hex digits stays as it is.
func phpURLDecode(s string) string {
	if !strings.ContainsAny(s, "+%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// form accumulates request variables the way PHP's php_register_variable_ex
// builds $_GET and $_POST.
type form struct {
	top map[string]any // string or *phpArray
}

// phpArray is an ordered PHP array. Integer keys are kept in their decimal
// form, which PHP's canonical-integer rule makes unique; next is where "[]"
// appends.
//
// While its keys are exactly 0, 1, 2… in that order, the shape "a[]=…" builds,
// the values stay in list and keys and vals are nil: a body of 1 MiB can hold
// 170 000 items, and a key string and a map entry for each made decoding it
// cost half a second. The first other key moves the array to keys and vals.
type phpArray struct {
	list    []any
	keys    []string
	intKeys int // how many keys are integers >= 0
	vals    map[string]any
	next    int64
	hasNext bool // false while PHP's nNextFreeElement is unset, so "[]" appends at 0
}

// dense reports whether the array still keeps its values in list.
func (a *phpArray) dense() bool { return a.vals == nil }

// get returns the value stored under key.
func (a *phpArray) get(key string) any {
	if a.dense() {
		if n, ok := phpIntKey(key); ok && n >= 0 && n < int64(len(a.list)) {
			return a.list[n]
		}
		return nil
	}
	return a.vals[key]
}

// spread moves a dense array's values to keys and vals.
func (a *phpArray) spread() {
	a.vals = make(map[string]any, len(a.list)+1)
	a.keys = make([]string, len(a.list))
	for i, v := range a.list {
		a.keys[i] = strconv.Itoa(i)
		a.vals[a.keys[i]] = v
	}
	a.intKeys = len(a.list)
	a.list = nil
}

func (f *form) add(name, value string) {
	if f.top == nil {
		f.top = make(map[string]any)
	}
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	name = strings.TrimLeft(name, " ")
	open := strings.IndexByte(name, '[')
	if open < 0 {
		if top := mangle(name, " ."); top != "" {
			f.top[top] = value
		}
		return
	}
	top := mangle(name[:open], " .")
	if top == "" {
		return
	}

	var cur *phpArray // nil: the top level
	key, appendKey := top, false
	p := open // at a '['
	for level := 1; ; level++ {
		if level > MaxDepth {
			delete(f.top, top)
			return
		}
		p++
		sub, subAppend := "", false
		// PHP skips one blank before testing for "]", so "a[ ]" appends
		// like "a[]", while "a[ x]" keeps the blank in the key " x".
		q := p
		if q < len(name) && strings.IndexByte(phpSpace, name[q]) >= 0 {
			q++
		}
		if q < len(name) && name[q] == ']' {
			subAppend = true
			p = q
		} else {
			end := strings.IndexByte(name[p:], ']')
			if end < 0 {
				if level == 1 {
					// Not a bracket after all: PHP restores the '['
					// as '_' and mangles the rest of the name.
					key = top + "_" + mangle(name[p:], " .[")
				}
				break
			}
			sub = name[p : p+end]
			p += end
		}
		if cur = f.descend(cur, key, appendKey); cur == nil {
			return
		}
		key, appendKey = sub, subAppend
		p++ // past ']'
		if p >= len(name) || name[p] != '[' {
			break
		}
	}
	switch {
	case cur == nil:
		f.top[key] = value
	case appendKey:
		cur.append(value)
	default:
		cur.set(key, value)
	}
}

// descend returns the array stored under key in cur (nil: the top level),
// replacing any non-array value there with a new array, or appends a new
// array when appendKey is set. It returns nil when PHP would fail to append.
func (f *form) descend(cur *phpArray, key string, appendKey bool) *phpArray {
	if cur == nil {
		a, ok := f.top[key].(*phpArray)
		if !ok {
			a = &phpArray{}
			f.top[key] = a
		}
		return a
	}
	if appendKey {
		a := &phpArray{}
		if !cur.append(a) {
			return nil
		}
		return a
	}
	a, ok := cur.get(key).(*phpArray)
	if !ok {
		a = &phpArray{}
		cur.set(key, a)
	}
	return a
}

// set stores v under key, keeping the key's position if it is already there.
func (a *phpArray) set(key string, v any) {
	if a.dense() {
		n, ok := phpIntKey(key)
		switch {
		case ok && n >= 0 && n < int64(len(a.list)):
			a.list[n] = v
			return
		case ok && n == int64(len(a.list)):
			a.list = append(a.list, v)
			a.noteInt(n)
			return
		}
		a.spread()
	}
	if _, ok := a.vals[key]; !ok {
		a.keys = append(a.keys, key)
		if n, ok := phpIntKey(key); ok {
			if n >= 0 {
				a.intKeys++
			}
			a.noteInt(n)
		}
	}
	a.vals[key] = v
}

// append stores v under the next free integer key. As in PHP it fails once
// that key would pass math.MaxInt64.
func (a *phpArray) append(v any) bool {
	n := int64(0)
	if a.hasNext {
		n = a.next
	}
	if a.dense() && n == int64(len(a.list)) {
		a.list = append(a.list, v)
		a.noteInt(n)
		return true
	}
	key := strconv.FormatInt(n, 10)
	if a.get(key) != nil {
		return false
	}
	a.set(key, v)
	return true
}

// noteInt advances the next free key past n, saturating at math.MaxInt64 as
// PHP's nNextFreeElement does.
func (a *phpArray) noteInt(n int64) {
	if !a.hasNext || n >= a.next {
		a.hasNext = true
		if n < 1<<63-1 {
			a.next = n + 1
		} else {
			a.next = n
		}
	}
}

// phpIntKey reports whether PHP would store key as an integer key: the
// canonical decimal form of an int64, so "1" and "-1" but not "01", "-0" or
// "+1".
func phpIntKey(key string) (int64, bool) {
	digits := strings.TrimPrefix(key, "-")
	if digits == "" || len(digits) > 19 || (digits[0] == '0' && key != "0") {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(key, 10, 64)
	return n, err == nil
}

func (f *form) result() map[string]any {
	out := make(map[string]any, len(f.top))
	for k, v := range f.top {
		out[k] = export(v)
	}
	return out
}

func export(v any) any {
	a, ok := v.(*phpArray)
	if !ok {
		return v
	}
	if a.dense() {
		list := make([]any, len(a.list))
		for i, item := range a.list {
			list[i] = export(item)
		}
		return list
	}
	if a.intKeys == len(a.keys) {
		list := make([]any, len(a.keys))
		for i, k := range a.keys {
			list[i] = export(a.vals[k])
		}
		return list
	}
	m := make(map[string]any, len(a.keys))
	for _, k := range a.keys {
		m[k] = export(a.vals[k])
	}
	return m
}

// mangle replaces every byte of s found in chars with '_'.
func mangle(s, chars string) string {
	if !strings.ContainsAny(s, chars) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if strings.IndexByte(chars, c) >= 0 {
			b[i] = '_'
		}
	}
	return string(b)
}
