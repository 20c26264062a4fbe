package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url    string
		wantOK bool
	}{
		{"http://127.0.0.1:8080", true},
		{"http://127.0.0.1:8080/", true},
		{"http://127.1.2.3", true},
		{"https://127.0.0.1/sub/path", true},
		{"http://[::1]:8080", true},
		{"http://[::ffff:127.0.0.1]:8080", true},
		{"http://localhost:8080", true},
		{"http://LocalHost", true},
		{"http://10.0.0.1:8080", false},
		{"http://192.168.1.10", false},
		{"http://0.0.0.0:8080", false},
		{"http://[::]:8080", false},
		{"http://128.0.0.1", false},
		{"http://example.com", false},
		{"http://localhost.example.com", false},
		{"http://127.0.0.1.nip.io", false},
		{"http://2130706433", false}, // 127.0.0.1 as one number: a name to the resolver, so refused
		{"http://user:pw@127.0.0.1", false},
		{"ftp://127.0.0.1", false},
		{"127.0.0.1:8080", false},
		{"http://", false},
		{"http://127.0.0.1?x=1", false},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := loopbackURL(tc.url)
			if (err == nil) != tc.wantOK {
				t.Errorf("loopbackURL(%q) error %v, want ok %v", tc.url, err, tc.wantOK)
			}
			// The whole program refuses it before any request.
			err = run(context.Background(), []string{"-base-url", tc.url, "-duration", "1ms"}, io.Discard, io.Discard)
			if !tc.wantOK && (err == nil || !strings.Contains(err.Error(), "base-url")) {
				t.Errorf("run with %q: error %v, want a base-url error", tc.url, err)
			}
		})
	}
}

func TestLoopbackOnlyDialer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		address string
		wantOK  bool
	}{
		{"127.0.0.1:80", true},
		{"127.9.9.9:8080", true},
		{"[::1]:443", true},
		{"10.1.2.3:80", false},
		{"[2001:db8::1]:80", false},
		{"93.184.216.34:80", false},
	} {
		t.Run(tc.address, func(t *testing.T) {
			if err := loopbackOnly("tcp", tc.address, nil); (err == nil) != tc.wantOK {
				t.Errorf("loopbackOnly(%q) = %v, want ok %v", tc.address, err, tc.wantOK)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value", []time.Duration{7}, 99, 7},
		{"p50 of 1..100", hundred, 50, 50 * time.Millisecond},
		{"p95 of 1..100", hundred, 95, 95 * time.Millisecond},
		{"p99 of 1..100", hundred, 99, 99 * time.Millisecond},
		{"max of 1..100", hundred, 100, 100 * time.Millisecond},
		{"tiny p is the minimum", hundred, 0.001, time.Millisecond},
		{"p50 of two rounds down", []time.Duration{1, 9}, 50, 1},
		{"p51 of two rounds up", []time.Duration{1, 9}, 51, 9},
		{"p95 of ten is the largest", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 10},
		{"p90 of ten", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("percentile(%d values, %g) = %v, want %v", len(tc.sorted), tc.p, got, tc.want)
			}
		})
	}
}

// TestRun drives a fake calendard on loopback with a request budget, so it ends without waiting for
// the duration, and checks that every kind of request was sent and reported.
func TestRun(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	queries := map[string]bool{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries[r.URL.RawQuery] = true
		mu.Unlock()
		lang, path := "", r.URL.Path
		if !strings.HasPrefix(path, api) {
			lang, path = path[1:3], path[3:]
		}
		var body any
		switch path {
		case api + "/categories":
			body = map[string]any{"categories": []any{map[string]any{"id": 3, "slug": "jazz"}}}
		case api + "/tags":
			body = map[string]any{"tags": []any{map[string]any{"id": 9, "slug": "été"}}}
		case api + "/venues":
			body = map[string]any{"venues": []any{map[string]any{"id": 12, "geo_lat": 48.85, "geo_lng": 2.35}}}
		case api + "/events":
			if r.URL.Query().Get("page") == "3" {
				w.WriteHeader(http.StatusNotFound)
			}
			body = map[string]any{"events": []any{}, "total": 0}
			if lang == "fr" {
				body = map[string]any{"events": []any{map[string]any{"title": "Festival de théâtre"}}, "total": 30}
			}
		default:
			w.WriteHeader(http.StatusNotFound)
			body = map[string]any{}
		}
		json.NewEncoder(w).Encode(body)
	}))
	defer ts.Close()
	var out bytes.Buffer
	// The test server runs in this process: its CPU time is this process's.
	err := run(context.Background(), []string{"-base-url", ts.URL, "-clients", "4", "-requests", "400", "-duration", "1m",
		"-server-pid", strconv.Itoa(os.Getpid())}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	report := out.String()
	for _, k := range kinds {
		if !strings.Contains(report, "\n"+k.name) && !strings.Contains(report, " "+k.name+" ") {
			t.Errorf("no row for %s in\n%s", k.name, report)
		}
	}
	for _, want := range []string{"400 requests", "req/s", "p99 ms", "404×", "ms per 1,000 requests", "% of a core"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !queries["per_page=10&search=th%C3%A9%C3%A2tre"] {
		t.Error("no search for a word of the event titles")
	}
}

// TestGzipFlag: the generator asks for compressed answers only with -gzip, so that by default it does
// not spend the shared cores decompressing.
func TestGzipFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"-gzip"}, true}} {
		var asked atomic.Bool
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				asked.Store(true)
			}
			w.Write([]byte(`{"events":[{"title":"Jazz night"}],"total":1,"categories":[],"tags":[],"venues":[]}`))
		}))
		args := append([]string{"-base-url", ts.URL, "-clients", "2", "-requests", "20", "-duration", "1m"}, tc.args...)
		err := run(context.Background(), args, io.Discard, io.Discard)
		ts.Close()
		if err != nil {
			t.Fatal(err)
		}
		if asked.Load() != tc.want {
			t.Errorf("%v: asked for gzip %v, want %v", tc.args, asked.Load(), tc.want)
		}
	}
}

// TestParseStatCPU: utime and stime are read after the command field, whatever it holds, and a line
// that is not /proc/PID/stat's is an error.
func TestParseStatCPU(t *testing.T) {
	const rest = " S 1 2 3 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 9 0 12345 100000 2000"
	for _, tc := range []struct {
		name, line string
		want       time.Duration
		err        bool
	}{
		{"a plain command", "4242 (calendard)" + rest, 3250 * time.Millisecond, false},
		{"spaces and parentheses in the command", "4242 (cal (x) d)" + rest, 3250 * time.Millisecond, false},
		{"no command field", "4242 calendard" + rest, 0, true},
		{"too few fields", "4242 (calendard) S 1 2 3", 0, true},
		{"not a number", "4242 (calendard) S 1 2 3 0 -1 4194560 100 0 0 0 x 75", 0, true},
	} {
		got, err := parseStatCPU(tc.line)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%s: %v, %v; want %v (error %v)", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// TestFlagBounds: the flags' bounds are refused with what is wrong.
func TestFlagBounds(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-clients", "0"}, "clients must be between"},
		{[]string{"-duration", "2h"}, "duration must be positive"},
		{[]string{"-requests", "-1"}, "requests must not be negative"},
		{[]string{"-timeout", "0s"}, "timeout must be positive"},
		{[]string{"-server-pid", "-3"}, "server-pid must not be negative"},
	} {
		if _, err := parseFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}
