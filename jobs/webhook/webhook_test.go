package webhook

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{" 3 ", 3 * time.Second},
		{"Mon, 07 Dec 2026 10:00:30 GMT", 30 * time.Second},
		{"Mon, 07 Dec 2026 09:00:00 GMT", 0}, // in the past
		{"soon", 0},
		{"-5", 0},
	}
	for _, tc := range tests {
		if got := retryAfter(tc.header, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %s, want %s", tc.header, got, tc.want)
		}
	}
}

// TestRetrySchedule: each retry waits its step ±20 %, and the schedule ends after its last step.
func TestRetrySchedule(t *testing.T) {
	d := New(nil, Options{})
	for n, base := range DefaultSchedule {
		for range 50 {
			got, ok := d.retryIn(n + 1)
			if !ok || got < base*8/10 || got > base*12/10 {
				t.Fatalf("retry %d waits %s (%v); want %s ±20 %%", n+1, got, ok, base)
			}
		}
	}
	if _, ok := d.retryIn(len(DefaultSchedule) + 1); ok {
		t.Error("a retry after the last step of the schedule")
	}
	if got, _ := New(nil, Options{Jitter: -1, Schedule: []time.Duration{time.Second}}).retryIn(1); got != time.Second {
		t.Errorf("without jitter: %s, want 1s", got)
	}
}

func TestMessageID(t *testing.T) {
	a := messageID(1, 10)
	for _, other := range []string{messageID(1, 11), messageID(2, 10), messageID(11, 0)} {
		if other == a {
			t.Errorf("two deliveries share the ID %s", a)
		}
	}
	if a != messageID(1, 10) || !strings.HasPrefix(a, "msg_") || strings.Contains(a, ".") {
		t.Errorf("messageID(1, 10) = %s: want the same on every call, msg_ and no dot", a)
	}
}

func TestPrivateAddresses(t *testing.T) {
	tests := []struct {
		addr    string
		private bool
	}{
		{"127.0.0.1:443", true},
		{"[::1]:443", true},
		{"10.1.2.3:443", true},
		{"172.16.0.1:443", true},
		{"192.168.1.1:443", true},
		{"169.254.169.254:80", true}, // cloud metadata
		{"[fe80::1]:443", true},
		{"[fd00::1]:443", true},
		{"0.0.0.0:443", true},
		{"[::ffff:127.0.0.1]:443", true},
		{"93.184.216.34:443", false},
		{"[2606:4700::1111]:443", false},
	}
	for _, tc := range tests {
		err := dialControl("tcp", tc.addr, nil)
		if got := errors.Is(err, ErrPrivateAddress); got != tc.private {
			t.Errorf("dial %s: %v; want refused %v", tc.addr, err, tc.private)
		}
		if privateAddr(netip.MustParseAddrPort(tc.addr).Addr()) != tc.private {
			t.Errorf("privateAddr(%s) != %v", tc.addr, tc.private)
		}
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url                     string
		allowHTTP, allowPrivate bool
		wantErr                 string
	}{
		{"https://127.0.0.1/hook", false, true, ""},
		{"http://127.0.0.1/hook", true, true, ""},
		{"http://127.0.0.1/hook", false, true, "https://"},
		{"https://127.0.0.1/hook", false, false, "private"},
		{"https://[::1]:8443/hook", false, false, "private"},
		{"https://localhost/hook", false, false, "private"},
		{"ftp://example.org/", true, true, "https://"},
		{"https:///nohost", false, true, "no host"},
		{"https://u:p@example.org/", false, true, "credentials"},
		{"https://example.org/#frag", false, true, "fragment"},
		{"://bad", false, true, "parse"},
	}
	for _, tc := range tests {
		err := CheckURL(context.Background(), tc.url, tc.allowHTTP, tc.allowPrivate)
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("CheckURL(%q, http %v, private %v) = %v; want %q", tc.url, tc.allowHTTP, tc.allowPrivate, err, tc.wantErr)
		}
	}
}
