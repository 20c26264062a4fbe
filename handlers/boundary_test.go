package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/handlers/respcache"
	"github.com/calendard/calendard/storage"
)

// boundaryLists are the lists whose answers move at a boundary: the events in the default window, a
// relative date bound, the venues and organizers with upcoming events; a page of the categories for
// one whose answer does not; and the one box, whose events are those of the default window.
var boundaryLists = []string{
	"/calendar/events/v1/events",
	"/calendar/events/v1/events?start_date=tomorrow&per_page=1",
	"/calendar/events/v1/events?start_date=now&end_date=%2B1+day",
	"/calendar/events/v1/venues?only_with_upcoming=1",
	"/calendar/events/v1/organizers?only_with_upcoming=true",
	"/en/calendar/events/v1/venues?has_events=1",
	"/calendar/events/v1/categories",
	"/calendar/events/v1/search?search=market",
}

// boundaryServer is a handler on a clock the test moves, over a store with events on both sides of
// the boundaries the tests cross: midnight at the end of 22 November 2026, and the start of an event
// at 10:20 that day. fresh builds another handler over the same store and index, with empty caches:
// what a request computes without anything prepared.
type boundaryServer struct {
	h     *Handler
	db    *storage.DB
	now   *time.Time
	fresh func() *Handler
}

func newBoundaryServer(t *testing.T) *boundaryServer {
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	h, db := newClockedHandler(t, Config{}, func() time.Time { return now })
	s := &boundaryServer{h: h.(*Handler), db: db, now: &now}
	s.fresh = func() *Handler {
		return New(Deps{Config: s.h.cfg, Store: db, Index: s.h.index, Log: zaptest.NewLogger(t)})
	}
	for _, body := range []string{
		// Started before the boundaries, in today's window until midnight.
		`{"title":"Morning market","start_date":"2026-11-22 08:00:00","end_date":"2026-11-22 12:00:00","venue":{"venue":"Square"},"organizer":[{"organizer":"Market guild"}],"categories":"Markets"}`,
		// Upcoming until 10:20, the start boundary.
		`{"title":"Brunch concert","start_date":"2026-11-22 10:20:00","end_date":"2026-11-22 11:00:00","venue":{"venue":"Hall"},"organizer":[{"organizer":"Hall trio"}],"categories":"Music"}`,
		// Upcoming across both boundaries, and tomorrow's.
		`{"title":"Evening jazz","start_date":"2026-11-23 20:00:00","end_date":"2026-11-23 22:00:00","venue":{"venue":"Club"},"organizer":[{"organizer":"Jazz club"}],"categories":"Music"}`,
		`{"title":"Winter fair","start_date":"2026-12-05 10:00:00","end_date":"2026-12-05 18:00:00","venue":{"venue":"Square"},"categories":"Markets"}`,
	} {
		if w := serve(h, "POST", "/calendar/events/v1/events", "application/json", body); w.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
	}
	s.sync(t)
	return s
}

func (s *boundaryServer) sync(t *testing.T) {
	t.Helper()
	for {
		n, err := indexOf(s.h).SyncOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// get asks h for target anonymously, gzip-encoded when gzip, and returns the answer with its body
// decoded.
func get(t *testing.T, h http.Handler, target string, gzip bool) (*httptest.ResponseRecorder, string) {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	if gzip {
		r.Header.Set("Accept-Encoding", "gzip")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body := w.Body.String()
	if w.Header().Get("Content-Encoding") == codingGzip {
		b, err := gunzipped(w.Body.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		body = string(b)
	}
	return w, body
}

// hot asks every list twice, so that each is cached and hit once.
func (s *boundaryServer) hot(t *testing.T, targets []string) {
	for _, target := range targets {
		for range 2 {
			if w, body := get(t, s.h, target, true); w.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", target, w.Code, body)
			}
		}
	}
}

// TestPreparedAnswersAreFresh crosses each boundary with the lists prepared: the first request after
// it must be a hit of the list cache, and answer exactly what a handler with empty caches computes
// at the same clock, body and headers, for a client that accepts gzip and for one that does not.
func TestPreparedAnswersAreFresh(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after time.Time
		// moved are lists whose answer the boundary must change: a prepared answer that is
		// the old one fails.
		moved []string
	}{
		{"midnight", time.Date(2026, 11, 22, 23, 58, 30, 0, time.UTC), time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
			[]string{boundaryLists[0], boundaryLists[1], boundaryLists[2], boundaryLists[7]}},
		// An event stops being upcoming a second after its start: the boundary's answers are
		// prepared for then.
		{"event start", time.Date(2026, 11, 22, 10, 19, 0, 0, time.UTC), time.Date(2026, 11, 22, 10, 20, 1, 0, time.UTC),
			[]string{boundaryLists[3], boundaryLists[4]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newBoundaryServer(t)
			*s.now = tc.before
			s.hot(t, boundaryLists)
			before := map[string]string{}
			for _, target := range tc.moved {
				_, before[target] = get(t, s.h, target, false)
			}
			n, err := s.h.PrepareBoundary(context.Background(), 90*time.Second)
			if err != nil || n != len(boundaryLists) {
				t.Fatalf("PrepareBoundary = %d, %v; want %d lists", n, err, len(boundaryLists))
			}
			*s.now = tc.after
			fresh := s.fresh()
			for _, target := range boundaryLists {
				for _, gzip := range []bool{true, false} {
					hits := s.h.lists.Stats().Hits
					got, gotBody := get(t, s.h, target, gzip)
					if s.h.lists.Stats().Hits != hits+1 {
						t.Errorf("%s (gzip %v): not answered from the cache after the boundary", target, gzip)
					}
					want, wantBody := get(t, fresh, target, gzip)
					if got.Code != want.Code || gotBody != wantBody {
						t.Errorf("%s (gzip %v): prepared answer differs from a fresh one:\n%d %s\n%d %s", target, gzip, got.Code, gotBody, want.Code, wantBody)
					}
					if g, w := fmt.Sprint(got.Header()), fmt.Sprint(want.Header()); g != w {
						t.Errorf("%s (gzip %v): headers differ:\n%s\n%s", target, gzip, g, w)
					}
				}
			}
			for target, old := range before {
				if _, now := get(t, s.h, target, false); now == old {
					t.Errorf("%s: the answer did not move at the boundary:\n%s", target, now)
				}
			}
		})
	}
}

// TestPreparedAnswerYieldsToWrites: a write between the preparation and the boundary makes the
// prepared answers stale; the first request after the boundary computes its answer again, with the
// write.
func TestPreparedAnswerYieldsToWrites(t *testing.T) {
	s := newBoundaryServer(t)
	*s.now = time.Date(2026, 11, 22, 23, 58, 30, 0, time.UTC)
	target := boundaryLists[0]
	s.hot(t, []string{target})
	if n, err := s.h.PrepareBoundary(context.Background(), 90*time.Second); err != nil || n != 1 {
		t.Fatalf("PrepareBoundary = %d, %v", n, err)
	}
	if w := serve(s.h, "POST", "/calendar/events/v1/events", "application/json",
		`{"title":"Late addition","start_date":"2026-11-24 20:00:00","end_date":"2026-11-24 22:00:00"}`); w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	s.sync(t)
	*s.now = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	misses := s.h.lists.Stats().Misses
	_, got := get(t, s.h, target, false)
	if s.h.lists.Stats().Misses != misses+1 {
		t.Error("an answer prepared before a write was served after it")
	}
	if _, want := get(t, s.fresh(), target, false); got != want || !strings.Contains(got, "Late addition") {
		t.Errorf("after the write:\n%s\nwant\n%s", got, want)
	}
}

// TestPrepareBoundaryChoosesLists: only lists hit since the last boundary are prepared, the most hit
// first and at most warmKeys of them, only anonymous ones, and only when the boundary is near.
func TestPrepareBoundaryChoosesLists(t *testing.T) {
	ctx := context.Background()
	s := newBoundaryServer(t)
	if n, err := s.h.PrepareBoundary(ctx, 24*time.Hour); err != nil || n != 0 {
		t.Fatalf("with no traffic: %d, %v", n, err)
	}
	// Asked once each: cached, never hit.
	for i := range warmKeys + 8 {
		get(t, s.h, fmt.Sprint("/calendar/events/v1/events?per_page=", i+1), true)
	}
	if n, _ := s.h.PrepareBoundary(ctx, 24*time.Hour); n != 0 {
		t.Fatalf("with no list hit: prepared %d", n)
	}
	// Hit, by an administrator: not prepared.
	for range 2 {
		if w := serve(s.h, "GET", "/calendar/events/v1/venues", "", ""); w.Code != http.StatusOK {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	if n, _ := s.h.PrepareBoundary(ctx, 24*time.Hour); n != 0 {
		t.Fatalf("with an administrator's lists hit only: prepared %d", n)
	}
	// More lists hit than are prepared; the events list most.
	for i := range warmKeys + 8 {
		get(t, s.h, fmt.Sprint("/calendar/events/v1/events?per_page=", i+1), true)
	}
	s.hot(t, []string{boundaryLists[0]})
	// The boundary, the event start at 10:20, is further away than asked: nothing yet, and the
	// hits are kept for the run that prepares it.
	if n, _ := s.h.PrepareBoundary(ctx, time.Minute); n != 0 {
		t.Fatalf("with the boundary 4.5 minutes away, within a minute: prepared %d", n)
	}
	if n, err := s.h.PrepareBoundary(ctx, 5*time.Minute); err != nil || n != warmKeys {
		t.Fatalf("PrepareBoundary = %d, %v; want %d", n, err, warmKeys)
	}
	if s.h.lists.Peek(respcache.NextKey(listKey("events", &request{r: httptest.NewRequest("GET", "/", nil), origin: "http://example.com"}))) == nil {
		t.Error("the most hit list was not prepared")
	}
	if n, _ := s.h.PrepareBoundary(ctx, 5*time.Minute); n != 0 {
		t.Errorf("again, with no hit since: prepared %d", n)
	}
}

// TestPreparedAnswersKeepTheBound: prepared answers count against the list cache's bound.
func TestPreparedAnswersKeepTheBound(t *testing.T) {
	s := newBoundaryServer(t)
	s.h.lists = respcache.New(4 << 10)
	*s.now = time.Date(2026, 11, 22, 23, 58, 30, 0, time.UTC)
	for range 3 {
		s.hot(t, boundaryLists)
		if _, err := s.h.PrepareBoundary(context.Background(), 90*time.Second); err != nil {
			t.Fatal(err)
		}
		if st := s.h.lists.Stats(); st.Bytes > st.Limit {
			t.Fatalf("the list cache holds %d bytes, over its bound of %d", st.Bytes, st.Limit)
		}
	}
}
