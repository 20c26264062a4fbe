package handlers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"go.uber.org/zap"
)

const authenticatedCacheControl = "no-cache, must-revalidate, max-age=0, no-store, private"

// nosniff is X-Content-Type-Options's value, shared by every answer (never written into): one slice
// less to make per request.
var nosniff = []string{"nosniff"}

// commonHeaders sets the headers of docs/API.md "Responses" that every response carries, and nosniff: no answer
// is to be read by a browser as another type than it says (a JSON body quoting markup as HTML).
func (h *Handler) commonHeaders(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd["X-Content-Type-Options"] = nosniff
	if origin := r.Header.Get("Origin"); origin != "" {
		hd.Set("Access-Control-Allow-Origin", origin)
		hd.Set("Access-Control-Allow-Methods", "OPTIONS, GET, POST, PUT, PATCH, DELETE")
		if h.trusted.has(origin) {
			// Only a trusted origin may read answers to requests carrying the browser's cached
			// credentials (docs/API.md "Responses"): anywhere else, a page could read them in the user's name.
			hd.Set("Access-Control-Allow-Credentials", "true")
		}
		hd.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match, X-HTTP-Method-Override, X-Calendar-Min-Revision")
		hd.Set("Access-Control-Expose-Headers", "X-TEC-Total, X-TEC-TotalPages, X-Calendar-Search, X-Calendar-Revision, Link, ETag, Retry-After, Location")
		hd.Add("Vary", "Origin")
	}
}

// buffers recycles encode buffers: a list page is hundreds of kilobytes, and growing a fresh buffer to
// that size for every request costs more than encoding into it.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 4<<20 { // keep the pool from pinning a freak giant
		b.Reset()
		buffers.Put(b)
	}
}

// writeJSON writes a successful response body.
func (h *Handler) writeJSON(w http.ResponseWriter, rq *request, status int, v any) {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeValue(buf, v); err != nil {
		h.log.Error("encode response", zap.String("request_id", rq.id), zap.Error(err))
		h.writeError(w, rq, errInternal)
		return
	}
	h.send(w, rq, status, buf.Bytes())
}

// writeSingle writes a single record or term with its ETag, answering 304 when the client has it
// (docs/API.md "Responses"). The ETag is that of the representation sent: the gzip-encoded body's for a client
// that accepts it (compress.go).
func (h *Handler) writeSingle(w http.ResponseWriter, rq *request, v obj) {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := v.pick(rq.fields).encode(buf); err != nil {
		h.writeError(w, rq, err)
		return
	}
	body, hd := buf.Bytes(), w.Header()
	hd.Add("Vary", "Authorization")
	encoded := h.encodes(hd, rq, http.StatusOK, len(body))
	if encoded {
		gz := getBuffer()
		defer putBuffer(gz)
		gzipInto(gz, body)
		body = gz.Bytes()
	}
	etag := etagOf(body)
	hd.Set("ETag", etag)
	if matchesETag(rq.r.Header.Values("If-None-Match"), etag) {
		h.finishHeaders(w, rq)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if encoded {
		hd.Set("Content-Encoding", codingGzip)
	}
	h.write(w, rq, http.StatusOK, jsonMedia, body)
}

// etagOf is the strong ETag of a body: its SHA-256, which changes exactly when the body does.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// matchesETag reports whether If-None-Match lists etag, in any of its lines (RFC 9110 5.3: repeated
// header lines are one comma-separated list).
func matchesETag(lines []string, etag string) bool {
	for _, line := range lines {
		for _, t := range strings.Split(line, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == "*" || t == etag {
				return true
			}
		}
	}
	return false
}

// conditional answers 304 Not Modified in place of a 200 whose validators (ETag, Last-Modified) show
// that the client holds its body already (RFC 9110 13.1). The answer is judged as it is written, so
// one computed and one the list cache replays are judged alike.
func conditional(fn handleFunc) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		return fn(&conditionalWriter{ResponseWriter: w, r: rq.r}, rq)
	}
}

type conditionalWriter struct {
	http.ResponseWriter
	r *http.Request
	// unchanged: the answer became a 304, whose body is dropped.
	unchanged bool
}

func (c *conditionalWriter) WriteHeader(status int) {
	if status == http.StatusOK && notModified(c.r, c.Header()) {
		status, c.unchanged = http.StatusNotModified, true
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *conditionalWriter) Write(b []byte) (int, error) {
	if c.unchanged {
		return len(b), nil
	}
	return c.ResponseWriter.Write(b)
}

// notModified evaluates the request's If-None-Match or, when it has none, its If-Modified-Since
// against the validators of an answer, as RFC 9110 13.2.2 orders them.
func notModified(r *http.Request, answer http.Header) bool {
	if lines := r.Header.Values("If-None-Match"); len(lines) > 0 {
		etag := answer.Get("ETag")
		return etag != "" && matchesETag(lines, etag)
	}
	since, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	if err != nil {
		return false
	}
	last, err := http.ParseTime(answer.Get("Last-Modified"))
	return err == nil && !last.After(since)
}

func (h *Handler) finishHeaders(w http.ResponseWriter, rq *request) {
	hd := w.Header()
	hd.Set("Link", "<"+rq.base()+`/>; rel="https://api.w.org/"`)
	// docs/API.md "Responses" sets no-cache on anonymous responses as 1.7 sets WordPress's value on authenticated
	// ones: on every response, lists and errors included.
	if rq.actor.Anonymous() {
		hd.Set("Cache-Control", "no-cache")
	} else {
		hd.Set("Cache-Control", authenticatedCacheControl)
	}
}

// jsonMedia is the media type of the API's answers.
const jsonMedia = "application/json; charset=UTF-8"

func (h *Handler) send(w http.ResponseWriter, rq *request, status int, body []byte) {
	h.sendAs(w, rq, status, jsonMedia, body)
}

// sendAs writes a body of any media type with the headers every answer carries, gzip-encoded when the
// answer is compressible and the client accepts it (compress.go). HEAD compresses the body too: its
// headers are GET's (docs/API.md "Parameters and bodies"), Content-Length and ETag included.
func (h *Handler) sendAs(w http.ResponseWriter, rq *request, status int, contentType string, body []byte) {
	if h.encodes(w.Header(), rq, status, len(body)) {
		buf := getBuffer()
		defer putBuffer(buf)
		gzipInto(buf, body)
		body = buf.Bytes()
		encodedHeaders(w.Header(), body)
	}
	h.write(w, rq, status, contentType, body)
}

// write writes body as it is, with the headers every answer carries.
func (h *Handler) write(w http.ResponseWriter, rq *request, status int, contentType string, body []byte) {
	h.finishHeaders(w, rq)
	w.Header().Set("Content-Type", contentType)
	// Set here, not left to net/http, so that HEAD answers with the same headers as GET (docs/API.md "Parameters and bodies")
	// and a large body is not chunked.
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if rq.r.Method != http.MethodHead && rq.method != http.MethodHead {
		w.Write(body)
	}
}

// writeError writes err in the contract's envelope (docs/API.md "Parameters and bodies", "Errors").
func (h *Handler) writeError(w http.ResponseWriter, rq *request, err error) {
	e := h.toEnvelope(rq, err)
	data := obj{{"status", e.status}}
	data = append(data, e.data...)
	body := obj{{"code", e.code}, {"message", e.message}, {"data", data}}
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="calendar-events", Bearer realm="calendar-events"`)
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(e.retryAfter, 10))
	}
	w.Header().Del("ETag")
	var buf bytes.Buffer
	_ = body.encode(&buf) // only strings and numbers: cannot fail
	h.send(w, rq, e.status, buf.Bytes())
}
