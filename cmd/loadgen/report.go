package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// results are the merged measurements of a run.
type results struct {
	elapsed  time.Duration
	rows     []row // one per kind, then "all"
	statuses map[int]int
	// serverCPU is the CPU time the server used during the run (-server-pid), 0 when not measured.
	serverCPU time.Duration
}

// row is one line of the table.
type row struct {
	name                 string
	requests             int // answered requests; transport errors excluded
	non2xx, errors       int
	p50, p95, p99, worst time.Duration
}

func merge(tallies []*tally, elapsed time.Duration) *results {
	res := &results{elapsed: elapsed, statuses: map[int]int{}}
	var all []time.Duration
	total := row{name: "all"}
	for k, kd := range kinds {
		var lat []time.Duration
		r := row{name: kd.name}
		for _, t := range tallies {
			lat = append(lat, t.latencies[k]...)
			r.non2xx += t.non2xx[k]
			r.errors += t.errors[k]
		}
		r.summarize(lat)
		res.rows = append(res.rows, r)
		all = append(all, lat...)
		total.non2xx += r.non2xx
		total.errors += r.errors
	}
	total.summarize(all)
	res.rows = append(res.rows, total)
	for _, t := range tallies {
		for status, n := range t.statuses {
			res.statuses[status] += n
		}
	}
	return res
}

func (r *row) summarize(lat []time.Duration) {
	slices.Sort(lat)
	r.requests = len(lat)
	r.p50, r.p95, r.p99 = percentile(lat, 50), percentile(lat, 95), percentile(lat, 99)
	r.worst = percentile(lat, 100)
}

// percentile returns the p-th percentile (0 < p ≤ 100) of sorted by the nearest-rank method: the
// smallest value that at least p% of the values do not exceed. It returns 0 for no values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// write prints the summary line, the table and the statuses other than 200.
func (res *results) write(w io.Writer, cfg config) error {
	all := res.rows[len(res.rows)-1]
	secs := res.elapsed.Seconds()
	fmt.Fprintf(w, "%s: %d clients for %s: %d requests in %.1fs = %.1f req/s, %d non-2xx, %d errors\n",
		cfg.base, cfg.clients, cfg.duration, all.requests+all.errors, secs, float64(all.requests)/secs, all.non2xx, all.errors)
	if cfg.serverPID > 0 && all.requests > 0 {
		fmt.Fprintf(w, "server CPU: %s ms per 1,000 requests, %.0f %% of a core\n", ms(res.serverCPU*1000/time.Duration(all.requests)),
			100*res.serverCPU.Seconds()/secs)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\trequests\treq/s\tnon-2xx\terrors\tp50 ms\tp95 ms\tp99 ms\tmax ms\t")
	for _, r := range res.rows {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%d\t%s\t%s\t%s\t%s\t\n", r.name, r.requests, float64(r.requests)/secs,
			r.non2xx, r.errors, ms(r.p50), ms(r.p95), ms(r.p99), ms(r.worst))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var other []string
	for _, status := range slices.Sorted(maps.Keys(res.statuses)) {
		if status != 200 {
			other = append(other, fmt.Sprintf("%d×%d", status, res.statuses[status]))
		}
	}
	if len(other) > 0 {
		fmt.Fprintf(w, "\nstatuses other than 200: %s\n", strings.Join(other, ", "))
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
