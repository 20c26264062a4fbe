package handlers

import (
	"bytes"
	"encoding/json"
	"strings"
)

// obj is a JSON object whose keys keep the order the contract's tables give them (CONTRACT 1.7), and
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

func encodeValue(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case obj:
		return v.encode(buf)
	case []obj:
		buf.WriteByte('[')
		for i, o := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := o.encode(buf); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}

// fields is a parsed _fields selection (CONTRACT 1.5): top-level names, and for dotted names the
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
			next, ok := cur[part]
			if !ok {
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
