package handlers

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// boundaryMix is what the front ends of a calendar ask most, anonymously: event pages in the
// default window and filtered, a relative date window, the places with upcoming events, the terms.
var boundaryMix = []string{
	"/calendar/events/v1/events?per_page=10",
	"/calendar/events/v1/events",
	"/calendar/events/v1/events?per_page=10&page=2",
	"/calendar/events/v1/events?start_date=tomorrow&per_page=10",
	"/calendar/events/v1/events?start_date=today&end_date=%2B7+days&per_page=20",
	"/calendar/events/v1/events?categories=7&per_page=10",
	"/calendar/events/v1/events?tags=45&per_page=10",
	"/calendar/events/v1/events?search=jazz&per_page=10",
	"/calendar/events/v1/events?geoloc=1&geoloc_lat=50&geoloc_lng=4&geoloc_radius=100&per_page=10",
	"/calendar/events/v1/events?featured=0&per_page=10",
	"/calendar/events/v1/events?hide_subsequent_recurrences=1&per_page=10",
	"/calendar/events/v1/venues?only_with_upcoming=1&per_page=20",
	"/calendar/events/v1/organizers?only_with_upcoming=1&per_page=20",
	"/calendar/events/v1/venues?per_page=10",
	"/calendar/events/v1/categories",
	"/calendar/events/v1/tags?per_page=50",
}

// boundaryClients is how many clients ask the mix side by side.
const boundaryClients = 8

// BenchmarkListsAcrossBoundary crosses midnight, once per iteration and a day later each time, with
// 10k synthetic events: boundaryClients clients each ask every list of boundaryMix once, in their own
// order, a minute and a half before midnight (the steady state, every list cached) and again at
// midnight, when every cached answer has expired. It reports the 50th and 99th percentiles of both
// rounds' latencies, the ratio of the 99th, and the time PrepareBoundary took. cold crosses as the cache did before lists were
// prepared; prepared runs PrepareBoundary first, as the job does within its lead.
func BenchmarkListsAcrossBoundary(b *testing.B) {
	var clock atomic.Int64
	clock.Store(time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC).UnixNano())
	h := benchClockedHandler(b, 10000, func() time.Time { return time.Unix(0, clock.Load()).UTC() }).(*Handler)
	midnight := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for _, mode := range []string{"cold", "prepared"} {
		b.Run(mode, func(b *testing.B) {
			var steady, after []time.Duration
			var preparing time.Duration
			for b.Loop() {
				clock.Store(midnight.Add(-90 * time.Second).UnixNano())
				askMix(b, h, nil) // cached, and hit since the last boundary
				// Each measured round starts from a collected heap: in a server, a minute and more
				// separates the lists' first computation from the steady state, and the job's run
				// from midnight, and the garbage of either would otherwise land in the other round.
				runtime.GC()
				askMix(b, h, &steady)
				if mode == "prepared" {
					start := time.Now()
					if _, err := h.PrepareBoundary(context.Background(), 90*time.Second); err != nil {
						b.Fatal(err)
					}
					preparing += time.Since(start)
				}
				clock.Store(midnight.UnixNano())
				runtime.GC()
				askMix(b, h, &after)
				midnight = midnight.AddDate(0, 0, 1)
			}
			p := func(d []time.Duration, q int) float64 {
				slices.Sort(d)
				return float64(d[len(d)*q/100].Microseconds())
			}
			b.ReportMetric(p(steady, 50), "steady-p50-µs")
			b.ReportMetric(p(steady, 99), "steady-p99-µs")
			b.ReportMetric(p(after, 50), "boundary-p50-µs")
			b.ReportMetric(p(after, 99), "boundary-p99-µs")
			b.ReportMetric(p(after, 99)/p(steady, 99), "p99-ratio")
			b.ReportMetric(float64(preparing.Microseconds())/float64(b.N), "prepare-µs")
		})
	}
}

// askMix has boundaryClients clients ask every list of boundaryMix once, side by side, each in its own
// order, and appends each request's latency to lat unless it is nil.
func askMix(b *testing.B, h http.Handler, lat *[]time.Duration) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for c := range boundaryClients {
		wg.Go(func() {
			order := slices.Clone(boundaryMix)
			rand.New(rand.NewPCG(uint64(c), 1)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			var mine []time.Duration
			for _, target := range order {
				r := httptest.NewRequest("GET", target, nil)
				r.Host = "cal.test"
				r.Header.Set("Accept-Encoding", "gzip")
				w := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(w, r)
				mine = append(mine, time.Since(start))
				if w.Code != http.StatusOK {
					b.Errorf("%s: %d %s", target, w.Code, w.Body)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if lat != nil {
				*lat = append(*lat, mine...)
			}
		})
	}
	wg.Wait()
}
