package index

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// benchEvents is how many events a benchmark builds: CALENDAR_BENCH_EVENTS, at least least, or def
// when it is not set.
func benchEvents(b *testing.B, def, least int) int {
	s := os.Getenv("CALENDAR_BENCH_EVENTS")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		b.Fatalf("CALENDAR_BENCH_EVENTS=%q: want a number of events, at least %d", s, least)
	}
	return n
}

// BenchmarkRebuildKeys measures rebuildKeys, which a full load (a first start, a scan of the store)
// and a batch of more than keysPutOneByOne puts run, on CALENDAR_BENCH_EVENTS rows (20,000 unless
// set) shaped like the seeded calendar (benchProjection).
func BenchmarkRebuildKeys(b *testing.B) {
	p := benchProjection(benchEvents(b, 20_000, 1))
	for b.Loop() {
		p.rebuildKeys()
	}
}

// BenchmarkDecodeProjection measures decodeProjection, which a restart runs for every language, on
// a saved projection of CALENDAR_BENCH_EVENTS rows (20,000 unless set) shaped like the seeded
// calendar (benchProjection).
func BenchmarkDecodeProjection(b *testing.B) {
	saved := benchProjection(benchEvents(b, 20_000, 1)).encode(nil, "en", 1)
	b.SetBytes(int64(len(saved)))
	for b.Loop() {
		if _, _, err := decodeProjection(saved, "en"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeProjection measures encode, which saving a language's projection runs under its read
// lock, into a new buffer, on rows as BenchmarkDecodeProjection's.
func BenchmarkEncodeProjection(b *testing.B) {
	p := benchProjection(benchEvents(b, 20_000, 1))
	for b.Loop() {
		p.encode(nil, "en", 1)
	}
}

// benchProjection is a projection of n rows shaped like the seeded calendar: one venue per 50 events
// (its position copied into their rows), up to three organizers out of one per 100 events, two or
// three of 60 terms, nine in ten published and one in twenty a series' occurrence.
func benchProjection(n int) *projection {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(of int) uint64 { return uint64(1 + rng.IntN(max(1, of))) }
	p := newProjection()
	for id := range uint64(n) {
		r := row(id+1, int64(rng.IntN(24*365*3)), pick(n/50))
		r.hasGeo, r.lat, r.lng = true, float64(r.venue%90), float64(r.venue)
		if rng.IntN(10) == 0 {
			r.status = stateFuture
		}
		var l eventLinks
		for range rng.IntN(4) {
			l.orgs = append(l.orgs, pick(n/100))
		}
		for range 2 + rng.IntN(2) {
			l.terms = append(l.terms, pick(60))
		}
		if rng.IntN(20) == 0 {
			l.parent = pick(n / 100)
		}
		p.appendLoaded(r, l)
	}
	p.sort()
	return p
}
