package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// orderFixture is a calendar for the events list's orders: events whose titles and descriptions hold
// a search's words in different places, at venues at known positions.
type orderFixture struct {
	s *server
	// ids are the events by name; venueOf the position of each event's venue, if any.
	ids     map[string]uint64
	names   map[uint64]string
	venueOf map[uint64][2]float64
}

// orderCentre is the centre the distance cases measure from: Paris.
var orderCentre = [2]float64{48.8566, 2.3522}

func newOrderFixture(t *testing.T) *orderFixture {
	s := startServer(t)
	f := &orderFixture{s: s, ids: map[string]uint64{}, names: map[uint64]string{}, venueOf: map[uint64][2]float64{}}
	positions := [][2]float64{{48.86, 2.35}, {49.2, 2.6}, {48.5, 1.9}, {45.76, 4.84}}
	var venues []uint64
	for i, at := range positions {
		venues = append(venues, s.create(venuesPath, map[string]any{"venue": fmt.Sprint("Hall ", i), "status": "publish",
			"geo_lat": at[0], "geo_lng": at[1]}))
	}
	for i, e := range []struct{ name, title, description, start string }{
		{"both-in-title", "Jazz night", "", "2026-12-03 20:00:00"},
		{"one-in-title", "Night market", "with jazz", "2026-12-01 20:00:00"},
		{"none-in-title", "Open air", "jazz all night", "2026-12-02 20:00:00"},
		{"prefix-in-title", "Jazzy night", "", "2026-12-01 19:00:00"},
		{"both-again", "Jazz night", "", "2026-12-03 20:00:00"},
		{"other", "Poetry reading", "", "2026-12-01 18:00:00"},
	} {
		body := map[string]any{"title": e.title, "description": e.description, "start_date": e.start, "end_date": e.start, "status": "publish"}
		if i < 5 {
			body["venue"] = venues[i%len(venues)]
		}
		id := s.create(eventsPath, body)
		f.ids[e.name], f.names[id] = id, e.name
		if i < 5 {
			f.venueOf[id] = positions[i%len(positions)]
		}
	}
	s.settle()
	return f
}

// haversineKm is the great-circle distance of docs/API.md "Events list parameters", written out here
// so that the test does not trust the server's.
func haversineKm(a, b [2]float64) float64 {
	rad := math.Pi / 180
	dLat, dLng := (b[0]-a[0])*rad, (b[1]-a[1])*rad
	h := math.Pow(math.Sin(dLat/2), 2) + math.Cos(a[0]*rad)*math.Cos(b[0]*rad)*math.Pow(math.Sin(dLng/2), 2)
	return 2 * 6371.0088 * math.Asin(math.Sqrt(h))
}

// walk lists query page by page, per_page at a time, and returns the events in order with their
// distance_km (NaN when absent); it fails the test unless every page agrees on the total with the
// whole list, echoes the order in rest_url, and links to the next page while there is one.
func (f *orderFixture) walk(t *testing.T, query string, perPage int) ([]uint64, []float64) {
	t.Helper()
	var ids []uint64
	var km []float64
	total := -1
	for page := 1; ; page++ {
		q := query + "&per_page=" + strconv.Itoa(perPage) + "&page=" + strconv.Itoa(page)
		res := f.s.do(req{method: "GET", path: eventsPath + "?" + q})
		if res.status != http.StatusOK {
			t.Fatalf("%s: %d %s", q, res.status, res.body)
		}
		body := res.json(t)
		n, _ := strconv.Atoi(res.header.Get("X-TEC-Total"))
		if total >= 0 && n != total {
			t.Fatalf("%s: X-TEC-Total %d, the first page said %d", q, n, total)
		}
		total = n
		restURL, _ := body["rest_url"].(string)
		for _, p := range []string{"orderby", "order"} {
			if v := valueIn(query, p); v != "" && !strings.Contains(restURL, p+"="+url.QueryEscape(v)) {
				t.Errorf("%s: rest_url %s does not echo %s=%s", q, restURL, p, v)
			}
		}
		for _, item := range body["events"].([]any) {
			e := item.(map[string]any)
			ids = append(ids, uint64(e["id"].(float64)))
			d, ok := e["distance_km"].(float64)
			if !ok {
				d = math.NaN()
			}
			km = append(km, d)
		}
		if _, more := body["next_rest_url"]; !more {
			break
		}
	}
	if len(ids) != total {
		t.Fatalf("%s: the pages hold %d events, X-TEC-Total says %d", query, len(ids), total)
	}
	return ids, km
}

// namesOf names the events of ids.
func (f *orderFixture) namesOf(ids []uint64) []string {
	var out []string
	for _, id := range ids {
		out = append(out, f.names[id])
	}
	return out
}

func valueIn(query, name string) string {
	v, _ := url.ParseQuery(query)
	return v.Get(name)
}

// TestEventsOrderBy: orderby and order of docs/API.md "Ordering", end to end: each order as the
// docs state it, the same events page by page as on one page, distance_km exactly with a geo centre,
// and the 400s of the combinations that cannot be answered, each naming its parameter.
func TestEventsOrderBy(t *testing.T) {
	f := newOrderFixture(t)
	geo := fmt.Sprintf("geoloc=1&geoloc_lat=%v&geoloc_lng=%v&geoloc_radius=1000", orderCentre[0], orderCentre[1])
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"default order is by start", "search=jazz",
			[]string{"prefix-in-title", "one-in-title", "none-in-title", "both-in-title", "both-again"}},
		{"start descending, ties by ID", "search=jazz&orderby=start_date&order=DESC",
			[]string{"both-in-title", "both-again", "none-in-title", "one-in-title", "prefix-in-title"}},
		{"relevance: title, then exactness, then start and ID", "search=jazz+night&orderby=relevance",
			[]string{"both-in-title", "both-again", "prefix-in-title", "one-in-title", "none-in-title"}},
		{"relevance takes desc", "search=jazz+night&orderby=relevance&order=desc",
			[]string{"both-in-title", "both-again", "prefix-in-title", "one-in-title", "none-in-title"}},
		// both-in-title and both-again share the nearest venue and their start: the lower ID first.
		{"distance: nearest first, ties by start then ID", geo + "&orderby=distance",
			[]string{"both-in-title", "both-again", "one-in-title", "none-in-title", "prefix-in-title"}},
		{"distance descending", geo + "&orderby=distance&order=desc",
			[]string{"prefix-in-title", "none-in-title", "one-in-title", "both-in-title", "both-again"}},
		{"modified: one clock, ties by start then ID", "orderby=modified",
			[]string{"other", "prefix-in-title", "one-in-title", "none-in-title", "both-in-title", "both-again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, km := f.walk(t, tc.query, 100)
			if got := f.namesOf(whole); !slices.Equal(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
			}
			for _, per := range []int{1, 2, 4} {
				if paged, _ := f.walk(t, tc.query, per); !slices.Equal(paged, whole) {
					t.Errorf("%s, %d a page: %v, on one page %v", tc.query, per, paged, whole)
				}
			}
			for i, id := range whole {
				switch {
				case strings.Contains(tc.query, "geoloc_lat"):
					if want := math.Round(haversineKm(orderCentre, f.venueOf[id])*10) / 10; km[i] != want {
						t.Errorf("%s: event %s distance_km %v, want %v", tc.query, f.names[id], km[i], want)
					}
				case !math.IsNaN(km[i]):
					t.Errorf("%s: event %s has distance_km %v without a geo centre", tc.query, f.names[id], km[i])
				}
			}
		})
	}

	t.Run("_fields picks distance_km", func(t *testing.T) {
		res := f.s.do(req{method: "GET", path: eventsPath + "?" + geo + "&orderby=distance&_fields=id,distance_km"})
		items := res.json(t)["events"].([]any)
		if len(items) != len(f.venueOf) {
			t.Fatalf("%d events, want %d", len(items), len(f.venueOf))
		}
		for _, item := range items {
			e := item.(map[string]any)
			if _, ok := e["distance_km"].(float64); !ok || len(e) != 2 {
				t.Errorf("an item of _fields=id,distance_km: %v", e)
			}
		}
	})

	t.Run("the feed holds the first events of the list's order", func(t *testing.T) {
		for _, query := range []string{"search=jazz+night&orderby=relevance", geo + "&orderby=distance&order=desc", "orderby=modified"} {
			res := f.s.do(req{method: "GET", path: eventsPath + ".ics?" + query})
			var got []uint64
			for _, m := range regexp.MustCompile(`(?m)^UID:(\d+)@`).FindAllSubmatch(res.body, -1) {
				id, _ := strconv.ParseUint(string(m[1]), 10, 64)
				got = append(got, id)
			}
			if want, _ := f.walk(t, query, 100); res.status != http.StatusOK || !slices.Equal(got, want) {
				t.Errorf("events.ics?%s: %d, events %v; the list's order %v", query, res.status, f.namesOf(got), f.namesOf(want))
			}
		}
	})

	for _, tc := range []struct {
		name, query string
		wantParams  []string
	}{
		{"relevance without search", "orderby=relevance", []string{"orderby"}},
		{"relevance ascending", "search=jazz&orderby=relevance&order=asc", []string{"order"}},
		{"distance without geoloc", "orderby=distance", []string{"orderby"}},
		{"distance without a centre", "geoloc=1&orderby=distance", []string{"orderby"}},
		{"unknown orderby", "orderby=title", []string{"orderby"}},
		{"unknown order", "order=up", []string{"order"}},
		{"empty orderby", "orderby=", []string{"orderby"}},
		{"a centre missing a coordinate and relevance without search", "geoloc=1&geoloc_lat=48&orderby=relevance",
			[]string{"geoloc_lng", "orderby"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{eventsPath, eventsPath + ".ics"} {
				res := f.s.do(req{method: "GET", path: path + "?" + tc.query})
				body := res.json(t)
				params, _ := body["data"].(map[string]any)["params"].(map[string]any)
				var got []string
				for name := range params {
					got = append(got, name)
				}
				sort.Strings(got)
				if res.status != http.StatusBadRequest || body["code"] != "rest_invalid_param" || !slices.Equal(got, tc.wantParams) {
					t.Errorf("%s?%s: %d %s, want 400 rest_invalid_param naming %v", path, tc.query, res.status, res.body, tc.wantParams)
				}
			}
		})
	}
}

// TestEventsOrderByModified: orderby=modified lists the last modified first by default and the least
// recently with order=asc, on the server's clock: an event updated later moves to the front.
func TestEventsOrderByModified(t *testing.T) {
	f := newOrderFixture(t)
	s := f.s.restart("CALENDAR_NOW=2026-11-22T11:00:00Z")
	for _, name := range []string{"none-in-title", "other"} {
		res := s.do(req{method: "POST", path: eventsPath + "/" + utoa(f.ids[name]), auth: adminAuth, body: map[string]any{"excerpt": "changed"}})
		if res.status != http.StatusOK {
			t.Fatalf("update %s: %d %s", name, res.status, res.body)
		}
	}
	s.settle()
	f.s = s
	for _, tc := range []struct {
		query string
		want  []string
	}{
		// The two updated at 11:00 by start, then the others, written at one instant, by start.
		{"orderby=modified", []string{"other", "none-in-title", "prefix-in-title", "one-in-title", "both-in-title", "both-again"}},
		{"orderby=modified&order=asc", []string{"prefix-in-title", "one-in-title", "both-in-title", "both-again", "other", "none-in-title"}},
	} {
		if ids, _ := f.walk(t, tc.query, 2); !slices.Equal(f.namesOf(ids), tc.want) {
			t.Errorf("%s: %v, want %v", tc.query, f.namesOf(ids), tc.want)
		}
	}
}

// TestEventsOrdersPageStablyAfterWrites: after rounds of random writes (new events, retitled ones,
// moved ones, trashed ones), the pages of every order, walked one by one, hold every listed event
// exactly once, as the whole list on one page does.
func TestEventsOrdersPageStablyAfterWrites(t *testing.T) {
	f := newOrderFixture(t)
	rng := rand.New(rand.NewPCG(38, 3))
	words := []string{"jazz", "night", "market", "jazzy", "open", "air", "nights"}
	geo := fmt.Sprintf("geoloc=1&geoloc_lat=%v&geoloc_lng=%v&geoloc_radius=2000", orderCentre[0], orderCentre[1])
	for round := range 3 {
		for range 6 {
			title := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
			start := fmt.Sprintf("2026-12-%02d %02d:00:00", 1+rng.IntN(5), 10+rng.IntN(3))
			var ids []uint64
			for _, id := range f.ids {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			switch id := ids[rng.IntN(len(ids))]; rng.IntN(4) {
			case 0:
				id := f.s.create(eventsPath, map[string]any{"title": title, "start_date": start, "end_date": start, "status": "publish"})
				f.ids[fmt.Sprint("new", id)], f.names[id] = id, fmt.Sprint("new", id)
			case 1:
				f.s.do(req{method: "POST", path: eventsPath + "/" + utoa(id), auth: adminAuth, body: map[string]any{"title": title}})
			case 2:
				f.s.do(req{method: "POST", path: eventsPath + "/" + utoa(id), auth: adminAuth, body: map[string]any{"start_date": start, "end_date": start}})
			default:
				f.s.do(req{method: "DELETE", path: eventsPath + "/" + utoa(id), auth: adminAuth})
			}
		}
		f.s.settle()
		for _, query := range []string{"orderby=start_date", "orderby=start_date&order=desc", "search=jazz+night&orderby=relevance",
			"search=ja&orderby=relevance", geo + "&orderby=distance", geo + "&orderby=distance&order=desc", "orderby=modified",
			"orderby=modified&order=asc", "hide_subsequent_recurrences=1&orderby=modified"} {
			whole, _ := f.walk(t, query, 100)
			if len(slices.Compact(slices.Sorted(slices.Values(whole)))) != len(whole) {
				t.Fatalf("round %d, %s: an event listed twice: %v", round, query, whole)
			}
			for _, per := range []int{1, 3} {
				if paged, _ := f.walk(t, query, per); !slices.Equal(paged, whole) {
					t.Errorf("round %d, %s, %d a page: %v, on one page %v", round, query, per, paged, whole)
				}
			}
		}
	}
}
