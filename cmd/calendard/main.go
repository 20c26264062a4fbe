// Command calendard serves the calendar/events/v1 REST API from one data directory.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "calendard:", err)
		stop()
		os.Exit(exitStatus(err))
	}
}

// exitError is an error that ends the process with a status of its own rather than 1, for a command
// whose callers (cron jobs, scripts) must tell one failure from another (docs/IMPORT.md, exit status).
type exitError struct {
	status int
	err    error
}

func (e *exitError) Error() string { return e.err.Error() }

func (e *exitError) Unwrap() error { return e.err }

// exitStatus is the status the process ends with after err: an exitError's, else 1.
func exitStatus(err error) int {
	if ee := (*exitError)(nil); errors.As(err, &ee) {
		return ee.status
	}
	return 1
}
