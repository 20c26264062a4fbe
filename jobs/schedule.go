package jobs

import "context"

// entry is one scheduled job: its name (for run-job and the logs), its cron spec (standard five
// fields, read in the site zone), its method, whether it runs once per cluster (on the elected
// node, see Jobs.Lead) rather than on every node, and whether a stop interrupts it at once rather
// than waits for it (Jobs.Stop).
type entry struct {
	name      string
	spec      string
	fn        func(*Jobs, context.Context) error
	cluster   bool
	interrupt bool
}

// schedule is the one table of jobs. RunOnce runs them in this order at start-up: publication first,
// so the consistency check sees the rewritten records.
//
// Publication and the series' horizon write the records every node shares: once per cluster. The
// change log's trimming stores this node's index checkpoint first, and trims on the elected node
// only (TrimChanges); the consistency check compares this node's index with the store, and the
// boundary's lists go into this node's cache: every node runs them.
//
// A stop interrupts the consistency check: it paces itself, and takes minutes at 1M events (index
// Check), while what it repaired before the stop stays repaired and its next run starts afresh.
// The others are short, and each is better left to end than cut between two of its transactions.
var schedule = []entry{
	{"publish-due", "* * * * *", (*Jobs).PublishDue, true, false},
	{"extend-series", "30 3 * * *", (*Jobs).ExtendSeries, true, false},
	{"trim-changes", "*/10 * * * *", (*Jobs).TrimChanges, false, false},
	{"consistency-check", "0 * * * *", (*Jobs).Check, false, true},
	{"prepare-boundary", "* * * * *", (*Jobs).PrepareBoundary, false, false},
}
