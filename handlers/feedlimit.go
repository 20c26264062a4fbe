package handlers

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultFeedsPerClient is the default of Config.FeedsPerClient: the iCalendar feed answers one client
// may have in flight at a time. A calendar app polls each subscription now and then, one request at a
// time, and a cached feed takes milliseconds to send on a LAN, so two leave room for a household
// behind one address polling at the same moment; a script that keeps eight feed requests in flight
// gets two answered and six 429s.
const DefaultFeedsPerClient = 2

// feedRetryAfter is the Retry-After of a feed refused by FeedsPerClient: the feeds in flight end
// within about a second, unless their client reads slowly, and then it is the one that waits.
const feedRetryAfter = time.Second

// inFlight counts the answers in flight per client key, at most n each. A key is kept while it has an
// answer in flight and dropped at its last, so the table holds no more keys than the server has
// requests running.
type inFlight struct {
	n  int
	mu sync.Mutex
	m  map[string]int
	// refused counts the requests refused, for the metrics.
	refused uint64
}

// newInFlight returns a table of n answers per key, or nil when the bound is off (n ≤ 0).
func newInFlight(n int) *inFlight {
	if n <= 0 {
		return nil
	}
	return &inFlight{n: n, m: map[string]int{}}
}

// acquire takes one of key's places and reports true, or reports false when all n are taken; a
// caller that got true gives the place back with release.
func (f *inFlight) acquire(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m[key] >= f.n {
		f.refused++
		return false
	}
	f.m[key]++
	return true
}

func (f *inFlight) release(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m[key]--; f.m[key] <= 0 {
		delete(f.m, key)
	}
}

// rejections is how many requests acquire refused so far.
func (f *inFlight) rejections() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}

// limitFeeds bounds the feed answers each client has in flight (Config.FeedsPerClient), keyed as the
// rate limit keys its buckets (the user, else the client's address as clientAddr reads it behind
// trusted proxies), and answers 429 with Retry-After past the bound. A place is held until the
// answer is written, so what one client can hold at once is bounded however many connections it
// opens: answers to a client that reads slowly (each a goroutine, a connection and, for a feed just
// rendered, its 3.3 MB buffer at 5,000 events), and renders, which wait for a render slot
// (feedRenders) holding their place. A cached answer that the kernel's socket buffers take whole
// leaves at once, so pulls of a cached feed seldom meet the bound; how often a client may ask is the
// rate limit's (docs/BENCHMARKS.md, "The feed under hostile clients").
func (h *Handler) limitFeeds(fn handleFunc) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		if h.feeds == nil {
			return fn(w, rq)
		}
		key := h.rateKey(rq)
		if !h.feeds.acquire(key) {
			return limitReached(feedRetryAfter, "This client already has "+strconv.Itoa(h.feeds.n)+
				" iCalendar feeds in flight, the most it may have at a time: retry after the delay given.")
		}
		defer h.feeds.release(key)
		return fn(w, rq)
	}
}
