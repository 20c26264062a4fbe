package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthzURL(t *testing.T) {
	tests := []struct{ addr, want, wantErr string }{
		{"127.0.0.1:8080", "http://127.0.0.1:8080/healthz", ""},
		{":8080", "http://127.0.0.1:8080/healthz", ""},
		{"0.0.0.0:8080", "http://127.0.0.1:8080/healthz", ""},
		{"[::]:8080", "http://127.0.0.1:8080/healthz", ""},
		{"[::1]:9000", "http://[::1]:9000/healthz", ""},
		{"calendar.internal:80", "http://calendar.internal:80/healthz", ""},
		{"8080", "", "missing port"},
	}
	for _, tc := range tests {
		t.Run(tc.addr, func(t *testing.T) {
			got, err := healthzURL(tc.addr)
			if got != tc.want || tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("healthzURL(%q) = %q, %v; want %q, an error containing %q", tc.addr, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestHealthcheck: the command passes against a running server and fails against one that answers
// otherwise, and when nothing listens.
func TestHealthcheck(t *testing.T) {
	base, stop := serveDir(t, t.TempDir())
	addr := strings.TrimPrefix(base, "http://")
	if out, err := runCmd(t, t.TempDir(), "healthcheck", "--listen-addr", addr); err != nil || out != "ok\n" {
		t.Errorf("against a running server: %q, %v", out, err)
	}
	stop()
	if _, err := runCmd(t, t.TempDir(), "healthcheck", "--listen-addr", addr); err == nil {
		t.Error("passed with no server listening")
	}
	sick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			t.Errorf("probed %s", r.URL.Path)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer sick.Close()
	if _, err := runCmd(t, t.TempDir(), "healthcheck", "--listen-addr", strings.TrimPrefix(sick.URL, "http://")); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("against a server answering 503: %v", err)
	}
}

// TestVersion: the version command prints what the build set with -ldflags "-X main.version=…".
func TestVersion(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v1.2.3-4-gabcdef0"
	if out, err := runCmd(t, t.TempDir(), "version"); err != nil || out != "v1.2.3-4-gabcdef0\n" {
		t.Errorf("version: %q, %v", out, err)
	}
}
