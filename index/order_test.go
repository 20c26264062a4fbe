package index

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// orderStore is a store whose clock moves as the test says, so that records differ in their
// modified stamp, with an index over it.
type orderStore struct {
	db  *storage.DB
	ix  *Index
	now time.Time
}

var orderAdmin = storage.Actor{UserID: 1, Role: storage.RoleAdministrator}

func newOrderStore(t *testing.T) *orderStore {
	t.Helper()
	s := &orderStore{now: testNow}
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{Now: func() time.Time { return s.now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s.db = db
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "index"), db, Options{Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	s.ix = ix
	return s
}

// event creates a published English event starting at start, after a minute on the store's clock.
func (s *orderStore) event(t *testing.T, title, description, start string, venue uint64) uint64 {
	t.Helper()
	s.now = s.now.Add(time.Minute)
	at, err := datetime.Parse(start)
	if err != nil {
		t.Fatal(err)
	}
	in := &storage.EventInput{PostInput: storage.PostInput{Title: &title, Description: &description, Status: new(storage.StatusPublish)},
		Start: &at, End: &at}
	if venue != 0 {
		in.Venue = &storage.VenueRef{ID: venue}
	}
	e, err := s.db.CreateEvent(context.Background(), orderAdmin, "en", in)
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// list answers f over the whole store's window, every match on one page, after syncing the index.
func (s *orderStore) list(t *testing.T, f EventFilter) Page {
	t.Helper()
	syncAll(t, s.ix)
	f.Lang, f.Now, f.Limit = "en", s.now, 1000
	f.Start, f.End = testNow.AddDate(-1, 0, 0), testNow.AddDate(10, 0, 0)
	page, err := s.ix.Events(context.Background(), &f)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// TestRelevanceOrder: orderby=relevance lists a search's matches best first (docs/API.md
// "Ordering"): the more of its terms the title holds, then the more the text holds exactly, then the
// more as typed rather than through a typo; ties by start, then ID.
func TestRelevanceOrder(t *testing.T) {
	type event struct{ title, description, start string }
	tests := []struct {
		name   string
		search string
		events []event
		// want lists the events by their position in events, best first.
		want     []int
		tolerant bool
	}{
		{
			name:   "title before description, all terms before some",
			search: "jazz night",
			events: []event{
				{"Open air", "jazz night", "2030-05-01 20:00:00"},   // no term in the title
				{"Night market", "jazz", "2030-05-01 20:00:00"},     // one of two
				{"Jazz night", "", "2030-05-01 20:00:00"},           // both
				{"Workshop", "night market", "2030-05-01 20:00:00"}, // not a match
			},
			want: []int{2, 1, 0},
		},
		{
			name:   "exact before prefix",
			search: "jazz night",
			events: []event{
				{"Jazzy night", "", "2030-05-01 20:00:00"}, // jazz only begins a word
				{"Jazz night", "", "2030-05-01 20:00:00"},  // both exactly
				{"Jazz nights", "", "2030-05-01 20:00:00"}, // nights is a form of night: exact
			},
			want: []int{1, 2, 0},
		},
		{
			name:   "ties by start, then ID",
			search: "concert",
			events: []event{
				{"Concert", "", "2030-05-03 20:00:00"},
				{"Concert", "", "2030-05-01 20:00:00"},
				{"The concert", "", "2030-05-03 20:00:00"},
				{"Evening", "a concert", "2030-05-01 10:00:00"},
			},
			want: []int{1, 0, 2, 3},
		},
		{
			name:   "typed before typo, with typo tolerance",
			search: "concret night",
			events: []event{
				{"Concert nihgt", "", "2030-05-01 20:00:00"},   // both through a typo
				{"Concert nightly", "", "2030-05-01 20:00:00"}, // night as typed, by its beginning
				{"Concert night", "", "2030-05-01 20:00:00"},   // night exactly
				{"Evening", "concert night", "2030-05-01 20:00:00"},
			},
			want:     []int{2, 1, 0, 3},
			tolerant: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newOrderStore(t)
			var ids []uint64
			for _, e := range tc.events {
				ids = append(ids, s.event(t, e.title, e.description, e.start, 0))
			}
			var want []uint64
			for _, i := range tc.want {
				want = append(want, ids[i])
			}
			got := s.list(t, EventFilter{Search: tc.search, Order: OrderRelevance, Desc: true})
			if !slices.Equal(got.IDs, want) || got.Total != len(want) || got.TypoTolerant != tc.tolerant {
				t.Errorf("%q: %v (total %d, typo-tolerant %v), want %v (%v)", tc.search, got.IDs, got.Total, got.TypoTolerant, want, tc.tolerant)
			}
		})
	}
}

// TestModifiedOrder: orderby=modified lists the last modified first by default (Desc), the first with
// asc, ties by start then ID; an update moves an event to the front.
func TestModifiedOrder(t *testing.T) {
	s := newOrderStore(t)
	a := s.event(t, "A", "", "2030-05-02 20:00:00", 0)
	b := s.event(t, "B", "", "2030-05-01 20:00:00", 0)
	c := s.event(t, "C", "", "2030-05-03 20:00:00", 0)
	s.now = s.now.Add(time.Hour)
	if _, err := s.db.UpdateEvent(context.Background(), orderAdmin, a, &storage.EventInput{PostInput: storage.PostInput{Title: new("A again")}}); err != nil {
		t.Fatal(err)
	}
	// d and e are written within one second: a tie, broken by start.
	d := s.event(t, "D", "", "2030-05-05 20:00:00", 0)
	s.now = s.now.Add(-time.Minute)
	e := s.event(t, "E", "", "2030-05-04 20:00:00", 0)
	for _, tc := range []struct {
		desc bool
		want []uint64
	}{
		{true, []uint64{e, d, a, c, b}},
		{false, []uint64{b, c, a, e, d}},
	} {
		if got := s.list(t, EventFilter{Order: OrderModified, Desc: tc.desc}); !slices.Equal(got.IDs, tc.want) {
			t.Errorf("desc %v: %v, want %v", tc.desc, got.IDs, tc.want)
		}
	}
}

// TestDistanceOrder: orderby=distance lists the nearest venue first (farthest with Desc), ties by
// start then ID, and every page tells each event's distance as the haversine over the venues' own
// positions tells it.
func TestDistanceOrder(t *testing.T) {
	s := newOrderStore(t)
	centre := storage.Geo{Lat: 48.8566, Lng: 2.3522}
	positions := []storage.Geo{{Lat: 48.86, Lng: 2.35}, {Lat: 49.2, Lng: 2.6}, {Lat: 48.5, Lng: 1.9}, {Lat: 52.52, Lng: 13.40}}
	var venues []uint64
	for i, at := range positions {
		v, _, err := s.db.CreateVenue(context.Background(), orderAdmin, "en",
			&storage.VenueInput{PostInput: storage.PostInput{Title: new(fmt.Sprint("Venue ", i)), Status: new(storage.StatusPublish)}, Geo: &at})
		if err != nil {
			t.Fatal(err)
		}
		venues = append(venues, v.ID)
	}
	type listed struct {
		id  uint64
		pos storage.Geo
	}
	var events []listed
	for i, start := range []string{"2030-05-03 20:00:00", "2030-05-01 20:00:00", "2030-05-02 20:00:00", "2030-05-01 20:00:00", "2030-05-01 20:00:00"} {
		v := i % len(positions)
		events = append(events, listed{s.event(t, fmt.Sprint("Event ", i), "", start, venues[v]), positions[v]})
	}
	s.event(t, "No venue", "", "2030-05-01 20:00:00", 0)
	for _, radius := range []float64{20000, 100} {
		g := &Geo{Point: true, Lat: centre.Lat, Lng: centre.Lng, RadiusKm: radius}
		var want []listed
		for _, e := range events {
			if Distance(centre.Lat, centre.Lng, e.pos.Lat, e.pos.Lng) <= radius {
				want = append(want, e)
			}
		}
		for _, desc := range []bool{false, true} {
			got := s.list(t, EventFilter{Geo: g, Order: OrderDistance, Desc: desc})
			if len(got.IDs) != len(want) || len(got.Distances) != len(got.IDs) {
				t.Fatalf("radius %v desc %v: %v at %v, want %d events", radius, desc, got.IDs, got.Distances, len(want))
			}
			for i, id := range got.IDs {
				at := slices.IndexFunc(want, func(e listed) bool { return e.id == id })
				if at < 0 {
					t.Fatalf("radius %v: event %d listed, not within it", radius, id)
				}
				if d := Distance(centre.Lat, centre.Lng, want[at].pos.Lat, want[at].pos.Lng); math.Abs(got.Distances[i]-d) > 1e-9 {
					t.Errorf("event %d at %v km, want %v", id, got.Distances[i], d)
				}
				if i == 0 {
					continue
				}
				prev, d := got.Distances[i-1], got.Distances[i]
				if desc {
					prev, d = d, prev
				}
				if prev > d {
					t.Errorf("radius %v desc %v: %v at %v: not by distance", radius, desc, got.IDs, got.Distances)
				}
			}
		}
	}
	// Events 0 and 4 share the nearest venue: the earlier start first.
	want := []uint64{events[4].id, events[0].id, events[1].id, events[2].id, events[3].id}
	if got := s.list(t, EventFilter{Geo: &Geo{Point: true, Lat: centre.Lat, Lng: centre.Lng, RadiusKm: 20000}, Order: OrderDistance}); !slices.Equal(got.IDs, want) {
		t.Errorf("nearest first: %v, want %v (the tie by start)", got.IDs, want)
	}
}

// TestOrdersPageStably: in every order, the pages of an unchanged list, walked one by one after random
// writes, hold every listed event once (docs/API.md "Ordering").
func TestOrdersPageStably(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, 11, 300)
	for i := range 60 {
		f := w.randomEventFilter()
		f.Order, f.Desc = Order(i%4), i%8 >= 4
		switch {
		case f.Order == OrderRelevance && f.Search == "":
			f.Search = "con"
		case f.Order == OrderDistance && (f.Geo == nil || !f.Geo.Point):
			f.Geo = &Geo{Point: true, Lat: 50, Lng: 4, RadiusKm: 300}
		}
		f.Offset, f.Limit = 0, 1000
		all, err := w.ix.Events(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var walked []uint64
		f.Limit = 1 + i%7
		for f.Offset = 0; f.Offset < all.Total; f.Offset += f.Limit {
			page, err := w.ix.Events(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if page.Total != all.Total {
				t.Fatalf("query %d %+v: a page says %d in all, the whole list %d", i, *f, page.Total, all.Total)
			}
			walked = append(walked, page.IDs...)
		}
		if !slices.Equal(walked, all.IDs) {
			t.Fatalf("query %d %+v: the pages hold %v, the whole list %v", i, *f, walked, all.IDs)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(walked)))) != len(walked) {
			t.Fatalf("query %d: an event on two pages: %v", i, walked)
		}
	}
}
