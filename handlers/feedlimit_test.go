package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// stalledWriter is the writer of an answer whose client reads slowly: its first Write blocks until
// release is closed, and tells started when it begins.
type stalledWriter struct {
	*httptest.ResponseRecorder
	started, release chan struct{}
	began            bool
}

func (w *stalledWriter) Write(b []byte) (int, error) {
	if !w.began {
		w.began = true
		close(w.started)
		<-w.release
	}
	return w.ResponseRecorder.Write(b)
}

// TestLimitFeeds: while a client has FeedsPerClient feed answers in flight, its next feeds wait for a
// place, as many as the queue holds, and one more is refused at once with 429 rest_too_many_requests
// and Retry-After; whoever else asks goes on, the client being the address clientAddr reads (behind a
// trusted proxy, X-Forwarded-For's) or the authenticated user. Once an answer is written its place
// goes to the request waiting; a request that waited its whole wait is refused. Each refusal is
// counted for the metrics, and no place is left held.
func TestLimitFeeds(t *testing.T) {
	proxies, err := ParseProxies("10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := newTestHandler(t, Config{FeedsPerClient: 1, TrustedProxies: proxies})
	hh := h.(*Handler)
	hh.feeds.queue = 1
	const client, proxy = "192.0.2.1", "10.0.0.1"
	get := func(path, remote, xff string, auth bool) *http.Request {
		r := httptest.NewRequest("GET", path, nil)
		r.RemoteAddr = remote + ":4000"
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		if auth {
			r.SetBasicAuth("admin", adminPassword)
		}
		return r
	}
	feed := func(remote, xff string, auth bool) *http.Request {
		return get("/calendar/events/v1/events.ics", remote, xff, auth)
	}
	// hold serves a feed to client whose answer stalls at its first write until released.
	hold := func() (*stalledWriter, chan struct{}) {
		held := &stalledWriter{ResponseRecorder: httptest.NewRecorder(), started: make(chan struct{}), release: make(chan struct{})}
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(held, feed(client, "", false))
		}()
		<-held.started
		return held, done
	}
	// users is how many of client's requests are in flight or waiting, once it reaches want.
	users := func(want int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			hh.feeds.mu.Lock()
			n := 0
			for _, p := range hh.feeds.m {
				n = max(n, p.users)
			}
			hh.feeds.mu.Unlock()
			if n == want || time.Now().After(deadline) {
				if n != want {
					t.Fatalf("%d of the client's requests in flight or waiting, want %d", n, want)
				}
				return
			}
			time.Sleep(time.Millisecond)
		}
	}

	held, done := hold()
	waiting := httptest.NewRecorder()
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		h.ServeHTTP(waiting, feed(client, "", false))
	}()
	users(2)

	refused := 0
	for _, tc := range []struct {
		name string
		r    *http.Request
		want int
	}{
		{"the same address, past the queue", feed(client, "", false), http.StatusTooManyRequests},
		{"the same client through a trusted proxy", feed(proxy, client, false), http.StatusTooManyRequests},
		{"an untrusted sender's X-Forwarded-For changes nothing", feed(client, "198.51.100.9", false), http.StatusTooManyRequests},
		{"another address", feed("192.0.2.2", "", false), http.StatusOK},
		{"another client through the proxy", feed(proxy, "198.51.100.9", false), http.StatusOK},
		{"a user from the same address", feed(client, "", true), http.StatusOK},
		{"a list from the same address", get("/calendar/events/v1/events", client, "", false), http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, tc.r)
			if w.Code != tc.want {
				t.Fatalf("%d, want %d: %s", w.Code, tc.want, w.Body)
			}
			if tc.want != http.StatusTooManyRequests {
				return
			}
			refused++
			var env struct {
				Code string `json:"code"`
				Data struct {
					Status int `json:"status"`
				} `json:"data"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Code != "rest_too_many_requests" || env.Data.Status != 429 {
				t.Errorf("envelope %s (%v)", w.Body, err)
			}
			if got := w.Header().Get("Retry-After"); got != "1" {
				t.Errorf("Retry-After %q, want 1", got)
			}
		})
	}

	close(held.release)
	<-done
	<-waited
	if held.Code != http.StatusOK || waiting.Code != http.StatusOK {
		t.Fatalf("the held answer: %d, the waiting one: %d %s; want both 200", held.Code, waiting.Code, waiting.Body)
	}

	// A request whose wait runs out before a place frees is refused.
	hh.feeds.wait = time.Millisecond
	held, done = hold()
	late := httptest.NewRecorder()
	h.ServeHTTP(late, feed(client, "", false))
	if late.Code != http.StatusTooManyRequests {
		t.Errorf("after its whole wait: %d, want 429: %s", late.Code, late.Body)
	}
	refused++
	close(held.release)
	<-done

	if got := hh.feeds.rejections(); got != uint64(refused) {
		t.Errorf("%d rejections counted, want %d", got, refused)
	}
	if len(hh.feeds.m) != 0 {
		t.Errorf("places still held with no answer in flight: %v", hh.feeds.m)
	}
}
