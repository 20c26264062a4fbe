package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// BenchmarkSeriesCatchUp measures what a write of a daily series of 730 occurrences costs the index:
// each op renames the parent, which rewrites its 729 occurrences, and times SyncOnce applying those
// 730 changes to the projection and Bleve. It reports the median catch-up (p50-ms).
func BenchmarkSeriesCatchUp(b *testing.B) {
	ctx := context.Background()
	w := newStore(b, b.TempDir(), 1)
	ix, err := Open(ctx, filepath.Join(b.TempDir(), "index"), w.db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	at := func(s string) *datetime.Expr {
		e, err := datetime.Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		return &e
	}
	p, err := w.db.CreateEvent(ctx, w.users[0], "en", &storage.EventInput{PostInput: storage.PostInput{Title: ptr("Morning yoga")},
		Start: at("2026-12-01 07:00:00"), End: at("2026-12-01 08:00:00"), Recurrence: &[]string{"RRULE:FREQ=DAILY;COUNT=730"}})
	if err != nil {
		b.Fatal(err)
	}
	syncAll(b, ix)
	var took []time.Duration
	i := 0
	for b.Loop() {
		i++
		b.StopTimer()
		if _, err := w.db.UpdateEvent(ctx, w.users[0], p.ID, &storage.EventInput{PostInput: storage.PostInput{Title: ptr(fmt.Sprint("Yoga ", i))}}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		syncAll(b, ix)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
}
