package handlers

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calendard/calendard/handlers/respcache"
)

// obj is a JSON object whose keys keep the order the contract's tables give them (docs/API.md "Responses"), and
// which _fields can cut down without re-decoding anything.
type obj []member

type member struct {
	key string
	val any
}

// set replaces key's value, or appends the member.
func (o obj) set(key string, val any) obj {
	for i := range o {
		if o[i].key == key {
			o[i].val = val
			return o
		}
	}
	return append(o, member{key, val})
}

func (o obj) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// MarshalJSON writes the members in order. HTML characters are not escaped: bodies are JSON, not HTML.
func (o obj) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := o.encode(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (o obj) encode(buf *bytes.Buffer) error {
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := encodeValue(buf, m.key); err != nil {
			return err
		}
		buf.WriteByte(':')
		if err := encodeValue(buf, m.val); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// encodeArray writes items as a JSON array, each with encode.
func encodeArray[T any](buf *bytes.Buffer, items []T, encode func(T, *bytes.Buffer) error) error {
	buf.WriteByte('[')
	for i, item := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := encode(item, buf); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

func encodeValue(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case obj:
		return v.encode(buf)
	case []obj:
		return encodeArray(buf, v, obj.encode)
	case rawJSON:
		buf.Write(v)
		return nil
	case pickedJSON:
		return v.encode(buf)
	case withMembers:
		return v.encode(buf)
	case packedJSON:
		body, err := respcache.Unpack(buf, v.packed, v.dict)
		if err != nil {
			return err
		}
		buf.Write(body) // body is buf's free space: this only counts it in
		return nil
	case []any:
		return encodeArray(buf, v, func(item any, b *bytes.Buffer) error { return encodeValue(b, item) })
	case string:
		writeString(buf, v)
		return nil
	case []string:
		return encodeArray(buf, v, func(s string, b *bytes.Buffer) error { writeString(b, s); return nil })
	case bool:
		buf.WriteString(strconv.FormatBool(v))
		return nil
	case int:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), int64(v), 10))
		return nil
	case int64:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), v, 10))
		return nil
	case uint64:
		buf.Write(strconv.AppendUint(buf.AvailableBuffer(), v, 10))
		return nil
	case nil:
		buf.WriteString("null")
		return nil
	}
	// Rare shapes (floats, []any): encoding/json, without HTML escaping.
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}

const hexDigits = "0123456789abcdef"

// writeString writes s as a JSON string: quotes, backslashes and control characters escaped, invalid
// UTF-8 replaced by U+FFFD, and U+2028/U+2029 escaped (as encoding/json does, for JavaScript). HTML
// characters are left alone: the body is JSON, not HTML.
func writeString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			default:
				buf.WriteString(`\u00`)
				buf.WriteByte(hexDigits[c>>4])
				buf.WriteByte(hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString(s[start:i])
			buf.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf.WriteString(s[start:i])
			buf.WriteString(`\u202`)
			buf.WriteByte(hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// fields is a parsed _fields selection (docs/API.md "Parameters and bodies"): top-level names, and for dotted names the
// selection inside that member. The key "" marks a member selected as a whole.
type fields map[string]fields

func parseFields(list []string) fields {
	if len(list) == 0 {
		return nil
	}
	f := fields{}
	for _, name := range list {
		cur := f
		for _, part := range strings.Split(strings.TrimSpace(name), ".") {
			next := cur[part]
			if next == nil { // new, or the marker of an earlier empty name: `_fields[]=&_fields[]=.`
				next = fields{}
				cur[part] = next
			}
			cur = next
		}
		cur[""] = nil
	}
	return f
}

// pick keeps the selected members in their normal order; a member selected as a whole keeps all of
// its content.
func (o obj) pick(f fields) obj {
	if len(f) == 0 {
		return o
	}
	out := make(obj, 0, len(f))
	for _, m := range o {
		sub, ok := f[m.key]
		if !ok {
			continue
		}
		if _, whole := sub[""]; !whole {
			if inner, isObj := m.val.(obj); isObj {
				m.val = inner.pick(sub)
			}
		}
		out = append(out, m)
	}
	return out
}
