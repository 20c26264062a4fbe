package handlers

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkListFacets measures what facets add to an events list of the whole default window (docs/API.md
// "Facets"): the same list without and with all five, its items rendered before (benchServe's
// items-cached mode), so that the difference is the index's. It reports the median and the 95th
// percentile of the requests' durations beside the mean, and the process's CPU time per request
// (garbage collection included), which other work on a shared machine moves far less than durations.
func BenchmarkListFacets(b *testing.B) {
	h := benchLists(b)
	for _, q := range []string{"per_page=10", "per_page=10&facets=categories,tags,venue,organizer,month"} {
		b.Run(q, func(b *testing.B) {
			var took []time.Duration
			before := cpuTime(b)
			for b.Loop() {
				r := benchRequest("/calendar/events/v1/events?"+q, "items-cached")
				took = append(took, serveTimed(b, h, r.Host, r.URL.RequestURI()))
			}
			b.ReportMetric(float64((cpuTime(b)-before).Microseconds())/float64(len(took)), "cpu-µs/op")
			reportPercentiles(b, took, 50, 95)
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
