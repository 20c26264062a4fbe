package handlers

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// MaxRateLimitPerMinute bounds Config.RateLimitPerMinute, and the N of every limiter. Buckets count in
// exact integer units (one token is a period's nanoseconds in units, refilled at N units per
// nanosecond), and a larger N, or a period longer than maxPeriod, would overflow them; a million
// requests per minute from one client is no limit on one small VM anyway.
const MaxRateLimitPerMinute = 1_000_000

// maxPeriod is the longest period a limiter refills its buckets in: N·maxPeriod units, plus as many
// refilled, stay within an int64 at N = MaxRateLimitPerMinute.
const maxPeriod = time.Hour

// maxRateKeys bounds the buckets the limiter keeps (about 10 MiB at most).
const maxRateKeys = 1 << 16

// bucket is one client's token bucket (docs/API.md "Limits"). A bucket that is full again carries no
// information: it equals a new one, so the limiter may drop it.
type bucket struct {
	level int64 // in int64(per) units per token
	last  time.Time
}

// at is the bucket's level at now, for a limit of n tokens per period per. A clock that went back
// refills nothing.
func (b bucket) at(now time.Time, n int64, per time.Duration) int64 {
	full := n * int64(per)
	d := now.Sub(b.last)
	switch {
	case d <= 0:
		return b.level
	case d >= per: // an empty bucket fills in a period: this also keeps d*n from overflowing
		return full
	}
	return min(full, b.level+int64(d)*n)
}

// take spends one token at now. It returns the whole tokens left, or, when the bucket holds less
// than one, how long until it does (a refused request spends nothing: it had nothing to spend).
func (b *bucket) take(now time.Time, n int64, per time.Duration) (remaining int64, wait time.Duration) {
	token := int64(per)
	b.level = b.at(now, n, per)
	if now.After(b.last) {
		b.last = now
	}
	if b.level < token {
		return 0, time.Duration((token - b.level + n - 1) / n)
	}
	b.level -= token
	return b.level / token, 0
}

// limiter holds the buckets of all clients seen lately: n tokens each, refilled at n per period per.
type limiter struct {
	n       int64
	per     time.Duration
	maxKeys int

	mu      sync.Mutex
	buckets map[string]bucket
	// nextSweep is when full buckets are next dropped: every bucket is full a period after its last
	// request, so the map holds about the clients of the last two periods.
	nextSweep time.Time
	// refused counts the requests refused, for the metrics.
	refused uint64
}

// newLimiter returns a limiter of n tokens per period per (at most maxPeriod), or nil when the limit
// is off (n ≤ 0).
func newLimiter(n int, per time.Duration) *limiter {
	if n <= 0 {
		return nil
	}
	return &limiter{n: int64(min(n, MaxRateLimitPerMinute)), per: min(per, maxPeriod), maxKeys: maxRateKeys, buckets: map[string]bucket{}}
}

// take spends one token of key's bucket at now; see bucket.take.
func (l *limiter) take(key string, now time.Time) (remaining int64, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !now.Before(l.nextSweep) {
		l.sweep(now)
	}
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= l.maxKeys {
			// More active clients than the cap until the next sweep: forget one at random (map
			// order) rather than refuse a newcomer. The forgotten client starts over with a full
			// bucket; memory stays bounded.
			for k := range l.buckets {
				delete(l.buckets, k)
				break
			}
		}
		b = bucket{level: l.n * int64(l.per), last: now}
	}
	remaining, wait = b.take(now, l.n, l.per)
	l.buckets[key] = b
	if wait > 0 {
		l.refused++
	}
	return remaining, wait
}

// rejections is how many requests take refused so far.
func (l *limiter) rejections() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refused
}

// sweep drops the buckets that are full at now. It runs under l.mu, once a period at most.
func (l *limiter) sweep(now time.Time) {
	full := l.n * int64(l.per)
	for k, b := range l.buckets {
		if b.at(now, l.n, l.per) == full {
			delete(l.buckets, k)
		}
	}
	l.nextSweep = now.Add(l.per)
}

// limitRate is step 2 of docs/API.md "Responses" (10.3): it spends a token of the caller's bucket, sees that
// the response carries the bucket's headers, and returns how long until a token is back when none was
// left (0: the request goes on). It needs the identity from authenticate (a valid user is keyed by
// user ID, everyone else by remote IP).
func (h *Handler) limitRate(sw *statusWriter, rq *request) time.Duration {
	if h.rate == nil {
		return 0
	}
	remaining, wait := h.rate.take(h.rateKey(rq), rq.now)
	// The headers are set as the response starts, not now: a replayed list-cache entry copies the
	// headers it recorded over the response's, and would otherwise carry a stale count.
	sw.ResponseWriter = &rateHeaders{ResponseWriter: sw.ResponseWriter,
		limit: strconv.FormatInt(h.rate.n, 10), remaining: strconv.FormatInt(remaining, 10)}
	return wait
}

// tooManyRequests is 429 with Retry-After: the whole seconds until wait has passed, at least 1
// (docs/API.md "Authentication and permissions", "Limits").
func tooManyRequests(wait time.Duration) error { return limitReached(wait, "") }

// limitReached is tooManyRequests with message, when set, in place of the generic one: the write
// limits say which limit was reached (writelimits.go).
func limitReached(wait time.Duration, message string) error {
	return &detailed{kind: errTooManyRequests, message: message, retryAfter: max(1, int64((wait+time.Second-1)/time.Second))}
}

// rateKey is the client key of docs/API.md "Limits".
func (h *Handler) rateKey(rq *request) string {
	if !rq.actor.Anonymous() {
		return "user:" + utoa(rq.actor.UserID)
	}
	return "ip:" + rq.remote
}

// rateHeaders adds X-RateLimit-Limit and X-RateLimit-Remaining as the response starts.
type rateHeaders struct {
	http.ResponseWriter
	limit, remaining string
	written          bool
}

func (w *rateHeaders) set() {
	if !w.written {
		w.written = true
		hd := w.ResponseWriter.Header()
		hd.Set("X-RateLimit-Limit", w.limit)
		hd.Set("X-RateLimit-Remaining", w.remaining)
	}
}

func (w *rateHeaders) WriteHeader(code int) {
	w.set()
	w.ResponseWriter.WriteHeader(code)
}

func (w *rateHeaders) Write(b []byte) (int, error) {
	w.set()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *rateHeaders) Unwrap() http.ResponseWriter { return w.ResponseWriter }
