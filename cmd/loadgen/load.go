package main

import (
	"context"
	"io"
	"math/rand/v2"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// kind is one kind of request of the mix. path returns "" when the data has nothing to build it from;
// the client then sends the plain upcoming list instead.
type kind struct {
	name   string
	weight int
	path   func(r *rand.Rand, t *targets, l *langTargets) string
}

// kinds is the request mix: the lists a calendar front end sends most (the upcoming list, a filter, a
// search), then the heavier geo, combined and deep-page queries.
var kinds = []kind{
	{"upcoming-100", 15, func(_ *rand.Rand, _ *targets, l *langTargets) string {
		return l.query(url.Values{"per_page": {"100"}})
	}},
	{"upcoming-10", 15, func(_ *rand.Rand, _ *targets, l *langTargets) string {
		return l.query(url.Values{"per_page": {"10"}})
	}},
	{"category", 10, func(r *rand.Rand, t *targets, l *langTargets) string {
		return withOne(r, l, "categories", t.categories)
	}},
	{"tag", 10, func(r *rand.Rand, t *targets, l *langTargets) string {
		return withOne(r, l, "tags", t.tags)
	}},
	{"venue", 10, func(r *rand.Rand, _ *targets, l *langTargets) string {
		if len(l.venues) == 0 {
			return ""
		}
		return l.query(url.Values{"per_page": {"10"}, "venue": {strconv.FormatUint(l.venues[r.IntN(len(l.venues))].id, 10)}})
	}},
	{"search", 15, func(r *rand.Rand, _ *targets, l *langTargets) string {
		return withOne(r, l, "search", l.words)
	}},
	{"geo", 10, func(r *rand.Rand, _ *targets, l *langTargets) string {
		v := url.Values{"per_page": {"10"}}
		if !addGeo(r, l, v) {
			return ""
		}
		return l.query(v)
	}},
	{"combined", 10, func(r *rand.Rand, t *targets, l *langTargets) string {
		v := url.Values{"per_page": {"20"}}
		for _, f := range r.Perm(5)[:2+r.IntN(2)] {
			switch f {
			case 0:
				addOne(r, v, "categories", t.categories)
			case 1:
				addOne(r, v, "tags", t.tags)
			case 2:
				addOne(r, v, "search", l.words)
			case 3:
				addGeo(r, l, v)
			case 4:
				v.Set("featured", "1")
				v.Set("end_date", "+3 months")
			}
		}
		return l.query(v)
	}},
	{"deep-page", 5, func(r *rand.Rand, _ *targets, l *langTargets) string {
		if l.pages < 2 {
			return ""
		}
		page := l.pages/2 + 1 + r.IntN(l.pages-l.pages/2)
		return l.query(url.Values{"per_page": {"10"}, "page": {strconv.Itoa(page)}})
	}},
}

// fallbackKind is the plain upcoming list, which any language with events can serve.
const fallbackKind = 1

func withOne(r *rand.Rand, l *langTargets, param string, items []string) string {
	v := url.Values{"per_page": {"10"}}
	if !addOne(r, v, param, items) {
		return ""
	}
	return l.query(v)
}

func addOne(r *rand.Rand, v url.Values, param string, items []string) bool {
	if len(items) == 0 {
		return false
	}
	v.Set(param, items[r.IntN(len(items))])
	return true
}

// geoRadii are the radii of the geo queries in km: a neighbourhood to a region.
var geoRadii = []string{"2", "5", "10", "25", "50"}

// addGeo centres a geo filter on one of l's venues.
func addGeo(r *rand.Rand, l *langTargets, v url.Values) bool {
	if len(l.venues) == 0 {
		return false
	}
	venue := l.venues[r.IntN(len(l.venues))]
	if !venue.geo {
		return false
	}
	v.Set("geoloc", "1")
	v.Set("geoloc_lat", strconv.FormatFloat(venue.lat, 'f', 4, 64))
	v.Set("geoloc_lng", strconv.FormatFloat(venue.lng, 'f', 4, 64))
	v.Set("geoloc_radius", geoRadii[r.IntN(len(geoRadii))])
	return true
}

// tally is what one client measured; each client has its own, so recording takes no lock.
type tally struct {
	latencies [][]time.Duration // by kind; transport errors excluded
	non2xx    []int
	errors    []int
	statuses  map[int]int
}

func newTally() *tally {
	return &tally{latencies: make([][]time.Duration, len(kinds)), non2xx: make([]int, len(kinds)),
		errors: make([]int, len(kinds)), statuses: map[int]int{}}
}

// drive runs cfg.clients clients until the duration has passed or the request budget is spent; the
// requests in flight at the deadline complete and count.
func drive(ctx context.Context, c *client, t *targets, cfg config) *results {
	stopAt := time.Now().Add(cfg.duration)
	var budget atomic.Int64
	budget.Store(int64(cfg.requests))
	tallies := make([]*tally, cfg.clients)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range tallies {
		tl := newTally()
		tallies[i] = tl
		r := rand.New(rand.NewPCG(cfg.seed, uint64(i)))
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(stopAt) {
				if cfg.requests > 0 && budget.Add(-1) < 0 {
					return
				}
				k := pickKind(r)
				l := t.langs[r.IntN(len(t.langs))]
				path := kinds[k].path(r, t, l)
				if path == "" {
					k = fallbackKind
					path = kinds[k].path(r, t, l)
				}
				began := time.Now()
				status, err := c.do(ctx, path, io.Discard)
				took := time.Since(began)
				switch {
				case ctx.Err() != nil:
					return // interrupted: the request did not fail on its own
				case err != nil:
					tl.errors[k]++
					continue
				case status < 200 || status > 299:
					tl.non2xx[k]++
				}
				tl.statuses[status]++
				tl.latencies[k] = append(tl.latencies[k], took)
			}
		})
	}
	wg.Wait()
	return merge(tallies, time.Since(start))
}

var totalWeight = func() int {
	n := 0
	for _, k := range kinds {
		n += k.weight
	}
	return n
}()

func pickKind(r *rand.Rand) int {
	x := r.IntN(totalWeight)
	for i, k := range kinds {
		if x < k.weight {
			return i
		}
		x -= k.weight
	}
	return 0
}
