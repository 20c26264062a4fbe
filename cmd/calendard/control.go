package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
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
// server carries them out (README "Users"). It lives in the data directory, which only its owner can
// enter, and is itself readable and writable by the owner only.
const (
	socketName     = "calendard.sock"
	controlTimeout = 10 * time.Second
	// maxControlRequest bounds what the server reads of a request: a command and its flags.
	maxControlRequest = 64 << 10
)

// commandTimeout bounds a control command, on both sides of the socket: a backup copies the whole
// store, a webhook test waits for the receiver as long as a delivery may (webhookTimeout, the
// configured --webhook-timeout), and the other commands are quick.
func commandTimeout(cmd string, webhookTimeout time.Duration) time.Duration {
	switch cmd {
	case "backup":
		return backupTimeout
	case "webhook test":
		return controlTimeout + webhookTimeout
	}
	return controlTimeout
}

// A reply is a stream of frames, each a kind byte, a 4-byte big-endian length and that many bytes (at
// most maxFrame): the command's output in output frames, its error message (if any) in error frames,
// and an end frame. The output has no size limit this way (the user list grows with the site), and
// the client tells a reply cut short by a dying server from a complete one. A long command (backup)
// also sends progress frames meanwhile: bytes done and bytes expected, 8 bytes each, big-endian.
const (
	frameOutput   = 'o'
	frameError    = 'e'
	frameEnd      = '.'
	frameProgress = 'p'
	maxFrame      = 32 << 10
)

type controlRequest struct {
	Cmd  string    `json:"cmd"`
	Args adminArgs `json:"args"`
	// Target is the absolute path the server writes a backup to (cmd "backup").
	Target string `json:"target,omitempty"`
}

func socketPath(dataDir string) string { return filepath.Join(dataDir, socketName) }

// callControl sends req to the server running on dataDir, writing its output to stdout and passing
// its progress reports to progress (which may be nil). served is false when no server answers the
// socket (none runs, or a crashed one left the file behind): the caller then opens the store itself.
func callControl(ctx context.Context, dataDir string, req controlRequest, timeout time.Duration, stdout io.Writer, progress func(done, total uint64)) (served bool, err error) {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	conn, err := d.DialContext(dctx, "unix", socketPath(dataDir))
	if err != nil {
		return false, nil
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return true, fmt.Errorf("control socket: %w", err)
	}
	return true, readReply(conn, stdout, progress)
}

// readReply copies a reply's output to stdout as it arrives, passes its progress reports to progress
// (when set) and returns the command's error.
func readReply(r io.Reader, stdout io.Writer, progress func(done, total uint64)) error {
	br := bufio.NewReader(r)
	var msg []byte
	for {
		var hdr [5]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return fmt.Errorf("control socket: reply cut short: %w", err)
		}
		n := binary.BigEndian.Uint32(hdr[1:])
		if n > maxFrame {
			return fmt.Errorf("control socket: a frame of %d bytes", n)
		}
		switch hdr[0] {
		case frameOutput:
			if _, err := io.CopyN(stdout, br, int64(n)); err != nil {
				return fmt.Errorf("control socket: %w", err)
			}
		case frameError:
			part := make([]byte, n)
			if _, err := io.ReadFull(br, part); err != nil {
				return fmt.Errorf("control socket: reply cut short: %w", err)
			}
			msg = append(msg, part...)
		case frameProgress:
			var p [16]byte
			if n != uint32(len(p)) {
				return fmt.Errorf("control socket: a progress frame of %d bytes", n)
			}
			if _, err := io.ReadFull(br, p[:]); err != nil {
				return fmt.Errorf("control socket: reply cut short: %w", err)
			}
			if progress != nil {
				progress(binary.BigEndian.Uint64(p[:8]), binary.BigEndian.Uint64(p[8:]))
			}
		case frameEnd:
			if len(msg) > 0 {
				return errors.New(string(msg))
			}
			return nil
		default:
			return fmt.Errorf("control socket: unknown frame kind %q", hdr[0])
		}
	}
}

// writeFrames writes data as frames of kind, as many as its size needs.
func writeFrames(w io.Writer, kind byte, data []byte) error {
	for len(data) > 0 {
		n := min(len(data), maxFrame)
		if err := writeFrame(w, kind, data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

func writeFrame(w io.Writer, kind byte, data []byte) error {
	hdr := [5]byte{kind}
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(data)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
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
	var out bytes.Buffer
	cmdErr := a.runControl(conn, &out)
	w := bufio.NewWriter(conn)
	err := writeFrames(w, frameOutput, out.Bytes())
	if err == nil && cmdErr != nil {
		err = writeFrames(w, frameError, []byte(cmdErr.Error()))
	}
	if err == nil {
		err = writeFrame(w, frameEnd, nil)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		a.log.Warn("control reply not sent", zap.Error(err))
	}
}

// runControl reads one request from conn and carries it out, writing its output to out.
func (a *app) runControl(conn net.Conn, out io.Writer) error {
	var req controlRequest
	if err := json.NewDecoder(io.LimitReader(conn, maxControlRequest)).Decode(&req); err != nil {
		return fmt.Errorf("bad request: %w", err)
	}
	timeout := commandTimeout(req.Cmd, a.cfg.WebhookTimeout)
	conn.SetDeadline(time.Now().Add(timeout))
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	switch {
	case req.Cmd == "backup":
		t, err := backupTransfer(a.db)
		if err != nil {
			return err
		}
		// Sent at the start, as the work goes and at the end, so that the client has figures at once.
		// Nothing but these frames is written to conn until the backup is done; a client gone away
		// shows in the reply's write.
		report := func() {
			var p [16]byte
			binary.BigEndian.PutUint64(p[:8], t.done.Load())
			binary.BigEndian.PutUint64(p[8:], t.total.Load())
			_ = writeFrame(conn, frameProgress, p[:])
		}
		report()
		err = watch(barEvery, report, func() error { return writeBackup(ctx, a.db, req.Target, out, t) })
		report()
		a.log.Info("control command", zap.String("cmd", req.Cmd), zap.String("target", req.Target), zap.Bool("ok", err == nil))
		return err
	case !knownAdminCommand(req.Cmd):
		return fmt.Errorf("unknown command %q", req.Cmd)
	}
	err := runAdmin(ctx, a.db, a.webhooks, req.Cmd, req.Args, out)
	// The command, never its output: app-password create and webhook create print a secret.
	fields := []zap.Field{zap.String("cmd", req.Cmd), zap.Bool("ok", err == nil)}
	if req.Cmd == "trash" {
		fields = append(fields, zap.String("type", req.Args.Type), zap.Uint64("id", req.Args.ID))
	}
	a.log.Info("control command", fields...)
	return err
}
