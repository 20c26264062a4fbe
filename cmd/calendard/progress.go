package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/calendard/calendard/storage/task"
)

// watch runs work and calls report every `every` meanwhile: the one way a long operation shows that
// it is working and how far it has come (the server's index load in its log, reindex on the
// terminal).
func watch(every time.Duration, report func(), work func() error) error {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				report()
			}
		}
	})
	err := work()
	close(done)
	wg.Wait()
	return err
}

// How often a command reports its progress: a bar redraws often, a line every few seconds is what
// a log file or a pipe wants.
const (
	barEvery  = 200 * time.Millisecond
	lineEvery = 5 * time.Second
)

// isTerminal reports whether w is a terminal a progress bar can redraw on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// unit is what a long operation counts: its figures read as numbers of records or as bytes.
type unit int

const (
	records unit = iota
	byteCount
)

// format writes an amount of u: a count as it is, bytes in SI units (as progressbar shows them).
func (u unit) format(n float64) string {
	if u == records {
		return strconv.FormatFloat(n, 'f', 0, 64)
	}
	const k = 1000
	if n < k {
		return strconv.FormatFloat(n, 'f', 0, 64) + " B"
	}
	prefixes := "kMGTPE"
	i := 0
	for n /= k; n >= k && i < len(prefixes)-1; i++ {
		n /= k
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + " " + prefixes[i:i+1] + "B"
}

// formatRate writes a rate of u a second. A count of fewer than ten a second keeps a decimal: the
// languages of an index build merge at about one a second, which whole numbers showed as 0/s or 1/s.
func (u unit) formatRate(r float64) string {
	if u == records && r > 0 && r < 10 {
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
	return u.format(r)
}

// progressLine is the figures of p as one line of a log: done of total, the rate so far and the time
// left at that rate; without a total (a copy of a cluster key by key), what is done and the rate.
func progressLine(p task.Progress, u unit, now time.Time) string {
	rate := 0.0
	if elapsed := now.Sub(p.Started).Seconds(); elapsed > 0 {
		rate = float64(p.Done) / elapsed
	}
	if p.Total == 0 {
		return fmt.Sprintf("%s: %s, %s/s", p.Phase, u.format(float64(p.Done)), u.formatRate(rate))
	}
	return fmt.Sprintf("%s: %s of %s, %s/s, %s left", p.Phase, u.format(float64(p.Done)), u.format(float64(p.Total)),
		u.formatRate(rate), p.Remaining(now).Round(time.Second))
}

// progressDone is the final figures of p as one line of a log: what was done, in how long, at what
// rate.
func progressDone(p task.Progress, u unit, now time.Time) string {
	elapsed := now.Sub(p.Started)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.Done) / elapsed.Seconds()
	}
	return fmt.Sprintf("%s: done, %s in %s, %s/s", p.Phase, u.format(float64(p.Done)), elapsed.Round(time.Millisecond), u.formatRate(rate))
}

// progressFailed is the figures of p as the last line of an operation that failed in its phase p: what
// was done of it, in how long. It never says "done".
func progressFailed(p task.Progress, u unit, now time.Time) string {
	return fmt.Sprintf("%s: failed, %s in %s", p.Phase, u.format(float64(p.Done)), now.Sub(p.Started).Round(time.Millisecond))
}

// progressReporter shows a long operation's figures, read with progress and counted in u, on w: as a
// progress bar (bar), or as a line a report. finish completes the bar, or closes the lines with the
// final figures when the operation was long enough to show lines; when the operation failed
// (failed), it leaves the bar where it stopped and says the phase failed, however long it took.
// Nothing shows until the operation knows how much it has to do, or, when it cannot know (a copy of
// a cluster), has done something: its bar is then a spinner with the count.
func progressReporter(w io.Writer, progress func() task.Progress, u unit, bar bool) (report func(), finish func(long, failed bool)) {
	shown := func(p task.Progress) bool { return p.Phase != "" && (p.Total > 0 || p.Done > 0) }
	if !bar {
		return func() {
				if p := progress(); shown(p) {
					fmt.Fprintln(w, progressLine(p, u, time.Now()))
				}
			}, func(long, failed bool) {
				switch p := progress(); {
				case failed && p.Phase != "":
					fmt.Fprintln(w, progressFailed(p, u, time.Now()))
				case long && shown(p):
					fmt.Fprintln(w, progressDone(p, u, time.Now()))
				}
			}
	}
	var b *progressbar.ProgressBar
	phase, known := "", false
	return func() {
			p := progress()
			if !shown(p) {
				return
			}
			if p.Phase != phase || (p.Total > 0) != known {
				if b != nil {
					_ = b.Finish()
				}
				phase, known = p.Phase, p.Total > 0
				opts := []progressbar.Option{progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(p.Phase),
					progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) })}
				// A bar of bytes shows its rate in bytes; another shows it in items.
				if u == byteCount {
					opts = append(opts, progressbar.OptionShowBytes(true))
				} else {
					opts = append(opts, progressbar.OptionShowIts())
				}
				max := int64(p.Total)
				if !known {
					max = -1 // a spinner
				}
				b = progressbar.NewOptions64(max, opts...)
			}
			if !known {
				_ = b.Set64(int64(p.Done))
				return
			}
			_ = b.Set64(int64(min(p.Done, p.Total)))
		}, func(_, failed bool) {
			p := progress()
			switch {
			case failed && b != nil:
				_ = b.Exit()
				fmt.Fprintln(w)
				fallthrough
			case failed && p.Phase != "":
				fmt.Fprintln(w, progressFailed(p, u, time.Now()))
			case b != nil:
				_ = b.Finish()
			}
		}
}

// showProgress runs work while progressReporter shows its figures, counted in records, on w: as a bar
// on a terminal and as a line every lineEvery otherwise.
func showProgress(w io.Writer, progress func() task.Progress, work func() error) error {
	return showProgressEvery(w, records, lineEvery, progress, work)
}

// showProgressEvery is showProgress for figures in u, with a line every `every` when w is no terminal.
// Work that lasts at least that long also gets a last line with its final figures.
func showProgressEvery(w io.Writer, u unit, every time.Duration, progress func() task.Progress, work func() error) error {
	bar := isTerminal(w)
	report, finish := progressReporter(w, progress, u, bar)
	if bar {
		every = barEvery
	}
	start := time.Now()
	err := watch(every, report, work)
	finish(time.Since(start) >= every, err != nil)
	return err
}

// transfer follows a copy of a file, for its progress: bytes written of the total expected.
type transfer struct {
	phase   string
	started time.Time
	done    atomic.Uint64
	total   atomic.Uint64
}

func newTransfer(phase string, total uint64) *transfer {
	t := &transfer{phase: phase, started: time.Now()}
	t.total.Store(total)
	return t
}

func (t *transfer) progress() task.Progress {
	return task.Progress{Phase: t.phase, Done: t.done.Load(), Total: t.total.Load(), Started: t.started}
}

// set takes the figures another process reports (a server writing a backup).
func (t *transfer) set(done, total uint64) {
	t.done.Store(done)
	t.total.Store(total)
}

// add counts n more bytes done.
func (t *transfer) add(n int) { t.done.Add(uint64(n)) }

// writer returns w counting into t what is written to it.
func (t *transfer) writer(w io.Writer) io.Writer { return countingWriter{w: w, n: &t.done} }

type countingWriter struct {
	w io.Writer
	n *atomic.Uint64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(uint64(n))
	return n, err
}
