package main

import (
	"io"
	"sync"
	"time"
)

// How serve's log is buffered (newServeLogger). One write to stderr a request line was a tenth of a
// cached answer's CPU (docs/BENCHMARKS.md, "Where a cached answer's time goes"); gathered, a write
// carries hundreds of lines. A line waits at most logFlushInterval, which is what README's logging
// paragraph promises; logBufferBytes bounds the memory and what a killed process loses.
const (
	logFlushInterval = time.Second
	logBufferBytes   = 64 << 10
)

// logBuffer gathers lines in memory and writes them to out together: at most interval after the first
// line it holds, before a line that would take it past size, on Flush and Sync, and on Stop, after
// which every write goes straight to out. Writes reach out in the order they were made. A failed
// write drops what it carried: a log must not grow without bound behind a closed stderr.
type logBuffer struct {
	out      io.Writer
	interval time.Duration
	size     int

	mu      sync.Mutex
	buf     []byte
	timer   *time.Timer // the pending flush, set while buf holds lines
	stopped bool
}

func newLogBuffer(out io.Writer, interval time.Duration, size int) *logBuffer {
	return &logBuffer{out: out, interval: interval, size: size, buf: make([]byte, 0, size)}
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return b.out.Write(p)
	}
	if len(b.buf)+len(p) > b.size {
		if err := b.flush(); err != nil {
			return 0, err
		}
	}
	b.buf = append(b.buf, p...)
	if b.timer == nil {
		b.timer = time.AfterFunc(b.interval, func() { _ = b.Flush() })
	}
	return len(p), nil
}

// Flush writes out what the buffer holds.
func (b *logBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flush()
}

// Sync flushes the buffer, then syncs out when it can be: zap calls it after a line at DPanic or
// above, and Logger.Sync at the end of serve.
func (b *logBuffer) Sync() error {
	if err := b.Flush(); err != nil {
		return err
	}
	if s, ok := b.out.(interface{ Sync() error }); ok {
		return s.Sync()
	}
	return nil
}

// Stop flushes the buffer and ends the buffering: later lines, of whatever outlives serve, are not
// held by a buffer that nothing flushes any more.
func (b *logBuffer) Stop() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	return b.flush()
}

func (b *logBuffer) flush() error {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.out.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}
