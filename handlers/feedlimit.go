package handlers

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultFeedsPerClient is the default of Config.FeedsPerClient: the iCalendar feed answers one client
// may have in flight at a time. A calendar app polls each subscription now and then, one request at a
// time, and a cached feed takes milliseconds to send on a LAN, so two leave room for a household
// behind one address polling at the same moment.
const DefaultFeedsPerClient = 2

// A client's feed requests beyond its places wait for one, FeedQueue of them at most, each up to
// feedWait: calendar apps behind one address (an office's NAT) are answered a little later rather
// than refused, and a script that keeps many requests in flight waits instead of spinning on 429s.
// Past the queue, or after the wait, the request answers 429 with Retry-After feedRetryAfter.
const (
	FeedQueue      = 16
	feedWait       = 10 * time.Second
	feedRetryAfter = time.Second
)

// inFlight counts the answers in flight and the requests waiting per client key: at most n in flight
// and queue waiting each. A key is kept while it has a request in flight or waiting and dropped at its
// last, so the table holds no more keys than the server has requests running.
type inFlight struct {
	n, queue int
	wait     time.Duration
	mu       sync.Mutex
	m        map[string]*places
	// refused counts the requests refused, for the metrics.
	refused uint64
}

// places is one key's: a slot in taken for each answer in flight, and users counting those and the
// requests waiting for a slot.
type places struct {
	taken chan struct{}
	users int
}

// newInFlight returns a table of n answers per key, or nil when the bound is off (n ≤ 0).
func newInFlight(n int) *inFlight {
	if n <= 0 {
		return nil
	}
	return &inFlight{n: n, queue: FeedQueue, wait: feedWait, m: map[string]*places{}}
}

// acquire takes one of key's places, waiting for one while key has fewer than queue requests waiting,
// until f.wait has passed or ctx ends; it reports whether it took one. A caller that got true gives
// the place back with release.
func (f *inFlight) acquire(ctx context.Context, key string) bool {
	f.mu.Lock()
	p := f.m[key]
	if p == nil {
		p = &places{taken: make(chan struct{}, f.n)}
		f.m[key] = p
	}
	if p.users >= f.n+f.queue {
		f.refused++
		f.mu.Unlock()
		return false
	}
	p.users++
	f.mu.Unlock()
	timer := time.NewTimer(f.wait)
	defer timer.Stop()
	select {
	case p.taken <- struct{}{}:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused++
	f.leave(key, p)
	return false
}

func (f *inFlight) release(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.m[key]
	<-p.taken
	f.leave(key, p)
}

// leave counts one user of key's places out, and drops the key at its last. The caller holds f.mu.
func (f *inFlight) leave(key string, p *places) {
	if p.users--; p.users == 0 {
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
// trusted proxies): further requests wait for a place (FeedQueue, feedWait), and past that answer 429
// with Retry-After. A place is held until the answer is written, so what one client can hold at once
// is bounded however many connections it opens: answers to a client that reads slowly (each a
// goroutine, a connection and, for a feed just rendered, its 3.3 MB buffer at 5,000 events), and
// renders, which wait for a render slot (feedRenders) holding their place. How often a client may ask
// is the rate limit's (docs/BENCHMARKS.md, "The feed under hostile clients").
func (h *Handler) limitFeeds(fn handleFunc) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		if h.feeds == nil {
			return fn(w, rq)
		}
		key := h.rateKey(rq)
		if !h.feeds.acquire(rq.r.Context(), key) {
			return limitReached(feedRetryAfter, "This client already has "+strconv.Itoa(h.feeds.n)+
				" iCalendar feeds in flight and more waiting, the most it may have at a time: retry after the delay given.")
		}
		defer h.feeds.release(key)
		return fn(w, rq)
	}
}
