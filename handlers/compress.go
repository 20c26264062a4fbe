package handlers

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// Compression of answers (additive HTTP, RFC 9110 8.4 and 12.5.3). A successful answer of
// at least compressMin bytes is sent gzip-encoded to a client whose Accept-Encoding allows it, and
// says Vary: Accept-Encoding whoever asks, since its bytes depend on that header. Errors and smaller
// answers are sent as they are: a few hundred bytes gain nothing that pays for the CPU. Only the
// answers written through sendAs are compressed (the API's JSON, /doc, the iCalendar feed); the
// explorer's assets keep http.ServeContent and its Range support, and /metrics has promhttp's own.
//
// A compressed answer's ETag is the SHA-256 of the compressed bytes, as docs/API.md "Responses" defines it for
// the body sent: RFC 9110 8.8.3 forbids one strong validator for two representations, and a tag
// computed the same way for both keeps If-None-Match one comparison (neither nginx's weak W/ tag, which
// the contract's strong tag rules out, nor gzhttp's SuffixETag, whose suffix would have to be decoded
// again). The compressor is deterministic, so the same body keeps the same tag; only an upgrade of it
// may change the tag, which costs each client one 200.
//
// Only gzip is offered: every client that sends Accept-Encoding takes it, and each coding more would
// be one more body the list cache keeps per answer (zstd and br save a few per cent more, on pages
// that gzip already brings down to a tenth).

// compressMin is the smallest body that is compressed.
const compressMin = 1024

// gzipLevel trades ratio for speed: answers outside the list cache (single records, /doc, cache
// misses) are compressed as they are sent. Level 5 of klauspost/compress comes near level 9's ratio
// in a quarter of its time (docs/BENCHMARKS.md, section "Compression and caching").
const gzipLevel = 5

// codingGzip is the one content coding offered.
const codingGzip = "gzip"

var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzipLevel) // a valid level: cannot fail
	return zw
}}

// gzipInto appends body, gzip-compressed, to dst.
func gzipInto(dst *bytes.Buffer, body []byte) {
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(dst)
	zw.Write(body) // writes to a bytes.Buffer: cannot fail
	zw.Close()
	zw.Reset(nil) // drop dst, which the pool must not keep alive
	gzipWriters.Put(zw)
}

// gzipped returns body gzip-compressed, in a slice of its own.
func gzipped(body []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(body)/4 + 64)
	gzipInto(&buf, body)
	return buf.Bytes()
}

// gunzipped returns gz decompressed.
func gunzipped(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// compressible reports whether an answer of this status and body length is one that compression
// applies to, and so varies with Accept-Encoding.
func compressible(status, length int) bool {
	return status == http.StatusOK && length >= compressMin
}

// acceptsGzip reports whether the request's Accept-Encoding allows a gzip-encoded answer (RFC 9110
// 12.5.3): gzip (or its alias x-gzip) with a non-zero weight, or `*` with one when gzip is not named;
// and no heavier weight on identity, which the client would then rather have.
func acceptsGzip(r *http.Request) bool {
	lines := r.Header.Values("Accept-Encoding")
	if len(lines) == 0 {
		return false
	}
	gz, star, identity := -1.0, -1.0, -1.0
	for _, line := range lines {
		for elem := range strings.SplitSeq(line, ",") {
			name, params, _ := strings.Cut(elem, ";")
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
					if err != nil || f < 0 || f > 1 {
						f = 0 // a weight we cannot read does not opt in
					}
					q = f
				}
			}
			switch name = strings.ToLower(strings.TrimSpace(name)); name {
			case "gzip", "x-gzip":
				gz = max(gz, q)
			case "*":
				star = q
			case "identity":
				identity = q
			}
		}
	}
	if gz < 0 {
		gz = star
	}
	return gz > 0 && gz >= identity
}

// encodedHeaders turns the headers of a plain answer into those of its gzip-encoded body gz. An ETag
// becomes gz's own: docs/API.md "Responses"'s tag is the SHA-256 of the body sent, and RFC 9110 8.8.3 forbids
// one strong validator for two representations.
func encodedHeaders(hd http.Header, gz []byte) {
	hd.Set("Content-Encoding", codingGzip)
	if hd.Get("ETag") != "" {
		hd.Set("ETag", etagOf(gz))
	}
}

// varyCoding says that the answer depends on Accept-Encoding, once.
func varyCoding(hd http.Header) { addVary(hd, "Accept-Encoding") }

// addVary says that the answer depends on the header named, once.
func addVary(hd http.Header, name string) {
	for _, v := range hd.Values("Vary") {
		if strings.EqualFold(v, name) {
			return
		}
	}
	hd.Add("Vary", name)
}

// encodes decides the coding of an answer of this status and body length to rq: it adds Vary when the
// answer is compressible, and reports whether it goes out gzip-encoded.
func (h *Handler) encodes(hd http.Header, rq *request, status, length int) bool {
	if !compressible(status, length) {
		return false
	}
	varyCoding(hd)
	return !rq.plain && acceptsGzip(rq.r)
}
