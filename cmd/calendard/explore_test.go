package main

import (
	"net"
	"testing"
)

func TestExplorerURL(t *testing.T) {
	tests := []struct {
		base, addr, want string
	}{
		{"", "127.0.0.1:8080", "http://127.0.0.1:8080/explore/"},
		{"", "0.0.0.0:8080", "http://localhost:8080/explore/"},
		{"", "[::]:8080", "http://localhost:8080/explore/"},
		{"", "[::1]:9000", "http://[::1]:9000/explore/"},
		{"https://events.example", "127.0.0.1:8080", "https://events.example/explore/"},
		{"https://example.org/calendar", "0.0.0.0:8080", "https://example.org/calendar/explore/"},
	}
	for _, tt := range tests {
		addr, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := explorerURL(tt.base, addr); got != tt.want {
			t.Errorf("explorerURL(%q, %s) = %q, want %q", tt.base, tt.addr, got, tt.want)
		}
	}
}
