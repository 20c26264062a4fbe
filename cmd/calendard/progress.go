package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/calendard/calendard/index"
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

// progressReporter shows a long operation's figures, read with progress, on w: as a progress bar
// (bar), or as a line a report. finish completes the bar.
func progressReporter(w io.Writer, progress func() index.Progress, bar bool) (report, finish func()) {
	if !bar {
		return func() {
			p := progress()
			fmt.Fprintf(w, "%s: %d of %d, %s left\n", p.Phase, p.Done, p.Total, p.Remaining(time.Now()).Round(time.Second))
		}, func() {}
	}
	var b *progressbar.ProgressBar
	phase := ""
	return func() {
			p := progress()
			if p.Phase == "" || p.Total == 0 {
				return // nothing to show, or nothing to do in this phase
			}
			if p.Phase != phase {
				if b != nil {
					_ = b.Finish()
				}
				phase = p.Phase
				b = progressbar.NewOptions64(int64(p.Total), progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(p.Phase),
					progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
			}
			_ = b.Set64(int64(min(p.Done, p.Total)))
		}, func() {
			if b != nil {
				_ = b.Finish()
			}
		}
}

// showProgress runs work while progressReporter shows its figures on w, as a bar on a terminal and
// as lines otherwise.
func showProgress(w io.Writer, progress func() index.Progress, work func() error) error {
	bar := isTerminal(w)
	report, finish := progressReporter(w, progress, bar)
	every := lineEvery
	if bar {
		every = barEvery
	}
	err := watch(every, report, work)
	finish()
	return err
}
