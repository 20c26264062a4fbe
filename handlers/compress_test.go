package handlers

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers/respcache"
)

func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"x-gzip", true},
		{"deflate, gzip;q=1.0, *;q=0.5", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"gzip;q=0.001", true},
		{"gzip;q=nonsense", false},
		{"gzip;q=2", false},
		{"*", true},
		{"*;q=0", false},
		{"br, *;q=0.1", true},
		{"gzip;q=0, *", false}, // gzip named: * does not speak for it
		{"identity", false},
		{"br, zstd", false},
		{"gzip;q=0.5, identity;q=1", false}, // the client would rather have the plain body
		{"identity;q=0.5, gzip", true},
		{"deflate\ngzip", true}, // two header lines are one list
	} {
		t.Run(tc.header, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if tc.header != "" {
				r.Header["Accept-Encoding"] = strings.Split(tc.header, "\n")
			}
			if got := acceptsGzip(r); got != tc.want {
				t.Errorf("acceptsGzip(%q) = %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("corrupt gzip: %v", err)
	}
	return plain
}

// compressionRoutes are answers of every kind: lists (cached, with items cached), single records and
// terms (with ETags), the feed (cached, with validators), /doc, the indexes, errors, and answers
// under a kilobyte.
var compressionRoutes = []string{
	"/calendar/events/v1/events",
	"/calendar/events/v1/events?per_page=1",
	"/calendar/events/v1/events?search=concert",
	"/fr/calendar/events/v1/events",
	"/calendar/events/v1/events?_fields=id,title",
	"/calendar/events/v1/events/1",
	"/calendar/events/v1/events/by-slug/jazz-concert",
	"/calendar/events/v1/venues",
	"/calendar/events/v1/venues/2",
	"/calendar/events/v1/organizers",
	"/calendar/events/v1/categories",
	"/calendar/events/v1/categories/4",
	"/calendar/events/v1/tags",
	"/calendar/events/v1/changes",
	"/calendar/events/v1/events.ics",
	"/calendar/events/v1/doc",
	"/calendar/events/v1",
	"/",
	"/calendar/events/v1/events/999",
	"/calendar/events/v1/events?per_page=nonsense",
	"/calendar/events/v1/nowhere",
}

// compressionHandler serves a few events with a venue, an organizer and a category, each event's
// answer over a kilobyte.
func compressionHandler(t *testing.T) *Handler {
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	h, _ := newClockedHandler(t, Config{}, func() time.Time { return now })
	hh := h.(*Handler)
	writeSynced(t, hh, "POST", "/calendar/events/v1/events", `{"title":"Jazz concert","start_date":"2026-12-01 20:00",`+
		`"end_date":"2026-12-01 22:00","venue":{"venue":"Hall","city":"Paris"},"organizer":[{"organizer":"Org"}],"categories":"Music",`+
		`"description":"<p>An evening of jazz standards, with a quartet from Lyon.</p>"}`)
	for i := range 12 {
		writeSynced(t, hh, "POST", "/calendar/events/v1/events", `{"title":"Blues concert `+strconv.Itoa(i)+`",`+
			`"start_date":"2026-12-0`+strconv.Itoa(2+i%7)+` 20:00","end_date":"2026-12-0`+strconv.Itoa(2+i%7)+` 22:00","venue":2,"categories":4}`)
	}
	return hh
}

func ask(h http.Handler, method, target string, header map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	r.Host = "cal.example"
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func varies(h http.Header) bool {
	return slices.ContainsFunc(h.Values("Vary"), func(v string) bool { return v == "Accept-Encoding" })
}

// TestCompressedAnswersArePlainAnswers asks every kind of answer plain and gzip-encoded, computed and
// from the list cache, GET and HEAD: an encoded body must decompress to exactly the plain one, with the
// headers of its own representation, and only compressible answers may be encoded.
func TestCompressedAnswersArePlainAnswers(t *testing.T) {
	h := compressionHandler(t)
	gz := map[string]string{"Accept-Encoding": "gzip, deflate, br"}
	var compressed []string
	for _, target := range compressionRoutes {
		t.Run(target, func(t *testing.T) {
			plain := ask(h, "GET", target, nil)
			big := compressible(plain.Code, plain.Body.Len())
			if got := plain.Header().Get("Content-Encoding"); got != "" {
				t.Fatalf("no Accept-Encoding, yet Content-Encoding %q", got)
			}
			if varies(plain.Header()) != big {
				t.Errorf("plain %d answer of %d bytes: Vary %q", plain.Code, plain.Body.Len(), plain.Header().Values("Vary"))
			}
			// Twice: the list cache's first answer is recorded plain, its second replayed.
			for _, round := range []string{"first", "again"} {
				enc := ask(h, "GET", target, gz)
				if enc.Code != plain.Code {
					t.Fatalf("%s: status %d, plain %d", round, enc.Code, plain.Code)
				}
				if !big {
					if enc.Header().Get("Content-Encoding") != "" || enc.Body.String() != plain.Body.String() || varies(enc.Header()) {
						t.Fatalf("%s: an answer of %d bytes (status %d) was encoded: %v", round, plain.Body.Len(), plain.Code, enc.Header())
					}
					continue
				}
				if got := enc.Header().Get("Content-Encoding"); got != "gzip" {
					t.Fatalf("%s: Content-Encoding %q, want gzip", round, got)
				}
				if !varies(enc.Header()) {
					t.Errorf("%s: Vary %q lacks Accept-Encoding", round, enc.Header().Values("Vary"))
				}
				if got := gunzip(t, enc.Body.Bytes()); !bytes.Equal(got, plain.Body.Bytes()) {
					t.Fatalf("%s: decompressed body differs:\n%s\nplain:\n%s", round, got, plain.Body)
				}
				if got, want := enc.Header().Get("Content-Length"), strconv.Itoa(enc.Body.Len()); got != want {
					t.Errorf("%s: Content-Length %s, body %s bytes", round, got, want)
				}
				if et := plain.Header().Get("ETag"); et != "" {
					if got, want := enc.Header().Get("ETag"), etagOf(enc.Body.Bytes()); got != want || got == et {
						t.Errorf("%s: ETag %s, want %s: the encoded body's own, not the plain %s", round, got, want, et)
					}
				}
				for _, k := range []string{"Content-Type", "X-Tec-Total", "X-Tec-Totalpages", "Link", "Last-Modified", "Cache-Control"} {
					if enc.Header().Get(k) != plain.Header().Get(k) {
						t.Errorf("%s: %s %q, plain %q", round, k, enc.Header().Get(k), plain.Header().Get(k))
					}
				}
				head := ask(h, "HEAD", target, gz)
				if head.Body.Len() != 0 {
					t.Errorf("HEAD has a body")
				}
				for _, k := range []string{"Content-Encoding", "Content-Length", "ETag", "Vary"} {
					if !slices.Equal(head.Header().Values(k), enc.Header().Values(k)) {
						t.Errorf("HEAD %s %q, GET %q", k, head.Header().Values(k), enc.Header().Values(k))
					}
				}
			}
			if big {
				compressed = append(compressed, target)
			}
			off := ask(h, "GET", target, map[string]string{"Accept-Encoding": "gzip;q=0, identity"})
			if off.Header().Get("Content-Encoding") != "" || off.Body.String() != plain.Body.String() {
				t.Errorf("gzip;q=0 was not honoured: %v", off.Header())
			}
		})
	}
	// Each kind of answer the compression is for must have been one of them: otherwise the test proves
	// nothing about it.
	for _, want := range []string{"/calendar/events/v1/events", "/calendar/events/v1/events/1", "/calendar/events/v1/events.ics",
		"/calendar/events/v1/doc", "/calendar/events/v1/events?search=concert"} {
		if !slices.Contains(compressed, want) {
			t.Errorf("%s was not compressed: the fixture's answers are too small", want)
		}
	}
}

// TestCompressedETagsRevalidate checks the validators of encoded answers: a client that holds the
// encoded body gets its 304, and one that asks for the other representation does not.
func TestCompressedETagsRevalidate(t *testing.T) {
	h := compressionHandler(t)
	gz := map[string]string{"Accept-Encoding": "gzip"}
	for _, target := range []string{"/calendar/events/v1/events/1", "/calendar/events/v1/events.ics"} {
		t.Run(target, func(t *testing.T) {
			enc := ask(h, "GET", target, gz)
			etag := enc.Header().Get("ETag")
			if enc.Header().Get("Content-Encoding") != "gzip" || etag == "" {
				t.Fatalf("want an encoded answer with an ETag: %v", enc.Header())
			}
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag} {
				got := ask(h, "GET", target, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": inm})
				if got.Code != http.StatusNotModified || got.Body.Len() != 0 {
					t.Fatalf("If-None-Match %s: %d, want 304", inm, got.Code)
				}
				if got.Header().Get("ETag") != etag || !varies(got.Header()) {
					t.Errorf("304 headers: ETag %q, Vary %q; want ETag %s and Vary Accept-Encoding", got.Header().Get("ETag"),
						got.Header().Values("Vary"), etag)
				}
			}
			// The plain representation has another tag: the encoded one's does not validate it.
			got := ask(h, "GET", target, map[string]string{"If-None-Match": etag})
			if got.Code != http.StatusOK || got.Header().Get("Content-Encoding") != "" {
				t.Fatalf("plain request with the encoded tag: %d %v, want a plain 200", got.Code, got.Header())
			}
			if plainTag := got.Header().Get("ETag"); plainTag == etag {
				t.Errorf("plain and encoded answers share the ETag %s", etag)
			}
		})
	}
}

// TestListPageShrinks checks the target ratio on a full page: a per_page=100 list compresses to at
// most 15 % of its bytes.
func TestListPageShrinks(t *testing.T) {
	h := compressionHandler(t)
	for i := range 90 {
		writeSynced(t, h, "POST", "/calendar/events/v1/events", `{"title":"Market `+strconv.Itoa(i)+`","start_date":"2026-12-10 09:00",`+
			`"end_date":"2026-12-10 13:00","venue":2,"categories":4,"description":"<p>Stalls of the region's farmers and bakers.</p>"}`)
	}
	const target = "/calendar/events/v1/events?per_page=100"
	plain := ask(h, "GET", target, nil)
	enc := ask(h, "GET", target, map[string]string{"Accept-Encoding": "gzip"})
	var page []json.RawMessage
	if err := json.Unmarshal(plain.Body.Bytes(), &struct{ Events *[]json.RawMessage }{&page}); err != nil || len(page) != 100 {
		t.Fatalf("want a page of 100 events: %v, %d", err, len(page))
	}
	if ratio := float64(enc.Body.Len()) / float64(plain.Body.Len()); ratio > 0.15 {
		t.Errorf("%d bytes compressed to %d (%.1f %%), want at most 15 %%", plain.Body.Len(), enc.Body.Len(), 100*ratio)
	}
}

// entryBytes is what the list cache of h, holding one entry, the answer of route to ask, should count
// for it when it keeps bodies of these lengths: its key, the entry without bodies, and the bodies.
func entryBytes(h *Handler, route string, bodies ...int) int {
	key := listKey(route, &request{r: httptest.NewRequest("GET", "/", nil), origin: "http://cal.example"})
	bare := *h.lists.Peek(key)
	bare.Packed, bare.Plain, bare.Gz = nil, nil, nil
	alone := respcache.New(1 << 20)
	alone.Put(key, &bare)
	n := alone.Stats().Bytes
	for _, b := range bodies {
		n += b
	}
	return n
}

// TestListCacheKeepsPlainOnDemand checks what the list cache keeps of a compressible answer: only its
// gzip body while only clients that accept gzip asked, both once a client without Accept-Encoding
// did, which gets the exact plain answer; the cache keeps that one packed.
func TestListCacheKeepsPlainOnDemand(t *testing.T) {
	h := compressionHandler(t)
	const target = "/calendar/events/v1/events"
	if st := h.lists.Stats(); st.Entries != 0 {
		t.Fatalf("the cache holds %d entries before any list", st.Entries)
	}
	enc := ask(h, "GET", target, map[string]string{"Accept-Encoding": "gzip"})
	if st := h.lists.Stats(); st.Entries != 1 || st.Bytes != entryBytes(h, "events", enc.Body.Len()) {
		t.Fatalf("after a gzip client: %+v, want one entry of its %d gzip bytes only", st, enc.Body.Len())
	}
	fresh := ask(New(Deps{Config: h.cfg, Store: h.db, Index: h.index, Log: h.log}), "GET", target, nil)
	for _, round := range []string{"decompressed", "kept"} {
		plain := ask(h, "GET", target, nil)
		if plain.Code != http.StatusOK || plain.Body.String() != fresh.Body.String() || plain.Header().Get("Content-Encoding") != "" {
			t.Fatalf("%s: plain answer differs from one computed afresh:\n%s\nfresh:\n%s", round, plain.Body, fresh.Body)
		}
		if got, want := plain.Header().Get("Content-Length"), strconv.Itoa(plain.Body.Len()); got != want {
			t.Errorf("%s: Content-Length %s, body %s bytes", round, got, want)
		}
		if packed := len(respcache.Pack(nil, plain.Body.Bytes())); h.lists.Stats().Bytes != entryBytes(h, "events", enc.Body.Len(), packed) {
			t.Fatalf("%s: %+v, want one entry of the gzip body and the plain one packed (%d and %d bytes)", round, h.lists.Stats(), enc.Body.Len(), packed)
		}
	}
	if again := ask(h, "GET", target, map[string]string{"Accept-Encoding": "gzip"}); again.Body.String() != enc.Body.String() {
		t.Errorf("the gzip body changed once the plain one was kept")
	}
}

// TestListCacheKeepsHotAnswersUnpacked: an answer that plain clients ask for again and again is kept
// unpacked beside its packed body from its promoteHits-th hit on, and answers the same.
func TestListCacheKeepsHotAnswersUnpacked(t *testing.T) {
	h := compressionHandler(t)
	const target = "/calendar/events/v1/events"
	first := ask(h, "GET", target, nil)
	packed := len(respcache.Pack(nil, first.Body.Bytes()))
	for hit := 1; hit <= promoteHits+1; hit++ {
		if again := ask(h, "GET", target, nil); again.Body.String() != first.Body.String() {
			t.Fatalf("hit %d answers differently:\n%s\nfirst:\n%s", hit, again.Body, first.Body)
		}
		want := entryBytes(h, "events", packed)
		if hit >= promoteHits {
			want = entryBytes(h, "events", packed, first.Body.Len())
		}
		if st := h.lists.Stats(); st.Entries != 1 || st.Bytes != want {
			t.Fatalf("after hit %d: %+v, want one entry of %d bytes", hit, st, want)
		}
	}
}

// TestListCacheKeepsLargeAnswersUnpacked: an answer of promoteBytes or more, a large feed, is kept
// unpacked from its first plain hit, so that no hit unpacks it again; every hit answers the bytes and
// validators of the first answer, and a client holding them gets 304.
func TestListCacheKeepsLargeAnswersUnpacked(t *testing.T) {
	h := compressionHandler(t)
	long := strings.Repeat("An evening of jazz standards. ", 60_000/30)
	for i := range 20 {
		writeSynced(t, h, "POST", "/calendar/events/v1/events", `{"title":"Long night `+strconv.Itoa(i)+`",`+
			`"start_date":"2026-12-20 20:00","end_date":"2026-12-20 23:00","description":"`+long+`"}`)
	}
	const target = "/calendar/events/v1/events.ics"
	first := ask(h, "GET", target, nil)
	if first.Code != http.StatusOK || first.Body.Len() < promoteBytes {
		t.Fatalf("the feed: %d, %d bytes, want at least %d", first.Code, first.Body.Len(), promoteBytes)
	}
	packed := len(respcache.Pack(nil, first.Body.Bytes()))
	if st := h.lists.Stats(); st.Entries != 1 || st.Bytes != entryBytes(h, feedRoute, packed) {
		t.Fatalf("after the first answer: %+v, want one entry of its body packed (%d bytes)", st, packed)
	}
	etag := first.Header().Get("ETag")
	for hit := 1; hit <= 2; hit++ {
		again := ask(h, "GET", target, nil)
		if !bytes.Equal(again.Body.Bytes(), first.Body.Bytes()) || again.Header().Get("ETag") != etag ||
			again.Header().Get("Last-Modified") != first.Header().Get("Last-Modified") {
			t.Fatalf("hit %d answers otherwise than the first answer", hit)
		}
		if st := h.lists.Stats(); st.Entries != 1 || st.Bytes != entryBytes(h, feedRoute, packed, first.Body.Len()) {
			t.Fatalf("after hit %d: %+v, want one entry of its body packed and as it is (%d and %d bytes)", hit, st, packed, first.Body.Len())
		}
	}
	if unchanged := ask(h, "GET", target, map[string]string{"If-None-Match": etag}); unchanged.Code != http.StatusNotModified || unchanged.Body.Len() != 0 {
		t.Errorf("If-None-Match the ETag: %d with %d bytes, want 304", unchanged.Code, unchanged.Body.Len())
	}
}

// TestListCacheCompressesOnDemand is TestListCacheKeepsPlainOnDemand the other way round: an answer
// recorded for a client without Accept-Encoding is kept packed, not gzip-compressed, until a client
// that accepts gzip asks; that one gets what a fresh gzip answer would be, and the entry keeps both.
func TestListCacheCompressesOnDemand(t *testing.T) {
	h := compressionHandler(t)
	const target = "/calendar/events/v1/events"
	plain := ask(h, "GET", target, nil)
	packed := len(respcache.Pack(nil, plain.Body.Bytes()))
	if packed >= plain.Body.Len()/3 {
		t.Fatalf("a list of %d bytes packs to %d", plain.Body.Len(), packed)
	}
	if st := h.lists.Stats(); st.Entries != 1 || st.Bytes != entryBytes(h, "events", packed) {
		t.Fatalf("after a plain client: %+v, want one entry of its %d plain bytes packed to %d only", st, plain.Body.Len(), packed)
	}
	fresh := ask(New(Deps{Config: h.cfg, Store: h.db, Index: h.index, Log: h.log}), "GET", target, map[string]string{"Accept-Encoding": "gzip"})
	for _, round := range []string{"compressed", "kept"} {
		enc := ask(h, "GET", target, map[string]string{"Accept-Encoding": "gzip"})
		if enc.Header().Get("Content-Encoding") != "gzip" || enc.Body.String() != fresh.Body.String() || enc.Header().Get("ETag") != fresh.Header().Get("ETag") {
			t.Fatalf("%s: gzip answer differs from one computed afresh", round)
		}
		if st := h.lists.Stats(); st.Entries != 1 || st.Bytes != entryBytes(h, "events", enc.Body.Len(), packed) {
			t.Fatalf("%s: %+v, want one entry of both bodies (%d and %d bytes)", round, st, enc.Body.Len(), packed)
		}
	}
	if again := ask(h, "GET", target, nil); again.Body.String() != plain.Body.String() {
		t.Errorf("the plain body changed once the gzip one was kept")
	}
}

// Every answer says nosniff, and one to a request with an Origin varies by it, plain or gzip-encoded,
// computed or from the list cache, short or long: a cached answer's headers never replace what the
// request's own answer varies by.
func TestAnswersVaryByOrigin(t *testing.T) {
	h := compressionHandler(t)
	origin := map[string]string{"Origin": "https://other.example"}
	withGzip := map[string]string{"Origin": "https://other.example", "Accept-Encoding": "gzip"}
	for _, target := range []string{
		"/calendar/events/v1/events?per_page=1",  // about a kilobyte
		"/calendar/events/v1/events?per_page=20", // many
		"/calendar/events/v1/categories",
		"/calendar/events/v1/events/999999", // an error
		"/calendar/events/v1/events.ics",
		"/calendar/events/v1/",
	} {
		for _, header := range []map[string]string{origin, withGzip} {
			for round := range 3 { // computed, then from the cache
				w := ask(h, "GET", target, header)
				if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
					t.Errorf("%s (%v, round %d): X-Content-Type-Options %q, want nosniff", target, header, round, got)
				}
				if !slices.Contains(w.Header().Values("Vary"), "Origin") || w.Header().Get("Access-Control-Allow-Origin") != origin["Origin"] {
					t.Errorf("%s (%v, round %d), %d bytes: Vary %q with the origin echoed %q", target, header, round, w.Body.Len(),
						w.Header().Values("Vary"), w.Header().Get("Access-Control-Allow-Origin"))
				}
			}
		}
	}
	if got := ask(h, "GET", "/calendar/events/v1/events?per_page=20", nil).Header().Values("Vary"); slices.Contains(got, "Origin") {
		t.Errorf("an answer to a request without an Origin varies by it: %q", got)
	}
}
