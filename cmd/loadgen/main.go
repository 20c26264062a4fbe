// Command loadgen drives a running calendard with concurrent clients over a mix of list and search
// requests, then prints throughput, latency percentiles and non-2xx counts per kind of request.
//
//	go run ./cmd/loadgen -base-url http://127.0.0.1:8080 -clients 50 -duration 30s
//
// It first reads categories, tags, venues and a page of events of every language through the API, so
// that its filters and search words exist in the data it targets (calendard seed makes such data). It
// stops by itself after -duration or -requests, whichever comes first. It only connects to loopback
// addresses: it is for measuring a local server, not for loading someone else's.
//
// With -replay it serves, instead, each answer of the server fetched once and then copied from
// memory: the same mix driven against that twice measures the most any server can do on the machine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// run is the whole program: parse flags, discover the data, drive the load, print the report.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	c := newClient(cfg)
	if cfg.replay != "" {
		l, err := net.Listen("tcp", cfg.replay)
		if err != nil {
			return err
		}
		return serveReplay(ctx, c, l, stderr)
	}
	t, err := discover(ctx, c)
	if err != nil {
		return fmt.Errorf("discover the data of %s: %w", cfg.base, err)
	}
	fmt.Fprintf(stderr, "loadgen: %d categories, %d tags, %d language prefixes with events; %d clients for %s against %s\n",
		len(t.categories)/2, len(t.tags)/2, len(t.langs), cfg.clients, cfg.duration, cfg.base)
	var before time.Duration
	if cfg.serverPID > 0 {
		if before, err = cpuTime(cfg.serverPID); err != nil {
			return err
		}
	}
	res := drive(ctx, c, t, cfg)
	if cfg.serverPID > 0 {
		after, err := cpuTime(cfg.serverPID)
		if err != nil {
			return err
		}
		res.serverCPU = after - before
	}
	return res.write(stdout, cfg)
}
