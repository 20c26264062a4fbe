// Package task describes long-running work to whoever watches it: an index loading, a mirror's run,
// a backup, a seed. It is a leaf, so that a probe or a progress bar reads each of them without
// importing the package doing the work.
package task

import "time"

// Progress is how far a phase of a task has come.
type Progress struct {
	// Phase names what the task is doing (index.PhaseBuilding, "backing up"); empty before it has
	// started.
	Phase string
	// Done counts the steps done (records, bytes, languages, change-log entries) out of Total; Total
	// is 0 while unknown. Steps added while the phase runs can take Done past Total.
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
