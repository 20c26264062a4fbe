package handlers

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestFailureTable(t *testing.T) {
	type step struct {
		advance  time.Duration
		key      string
		fail     bool          // the outcome, when the attempt goes ahead
		wantWait time.Duration // 0: the attempt goes ahead
		wantLog  bool          // end reports the start of an episode
	}
	tests := []struct {
		name  string
		n     int
		steps []step
	}{
		{"N failures throttle until the oldest leaves the window", 3, []step{
			{0, "a", true, 0, false},
			{10 * time.Second, "a", true, 0, false},
			{10 * time.Second, "a", true, 0, true},
			{0, "a", false, 40 * time.Second, false}, // the right password too
			{39 * time.Second, "a", false, time.Second, false},
			{time.Second, "a", true, 0, false}, // the first failure left: one more attempt, which fails
			{0, "a", false, 10 * time.Second, false},
			{10 * time.Second, "a", false, 0, false}, // a success is not counted
			{0, "a", true, 0, false},
			{0, "a", false, 10 * time.Second, false},
		}},
		{"keys are independent", 1, []step{
			{0, "a", true, 0, true},
			{0, "a", true, time.Minute, false},
			{0, "b", false, 0, false},
			{0, "b", true, 0, true},
			{0, "b", true, time.Minute, false},
		}},
		{"successes never throttle", 2, []step{
			{0, "a", false, 0, false}, {0, "a", false, 0, false}, {0, "a", false, 0, false},
			{0, "a", true, 0, false}, {0, "a", false, 0, false}, {0, "a", true, 0, true},
			{0, "a", true, time.Minute, false},
		}},
		{"one log line per episode", 2, []step{
			{0, "a", true, 0, false}, {0, "a", true, 0, true},
			{time.Minute, "a", true, 0, false}, // the window emptied: a new episode starts
			{time.Second, "a", true, 0, true},
			{59 * time.Second, "a", true, 0, false}, // the first left, the second is still in it
			{0, "a", true, time.Second, false},
			{time.Second, "a", true, 0, false}, // still the same episode
		}},
		{"a clock that goes back does not stretch the wait", 1, []step{
			{0, "a", true, 0, true},
			{-time.Hour, "a", true, time.Minute, false},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			ft := newFailureTable(tc.n)
			for i, s := range tc.steps {
				now = now.Add(s.advance)
				key := ft.key("192.0.2.1", false, s.key)
				gotWait := ft.begin(key, now)
				if gotWait != s.wantWait {
					t.Fatalf("step %d: got wait %v, want %v", i, gotWait, s.wantWait)
				}
				if gotWait > 0 {
					continue
				}
				if gotLog := ft.end(key, now, s.fail); gotLog != s.wantLog {
					t.Fatalf("step %d: end reported a new episode: %v, want %v", i, gotLog, s.wantLog)
				}
			}
		})
	}
}

func TestFailureTableKeys(t *testing.T) {
	ft := newFailureTable(1)
	same := [][2]string{{"Admin", "admin"}, {"ADMIN@Example.org", "admin@example.org"}}
	for _, p := range same {
		if ft.key("192.0.2.1", false, p[0]) != ft.key("192.0.2.1", false, p[1]) {
			t.Errorf("%q and %q have different keys", p[0], p[1])
		}
	}
	keys := map[uint64]string{}
	for _, k := range []struct {
		addr   string
		bearer bool
		login  string
	}{
		{"192.0.2.1", false, "admin"}, {"192.0.2.2", false, "admin"}, {"192.0.2.1", false, "admin@example.org"},
		{"192.0.2.1", false, ""}, {"192.0.2.1", true, ""}, {"192.0.2.1", false, "t"}, {"192.0.2.1t", false, ""},
	} {
		key := ft.key(k.addr, k.bearer, k.login)
		if prev, ok := keys[key]; ok {
			t.Errorf("%v has the key of %s", k, prev)
		}
		keys[key] = k.addr + " " + strconv.FormatBool(k.bearer) + " " + k.login
	}
}

// TestFailureTableIsBounded floods the table with far more distinct keys than it holds: it stays
// within its capacity, and the throttled key of the flooding client survives the flood.
func TestFailureTableIsBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ft := newFailureTable(10)
	if want := maxFailureKeys; ft.capacity != want {
		t.Fatalf("capacity %d at N = 10, want %d", ft.capacity, want)
	}
	ft.capacity = 1000 // the same policy, on a table small enough to flood quickly
	fail := func(login string) time.Duration {
		key := ft.key("192.0.2.1", false, login)
		wait := ft.begin(key, now)
		if wait == 0 {
			ft.end(key, now, true)
		}
		return wait
	}
	for range 10 {
		fail("admin")
	}
	for i := range 50 * ft.capacity {
		if i%2 == 0 {
			now = now.Add(time.Millisecond) // 25 s of flood: all within admin's window
		}
		fail("junk" + strconv.Itoa(i))
		if len(ft.entries) > ft.capacity {
			t.Fatalf("%d entries after %d keys, want at most %d", len(ft.entries), i+1, ft.capacity)
		}
	}
	if wait := fail("admin"); wait == 0 {
		t.Fatal("a flood of new logins reset the throttled login")
	}
	if got := newFailureTable(MaxAuthFailuresPerMinute).capacity * MaxAuthFailuresPerMinute; got > failureBudget {
		t.Errorf("at the largest N the table may hold %d instants, over the budget of %d", got, failureBudget)
	}
}

// TestFailureTableConcurrent: attempts in flight count, so a burst sent at once cannot pass the check
// before the first failure is recorded.
func TestFailureTableConcurrent(t *testing.T) {
	const n, clients = 5, 50
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ft := newFailureTable(n)
	key := ft.key("192.0.2.1", false, "admin")
	var mu sync.Mutex
	allowed := 0
	var start, wg sync.WaitGroup
	start.Add(1)
	for range clients {
		wg.Go(func() {
			start.Wait()
			if ft.begin(key, now) == 0 {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	start.Done()
	wg.Wait()
	// No attempt was settled yet: all of them were in flight together.
	if allowed != n {
		t.Fatalf("%d attempts in flight went ahead, want %d", allowed, n)
	}
	if wait := ft.begin(key, now); wait != time.Second {
		t.Errorf("with the limit in flight: wait %v, want 1s", wait)
	}
	for range n {
		ft.end(key, now, false)
	}
	if wait := ft.begin(key, now); wait != 0 {
		t.Errorf("after the attempts in flight succeeded: wait %v, want 0", wait)
	}
}

// TestAuthThrottle runs the throttle through the handler (docs/API.md "Authentication and permissions"): per remote address and
// login, 429 with Retry-After whatever the password, without a store lookup.
func TestAuthThrottle(t *testing.T) {
	const (
		ns    = "/calendar/events/v1"
		ipA   = "192.0.2.1:1234"
		ipA2  = "[::ffff:192.0.2.1]:5678" // ipA again, from another port, mapped
		ipB   = "198.51.100.7:1234"
		wrong = "WrongPassword0123456789a"
	)
	type req struct {
		advance    time.Duration
		remoteAddr string
		auth       func(r *http.Request)
		header     map[string]string

		wantStatus     int
		wantRetryAfter string
	}
	basic := func(login, password string) func(r *http.Request) {
		return func(r *http.Request) { r.SetBasicAuth(login, password) }
	}
	bearer := func(token string) func(r *http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	}
	raw := func(value string) func(r *http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", value) }
	}
	fails := func(n int, addr string, auth func(*http.Request)) []req {
		var out []req
		for range n {
			out = append(out, req{remoteAddr: addr, auth: auth, wantStatus: 401})
		}
		return out
	}
	steps := func(groups ...[]req) []req {
		var out []req
		for _, g := range groups {
			out = append(out, g...)
		}
		return out
	}
	tests := []struct {
		name  string
		limit int
		reqs  []req
	}{
		{"N failures, then 429 even with the right password", 3, steps(
			fails(3, ipA, basic("admin", wrong)),
			[]req{
				{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 429, wantRetryAfter: "60"},
				{remoteAddr: ipA2, auth: basic("ADMIN", wrong), wantStatus: 429, wantRetryAfter: "60"},
				{advance: 59*time.Second + time.Millisecond, remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 429, wantRetryAfter: "1"},
				{remoteAddr: ipA, header: map[string]string{"X-Forwarded-For": "203.0.113.9"}, auth: basic("admin", adminPassword), wantStatus: 429, wantRetryAfter: "1"},
				{remoteAddr: ipA, auth: nil, wantStatus: 200}, // anonymous requests are not throttled
				{advance: time.Second, remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 200},
			},
		)},
		{"other logins and other addresses are unaffected", 2, steps(
			fails(2, ipA, basic("admin", wrong)),
			[]req{
				{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 429, wantRetryAfter: "60"},
				{remoteAddr: ipA, auth: basic("ann", wrong), wantStatus: 401},
				{remoteAddr: ipB, auth: basic("admin", adminPassword), wantStatus: 200},
				{remoteAddr: ipA, auth: bearer(adminPassword), wantStatus: 200},
			},
		)},
		{"an account's login and e-mail count as one", 2, steps(
			fails(1, ipA, basic("admin", wrong)),
			fails(1, ipA, basic("Admin@Example.org", wrong)),
			[]req{
				{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 429, wantRetryAfter: "60"},
				{remoteAddr: ipA, auth: basic("admin@example.org", adminPassword), wantStatus: 429, wantRetryAfter: "60"},
				{remoteAddr: ipB, auth: basic("admin@example.org", adminPassword), wantStatus: 200},
			},
		)},
		{"every Bearer failure counts under one key", 2, steps(
			[]req{{remoteAddr: ipA, auth: bearer(wrong), wantStatus: 401}},
			[]req{{remoteAddr: ipA, auth: bearer("Another0123456789abcdefg"), wantStatus: 401}},
			[]req{
				{remoteAddr: ipA, auth: bearer(adminPassword), wantStatus: 429, wantRetryAfter: "60"},
				{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 200},
			},
		)},
		{"unparseable Basic values count under no name", 2, steps(
			[]req{{remoteAddr: ipA, auth: raw("Basic !!!"), wantStatus: 401}},
			[]req{{remoteAddr: ipA, auth: raw("Basic " + "bm9jb2xvbg=="), wantStatus: 401}}, // "nocolon"
			[]req{
				{remoteAddr: ipA, auth: raw("Basic !!!"), wantStatus: 429, wantRetryAfter: "60"},
				{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 200},
			},
		)},
		{"a success does not count", 2, steps(
			fails(1, ipA, basic("admin", wrong)),
			[]req{
				{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 200},
				{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 200},
			},
			fails(1, ipA, basic("admin", wrong)),
			[]req{{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 429, wantRetryAfter: "60"}},
		)},
		{"a cross-site write is not an attempt", 1, steps(
			[]req{{remoteAddr: ipA, auth: basic("admin", wrong), header: map[string]string{"Origin": "null", "X-HTTP-Method-Override": "DELETE"}, wantStatus: 403}},
			[]req{{remoteAddr: ipA, auth: basic("admin", adminPassword), wantStatus: 200}},
		)},
		{"0 turns throttling off", 0, fails(20, ipA, basic("admin", wrong))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
			h, _ := newClockedHandler(t, Config{AuthFailuresPerMinute: tc.limit}, func() time.Time { return now })
			for i, rr := range tc.reqs {
				now = now.Add(rr.advance)
				method := http.MethodGet
				if rr.header["X-HTTP-Method-Override"] != "" {
					method = http.MethodPost
				}
				r := httptest.NewRequest(method, ns, nil)
				r.RemoteAddr = rr.remoteAddr
				if rr.auth != nil {
					rr.auth(r)
				}
				for k, v := range rr.header {
					r.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != rr.wantStatus {
					t.Fatalf("request %d: got status %d, want %d\n%s", i, w.Code, rr.wantStatus, w.Body)
				}
				if got := w.Header().Get("Retry-After"); got != rr.wantRetryAfter {
					t.Errorf("request %d: got Retry-After %q, want %q", i, got, rr.wantRetryAfter)
				}
				if w.Code == http.StatusTooManyRequests {
					checkEnvelope(t, w)
					if !strings.Contains(w.Body.String(), `"code":"rest_too_many_requests"`) {
						t.Errorf("request %d: %s, want rest_too_many_requests", i, w.Body)
					}
				}
			}
		})
	}
}

// TestAuthThrottleSkipsTheStore: a throttled attempt answers 429 without a store lookup, and the
// episode is logged once, not per attempt.
func TestAuthThrottleSkipsTheStore(t *testing.T) {
	h, db := newTestHandler(t, Config{AuthFailuresPerMinute: 2})
	core, logs := observer.New(zapcore.WarnLevel)
	h.(*Handler).log = zap.New(core)
	attempt := func(password string) int {
		r := httptest.NewRequest(http.MethodGet, "/calendar/events/v1", nil)
		r.SetBasicAuth("admin", password)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for range 2 {
		if got := attempt("WrongPassword0123456789a"); got != 401 {
			t.Fatalf("failure: %d, want 401", got)
		}
	}
	db.Close() // any store lookup now fails with 500
	for range 3 {
		if got := attempt(adminPassword); got != http.StatusTooManyRequests {
			t.Fatalf("throttled attempt: %d, want 429", got)
		}
	}
	if got := logs.FilterMessage("failed authentications throttled").Len(); got != 1 {
		t.Errorf("%d log lines for one episode, want 1", got)
	}
}
