//go:build unix

package index

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
)

// BenchmarkStartUp measures Open on a store of CALENDAR_BENCH_EVENTS events (2000 unless set) in
// three languages, from data directories built once:
//
//   - rebuild: no index on disk, so every record is indexed from the scan;
//   - catch-up/none: indexes at the head, the common restart;
//   - catch-up/creates: indexes checkpointed when the store held half the events, the other half
//     created since, so the change log has an entry for each new event;
//   - catch-up/updates: indexes at the head, then every venue moved, which logs an entry for each of
//     its events (three quarters of them): records the scan has already read are replayed;
//   - catch-up/updates-x3: the same with every venue moved three times, so the log holds more
//     entries than the store holds records.
//
// A catch-up must never cost more than the rebuild of the same store: Open rebuilds an index whose
// replay would cost more (replayCostsMore), which both updates cases are. Besides the time, each
// reports the CPU time the process spent (cpu-ms/op), which other work on a shared machine disturbs
// less.
func BenchmarkStartUp(b *testing.B) {
	n := benchEvents(b, 2000, 2)
	dirs := startUpFixtures(b, n)
	for _, bc := range []struct {
		name, dir string
		rebuild   bool
	}{
		{"rebuild", dirs.current, true},
		{"catch-up/none", dirs.current, false},
		{"catch-up/creates", dirs.half, false},
		{"catch-up/updates", dirs.moved, false},
		{"catch-up/updates-x3", dirs.moved3, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "data")
				copyDir(b, dir, bc.dir)
				if bc.rebuild {
					if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
						b.Fatal(err)
					}
				}
				// The copy's write-back to disk must not compete with Bleve's writes in the measure.
				syscall.Sync()
				db := openStore(b, dir)
				before := cpuTime(b)
				b.StartTimer()
				ix, err := Open(ctx, filepath.Join(dir, "index"), db, Options{})
				b.StopTimer()
				cpu += cpuTime(b) - before
				if err != nil {
					b.Fatal(err)
				}
				ix.Close()
				db.Close()
				// Each copy holds the whole store: at 100k events a few of them would fill a small disk.
				if err := os.RemoveAll(dir); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// startUpDirs are BenchmarkStartUp's data directories, each a store of n events with indexes: half
// checkpointed at n/2 events, current at the head, moved and moved3 at the head before every venue
// moved once or three times.
type startUpDirs struct {
	half, current, moved, moved3 string
}

func startUpFixtures(b *testing.B, n int) startUpDirs {
	b.Helper()
	ctx := context.Background()
	root := b.TempDir()
	dirs := startUpDirs{
		half: filepath.Join(root, "half"), current: filepath.Join(root, "current"),
		moved: filepath.Join(root, "moved"), moved3: filepath.Join(root, "moved3"),
	}
	if err := os.Mkdir(dirs.half, 0o700); err != nil {
		b.Fatal(err)
	}
	w := newStore(b, dirs.half, 1)
	to := w.linkTargets(b)
	w.createEvents(b, to, n/2)
	checkpointIndex(b, w.db, dirs.half)
	w.createEvents(b, to, n-n/2)
	w.db.Close()

	copyDir(b, dirs.current, dirs.half)
	db := openStore(b, dirs.current)
	checkpointIndex(b, db, dirs.current)
	db.Close()
	for _, moved := range []struct {
		dir    string
		rounds int
	}{{dirs.moved, 1}, {dirs.moved3, 3}} {
		copyDir(b, moved.dir, dirs.current)
		db := openStore(b, moved.dir)
		for round := range moved.rounds {
			for _, l := range langs {
				for i, id := range to.venues[l] {
					in := &storage.VenueInput{Geo: &storage.Geo{Lat: 40 + float64(i+round), Lng: 10 + float64(i)}}
					if _, err := db.UpdateVenue(ctx, w.users[0], id, in); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		db.Close()
	}
	return dirs
}

// copyDir copies the directory src to dst, which must not exist.
func copyDir(tb testing.TB, dst, src string) {
	tb.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		tb.Fatal(err)
	}
}

// cpuTime is the CPU time the process has used, in user and system mode, on every thread: Bleve
// analyses and persists on goroutines of its own.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// createEvents adds n random events linking to some of to, 2000 to a transaction: one fsync for each
// instead of one per event.
func (w *world) createEvents(tb testing.TB, to *targets, n int) {
	tb.Helper()
	for done := 0; done < n; {
		k := min(2000, n-done)
		err := w.db.Bulk(context.Background(), w.users[0], func(b *storage.Bulk) error {
			for range k {
				if _, err := b.CreateEvent(w.randomEvent(tb, to)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		done += k
	}
}

// checkpointIndex brings the indexes under dir up to db's change-log head and waits until that
// checkpoint is on disk.
func checkpointIndex(tb testing.TB, db *storage.DB, dir string) {
	tb.Helper()
	ctx := context.Background()
	ix, err := Open(ctx, filepath.Join(dir, "index"), db, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Checkpoint(ctx); err != nil {
		tb.Fatal(err)
	}
}
