package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// healthcheckTimeout bounds the probe, so that a server that accepts but never answers fails the
// check instead of hanging it.
const healthcheckTimeout = 5 * time.Second

// healthcheck asks the server on the listen address for /healthz and fails unless it answers 200. It
// is the container image's HEALTHCHECK: the image has no shell and no curl.
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("healthcheck", args, getenv, stderr)
	if err != nil {
		return err
	}
	url, err := healthzURL(cfg.ListenAddr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s answered %s", url, res.Status)
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}

// healthzURL is the /healthz URL of a server listening on addr. A server listening on every interface
// (no host, 0.0.0.0 or ::) is asked on loopback.
func healthzURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen-addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz", nil
}
