package ics

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/ical"
)

var benchEvents = flag.Int("ics.events", 1000, "VEVENTs in the file of BenchmarkImport")

// BenchmarkImport imports a file of -ics.events events (a weekly series every 50th, 20 venues) into an
// empty store, and reports events/s.
func BenchmarkImport(b *testing.B) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		b.Fatal(err)
	}
	cal := &ical.Calendar{ProdID: "-//bench//EN", TimeZone: "Europe/Paris"}
	for i := range *benchEvents {
		start := time.Date(2027, 1, 1, 19, 0, 0, 0, paris).AddDate(0, 0, i%700)
		ev := ical.Event{UID: fmt.Sprintf("e%d@bench", i), Stamp: now, Summary: fmt.Sprintf("Concert %d", i),
			Description: "An evening of music with friends.\n\nDoors at 19:00.", Start: start, End: start.Add(2 * time.Hour),
			Location: fmt.Sprintf("Hall %d, %d Main Street, Paris", i%20, i%20), Categories: []string{"Music", fmt.Sprintf("Series %d", i%5)},
			Organizer: ical.Organizer{Name: "Jazz Club", Email: "club@example.org"}}
		if i%50 == 0 {
			ev.Recurrence = []string{"RRULE:FREQ=WEEKLY;COUNT=10"}
		}
		cal.Events = append(cal.Events, ev)
	}
	path := filepath.Join(b.TempDir(), "bench.ics")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := ical.Encode(f, cal); err != nil {
		b.Fatal(err)
	}
	f.Close()
	for b.Loop() {
		b.StopTimer()
		db, err := storage.Open(filepath.Join(b.TempDir(), "calendar.db"), storage.Options{Now: func() time.Time { return now }})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := (&Importer{From: path, Store: db, Actor: admin, Lang: "en"}).Sync(context.Background(), mirror.Options{})
		if err != nil || rep.Added != *benchEvents {
			b.Fatalf("%v %v", rep, err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(*benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
