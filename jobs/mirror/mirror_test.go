package mirror

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestGetterRetries: transient failures are retried with back-off (Retry-After when sent), others are
// not, and the attempts are bounded.
func TestGetterRetries(t *testing.T) {
	for _, tc := range []struct {
		name       string
		statuses   []int // answered in turn; the last one repeats
		retryAfter string
		wantStatus int // 0: a success
		wantTries  int64
		wantWaits  []time.Duration // nil: any back-off
	}{
		{name: "ok", statuses: []int{200}, wantTries: 1},
		{name: "503 once", statuses: []int{503, 200}, wantTries: 2},
		{name: "429 with Retry-After", statuses: []int{429, 200}, retryAfter: "3", wantTries: 2, wantWaits: []time.Duration{3 * time.Second}},
		{name: "Retry-After capped", statuses: []int{503, 200}, retryAfter: "3600", wantTries: 2, wantWaits: []time.Duration{10 * time.Second}},
		{name: "404 not retried", statuses: []int{404}, wantStatus: 404, wantTries: 1},
		{name: "401 not retried", statuses: []int{401}, wantStatus: 401, wantTries: 1},
		{name: "500 until attempts run out", statuses: []int{500}, wantStatus: 500, wantTries: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				status := tc.statuses[min(i, len(tc.statuses)-1)]
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.WriteHeader(status)
				_, _ = w.Write([]byte(`{"ok":true}`))
			}))
			defer srv.Close()
			var waits []time.Duration
			g := &Getter{Attempts: 3, Backoff: time.Second, MaxBackoff: 10 * time.Second,
				Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			resp, err := g.Get(context.Background(), srv.URL)
			var se *StatusError
			switch {
			case tc.wantStatus == 0 && (err != nil || string(resp.Body) != `{"ok":true}`):
				t.Fatalf("Get = %+v, %v; want the body", resp, err)
			case tc.wantStatus != 0 && (!errors.As(err, &se) || se.Status != tc.wantStatus):
				t.Fatalf("Get error = %v; want status %d", err, tc.wantStatus)
			}
			if g.Requests() != tc.wantTries || n.Load() != tc.wantTries {
				t.Errorf("%d requests (server saw %d), want %d", g.Requests(), n.Load(), tc.wantTries)
			}
			if len(waits) != int(tc.wantTries)-1 {
				t.Errorf("waits %v, want one per retry", waits)
			}
			for i, w := range waits {
				if tc.wantWaits != nil && w != tc.wantWaits[i] {
					t.Errorf("wait %d = %s, want %s", i, w, tc.wantWaits[i])
				}
				if max := time.Second << i; tc.wantWaits == nil && (w < max/2 || w > max) {
					t.Errorf("wait %d = %s, want within [%s, %s]: doubling with jitter", i, w, max/2, max)
				}
			}
		})
	}
}

// TestGetterNetworkError: a refused connection is retried, then reported; a cancelled context stops
// the back-off at once.
func TestGetterNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	g := &Getter{Attempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }}
	if _, err := g.Get(context.Background(), url); err == nil || g.Requests() != 2 {
		t.Errorf("Get on a closed port = %v after %d requests, want an error after 2", err, g.Requests())
	}
	ctx, cancel := context.WithCancel(context.Background())
	g = &Getter{Attempts: 5, Sleep: func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }}
	if _, err := g.Get(ctx, url); !errors.Is(err, context.Canceled) || g.Requests() != 1 {
		t.Errorf("cancelled Get = %v after %d requests, want context.Canceled after 1", err, g.Requests())
	}
}

// TestGetterAuth: credentials go as HTTP Basic.
func TestGetterAuth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "editor" || p != "abcd efgh" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	if _, err := (&Getter{User: "editor", Password: "abcd efgh"}).Get(context.Background(), srv.URL); err != nil {
		t.Error(err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"": 0, "7": 7 * time.Second, "-1": 0, "soon": 0,
		"Thu, 01 Jan 2026 00:00:30 GMT": 30 * time.Second,
		"Wed, 31 Dec 2025 00:00:30 GMT": 0,
	} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("retryAfter(%q) = %s, want %s", v, got, want)
		}
	}
}

func TestReport(t *testing.T) {
	r := &Report{}
	for _, o := range []Outcome{Added, Added, Updated, Trashed, Unchanged, Unchanged, Unchanged} {
		r.Count(o)
	}
	r.Fail("event", "12", errors.New("start_date: invalid"))
	if got, want := r.String(), "added 2, updated 1, trashed 1, unchanged 3, failed 1"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if r.Failures[0] != (Failure{Kind: "event", ID: "12", Reason: "start_date: invalid"}) {
		t.Errorf("failure %+v", r.Failures[0])
	}
}

// fakeSource counts its runs and fails the second.
type fakeSource struct{ runs atomic.Int32 }

func (s *fakeSource) Name() string { return "fake" }

func (s *fakeSource) Sync(ctx context.Context, opts Options) (*Report, error) {
	if s.runs.Add(1) == 2 {
		return &Report{Failed: 1}, errors.New("site down")
	}
	return &Report{Added: 1}, nil
}

// TestFollow: a run at once, then one per interval, each logged; a failed run does not stop the
// schedule; cancelling ends Follow.
func TestFollow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core, logs := observer.New(zap.InfoLevel)
		src := &fakeSource{}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- Follow(ctx, src, 5*time.Minute, Options{Logger: zap.New(core)}) }()
		time.Sleep(16 * time.Minute)
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := src.runs.Load(); got != 4 {
			t.Errorf("%d runs in 16 minutes at 5-minute intervals, want 4 (one at once)", got)
		}
		if ok, failed := logs.FilterMessage("mirror run").Len(), logs.FilterMessage("mirror run failed").Len(); ok != 3 || failed != 1 {
			t.Errorf("logged %d runs and %d failures, want 3 and 1", ok, failed)
		}
	})
	if err := Follow(t.Context(), &fakeSource{}, 0, Options{}); err == nil {
		t.Error("Follow with no interval: want an error")
	}
}

// TestProgress: a phase's figures, and a nil Progress that records nothing.
func TestProgress(t *testing.T) {
	p := &Progress{}
	p.Begin("events", 0)
	p.SetTotal(10)
	p.Add(3)
	p.Add(2)
	if got := p.Snapshot(); got.Phase != "events" || got.Done != 5 || got.Total != 10 || got.Started.IsZero() {
		t.Errorf("Snapshot() = %+v", got)
	}
	var none *Progress
	none.Begin("x", 1)
	none.Add(1)
	none.SetTotal(2)
	if got := none.Snapshot(); got.Phase != "" || got.Done != 0 {
		t.Errorf("nil Snapshot() = %+v", got)
	}
}

// stalledServer answers every request with stall, and holds it until the test ends; it counts the
// requests.
func stalledServer(t *testing.T, stall func(w http.ResponseWriter, release <-chan struct{})) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	release := make(chan struct{})
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		stall(w, release)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handlers
	return srv, &n
}

// neverAnswers accepts the request and sends nothing.
func neverAnswers(_ http.ResponseWriter, release <-chan struct{}) { <-release }

// tricklesBody sends the headers and the start of a body, then nothing more.
func tricklesBody(w http.ResponseWriter, release <-chan struct{}) {
	w.Header().Set("Content-Length", "1000")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"events":[`))
	w.(http.Flusher).Flush()
	<-release
}

// TestGetterTimeout: a site that accepts the connection and never answers, or sends its headers and
// then stalls the body, fails the request once its timeout is up, with an error naming the URL and
// the timeout, and without retries (which would multiply the wait).
func TestGetterTimeout(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stall func(http.ResponseWriter, <-chan struct{})
	}{
		{"no answer", neverAnswers},
		{"body stalls", tricklesBody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := stalledServer(t, tc.stall)
			g := &Getter{Timeout: 100 * time.Millisecond, Sleep: func(context.Context, time.Duration) error { return nil }}
			began := time.Now()
			_, err := g.Get(t.Context(), srv.URL+"/feed")
			var te *TimeoutError
			if !errors.As(err, &te) || te.URL != srv.URL+"/feed" || te.Timeout != 100*time.Millisecond {
				t.Fatalf("Get = %v, want a *TimeoutError for the URL after 100ms", err)
			}
			if want := "GET " + srv.URL + "/feed: no complete answer within 100ms"; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q, want it to start %q", err, want)
			}
			if took := time.Since(began); took > 10*time.Second {
				t.Errorf("took %s with a timeout of 100ms", took)
			}
			if n.Load() != 1 || g.Requests() != 1 {
				t.Errorf("%d requests, want 1: a timeout is not retried", n.Load())
			}
		})
	}
}

// TestGetterCancel: the caller's context ending stops a request in flight at once, with ctx's error
// (not a timeout), however long the timeout.
func TestGetterCancel(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv, _ := stalledServer(t, func(w http.ResponseWriter, release <-chan struct{}) {
		arrived <- struct{}{}
		<-release
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-arrived; cancel() }()
	_, err := (&Getter{Timeout: time.Hour}).Get(ctx, srv.URL)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Get = %v, want context.Canceled", err)
	}
}

// TestGetterConditional: Do sends the Accept header asked for (JSON by default) and the validators of
// the copy held; a 304 to a conditional request is an answer, not an error, and a 304 to another is
// an error.
func TestGetterConditional(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		if r.Header.Get("If-None-Match") == `"v1"` || r.URL.Path == "/always304" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		_, _ = w.Write([]byte("BEGIN:VCALENDAR"))
	}))
	defer srv.Close()
	g := &Getter{}
	if _, err := g.Get(t.Context(), srv.URL); err != nil || got.Get("Accept") != "application/json" || got.Get("If-None-Match") != "" {
		t.Errorf("Get: %v, headers %v; want Accept: application/json and no validators", err, got)
	}
	resp, err := g.Do(t.Context(), Request{URL: srv.URL, Accept: "text/calendar"})
	if err != nil || resp.Status != 200 || resp.Header.Get("ETag") != `"v1"` || got.Get("Accept") != "text/calendar" {
		t.Fatalf("Do = %+v, %v; Accept %q", resp, err, got.Get("Accept"))
	}
	resp, err = g.Do(t.Context(), Request{URL: srv.URL, Accept: "text/calendar", ETag: `"v1"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT"})
	if err != nil || resp.Status != http.StatusNotModified {
		t.Errorf("conditional Do = %+v, %v; want the 304", resp, err)
	}
	if got.Get("If-None-Match") != `"v1"` || got.Get("If-Modified-Since") != "Mon, 02 Jan 2006 15:04:05 GMT" {
		t.Errorf("validators sent: %v", got)
	}
	var se *StatusError
	if _, err := g.Get(t.Context(), srv.URL+"/always304"); !errors.As(err, &se) || se.Status != http.StatusNotModified {
		t.Errorf("304 to an unconditional Get = %v, want a *StatusError", err)
	}
}

// stallOnce is a transport whose first request never gets an answer (it ends with its context) and
// whose others get 200.
type stallOnce struct{ calls atomic.Int32 }

func (s *stallOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if s.calls.Add(1) == 1 {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

// getSource is a source that fetches one page per run.
type getSource struct {
	get  *Getter
	runs atomic.Int32
}

func (s *getSource) Name() string { return "http://site.test/wp-json" }

func (s *getSource) Sync(ctx context.Context, _ Options) (*Report, error) {
	s.runs.Add(1)
	_, err := s.get.Get(ctx, s.Name()+"/")
	return &Report{}, err
}

// TestFollowTimedOut: a run whose site never answers ends at the request timeout, is logged with the
// source and the error, and the mirror runs again at the next interval.
func TestFollowTimedOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core, logs := observer.New(zap.InfoLevel)
		src := &getSource{get: &Getter{Client: &http.Client{Transport: &stallOnce{}}, Timeout: 30 * time.Second}}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- Follow(ctx, src, 5*time.Minute, Options{Logger: zap.New(core)}) }()
		time.Sleep(time.Minute)
		synctest.Wait()
		failed := logs.FilterMessage("mirror run failed").All()
		if len(failed) != 1 {
			t.Fatalf("%d failed runs logged after a minute, want 1 (the first, timed out after 30s)", len(failed))
		}
		f := failed[0].ContextMap()
		if f["source"] != src.Name() || !strings.Contains(f["error"].(string), "GET http://site.test/wp-json/: no complete answer within 30s") {
			t.Errorf("failed run logged with %v, want the source and the timeout", f)
		}
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got, ok := src.runs.Load(), logs.FilterMessage("mirror run").Len(); got != 3 || ok != 2 {
			t.Errorf("%d runs, %d logged as done, in 11 minutes at 5-minute intervals; want 3 and 2", got, ok)
		}
	})
}
