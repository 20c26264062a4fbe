package index

import (
	"sync"
	"time"
)

// The phases of an Open, in order.
const (
	// PhaseBuilding scans every record into the projections and the indexes being rebuilt.
	PhaseBuilding = "building"
	// PhaseMerging merges the segments of the indexes rebuilt, each language's into one (builder).
	PhaseMerging = "merging"
	// PhaseCatchingUp replays the change log written since the indexes' checkpoints.
	PhaseCatchingUp = "catching up"
)

// Progress is how far an Open has come.
type Progress struct {
	// Phase is PhaseBuilding, PhaseMerging or PhaseCatchingUp; empty before Open has started.
	Phase string
	// Done counts the records scanned (building), the languages merged (merging) or the change-log
	// entries applied (catching up) out of Total. Records written while the phase runs can take Done past Total.
	Done, Total uint64
	// Started is when the phase began.
	Started time.Time
}

// Remaining estimates the time left in the phase from its rate so far; zero until there is a rate.
func (p Progress) Remaining(now time.Time) time.Duration {
	elapsed := now.Sub(p.Started)
	if p.Done == 0 || p.Done >= p.Total || elapsed <= 0 {
		return 0
	}
	return time.Duration(float64(elapsed) * float64(p.Total-p.Done) / float64(p.Done))
}

// Loading follows an Open in flight, for a server that answers while its index loads. Its methods may
// be called from any goroutine; a nil *Loading records nothing.
type Loading struct {
	mu sync.Mutex
	p  Progress
}

// Progress returns the current figures.
func (l *Loading) Progress() Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.p
}

// begin starts a phase of total steps. The phase's clock is the wall clock, not the store's: the
// store's may be frozen (tests, CALENDAR_NOW), and only durations are derived from it.
func (l *Loading) begin(phase string, total uint64) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p = Progress{Phase: phase, Total: total, Started: time.Now()}
}

func (l *Loading) add(n int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p.Done += uint64(n)
}
