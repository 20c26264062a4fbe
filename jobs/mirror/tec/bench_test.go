package tec_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
)

// benchBase is when the fake site's first event was saved.
var benchBase = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var benchEvents = flag.Int("tec.events", 2000, "events on the fake site of BenchmarkImport")

// bigSite is a fake site of n published events (IDs from 1000), a venue and a category, and the time
// spent in its handler.
func bigSite(b *testing.B, n int) (*tectest.Site, string, *atomic.Int64) {
	site := tectest.New()
	site.Now = func() time.Time { return siteNow }
	site.Put(tectest.Categories, map[string]any{"id": 1, "name": "Music", "slug": "music", "parent": 0})
	site.Put(tectest.Venues, map[string]any{"id": 2, "status": "publish", "modified_utc": "2026-01-01 00:00:00", "venue": "Hall", "slug": "hall", "city": "Paris"})
	// Saved a minute apart, as a site's events are over time: the overlap re-lists a few only.
	for i := range n {
		site.Put(tectest.Events, benchEvent(1000+i, benchBase.Add(time.Duration(i)*time.Minute).Format("2006-01-02 15:04:05")))
	}
	var inSite atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		site.ServeHTTP(w, r)
		inSite.Add(int64(time.Since(began)))
	}))
	b.Cleanup(srv.Close)
	return site, srv.URL + "/wp-json", &inSite
}

func benchEvent(id int, modified string) map[string]any {
	day := time.Date(2027, 1, 1, 20, 0, 0, 0, time.UTC).AddDate(0, 0, id%700)
	return map[string]any{"id": id, "status": "publish", "date_utc": "2025-12-01 10:00:00", "modified_utc": modified,
		"title": fmt.Sprintf("Concert %d", id), "slug": fmt.Sprintf("concert-%d", id),
		"description": "<p>An evening of <b>music</b> with friends.</p>", "excerpt": "<p>Music</p>",
		"start_date": day.Format("2006-01-02 15:04:05"), "end_date": day.Add(2 * time.Hour).Format("2006-01-02 15:04:05"),
		"timezone": "Europe/Paris", "all_day": false, "featured": id%10 == 0, "image": false,
		"cost_details": map[string]any{"values": []string{"10", "20"}, "currency_symbol": "€", "currency_position": "postfix"},
		"website":      "https://tickets.example/?e=1&x=2", "categories": []any{map[string]any{"id": 1}},
		"venue": map[string]any{"id": 2}, "organizer": []any{}}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkImport imports a site of -tec.events events into an empty store: events/s, the process's
// CPU per wall second (site and importer together: both run here), and the share of the wall time the
// fake site's handler took.
func BenchmarkImport(b *testing.B) {
	_, root, inSite := bigSite(b, *benchEvents)
	var events, wall, cpu, site time.Duration
	for b.Loop() {
		b.StopTimer()
		db := openDB(b)
		im := &tec.Importer{Store: db, Actor: admin, Roots: []tec.Root{{URL: root, Lang: "en"}}, Get: &mirror.Getter{}}
		inSite.Store(0)
		b.StartTimer()
		began, cpuBegan := time.Now(), cpuTime()
		rep, err := im.Sync(context.Background(), mirror.Options{})
		if err != nil || rep.Failed > 0 || rep.Added != *benchEvents+2 {
			b.Fatalf("%v %v %+v", rep, err, rep.Failures)
		}
		wall += time.Since(began)
		cpu += cpuTime() - cpuBegan
		site += time.Duration(inSite.Load())
		events += time.Duration(*benchEvents)
	}
	b.ReportMetric(float64(events)/wall.Seconds(), "events/s")
	b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu/wall")
	b.ReportMetric(site.Seconds()/wall.Seconds(), "site/wall")
}

// BenchmarkFollow is a follow run against a 10k-event site, unchanged or with 10 events changed
// since the last run: the requests a run costs the site and the record fetches among them.
func BenchmarkFollow(b *testing.B) {
	for _, changes := range []int{0, 10} {
		b.Run(fmt.Sprintf("changes=%d", changes), func(b *testing.B) {
			const n = 10000
			site, root, _ := bigSite(b, n)
			db := openDB(b)
			im := &tec.Importer{Store: db, Actor: admin, Roots: []tec.Root{{URL: root, Lang: "en"}}, Get: &mirror.Getter{}}
			if _, err := im.Sync(context.Background(), mirror.Options{}); err != nil {
				b.Fatal(err)
			}
			var requests, details int64
			modified := benchBase.Add(n * time.Minute)
			for b.Loop() {
				b.StopTimer()
				for i := range changes {
					modified = modified.Add(time.Hour)
					site.Put(tectest.Events, benchEvent(1000+i*97, modified.Format("2006-01-02 15:04:05")))
				}
				site.Details.Store(0)
				b.StartTimer()
				rep, err := im.Sync(context.Background(), mirror.Options{})
				if err != nil || rep.Updated != changes || rep.Unchanged < n-changes {
					b.Fatalf("%v %v", rep, err)
				}
				requests += rep.Requests
				details += site.Details.Load()
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			b.ReportMetric(float64(details)/float64(b.N), "fetches/op")
		})
	}
}
