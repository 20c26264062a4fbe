package handlers

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// benchHandler serves n synthetic events (English, with venues, organizers, terms and text), built
// once per benchmark through the store's bulk path and the index's rebuild.
func benchHandler(b *testing.B, n int) http.Handler {
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	return benchClockedHandler(b, n, func() time.Time { return now })
}

// benchClockedHandler is benchHandler on a clock the benchmark moves. The events start a whole number
// of hours from the clock's reading at the call, from 30 days before it to two years after.
func benchClockedHandler(b *testing.B, n int, clock func() time.Time) http.Handler {
	b.Helper()
	ctx := context.Background()
	now := clock()
	dir := b.TempDir()
	db, err := storage.Open(filepath.Join(dir, "calendar.db"), storage.Options{Now: clock})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	if _, err := db.CreateUser(ctx, storage.User{Login: "admin", Email: "a@x.org", Role: storage.RoleAdministrator}); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"jazz", "concert", "market", "festival", "theatre", "workshop", "night", "summer", "blues", "open", "air", "children"}
	text := func(k int) string {
		s := ""
		for i := range k {
			if i > 0 {
				s += " "
			}
			s += words[rng.IntN(len(words))]
		}
		return s
	}
	str := func(s string) *string { return &s }
	var venues, orgs []uint64
	err = db.Bulk(ctx, admin, func(bk *storage.Bulk) error {
		for i := range 40 {
			if _, err := bk.CreateTerm(storage.TaxCategory, &storage.TermInput{Name: str(fmt.Sprint("Category ", i))}); err != nil {
				return err
			}
		}
		for i := range 60 { // IDs 41 to 100, after the categories
			if _, err := bk.CreateTerm(storage.TaxTag, &storage.TermInput{Name: str(fmt.Sprint("Tag ", i))}); err != nil {
				return err
			}
		}
		for i := range max(n/20, 5) {
			id, err := bk.CreateVenue("en", &storage.VenueInput{PostInput: storage.PostInput{Title: str(fmt.Sprint("Venue ", i))},
				City: str("Paris"), Geo: &storage.Geo{Lat: 48 + rng.Float64()*4, Lng: 2 + rng.Float64()*6}})
			if err != nil {
				return err
			}
			venues = append(venues, id)
		}
		for i := range max(n/30, 5) {
			id, err := bk.CreateOrganizer("en", &storage.OrganizerInput{PostInput: storage.PostInput{Title: str(fmt.Sprint("Organizer ", i))}})
			if err != nil {
				return err
			}
			orgs = append(orgs, id)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for done := 0; done < n; {
		err := db.Bulk(ctx, admin, func(bk *storage.Bulk) error {
			for i := 0; i < 2000 && done < n; i++ {
				start := now.AddDate(0, 0, rng.IntN(760)-30).Add(time.Duration(rng.IntN(24)) * time.Hour)
				s, _ := datetime.Parse(start.Format(datetime.DB))
				e, _ := datetime.Parse(start.Add(2 * time.Hour).Format(datetime.DB))
				cats := []string{fmt.Sprint(1 + rng.IntN(40))}
				tags := []string{fmt.Sprint(41 + rng.IntN(60)), fmt.Sprint(41 + rng.IntN(60))}
				_, err := bk.CreateEvent("en", &storage.EventInput{
					PostInput: storage.PostInput{Title: str(text(3)), Description: str(text(30))},
					Start:     &s, End: &e, Categories: &cats, Tags: &tags,
					Venue:      &storage.VenueRef{ID: venues[rng.IntN(len(venues))]},
					Organizers: &[]storage.OrganizerRef{{ID: orgs[rng.IntN(len(orgs))]}},
					Cost:       &[]string{fmt.Sprint(rng.IntN(50), "€")},
				})
				if err != nil {
					return err
				}
				done++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	ix, err := index.Open(ctx, filepath.Join(dir, "index"), db, index.Options{Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return New(Deps{Store: db, Index: ix, Log: zap.NewNop(), Metrics: NewMetrics(zap.NewNop())})
}

// benchDirHandler serves an existing data directory, e.g. one made by `calendard seed --events
// 100000`; its index is built on the first run and reused after.
func benchDirHandler(b *testing.B, dir string) http.Handler {
	b.Helper()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	db, err := storage.Open(filepath.Join(dir, "calendar.db"), storage.Options{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ix, err := index.Open(ctx, filepath.Join(dir, "index"), db, index.Options{Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return New(Deps{Store: db, Index: ix, Log: zap.NewNop(), Metrics: NewMetrics(zap.NewNop())})
}

// benchRequests numbers the benchmark requests of the whole process, so that a request meant to be
// new to the caches is new even when a benchmark runs again (-count).
var benchRequests atomic.Int64

// benchLists serves 10k synthetic events, or the data directory named by CALENDARD_BENCH_DIR.
func benchLists(b *testing.B) http.Handler {
	if dir := os.Getenv("CALENDARD_BENCH_DIR"); dir != "" {
		return benchDirHandler(b, dir)
	}
	return benchHandler(b, 10000)
}

// farEnd is a date no benchmark's events reach.
var farEnd = time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)

// benchServe serves target again and again, in one of three modes. uncached: every request comes
// from a new origin, which every cached answer and item is keyed by, so nothing is reused;
// items-cached: an end_date centuries ahead, a second later each time, makes each request new to the
// list cache (which keys only the parameters a route declares) and leaves its items as they are, all
// rendered before; cached: the same request again and again. A mode
// ending in "+gzip" asks for a gzip-encoded answer (compress.go). It returns the last answer.
func benchServe(b *testing.B, h http.Handler, target, mode string) (last *httptest.ResponseRecorder) {
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, benchRequest(target, mode))
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
		last = w
	}
	return last
}

// benchRequest is the next request of benchServe's mode for target.
func benchRequest(target, mode string) *http.Request {
	mode, encoded := strings.CutSuffix(mode, "+gzip")
	i := benchRequests.Add(1)
	if mode == "items-cached" {
		target += "&end_date=" + url.QueryEscape(farEnd.Add(time.Duration(i)*time.Second).Format(time.DateTime))
	}
	r := httptest.NewRequest("GET", target, nil)
	r.Host = "cal.test"
	if mode == "uncached" {
		r.Host = "cal" + strconv.FormatInt(i, 10) + ".test"
	}
	if encoded {
		r.Header.Set("Accept-Encoding", "gzip")
	}
	return r
}

// BenchmarkListEvents measures list requests end to end through the handler (parsing, index,
// loading, rendering, metrics), the work a front end's most frequent call costs.
func BenchmarkListEvents(b *testing.B) {
	h := benchLists(b)
	for _, q := range []string{
		"per_page=100",
		"per_page=10",
		"per_page=10&search=jazz",
		"per_page=10&search=concert+night",
		"per_page=10&categories=7",
		"per_page=10&categories=3,7", // a union: the merge of two lists
		"per_page=10&tags=45",
		"per_page=10&geoloc=1&geoloc_lat=50&geoloc_lng=4&geoloc_radius=100",
		"per_page=10&geoloc=1&geoloc_lat=51.5074&geoloc_lng=-0.1278&geoloc_radius=25", // London: seeded English venues
		"per_page=10&geoloc=1&geoloc_lat=51.5174&geoloc_lng=-0.1478&geoloc_radius=5",  // its edge crosses London's venues
		"per_page=10&page=50",
		"per_page=20&categories=7&tags=45",
		"per_page=20&categories=7&featured=1",
		"per_page=20&categories=3,7&tags=45,46&featured=1",
		"per_page=10&_fields=id,title,start_date",
		"per_page=100&_fields=id,title,start_date",
	} {
		for _, mode := range []string{"uncached", "items-cached", "cached", "uncached+gzip", "cached+gzip"} {
			b.Run(mode+"/"+q, func(b *testing.B) {
				w := benchServe(b, h, "/calendar/events/v1/events?"+q, mode)
				b.ReportMetric(float64(w.Body.Len()), "body-bytes")
			})
		}
	}
}

// BenchmarkEventFeed measures the iCalendar feed end to end through the handler: the events list's
// query without its pages, up to MaxFeedEvents events loaded and written as iCalendar. The whole
// default window of the synthetic calendar is over 5000 events, so the first query is a full feed.
func BenchmarkEventFeed(b *testing.B) {
	h := benchLists(b)
	for _, q := range []string{
		"",
		"search=jazz",
		"categories=7",
		"geoloc=1&geoloc_lat=50&geoloc_lng=4&geoloc_radius=100",
	} {
		for _, mode := range []string{"uncached", "cached"} {
			b.Run(mode+"/"+q, func(b *testing.B) {
				w := benchServe(b, h, "/calendar/events/v1/events.ics?"+q, mode)
				b.ReportMetric(float64(bytes.Count(w.Body.Bytes(), []byte("BEGIN:VEVENT"))), "events")
			})
		}
	}
}

// BenchmarkCreateEvent measures a create end to end with read-your-writes: the durable bbolt commit,
// then the wait until the running syncer has applied it to the index.
func BenchmarkCreateEvent(b *testing.B) {
	h, db := newTestHandler(b, Config{IndexWait: DefaultIndexWait})
	ix := indexOf(h.(*Handler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	changed, unsubscribe := db.Subscribe()
	go func() { defer close(done); defer unsubscribe(); ix.Run(ctx, changed) }()
	b.Cleanup(func() { cancel(); <-done })
	body := `{"title":"Jazz concert","description":"An evening of jazz","start_date":"2027-05-01 20:00",` +
		`"end_date":"2027-05-01 22:00","categories":"Music","venue":{"venue":"Hall"}}`
	for b.Loop() {
		if w := serve(h, "POST", "/calendar/events/v1/events", "application/json", body); w.Code != http.StatusCreated {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
