package jobs

import "context"

// entry is one scheduled job: its name (for run-job and the logs), its cron spec (standard five
// fields, read in the site zone), its method, and whether it runs once per cluster (on the elected
// node, see Jobs.Lead) rather than on every node.
type entry struct {
	name    string
	spec    string
	fn      func(*Jobs, context.Context) error
	cluster bool
}

// schedule is the one table of jobs. RunOnce runs them in this order at start-up: publication first,
// so the consistency check sees the rewritten records.
//
// Publication and the series' horizon write the records every node shares: once per cluster. The
// change log's trimming stores this node's index checkpoint first, and trims on the elected node
// only (TrimChanges); the consistency check compares this node's index with the store, and the
// boundary's lists go into this node's cache: every node runs them.
var schedule = []entry{
	{"publish-due", "* * * * *", (*Jobs).PublishDue, true},
	{"extend-series", "30 3 * * *", (*Jobs).ExtendSeries, true},
	{"trim-changes", "*/10 * * * *", (*Jobs).TrimChanges, false},
	{"consistency-check", "0 * * * *", (*Jobs).Check, false},
	{"prepare-boundary", "* * * * *", (*Jobs).PrepareBoundary, false},
}
