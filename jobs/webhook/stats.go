package webhook

import "context"

// Outcomes of an attempt, as the metrics count them.
const (
	OutcomeSuccess      = "success"
	OutcomeHTTPError    = "http_error"
	OutcomeNetworkError = "network_error"
)

// LatencyBuckets are the upper bounds, in seconds, of the attempts' latency histogram.
var LatencyBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15}

// Stats is what the attempts since the process started add up to, for the metrics.
type Stats struct {
	// Attempts counts the attempts by outcome.
	Attempts map[string]uint64
	// Latency counts the attempts that took at most each of LatencyBuckets, cumulatively;
	// LatencySum is their total time, in seconds, and LatencyCount their number.
	Latency      []uint64
	LatencySum   float64
	LatencyCount uint64
}

func newStats() Stats {
	return Stats{Attempts: map[string]uint64{}, Latency: make([]uint64, len(LatencyBuckets))}
}

// count adds an attempt's outcome to the figures.
func (d *Deliverer) count(r result) {
	d.statsMu.Lock()
	defer d.statsMu.Unlock()
	d.stats.Attempts[r.outcome()]++
	s := r.latency.Seconds()
	for i, b := range LatencyBuckets {
		if s <= b {
			d.stats.Latency[i]++
		}
	}
	d.stats.LatencySum += s
	d.stats.LatencyCount++
}

// Stats returns a copy of the figures.
func (d *Deliverer) Stats() Stats {
	d.statsMu.Lock()
	defer d.statsMu.Unlock()
	out := newStats()
	for k, v := range d.stats.Attempts {
		out.Attempts[k] = v
	}
	copy(out.Latency, d.stats.Latency)
	out.LatencySum, out.LatencyCount = d.stats.LatencySum, d.stats.LatencyCount
	return out
}

// Backlog is one subscription's distance behind the change log.
type Backlog struct {
	ID uint64
	// Entries is the number of change-log positions after its cursor; Enabled is false for a
	// disabled subscription, which does not move on.
	Entries uint64
	Enabled bool
}

// Backlogs reads every subscription's backlog now.
func (d *Deliverer) Backlogs(ctx context.Context) ([]Backlog, error) {
	head, err := d.db.ChangeHead(ctx)
	if err != nil {
		return nil, err
	}
	hooks, err := d.db.Webhooks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Backlog, len(hooks))
	for i, w := range hooks {
		out[i] = Backlog{ID: w.ID, Entries: head - min(head, w.Cursor), Enabled: !w.Disabled}
	}
	return out, nil
}
