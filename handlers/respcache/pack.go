package respcache

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"
)

// scratch recycles the room the encoder wants for the worst case, more than the body itself, which
// Pack copies the packed body out of.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// scratchMax is the largest room kept for reuse: the pool must not pin a freak giant.
const scratchMax = 4 << 20

// Pack returns body s2-compressed, with dictionary d unless nil, in a slice of its own and of its
// length: the cache must not keep the encoder's room for the worst case.
func Pack(d *s2.Dict, body []byte) []byte {
	room := scratch.Get().(*[]byte)
	defer func() {
		if cap(*room) <= scratchMax {
			scratch.Put(room)
		}
	}()
	n := s2.MaxEncodedLen(len(body))
	if cap(*room) < n {
		*room = make([]byte, n)
	}
	if d != nil {
		return bytes.Clone(d.Encode((*room)[:n], body))
	}
	return bytes.Clone(s2.Encode((*room)[:n], body))
}

// PackedLen is the length of the body that packed holds.
func PackedLen(packed []byte) int {
	n, _ := s2.DecodedLen(packed) // packed by Pack: a valid header
	return n
}

// Unpack returns the body that packed holds, packed with dictionary d (none when nil),
// decompressed into buf's free space.
func Unpack(buf *bytes.Buffer, packed []byte, d *s2.Dict) ([]byte, error) {
	n := PackedLen(packed)
	buf.Grow(n)
	dst := buf.AvailableBuffer()[:n]
	var body []byte
	var err error
	if d != nil {
		body, err = d.Decode(dst, packed)
	} else {
		body, err = s2.Decode(dst, packed)
	}
	if err != nil {
		return nil, fmt.Errorf("handlers: unpack a cached answer: %w", err)
	}
	return body, nil
}

// Dicts holds the dictionaries bodies of a kind are packed with, made from the first body of the
// kind packed. A body alone has little to repeat; with a dictionary made from another of its kind (a
// list item of the same type and language: the field names, the URLs, the shapes of dates, venues
// and terms recur) it packs to half its size packed alone, and the item cache holds that many more
// (docs/BENCHMARKS.md, section "Compression and caching"). Any body of the kind serves: a dictionary
// lives as long as the Dicts, like the bodies packed with it, and there are a few kinds. The zero
// Dicts is ready to use.
type Dicts struct {
	m sync.Map // kind → *s2.Dict
}

// Pack packs body, one of kind, with the kind's dictionary (Pack), and returns the dictionary to
// unpack it with: nil when body is shorter than a dictionary can be.
func (ds *Dicts) Pack(kind string, body []byte) ([]byte, *s2.Dict) {
	d, ok := ds.m.Load(kind)
	if !ok {
		made := s2.MakeDict(bytes.Clone(body), nil)
		if made == nil {
			return Pack(nil, body), nil // shorter than a dictionary can be
		}
		d, _ = ds.m.LoadOrStore(kind, made)
	}
	dict := d.(*s2.Dict)
	return Pack(dict, body), dict
}
