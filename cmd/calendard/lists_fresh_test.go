package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

// TestListReadYourWrites: a write returns only after the index applied it, so the next list shows it
// (docs/API.md "Venue and organizer list parameters" freshness, 0.3 acknowledged writes).
func TestListReadYourWrites(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	editor := s.user("edna", storage.RoleEditor)
	list := func(t *testing.T, auth, path string) []float64 {
		t.Helper()
		res := s.do(req{method: "GET", path: path, auth: auth})
		if res.status != 200 {
			t.Fatalf("GET %s: %d %s", path, res.status, res.body)
		}
		body := res.json(t)
		key := strings.TrimPrefix(strings.SplitN(path, "?", 2)[0], "/calendar/events/v1/")
		ids := []float64{}
		for _, it := range listItemsOf(body, key) {
			ids = append(ids, it["id"].(float64))
		}
		if total := body["total"].(float64); int(total) != len(ids) {
			t.Errorf("GET %s: total %v for %d items", path, total, len(ids))
		}
		return ids
	}
	expect := func(t *testing.T, auth, path string, want ...uint64) {
		t.Helper()
		w := make([]float64, len(want))
		for i, id := range want {
			w[i] = float64(id)
		}
		if diff := cmp.Diff(w, list(t, auth, path)); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", path, diff)
		}
	}
	patch := func(t *testing.T, path string, body map[string]any) {
		t.Helper()
		if res := s.do(req{method: "PATCH", path: path, auth: adminAuth, body: body}); res.status != 200 {
			t.Fatalf("PATCH %s: %d %s", path, res.status, res.body)
		}
	}

	dance := s.create(categoriesPath, map[string]any{"name": "Dance"})
	cat := s.create(categoriesPath, map[string]any{"name": "Salsa", "parent": dance})
	ev := s.create(eventsPath, map[string]any{"title": "Tango Evening", "start_date": "2026-12-01 20:00:00", "end_date": "2026-12-01 22:00:00"})
	evPath := eventsPath + "/" + utoa(ev)
	var venue, org uint64
	steps := []struct {
		name  string
		write func(t *testing.T)
		check func(t *testing.T)
	}{
		{"create shows at once", func(t *testing.T) {}, func(t *testing.T) {
			expect(t, "", eventsPath, ev)
			expect(t, "", eventsPath+"?search=tango", ev)
			expect(t, "", categoriesPath)
		}},
		{"retitle is searchable at once", func(t *testing.T) { patch(t, evPath, map[string]any{"title": "Rumba Evening"}) }, func(t *testing.T) {
			expect(t, "", eventsPath+"?search=rumba", ev)
			expect(t, "", eventsPath+"?search=tango")
		}},
		{"category count follows", func(t *testing.T) { patch(t, evPath, map[string]any{"categories": []any{cat}}) }, func(t *testing.T) {
			expect(t, "", categoriesPath, dance, cat) // the empty parent shows because of its child
			expect(t, "", eventsPath+"?categories=salsa", ev)
			expect(t, "", eventsPath+"?categories=dance", ev)
		}},
		{"re-parenting follows", func(t *testing.T) { patch(t, categoriesPath+"/"+utoa(cat), map[string]any{"parent": 0}) }, func(t *testing.T) {
			expect(t, "", categoriesPath, cat)
			expect(t, "", categoriesPath+"?parent=0", cat)
			expect(t, "", eventsPath+"?categories=dance")
		}},
		{"venue geo follows", func(t *testing.T) {
			venue = s.create(venuesPath, map[string]any{"venue": "Dance Hall", "geo_lat": 10, "geo_lng": 10})
			patch(t, evPath, map[string]any{"venue": venue})
		}, func(t *testing.T) {
			expect(t, "", eventsPath+"?geoloc=1", ev)
			expect(t, "", eventsPath+"?geoloc=1&geoloc_lat=10&geoloc_lng=10.1", ev)
			expect(t, "", venuesPath+"?has_events=1", venue)
			expect(t, "", venuesPath+"?only_with_upcoming=1", venue)
		}},
		{"moved venue coordinates follow", func(t *testing.T) {
			patch(t, venuesPath+"/"+utoa(venue), map[string]any{"geo_lat": 20, "geo_lng": 20})
		}, func(t *testing.T) {
			expect(t, "", eventsPath+"?geoloc=1&geoloc_lat=10&geoloc_lng=10.1")
			expect(t, "", eventsPath+"?geoloc=1&geoloc_lat=20&geoloc_lng=20", ev)
		}},
		{"cleared coordinates follow", func(t *testing.T) {
			patch(t, venuesPath+"/"+utoa(venue), map[string]any{"geo_lat": "", "geo_lng": ""})
		}, func(t *testing.T) {
			expect(t, "", eventsPath+"?geoloc=1")
		}},
		{"draft leaves the public lists", func(t *testing.T) { patch(t, evPath, map[string]any{"status": "draft"}) }, func(t *testing.T) {
			expect(t, "", eventsPath)
			expect(t, editor, eventsPath, ev)
			expect(t, "", categoriesPath)
			expect(t, "", venuesPath+"?has_events=1")
			expect(t, "", venuesPath+"?has_events=0", venue)
		}},
		{"hidden leaves every list", func(t *testing.T) {
			patch(t, evPath, map[string]any{"status": "publish", "hide_from_listings": true})
		}, func(t *testing.T) {
			expect(t, editor, eventsPath)
			expect(t, "", eventsPath+"?include="+utoa(ev))
			expect(t, "", venuesPath+"?only_with_upcoming=1")
			expect(t, "", venuesPath+"?has_events=1", venue)
		}},
		{"trash leaves the lists", func(t *testing.T) {
			patch(t, evPath, map[string]any{"hide_from_listings": false})
			if res := s.do(req{method: "DELETE", path: evPath, auth: adminAuth}); res.status != 200 {
				t.Fatalf("delete: %d %s", res.status, res.body)
			}
		}, func(t *testing.T) {
			expect(t, editor, eventsPath)
			expect(t, editor, eventsPath+"?status=trash", ev)
			expect(t, "", venuesPath+"?has_events=1")
			expect(t, "", categoriesPath)
		}},
		{"a trashed venue is unlinked", func(t *testing.T) {
			patch(t, evPath, map[string]any{"status": "publish"})
			if res := s.do(req{method: "DELETE", path: venuesPath + "/" + utoa(venue), auth: adminAuth}); res.status != 200 {
				t.Fatalf("delete venue: %d %s", res.status, res.body)
			}
		}, func(t *testing.T) {
			expect(t, "", eventsPath, ev)
			expect(t, "", eventsPath+"?venue="+utoa(venue))
			expect(t, "", venuesPath+"?event="+utoa(ev))
			expect(t, "", venuesPath)
			expect(t, editor, venuesPath+"?status=trash", venue)
		}},
		{"new venue and organizer list at once", func(t *testing.T) {
			org = s.create(organizersPath, map[string]any{"organizer": "Fresh Org"})
		}, func(t *testing.T) {
			expect(t, "", organizersPath, org)
			expect(t, "", organizersPath+"?search=fresh", org)
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.write(t)
			st.check(t)
		})
	}
}

// TestListSiteTimeZone: date bounds are days of the site zone, compared with start instants (5.2).
// Europe/Paris is UTC+1 in November: today there is 2026-11-21T23:00Z … 2026-11-22T22:59:59Z.
func TestListSiteTimeZone(t *testing.T) {
	t.Parallel()
	s := startServer(t, "CALENDAR_SITE_TIMEZONE=Europe/Paris")
	f := &listFixture{s: s, rec: map[string]uint64{}, term: map[string]uint64{}, roles: map[string]storage.Role{}}
	for _, e := range []struct{ name, start string }{
		{"before", "2026-11-21 22:30:00"}, // 23:30 Paris, yesterday there
		{"after", "2026-11-21 23:30:00"},  // 00:30 Paris, today there
		{"last", "2028-11-22 22:30:00"},   // 23:30 Paris on the last day of the window
		{"beyond", "2028-11-22 23:30:00"}, // 00:30 Paris the day after
	} {
		f.add(t, e.name, adminAuth, eventsPath, map[string]any{"title": e.name, "timezone": "UTC", "start_date": e.start, "end_date": e.start}, "publish")
	}
	u := func(q string) string { return nsURL + "/events/" + q }
	f.runListCases(t, "events", []listCase{
		{name: "default window in the site zone", path: eventsPath, want: []string{"after", "last"}, restURL: u("")},
		{name: "explicit day in the site zone", path: eventsPath + "?start_date=2026-11-21&end_date=2026-11-21", want: []string{"before"},
			restURL: u("?start_date=2026-11-21+00%3A00%3A00&end_date=2026-11-21+23%3A59%3A59")},
		{name: "an instant is converted to the site zone", path: eventsPath + "?start_date=2026-11-21T23:30:00Z&end_date=2028-11-23T00:00:00%2B00:00",
			want: []string{"after", "last", "beyond"}, restURL: u("?start_date=2026-11-22+00%3A00%3A00&end_date=2028-11-23+23%3A59%3A59")},
		{name: "today", path: eventsPath + "?start_date=today&end_date=today", want: []string{"after"},
			restURL: u("?start_date=2026-11-22+00%3A00%3A00&end_date=2026-11-22+23%3A59%3A59")},
	})
}
