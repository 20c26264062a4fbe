package handlers

import (
	"net/http/httptest"
	"testing"
)

// The client of a request is the connection's remote end unless that is a trusted proxy; then the
// right-most hop of X-Forwarded-For that is not one, whatever a client wrote to its left.
func TestClientAddr(t *testing.T) {
	proxies, err := ParseProxies(" 127.0.0.1, 10.0.0.0/8 ,::1,")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, remote string
		xff          []string
		trusted      bool
		want         string
	}{
		{"no proxy trusted", "127.0.0.1:5000", []string{"203.0.113.1"}, false, "127.0.0.1"},
		{"a client's own header", "198.51.100.7:5000", []string{"203.0.113.1"}, true, "198.51.100.7"},
		{"one proxy", "127.0.0.1:5000", []string{"203.0.113.1"}, true, "203.0.113.1"},
		{"a spoofed hop on the left", "127.0.0.1:5000", []string{"6.6.6.6, 203.0.113.1"}, true, "203.0.113.1"},
		{"two proxies", "127.0.0.1:5000", []string{"203.0.113.1, 10.1.2.3"}, true, "203.0.113.1"},
		{"header lines", "127.0.0.1:5000", []string{"6.6.6.6", "203.0.113.1, 10.1.2.3"}, true, "203.0.113.1"},
		{"every hop a proxy", "127.0.0.1:5000", []string{"10.0.0.2, 10.0.0.3"}, true, "10.0.0.2"},
		{"no header", "127.0.0.1:5000", nil, true, "127.0.0.1"},
		{"a hop that is no address", "127.0.0.1:5000", []string{"203.0.113.1, junk"}, true, "127.0.0.1"},
		{"IPv6", "[::1]:5000", []string{"2001:db8::7"}, true, "2001:db8::7"},
		{"IPv4 in IPv6", "[::ffff:127.0.0.1]:5000", []string{"::ffff:203.0.113.1"}, true, "203.0.113.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Handler{}
			if tc.trusted {
				h.proxies = proxies
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := h.clientAddr(r); got != tc.want {
				t.Errorf("client %s, want %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"proxy.example", "10.0.0.0/33", "fe80::1%eth0", "1.2.3"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) accepted", bad)
		}
	}
}
