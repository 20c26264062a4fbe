package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Defaults and bounds of the flags.
const (
	defaultBaseURL  = "http://127.0.0.1:8080"
	defaultClients  = 50
	defaultDuration = 30 * time.Second
	defaultTimeout  = 10 * time.Second
	maxClients      = 10000
	// maxDuration bounds a run, so that a typo in -duration cannot leave load running for days.
	maxDuration = time.Hour
)

// config is a parsed command line.
type config struct {
	base     *url.URL
	clients  int
	duration time.Duration
	// requests bounds the number of requests; 0 leaves only the duration.
	requests int
	timeout  time.Duration
	seed     uint64
	// gzip asks for compressed answers (Accept-Encoding: gzip) and decompresses them, as browsers do.
	// Off by default: the generator shares the server's cores, and decompressing every answer there
	// would measure the client as much as the server.
	gzip bool
	// replay, a loopback address, serves a replay of base-url there instead of driving it (replay.go).
	replay string
	// serverPID, when set, is the server's process, whose CPU time per 1,000 requests the report gives.
	serverPID int
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base-url", defaultBaseURL, "origin of the calendard to drive; loopback hosts only")
	fs.IntVar(&c.clients, "clients", defaultClients, "concurrent clients, each with one request in flight")
	fs.DurationVar(&c.duration, "duration", defaultDuration, "how long to send requests (at most 1h)")
	fs.IntVar(&c.requests, "requests", 0, "stop after this many requests (0: only -duration bounds the run)")
	fs.DurationVar(&c.timeout, "timeout", defaultTimeout, "time limit of one request")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed of the request mix")
	fs.BoolVar(&c.gzip, "gzip", false, "ask for gzip-compressed answers and decompress them, as browsers do")
	fs.StringVar(&c.replay, "replay", "", "instead of driving base-url, serve at this loopback host:port each answer of base-url\n"+
		"fetched once and then copied from memory: the ceiling of any server under the mix")
	fs.IntVar(&c.serverPID, "server-pid", 0, "process ID of the server: the report gives its CPU time (from /proc/PID/stat) per 1,000 requests,\n"+
		"which compares runs whose req/s the generator caps on shared cores (0: not measured)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if c.base, err = loopbackURL(*base); err != nil {
		return c, err
	}
	if c.replay != "" {
		if _, err := loopbackURL("http://" + c.replay); err != nil {
			return c, fmt.Errorf("replay: %q is not a loopback host:port", c.replay)
		}
	}
	switch {
	case c.clients < 1 || c.clients > maxClients:
		return c, fmt.Errorf("clients must be between 1 and %d", maxClients)
	case c.duration <= 0 || c.duration > maxDuration:
		return c, fmt.Errorf("duration must be positive and at most %s", maxDuration)
	case c.requests < 0:
		return c, errors.New("requests must not be negative")
	case c.timeout <= 0:
		return c, errors.New("timeout must be positive")
	case c.serverPID < 0:
		return c, errors.New("server-pid must not be negative")
	}
	return c, nil
}

// loopbackURL parses the base URL and refuses any whose host is not a loopback address (127.0.0.0/8,
// ::1) or "localhost". The dialer checks the address actually connected to as well (see newClient),
// since "localhost" is only a name.
func loopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base-url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base-url %q must be http(s)://host[:port][/path]", raw)
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("base-url %q: host %q is not a loopback address; loadgen only drives a local server", raw, u.Hostname())
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
