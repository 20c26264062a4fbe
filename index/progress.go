package index

import (
	"sync"
	"time"

	"github.com/calendard/calendard/storage/task"
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

// Loading follows an Open in flight, for a server that answers while its index loads. Its methods may
// be called from any goroutine; a nil *Loading records nothing.
type Loading struct {
	mu sync.Mutex
	p  task.Progress
}

// Progress returns the current figures.
func (l *Loading) Progress() task.Progress {
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
	l.p = task.Progress{Phase: phase, Total: total, Started: time.Now()}
}

func (l *Loading) add(n int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p.Done += uint64(n)
}
