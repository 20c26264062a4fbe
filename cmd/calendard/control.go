package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"
)

// The control socket lets the operator commands work while a server holds the store's file lock: the
// server carries them out (CONTRACT 7.7). It lives in the data directory, which only its owner can
// enter, and is itself readable and writable by the owner only.
const (
	socketName     = "calendard.sock"
	controlTimeout = 10 * time.Second
	maxControlSize = 64 << 10
)

type controlRequest struct {
	Cmd  string    `json:"cmd"`
	Args adminArgs `json:"args"`
	// Target is the absolute path the server writes a backup to (cmd "backup").
	Target string `json:"target,omitempty"`
}

type controlResponse struct {
	Output string `json:"output"`
	Error  string `json:"error,omitempty"`
}

func socketPath(dataDir string) string { return filepath.Join(dataDir, socketName) }

// callControl sends req to the server running on dataDir, writing its output to stdout. served is
// false when no server answers the socket (none runs, or a crashed one left the file behind): the
// caller then opens the store itself.
func callControl(ctx context.Context, dataDir string, req controlRequest, stdout io.Writer) (served bool, err error) {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	conn, err := d.DialContext(dctx, "unix", socketPath(dataDir))
	if err != nil {
		return false, nil
	}
	defer conn.Close()
	timeout := controlTimeout
	if req.Cmd == "backup" {
		timeout = backupTimeout
	}
	conn.SetDeadline(time.Now().Add(timeout))
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return true, fmt.Errorf("control socket: %w", err)
	}
	var res controlResponse
	if err := json.NewDecoder(io.LimitReader(conn, maxControlSize)).Decode(&res); err != nil {
		return true, fmt.Errorf("control socket: %w", err)
	}
	io.WriteString(stdout, res.Output)
	if res.Error != "" {
		return true, errors.New(res.Error)
	}
	return true, nil
}

// serveControl answers operator commands on the data directory's socket until stop is called. The
// caller holds the store's file lock, so a socket file already there was left by a server that is
// gone and is replaced.
func (a *app) serveControl() (stop func(), err error) {
	path := socketPath(a.cfg.DataDir)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // closed by stop
			}
			wg.Go(func() { a.handleControl(conn) })
		}
	})
	return func() {
		ln.Close()
		wg.Wait()
		os.Remove(path)
	}, nil
}

func (a *app) handleControl(conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(controlTimeout))
	var req controlRequest
	var res controlResponse
	if err := json.NewDecoder(io.LimitReader(conn, maxControlSize)).Decode(&req); err != nil {
		res.Error = "bad request: " + err.Error()
	} else if req.Cmd == "backup" {
		conn.SetDeadline(time.Now().Add(backupTimeout))
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), backupTimeout)
		if err := writeBackup(ctx, a.db, req.Target, &out); err != nil {
			res.Error = err.Error()
		}
		cancel()
		res.Output = out.String()
		a.log.Info("control command", zap.String("cmd", req.Cmd), zap.String("target", req.Target), zap.Bool("ok", res.Error == ""))
	} else if !knownAdminCommand(req.Cmd) {
		res.Error = fmt.Sprintf("unknown command %q", req.Cmd)
	} else {
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
		if err := runAdmin(ctx, a.db, req.Cmd, req.Args, &out); err != nil {
			res.Error = err.Error()
		}
		cancel()
		res.Output = out.String()
		// The command, never its output: app-password create prints a secret.
		a.log.Info("control command", zap.String("cmd", req.Cmd), zap.Bool("ok", res.Error == ""))
	}
	json.NewEncoder(conn).Encode(res)
}
