package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestReplay: each answer is fetched from the server once, per path, query and Accept-Encoding, and
// then copied from memory with its status and headers; only GET is answered.
func TestReplay(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
		io.WriteString(w, r.URL.RequestURI()+" "+r.Header.Get("Accept-Encoding")+" #"+string(rune('0'+n)))
	}))
	defer server.Close()
	cfg, err := parseFlags([]string{"-base-url", server.URL, "-replay", "127.0.0.1:0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p := newReplay(newClient(cfg))
	get := func(path, encoding string) (int, string, string) {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if encoding != "" {
			r.Header.Set("Accept-Encoding", encoding)
		}
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		return w.Code, w.Header().Get("Content-Type"), w.Body.String()
	}
	for _, tc := range []struct {
		path, encoding string
		status         int
		body           string
	}{
		{"/events?per_page=10", "", 200, "/events?per_page=10  #1"},
		{"/events?per_page=10", "", 200, "/events?per_page=10  #1"},
		{"/events?per_page=10", "gzip", 200, "/events?per_page=10 gzip #2"},
		{"/events?per_page=20", "", 200, "/events?per_page=20  #3"},
		{"/missing", "", 404, "/missing  #4"},
		{"/missing", "", 404, "/missing  #4"},
		{"/events?per_page=10", "gzip", 200, "/events?per_page=10 gzip #2"},
	} {
		status, ctype, body := get(tc.path, tc.encoding)
		if status != tc.status || ctype != "application/json" || body != tc.body {
			t.Errorf("%s (%q): %d %s %q, want %d application/json %q", tc.path, tc.encoding, status, ctype, body, tc.status, tc.body)
		}
	}
	if p.hits.Load() != 3 || p.misses.Load() != 4 || asked.Load() != 4 {
		t.Errorf("%d hits, %d misses, the server asked %d times; want 3, 4, 4", p.hits.Load(), p.misses.Load(), asked.Load())
	}
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/events", nil))
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", w.Code)
	}
}

// TestReplayServes: -replay serves at its address until interrupted, and refuses an address that is
// not a loopback one.
func TestReplayServes(t *testing.T) {
	t.Parallel()
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }))
	defer server.Close()
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80"} {
		if err := run(context.Background(), []string{"-base-url", server.URL, "-replay", addr}, io.Discard, io.Discard); err == nil {
			t.Errorf("-replay %s: served, want refused", addr)
		}
	}
	cfg, err := parseFlags([]string{"-base-url", server.URL, "-replay", "127.0.0.1:0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", cfg.replay)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() { done <- serveReplay(ctx, newClient(cfg), l, &stderr) }()
	var body string
	if res, err := http.Get("http://" + l.Addr().String() + "/x"); err != nil {
		t.Error(err)
	} else {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body = string(b)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if body != "hello" || !strings.Contains(stderr.String(), "0 answers from memory, 1 fetched") {
		t.Errorf("body %q, report %q", body, stderr.String())
	}
}
