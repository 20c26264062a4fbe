package jobs

import "context"

// entry is one scheduled job: its name (for run-job and the logs), its cron spec (standard five
// fields, read in the site zone) and its method.
type entry struct {
	name string
	spec string
	fn   func(*Jobs, context.Context) error
}

// schedule is the one table of jobs. RunOnce runs them in this order at start-up: publication first,
// so the consistency check sees the rewritten records.
var schedule = []entry{
	{"publish-due", "* * * * *", (*Jobs).PublishDue},
	{"extend-series", "30 3 * * *", (*Jobs).ExtendSeries},
	{"trim-changes", "*/10 * * * *", (*Jobs).TrimChanges},
	{"consistency-check", "0 * * * *", (*Jobs).Check},
}
