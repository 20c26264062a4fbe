package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
)

// BenchmarkCommitToDelivery measures the time from a write to its delivery at 10 subscribers, on a
// bbolt store and loopback receivers, with the default batching window: each iteration is one write,
// and p50/p95 are over every (write, subscriber) pair. docs/BENCHMARKS.md has the figures.
func BenchmarkCommitToDelivery(b *testing.B) {
	const subscribers = 10
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(b.TempDir(), "calendar.db"), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var start time.Time
	var latencies []time.Duration
	arrived := make(chan struct{}, subscribers)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		latencies = append(latencies, time.Since(start))
		mu.Unlock()
		arrived <- struct{}{}
	}))
	defer srv.Close()
	for range subscribers {
		if _, err := db.CreateWebhook(ctx, storage.Webhook{URL: srv.URL, AllowHTTP: true, AllowPrivate: true}, ""); err != nil {
			b.Fatal(err)
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error)
	go func() { ran <- New(db, Options{}).Run(runCtx) }()
	defer func() { stop(); <-ran }()

	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	n := 0
	for b.Loop() {
		name := "Bench " + strconv.Itoa(n)
		n++
		mu.Lock()
		start = time.Now() // before the write: the figures include its commit
		mu.Unlock()
		if _, err := db.CreateTerm(ctx, admin, storage.TaxTag, &storage.TermInput{Name: &name}); err != nil {
			b.Fatal(err)
		}
		for range subscribers {
			<-arrived
		}
	}
	slices.Sort(latencies)
	at := func(q float64) float64 {
		return float64(latencies[int(q*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
	b.ReportMetric(float64(latencies[len(latencies)-1].Microseconds())/1000, "max-ms")
}
