package main

import (
	"bufio"
	"io"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

// unitSettings reads the Key=Value lines of a systemd unit file (of a key set twice, the last).
func unitSettings(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	settings := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			settings[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return settings
}

// TestSystemdUnitMatchesTheBinary: the unit waits longer than the graceful shutdown takes before it
// kills the service, and its command line is one serve accepts.
func TestSystemdUnitMatchesTheBinary(t *testing.T) {
	unit := unitSettings(t, "../../docs/deploy/calendard.service")
	stop, err := time.ParseDuration(unit["TimeoutStopSec"])
	if err != nil {
		t.Fatalf("TimeoutStopSec: %v", err)
	}
	if stop <= shutdownTimeout {
		t.Errorf("TimeoutStopSec=%s kills the service before its graceful shutdown (%s) can end", stop, shutdownTimeout)
	}
	exec := strings.Fields(unit["ExecStart"])
	if len(exec) < 2 || exec[1] != "serve" {
		t.Fatalf("ExecStart=%v does not run calendard serve", exec)
	}
	if _, err := parseConfig("serve", exec[2:], func(string) string { return "" }, io.Discard); err != nil {
		t.Errorf("ExecStart's flags: %v", err)
	}
}

// TestDeployEnvironment: the example environment file is one serve accepts, and trusts its proxy's
// X-Forwarded-For, as the Caddyfile beside it needs.
func TestDeployEnvironment(t *testing.T) {
	env := unitSettings(t, "../../docs/deploy/calendard.env")
	cfg, err := parseConfig("serve", nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatalf("calendard.env: %v", err)
	}
	if len(cfg.trustedProxies) == 0 || !cfg.trustedProxies[0].Contains(netip.MustParseAddr("127.0.0.1")) {
		t.Errorf("calendard.env trusts %v, not the proxy on loopback", cfg.trustedProxies)
	}
}
