package mirror

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
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
