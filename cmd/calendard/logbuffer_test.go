package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestLogBuffer: lines wait in the buffer until the interval has passed since the first of them, a
// line that would overfill it sends those before it, and Flush, Stop and the lines after Stop reach
// the output at once, in order.
func TestLogBuffer(t *testing.T) {
	for _, tc := range []struct {
		name string
		// steps act on the buffer; then want is the output, and wantLater the output once the
		// interval has passed.
		steps           func(b *logBuffer)
		want, wantLater string
	}{
		{name: "a line waits for the interval",
			steps: func(b *logBuffer) { b.Write([]byte("a\n")) }, want: "", wantLater: "a\n"},
		{name: "lines wait for the interval from the first",
			steps: func(b *logBuffer) {
				b.Write([]byte("a\n"))
				time.Sleep(time.Second / 2)
				b.Write([]byte("b\n"))
				time.Sleep(time.Second/2 - time.Nanosecond)
			}, want: "", wantLater: "a\nb\n"},
		{name: "a line past the size sends those before it",
			steps: func(b *logBuffer) { b.Write([]byte("0123456789\n")); b.Write([]byte("a\n")) }, want: "0123456789\n", wantLater: "0123456789\na\n"},
		{name: "flush",
			steps: func(b *logBuffer) { b.Write([]byte("a\n")); b.Flush(); b.Write([]byte("b\n")) }, want: "a\n", wantLater: "a\nb\n"},
		{name: "sync",
			steps: func(b *logBuffer) { b.Write([]byte("a\n")); b.Sync() }, want: "a\n", wantLater: "a\n"},
		{name: "stop, and the lines after it",
			steps: func(b *logBuffer) { b.Write([]byte("a\n")); b.Stop(); b.Write([]byte("b\n")) }, want: "a\nb\n", wantLater: "a\nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out syncBuffer // read while the flush's goroutine may write
				b := newLogBuffer(&out, time.Second, 12)
				tc.steps(b)
				synctest.Wait()
				if got := out.String(); got != tc.want {
					t.Errorf("output %q, want %q", got, tc.want)
				}
				// Just past the flush's instant: a goroutine woken at that very instant may run before it.
				time.Sleep(time.Second + time.Nanosecond)
				synctest.Wait()
				if got := out.String(); got != tc.wantLater {
					t.Errorf("output after the interval %q, want %q", got, tc.wantLater)
				}
			})
		})
	}
}

// TestNewServeLogger: serve's log holds an info line for up to logFlushInterval, writes a warn or
// error line at once with the lines before it, and writes everything when stopped.
func TestNewServeLogger(t *testing.T) {
	cfg, ok := parseTestConfig(t, nil, nil, "")
	if !ok {
		return
	}
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		log, stderr, stop := newServeLogger(cfg, &out)
		lines := func() string {
			synctest.Wait()
			var msgs []string
			for line := range strings.Lines(out.String()) {
				_, msg, _ := strings.Cut(line, `"msg":"`)
				msg, _, _ = strings.Cut(msg, `"`)
				msgs = append(msgs, msg)
			}
			return strings.Join(msgs, " ")
		}

		log.Info("first")
		if got := lines(); got != "" {
			t.Fatalf("lines before the interval: %q, want none", got)
		}
		time.Sleep(logFlushInterval + time.Nanosecond)
		if got := lines(); got != "first" {
			t.Fatalf("lines after the interval: %q, want first", got)
		}
		log.Info("second")
		log.Warn("third")
		if got := lines(); got != "first second third" {
			t.Fatalf("lines after a warning: %q", got)
		}
		log.Info("fourth")
		log.Error("fifth")
		if got := lines(); got != "first second third fourth fifth" {
			t.Fatalf("lines after an error: %q", got)
		}
		log.Info("sixth")
		stderr.Write([]byte(`{"msg":"seventh"}` + "\n"))
		stop()
		if got := lines(); got != "first second third fourth fifth sixth seventh" {
			t.Fatalf("lines after stop: %q", got)
		}
	})
}

// TestServeLogsRequestsBeforeStopping runs serve as main does, with its stderr a pipe (buffered, as a
// service manager's is): a request's line, held in the buffer, is in the log once serve has stopped
// gracefully, with the fields of every line.
func TestServeLogsRequestsBeforeStopping(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := lookup(map[string]string{"CALENDAR_DATA_DIR": dir, "CALENDAR_LISTEN_ADDR": "127.0.0.1:0",
		"CALENDAR_ADMIN_APP_PASSWORD": adminPass, "CALENDAR_NOW": testNow}, backendEnv(t, dir, nil)...)
	logr, logw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- run(ctx, []string{"serve"}, env, io.Discard, logw) }()

	// The reader keeps the lines and names the address once serve logs "serving".
	var lines []string
	addr, read := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(logr)
		sc.Buffer(nil, 1<<20)
		var listening string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				listening = line.Addr
			}
			if line.Msg == "serving" {
				addr <- listening
			}
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-served:
		t.Fatalf("serve ended before serving: %v", err)
	}

	const path = "/calendar/events/v1/events"
	res, err := http.Get(base + path + "?per_page=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	logw.Close()
	<-read
	for _, line := range lines {
		if strings.Contains(line, `"msg":"request"`) && strings.Contains(line, `"path":"`+path+`"`) {
			if !strings.Contains(line, `"caller":"handlers/chain.go:`) {
				t.Errorf("the request line names no caller in handlers/chain.go: %s", line)
			}
			return
		}
	}
	t.Fatalf("no request line for %s in the log:\n%s", path, strings.Join(lines, "\n"))
}
