package handlers

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestBucket(t *testing.T) {
	type step struct {
		advance       time.Duration
		wantRemaining int64
		wantWait      time.Duration
	}
	tests := []struct {
		name  string
		n     int64
		per   time.Duration // 0: a minute
		steps []step
	}{
		{"drain then one token per 60/N seconds", 3, 0, []step{
			{0, 2, 0}, {0, 1, 0}, {0, 0, 0},
			{0, 0, 20 * time.Second},
			{19 * time.Second, 0, time.Second},
			{time.Second, 0, 0},
			{0, 0, 20 * time.Second},
		}},
		{"refill does not pass capacity", 2, 0, []step{
			{0, 1, 0}, {0, 0, 0},
			{time.Hour, 1, 0}, {0, 0, 0}, {0, 0, 30 * time.Second},
		}},
		{"partial tokens carry over", 7, 0, []step{
			{0, 6, 0}, {0, 5, 0}, {0, 4, 0}, {0, 3, 0}, {0, 2, 0}, {0, 1, 0}, {0, 0, 0},
			{0, 0, 8571428572}, // 60/7 s, rounded up to the nanosecond
			{5 * time.Second, 0, 3571428572},
			{4 * time.Second, 0, 0}, // 9 s gave 1.05 tokens
			{0, 0, 8142857143},      // 0.05 left
		}},
		{"a clock that goes back refills nothing", 1, 0, []step{
			{0, 0, 0},
			{-time.Minute, 0, time.Minute},
			{time.Minute, 0, time.Minute}, // back where it was: still nothing refilled
			{time.Minute, 0, 0},
		}},
		{"the largest limit does not overflow", MaxRateLimitPerMinute, 0, []step{
			{0, MaxRateLimitPerMinute - 1, 0},
			{365 * 24 * time.Hour, MaxRateLimitPerMinute - 1, 0},
		}},
		{"an hour's period: one token per 3600/N seconds", 4, time.Hour, []step{
			{0, 3, 0}, {0, 2, 0}, {0, 1, 0}, {0, 0, 0},
			{0, 0, 15 * time.Minute},
			{14 * time.Minute, 0, time.Minute},
			{time.Minute, 0, 0},
			{2 * time.Hour, 3, 0}, // full again after an hour, not more
		}},
		{"the largest limit over the longest period does not overflow", MaxRateLimitPerMinute, maxPeriod, []step{
			{0, MaxRateLimitPerMinute - 1, 0},
			{maxPeriod - time.Nanosecond, MaxRateLimitPerMinute - 1, 0},
			{365 * 24 * time.Hour, MaxRateLimitPerMinute - 1, 0},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			per := cmp.Or(tc.per, time.Minute)
			b := bucket{level: tc.n * int64(per), last: now}
			for i, s := range tc.steps {
				now = now.Add(s.advance)
				gotRemaining, gotWait := b.take(now, tc.n, per)
				if gotRemaining != s.wantRemaining || gotWait != s.wantWait {
					t.Fatalf("step %d: got remaining %d, wait %v; want %d, %v", i, gotRemaining, gotWait, s.wantRemaining, s.wantWait)
				}
			}
		})
	}
}

func TestLimiterForgetsIdleClients(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newLimiter(2, time.Minute)
	l.take("a", now)
	l.take("b", now.Add(30*time.Second))
	l.take("b", now.Add(30*time.Second))
	// At the next sweep a is full again (a minute after its request) and b is not.
	l.take("c", now.Add(time.Minute))
	if got, want := len(l.buckets), 2; got != want {
		t.Fatalf("got %d buckets after the sweep, want %d (b and c)", got, want)
	}
	if _, ok := l.buckets["a"]; ok {
		t.Fatal("the full bucket of a was kept")
	}

	l.maxKeys = 3
	for i := range 10 {
		l.take(strconv.Itoa(i), now.Add(time.Minute))
	}
	if got := len(l.buckets); got > l.maxKeys {
		t.Fatalf("got %d buckets, want at most %d", got, l.maxKeys)
	}
}

func TestLimiterConcurrent(t *testing.T) {
	const n, clients = 50, 8
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newLimiter(n, time.Minute)
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range n {
				if _, wait := l.take("k", now); wait == 0 {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != n {
		t.Fatalf("got %d requests allowed, want %d", allowed, n)
	}
}

func TestRateLimit(t *testing.T) {
	const (
		ns     = "/calendar/events/v1"
		ipA    = "192.0.2.1:1234"
		ipA2   = "192.0.2.1:5678" // same host, other port
		ipB    = "198.51.100.7:1234"
		admin  = "admin"
		anon   = ""
		badPwd = "bad"
	)
	type req struct {
		advance    time.Duration
		method     string
		target     string
		auth       string // admin, anon or badPwd
		remoteAddr string
		header     map[string]string
		bodyBytes  int64 // the Content-Length announced

		wantStatus     int
		wantRemaining  string // "" when no X-RateLimit headers are wanted
		wantRetryAfter string
	}
	get := func(auth, remote string, status int, remaining string) req {
		return req{method: http.MethodGet, target: ns, auth: auth, remoteAddr: remote, wantStatus: status, wantRemaining: remaining}
	}
	crossSite := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
	limited := func(r req, retryAfter string) req {
		r.wantStatus, r.wantRemaining, r.wantRetryAfter = http.StatusTooManyRequests, "0", retryAfter
		return r
	}
	tests := []struct {
		name  string
		limit int
		reqs  []req
	}{
		{"off by default", 0, []req{
			get(anon, ipA, 200, ""), get(anon, ipA, 200, ""), get(anon, ipA, 200, ""),
		}},
		{"N pass, then 429 until a token is back", 3, []req{
			get(anon, ipA, 200, "2"), get(anon, ipA2, 200, "1"), get(anon, ipA, 200, "0"),
			limited(get(anon, ipA, 0, ""), "20"),
			limited(req{advance: 19500 * time.Millisecond, method: http.MethodGet, target: ns, remoteAddr: ipA}, "1"),
			{advance: 500 * time.Millisecond, method: http.MethodGet, target: ns, remoteAddr: ipA, wantStatus: 200, wantRemaining: "0"},
			limited(get(anon, ipA, 0, ""), "20"),
		}},
		{"each IP has its own bucket", 1, []req{
			get(anon, ipA, 200, "0"),
			limited(get(anon, ipA, 0, ""), "60"),
			get(anon, ipB, 200, "0"),
		}},
		{"X-Forwarded-For is not trusted", 1, []req{
			{method: http.MethodGet, target: ns, remoteAddr: ipA, header: map[string]string{"X-Forwarded-For": "203.0.113.1"}, wantStatus: 200, wantRemaining: "0"},
			limited(req{method: http.MethodGet, target: ns, remoteAddr: ipA, header: map[string]string{"X-Forwarded-For": "203.0.113.2"}}, "60"),
		}},
		{"an authenticated user is keyed by user, not IP", 2, []req{
			get(admin, ipA, 200, "1"),
			get(anon, ipA, 200, "1"),
			get(admin, ipB, 200, "0"),
			limited(get(admin, ipA, 0, ""), "30"),
			get(anon, ipB, 200, "1"),
		}},
		{"invalid credentials spend the IP's tokens; 429 before 401", 2, []req{
			get(badPwd, ipA, 401, "1"),
			get(anon, ipA, 200, "0"),
			limited(get(badPwd, ipA, 0, ""), "30"),
			get(admin, ipA, 200, "1"),
		}},
		{"OPTIONS, 404 and failed requests cost tokens", 4, []req{
			{method: http.MethodOptions, target: ns + "/events", remoteAddr: ipA, wantStatus: 200, wantRemaining: "3"},
			{method: http.MethodGet, target: "/calendar/nope", remoteAddr: ipA, wantStatus: 404, wantRemaining: "2"},
			{method: http.MethodPost, target: ns + "/events", remoteAddr: ipA, wantStatus: 400, wantRemaining: "1"},
			get(anon, ipA, 200, "0"),
			limited(req{method: http.MethodOptions, target: ns + "/events", remoteAddr: ipA}, "15"),
		}},
		{"a body too large costs a token, and its 413 wins over the 429", 2, []req{
			{method: http.MethodPost, target: ns + "/events", remoteAddr: ipA, bodyBytes: 1 << 30, wantStatus: 413, wantRemaining: "1"},
			get(anon, ipA, 200, "0"),
			{method: http.MethodPost, target: ns + "/events", remoteAddr: ipA, bodyBytes: 1 << 30, wantStatus: 413, wantRemaining: "0"},
		}},
		{"a cross-site write costs a token of the remote IP, and its 403 wins over the 429", 2, []req{
			{method: http.MethodPost, target: ns + "/events", auth: admin, remoteAddr: ipA, header: crossSite, wantStatus: 403, wantRemaining: "1"},
			get(admin, ipA, 200, "1"), // the credentials were not looked at: the user's bucket is whole
			get(anon, ipA, 200, "0"),
			{method: http.MethodPost, target: ns + "/events", auth: admin, remoteAddr: ipA, header: crossSite, wantStatus: 403, wantRemaining: "0"},
		}},
		{"a cached list answers with the current count", 5, []req{
			{method: http.MethodGet, target: ns + "/events", remoteAddr: ipA, wantStatus: 200, wantRemaining: "4"},
			{method: http.MethodGet, target: ns + "/events", remoteAddr: ipA, wantStatus: 200, wantRemaining: "3"},
			{method: http.MethodGet, target: ns + "/events", remoteAddr: ipA, wantStatus: 200, wantRemaining: "2"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
			h, _ := newClockedHandler(t, Config{RateLimitPerMinute: tc.limit}, func() time.Time { return now })
			for i, rr := range tc.reqs {
				now = now.Add(rr.advance)
				r := httptest.NewRequest(rr.method, rr.target, nil)
				r.RemoteAddr = rr.remoteAddr
				r.ContentLength = rr.bodyBytes
				switch rr.auth {
				case admin:
					r.SetBasicAuth("admin", adminPassword)
				case badPwd:
					r.SetBasicAuth("admin", "WrongPassword0123456789a")
				}
				for k, v := range rr.header {
					r.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)

				if w.Code != rr.wantStatus {
					t.Fatalf("request %d: got status %d, want %d\n%s", i, w.Code, rr.wantStatus, w.Body)
				}
				wantLimit := ""
				if rr.wantRemaining != "" {
					wantLimit = strconv.Itoa(tc.limit)
				}
				for _, c := range []struct{ header, want string }{
					{"X-RateLimit-Limit", wantLimit},
					{"X-RateLimit-Remaining", rr.wantRemaining},
					{"Retry-After", rr.wantRetryAfter},
				} {
					if got := w.Header().Get(c.header); got != c.want {
						t.Errorf("request %d: got %s %q, want %q", i, c.header, got, c.want)
					}
				}
				if w.Code == http.StatusTooManyRequests {
					checkEnvelope(t, w)
					var body struct{ Code string }
					if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Code != "rest_too_many_requests" {
						t.Errorf("request %d: got code %q, want rest_too_many_requests", i, body.Code)
					}
				}
			}
		})
	}
}
