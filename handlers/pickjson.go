package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
)

// pickedJSON is an encoded list item (rawJSON or packedJSON) cut down to a _fields selection when it
// is written: a list asked with _fields reuses the items the full answer keeps (renderItems) rather
// than rendering each again for its own shape.
type pickedJSON struct {
	item any
	f    fields
}

func (p pickedJSON) encode(buf *bytes.Buffer) error {
	whole := getBuffer()
	defer putBuffer(whole)
	if err := encodeValue(whole, p.item); err != nil {
		return err
	}
	return pickJSON(buf, whole.Bytes(), p.f)
}

var errNotObject = errors.New("pick: not a JSON object")

// pickJSON writes to buf the JSON object src with only the members f selects, in their order, as
// obj.pick keeps them of an object not yet encoded: a member selected as a whole is copied as it is,
// and one selected in part is cut down in turn when it is an object and copied whole when it is not.
// Once every member f selects is written, the rest of src is not read (nor checked): an item's
// venue, organizers and terms come last and are most of its bytes. So an object naming a member
// twice, which the service never writes, gives its first.
func pickJSON(buf *bytes.Buffer, src []byte, f fields) error {
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '{' {
		return errNotObject
	}
	buf.WriteByte('{')
	first, written := true, 0
	for i = skipSpace(src, i+1); i < len(src) && src[i] != '}'; {
		keyEnd, err := skipString(src, i)
		if err != nil {
			return err
		}
		sub, selected, err := selection(f, src[i:keyEnd])
		if err != nil {
			return err
		}
		valStart := skipSpace(src, keyEnd)
		if valStart >= len(src) || src[valStart] != ':' {
			return errNotObject
		}
		valStart = skipSpace(src, valStart+1)
		valEnd, err := skipValue(src, valStart)
		if err != nil {
			return err
		}
		if selected {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			buf.Write(src[i:keyEnd])
			buf.WriteByte(':')
			val := src[valStart:valEnd]
			if _, whole := sub[""]; whole || val[0] != '{' {
				buf.Write(val)
			} else if err := pickJSON(buf, val, sub); err != nil {
				return err
			}
			if written++; written == len(f) {
				buf.WriteByte('}')
				return nil
			}
		}
		i = skipSpace(src, valEnd)
		if i < len(src) && src[i] == ',' {
			i = skipSpace(src, i+1)
		}
	}
	if i >= len(src) {
		return errNotObject
	}
	buf.WriteByte('}')
	return nil
}

// selection looks up in f the member named by the JSON string quoted, which keys almost never
// escape (the lookup of string(bytes) allocates nothing).
func selection(f fields, quoted []byte) (sub fields, selected bool, err error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		sub, selected = f[string(quoted[1:len(quoted)-1])]
		return sub, selected, nil
	}
	var key string
	if err := json.Unmarshal(quoted, &key); err != nil {
		return nil, false, err
	}
	sub, selected = f[key]
	return sub, selected, nil
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\n' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index past the JSON string that starts at src[i]. It jumps from quote to
// quote (bytes.IndexByte, which scans many bytes a step), and a quote is the string's end unless an
// odd run of backslashes escapes it: texts are most of an item's bytes, and reading them a byte at a
// time made a _fields page cost more than the whole one.
func skipString(src []byte, i int) (int, error) {
	if i >= len(src) || src[i] != '"' {
		return 0, errNotObject
	}
	for i++; ; i++ {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			return 0, errNotObject
		}
		i += q
		escapes := 0
		for j := i - 1; src[j] == '\\'; j-- {
			escapes++
		}
		if escapes%2 == 0 {
			return i + 1, nil
		}
	}
}

// skipValue returns the index past the JSON value that starts at src[i]: a string, an object or array
// (counting brackets outside strings), or a literal or number (up to the next delimiter).
func skipValue(src []byte, i int) (int, error) {
	if i >= len(src) {
		return 0, errNotObject
	}
	switch src[i] {
	case '"':
		return skipString(src, i)
	case '{', '[':
		depth := 0
		for ; i < len(src); i++ {
			switch src[i] {
			case '"':
				end, err := skipString(src, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errNotObject
	}
	start := i
	for i < len(src) && src[i] != ',' && src[i] != '}' && src[i] != ']' && src[i] != ' ' && src[i] != '\n' {
		i++
	}
	if i == start {
		return 0, errNotObject // no value: `{"a":}`
	}
	return i, nil
}
