package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
)

// facetsAll asks for every kind of facet.
const facetsAll = "categories,tags,venue,organizer,month"

// facetParam is the events list parameter that filters by the values of a kind of facet.
var facetParam = map[string]string{"categories": "categories", "tags": "tags", "venue": "venue", "organizer": "organizer"}

// facetBucket is one value of a facet as the list answers it.
type facetBucket struct {
	ID    uint64 `json:"id"`
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Value string `json:"value"`
	Count int    `json:"count"`
}

// facetWorld is a random calendar in two languages: categories with a subcategory, tags, published
// and draft venues and organizers, events of every status by an administrator and a contributor,
// some of them series, in three zones on a site in Europe/Paris.
type facetWorld struct {
	s     *server
	roles []string // Basic credentials, "" anonymous
	cats  []uint64
	tags  []uint64
	// venues and orgs by language root ("" or "/fr").
	venues, orgs map[string][]uint64
}

func seedFacetWorld(t *testing.T, rng *rand.Rand) *facetWorld {
	s := startServer(t, "CALENDAR_SITE_TIMEZONE=Europe/Paris")
	w := &facetWorld{s: s, venues: map[string][]uint64{}, orgs: map[string][]uint64{}}
	contributor := s.user("connie", storage.RoleContributor)
	w.roles = []string{"", adminAuth, s.user("edna", storage.RoleEditor), contributor, s.user("sid", storage.RoleSubscriber)}
	music := s.create(categoriesPath, map[string]any{"name": "Music"})
	w.cats = []uint64{music, s.create(categoriesPath, map[string]any{"name": "Jazz", "parent": music}),
		s.create(categoriesPath, map[string]any{"name": "Sports"})}
	for _, name := range []string{"live", "free", "outdoor"} {
		w.tags = append(w.tags, s.create(tagsPath, map[string]any{"name": name}))
	}
	for _, root := range []string{"", "/fr"} {
		for i, status := range []string{"publish", "publish", "publish", "draft"} {
			w.venues[root] = append(w.venues[root], s.create(root+venuesPath, map[string]any{"venue": fmt.Sprint("Hall", root, i), "status": status}))
			w.orgs[root] = append(w.orgs[root], s.create(root+organizersPath, map[string]any{"organizer": fmt.Sprint("Crew", root, i), "status": status}))
		}
	}
	some := func(ids []uint64) []uint64 {
		var out []uint64
		for _, id := range ids {
			if rng.IntN(3) == 0 {
				out = append(out, id)
			}
		}
		return out
	}
	zones := []string{"UTC", "Europe/Paris", "America/New_York"}
	words := []string{"Jazz night", "Concert", "Market", "Football", "Festival"}
	for i := range 90 {
		root := ""
		if i%3 == 2 {
			root = "/fr"
		}
		// Around month ends too, where the zones put an event in one month or the other.
		start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(200)).Add(time.Duration(rng.IntN(48)) * 30 * time.Minute)
		if rng.IntN(4) == 0 {
			start = time.Date(2026, time.Month(12+rng.IntN(4)), 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(6)-3) * time.Hour)
		}
		body := map[string]any{"title": words[rng.IntN(len(words))], "timezone": zones[rng.IntN(len(zones))],
			"start_date": start.Format("2006-01-02 15:04:05"), "end_date": start.Add(time.Hour).Format("2006-01-02 15:04:05")}
		auth := adminAuth
		if rng.IntN(6) == 0 {
			auth = contributor // a draft only its author and editors see
		} else {
			body["categories"], body["tags"], body["organizer"] = some(w.cats), some(w.tags), some(w.orgs[root])
			if v := w.venues[root]; rng.IntN(5) > 0 {
				body["venue"] = v[rng.IntN(len(v))]
			}
			body["status"] = []string{"publish", "publish", "publish", "draft", "private"}[rng.IntN(5)]
			body["featured"] = rng.IntN(3) == 0
			if rng.IntN(5) == 0 {
				body["recurrence"] = []string{fmt.Sprintf("RRULE:FREQ=WEEKLY;COUNT=%d", 2+rng.IntN(5))}
			}
		}
		if res := s.do(req{method: "POST", path: root + eventsPath, auth: auth, body: body}); res.status != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", root+eventsPath, res.status, res.body)
		}
	}
	s.settle()
	return w
}

// facetList is one answer of the events list with facets.
type facetList struct {
	total     int
	tolerant  bool
	facets    map[string][]facetBucket
	kindOrder []string
}

func (w *facetWorld) get(t *testing.T, root, auth string, q url.Values) *response {
	t.Helper()
	res := w.s.do(req{method: "GET", path: root + eventsPath + "?" + q.Encode(), auth: auth})
	if res.status != http.StatusOK {
		t.Fatalf("GET %s?%s: %d %s", root+eventsPath, q.Encode(), res.status, res.body)
	}
	return res
}

func (w *facetWorld) facetList(t *testing.T, root, auth string, q url.Values) facetList {
	t.Helper()
	res := w.get(t, root, auth, q)
	var body struct {
		Total  int             `json:"total"`
		Facets json.RawMessage `json:"facets"`
	}
	if err := json.Unmarshal(res.body, &body); err != nil {
		t.Fatal(err)
	}
	l := facetList{total: body.Total, tolerant: res.header.Get("X-Calendar-Search") != ""}
	if err := json.Unmarshal(body.Facets, &l.facets); err != nil {
		t.Fatalf("facets: %v\n%s", err, res.body)
	}
	l.kindOrder = topKeys(t, body.Facets)
	return l
}

// xTotal is X-TEC-Total of the events list q.
func (w *facetWorld) xTotal(t *testing.T, root, auth string, q url.Values) int {
	t.Helper()
	n, err := strconv.Atoi(w.get(t, root, auth, q).header.Get("X-TEC-Total"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// series lists every event of q, not collapsed, each with its series: its parent, or itself.
func (w *facetWorld) series(t *testing.T, root, auth string, q url.Values) map[uint64]uint64 {
	t.Helper()
	q = cloneValues(q)
	q.Del("hide_subsequent_recurrences")
	q.Set("per_page", "100")
	out := map[uint64]uint64{}
	for page := 1; ; page++ {
		q.Set("page", strconv.Itoa(page))
		var body struct {
			Events []struct {
				ID     uint64 `json:"id"`
				Parent uint64 `json:"post_parent"`
			} `json:"events"`
			TotalPages int `json:"total_pages"`
		}
		if err := json.Unmarshal(w.get(t, root, auth, q).body, &body); err != nil {
			t.Fatal(err)
		}
		for _, e := range body.Events {
			out[e.ID] = cmp.Or(e.Parent, e.ID)
		}
		if page >= body.TotalPages {
			return out
		}
	}
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

// randomQuery draws a list of the world: a window (always sent, so that a month's bounds can be
// intersected with it), and some of a search (whole words, prefixes and typos), terms, venues,
// organizers, featured and, for an editor, statuses.
func (w *facetWorld) randomQuery(rng *rand.Rand, root, auth string) url.Values {
	q := url.Values{}
	day := func() string {
		return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(260)).Format(time.DateOnly)
	}
	q.Set("start_date", day())
	q.Set("end_date", day())
	if rng.IntN(3) > 0 {
		q.Set("start_date", "2026-11-01")
		q.Set("end_date", "2027-07-31")
	}
	if rng.IntN(3) == 0 {
		q.Set("search", []string{"jazz", "conc", "festivla", "markt", "night"}[rng.IntN(5)])
	}
	pick := func(ids []uint64) string {
		var out []string
		for _, i := range rng.Perm(len(ids))[:1+rng.IntN(2)] {
			out = append(out, utoa(ids[i]))
		}
		return strings.Join(out, ",")
	}
	if rng.IntN(4) == 0 {
		q.Set("categories", pick(w.cats))
	}
	if rng.IntN(4) == 0 {
		q.Set("tags", pick(w.tags))
	}
	if rng.IntN(5) == 0 {
		q.Set("venue", pick(w.venues[root]))
	}
	if rng.IntN(5) == 0 {
		q.Set("organizer", pick(w.orgs[root]))
	}
	if rng.IntN(5) == 0 {
		q.Set("featured", strconv.FormatBool(rng.IntN(2) == 0))
	}
	if (auth == adminAuth || strings.HasPrefix(auth, "edna:")) && rng.IntN(4) == 0 {
		q.Set("status", "publish,draft,private")
	}
	return q
}

// TestEventFacetsAreTotalsWithTheValueAdded: for random lists, for each role, in two languages, with
// series collapsed and not, every bucket's count is X-TEC-Total of the same list with its value added
// as a filter. Where the list already filters that kind, the value and the list's own filter are
// both applied, which no single request expresses: the count is then that of the events both lists
// name, a series once when collapsed. Buckets are ordered by count then ID, months in order, and
// asking for facets changes neither the page nor the total.
func TestEventFacetsAreTotalsWithTheValueAdded(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	w := seedFacetWorld(t, rng)
	checked, intersected := 0, 0
	for _, auth := range w.roles {
		for _, root := range []string{"", "/fr"} {
			for _, collapse := range []bool{false, true} {
				for range 4 {
					q := w.randomQuery(rng, root, auth)
					if collapse {
						q.Set("hide_subsequent_recurrences", "1")
					}
					plain := w.get(t, root, auth, q)
					withFacets := cloneValues(q)
					withFacets.Set("facets", facetsAll)
					l := w.facetList(t, root, auth, withFacets)
					name := fmt.Sprintf("%s %q %s", root+eventsPath, auth, q.Encode())
					if got := plain.header.Get("X-TEC-Total"); got != strconv.Itoa(l.total) {
						t.Fatalf("%s: total %d with facets, %s without", name, l.total, got)
					}
					if !slices.Equal(l.kindOrder, []string{"categories", "tags", "venue", "organizer", "month"}) {
						t.Fatalf("%s: facet kinds %v", name, l.kindOrder)
					}
					for kind, buckets := range l.facets {
						for i, b := range buckets {
							if b.Count <= 0 {
								t.Fatalf("%s: %s bucket %+v has no events", name, kind, b)
							}
							if i > 0 {
								prev := buckets[i-1]
								if kind == "month" && prev.Value >= b.Value || kind != "month" && (prev.Count < b.Count || prev.Count == b.Count && prev.ID >= b.ID) {
									t.Fatalf("%s: %s buckets out of order: %+v", name, kind, buckets)
								}
							}
							with := cloneValues(q)
							param, filtered := facetParam[kind], q.Has(facetParam[kind])
							switch {
							case kind == "month":
								first, err := time.Parse("2006-01", b.Value)
								if err != nil {
									t.Fatal(err)
								}
								with.Set("start_date", max(q.Get("start_date"), first.Format(time.DateOnly)))
								with.Set("end_date", min(q.Get("end_date"), first.AddDate(0, 1, -1).Format(time.DateOnly)))
							case !filtered:
								with.Set(param, utoa(b.ID))
							case l.tolerant:
								continue // the list's typo fallback and the other's may differ: the unfiltered kinds check it
							default:
								with.Set(param, utoa(b.ID))
								listed, other := w.series(t, root, auth, q), w.series(t, root, auth, with)
								both := map[uint64]bool{}
								for id, series := range other {
									if _, ok := listed[id]; !ok {
										continue
									}
									if !collapse {
										series = id // each event counts
									}
									both[series] = true
								}
								if len(both) != b.Count {
									t.Fatalf("%s: %s bucket %+v: %d events are in both lists", name, kind, b, len(both))
								}
								intersected++
								continue
							}
							if got := w.xTotal(t, root, auth, with); got != b.Count {
								t.Fatalf("%s: %s bucket %+v, but X-TEC-Total of %s is %d", name, kind, b, with.Encode(), got)
							}
							checked++
						}
					}
				}
			}
		}
	}
	if checked < 200 || intersected < 5 {
		t.Errorf("only %d buckets checked against a total, %d against both lists: the world is too small", checked, intersected)
	}
}

// TestEventFacetsAnswer: the facets object of a small calendar on a site in Europe/Paris, as
// docs/API.md "Facets" describes it: the kinds in their fixed order, a category counting its
// subcategory's events once each, a draft venue named since the events list embeds it, months in the
// site zone, a series once in each month with hide_subsequent_recurrences, facet_limit, the caller's
// visibility, CSV or an array (facets[]=…); and the answer without facets has no facets key, whatever the
// list cache holds.
func TestEventFacetsAnswer(t *testing.T) {
	s := startServer(t, "CALENDAR_SITE_TIMEZONE=Europe/Paris")
	music := s.create(categoriesPath, map[string]any{"name": "Music"})
	jazz := s.create(categoriesPath, map[string]any{"name": "Jazz", "parent": music})
	free := s.create(tagsPath, map[string]any{"name": "free"})
	hall := s.create(venuesPath, map[string]any{"venue": "Philharmonie"})
	loft := s.create(venuesPath, map[string]any{"venue": "Secret Loft", "status": "draft"})
	alpha := s.create(organizersPath, map[string]any{"organizer": "Alpha"})
	event := func(title, start, zone string, body map[string]any) {
		body["title"], body["start_date"], body["end_date"], body["timezone"] = title, start, start, zone
		s.create(eventsPath, body)
	}
	event("Club night", "2026-12-05 20:00:00", "Europe/Paris", map[string]any{"categories": []uint64{jazz}, "venue": hall})
	// 23:30 UTC on 31 December is 00:30 on 1 January in Paris.
	event("New year", "2026-12-31 23:30:00", "UTC", map[string]any{"categories": []uint64{jazz, music}, "venue": hall})
	event("Loft session", "2027-01-10 21:00:00", "Europe/Paris", map[string]any{"categories": []uint64{music}, "tags": []uint64{free}, "venue": loft})
	event("Weekly jam", "2026-12-24 19:00:00", "Europe/Paris", map[string]any{"categories": []uint64{jazz}, "venue": hall,
		"organizer": []uint64{alpha}, "recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=3"}}) // 24 and 31 December, 7 January
	event("Rehearsal", "2026-12-10 10:00:00", "Europe/Paris", map[string]any{"categories": []uint64{jazz}, "status": "draft"})
	s.settle()

	const window = "start_date=2026-12-01&end_date=2027-01-31"
	term := func(id uint64, slug, name string, n int) string {
		return fmt.Sprintf(`{"id":%d,"slug":%q,"name":%q,"count":%d}`, id, slug, name, n)
	}
	for _, tc := range []struct {
		name, auth, query string
		wantTotal         int
		want              string
	}{
		{"every occurrence", "", "facets=month,venue,categories&" + window, 6,
			`{"categories":[` + term(music, "music", "Music", 6) + "," + term(jazz, "jazz", "Jazz", 5) + `],` +
				`"venue":[` + term(hall, "philharmonie", "Philharmonie", 5) + "," + term(loft, "secret-loft", "Secret Loft", 1) + `],` +
				`"month":[{"value":"2026-12","count":3},{"value":"2027-01","count":3}]}`},
		{"a series once in each month", "", "facets=month,categories&hide_subsequent_recurrences=1&" + window, 4,
			`{"categories":[` + term(music, "music", "Music", 4) + "," + term(jazz, "jazz", "Jazz", 3) + `],` +
				`"month":[{"value":"2026-12","count":2},{"value":"2027-01","count":3}]}`},
		{"facet_limit", "", "facets=categories,month,organizer,tags&facet_limit=1&" + window, 6,
			`{"categories":[` + term(music, "music", "Music", 6) + `],"tags":[` + term(free, "free", "free", 1) + `],` +
				`"organizer":[` + term(alpha, "alpha", "Alpha", 3) + `],"month":[{"value":"2026-12","count":3}]}`},
		{"an array", "", "facets[]=tags&facets[]=organizer&" + window, 6,
			`{"tags":[` + term(free, "free", "free", 1) + `],"organizer":[` + term(alpha, "alpha", "Alpha", 3) + `]}`},
		{"the drafts an administrator sees", adminAuth, "facets=categories,month&" + window, 7,
			`{"categories":[` + term(music, "music", "Music", 7) + "," + term(jazz, "jazz", "Jazz", 6) + `],` +
				`"month":[{"value":"2026-12","count":4},{"value":"2027-01","count":3}]}`},
		{"a window without events", "", "facets=categories,month&start_date=2030-01-01&end_date=2030-01-31", 0,
			`{"categories":[],"month":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(req{method: "GET", path: eventsPath + "?" + tc.query, auth: tc.auth})
			if res.status != http.StatusOK {
				t.Fatalf("%d %s", res.status, res.body)
			}
			var body struct {
				Total   int             `json:"total"`
				Facets  json.RawMessage `json:"facets"`
				RestURL string          `json:"rest_url"`
			}
			if err := json.Unmarshal(res.body, &body); err != nil {
				t.Fatal(err)
			}
			if body.Total != tc.wantTotal || string(body.Facets) != tc.want {
				t.Errorf("total %d, facets\n%s\nwant total %d, facets\n%s", body.Total, body.Facets, tc.wantTotal, tc.want)
			}
			if keys := topKeys(t, res.body); keys[len(keys)-1] != "facets" {
				t.Errorf("keys %v: facets must come last", keys)
			}
			if !strings.Contains(body.RestURL, "facets=") {
				t.Errorf("rest_url %s does not echo facets", body.RestURL)
			}
		})
	}

	// The list cache keys the facets parameters: each answer is its own, and the plain list keeps no facets.
	bodies := map[string]string{}
	for _, query := range []string{window, "facets=month&" + window, "facets=venue&" + window, "facets=venue&facet_limit=1&" + window, window} {
		res := s.do(req{method: "GET", path: eventsPath + "?" + query})
		if res.status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, res.status, res.body)
		}
		if prev, ok := bodies[query]; ok && prev != string(res.body) {
			t.Errorf("%s: a second answer differs:\n%s\n%s", query, prev, res.body)
		}
		bodies[query] = string(res.body)
		if got := strings.Contains(string(res.body), `"facets"`); got != strings.Contains(query, "facets=") {
			t.Errorf("%s: answer with facets %v:\n%s", query, got, res.body)
		}
	}
	if keys := topKeys(t, []byte(bodies[window])); !slices.Equal(keys, []string{"events", "rest_url", "total", "total_pages"}) {
		t.Errorf("keys without facets: %v", keys)
	}
	if bodies["facets=venue&"+window] == bodies["facets=venue&facet_limit=1&"+window] {
		t.Error("facet_limit=1 answers as without it")
	}
}

// TestEventFacetsValidation: an unknown kind and a facet_limit out of 1–1000 or not an integer are
// 400 rest_invalid_param naming the parameter, for the JSON list.
func TestEventFacetsValidation(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct{ query, param string }{
		{"facets=bogus", "facets"},
		{"facets=month,venues", "facets"},
		{"facets=", "facets"},
		{"facets=,", "facets"},
		{"facets=Month", "facets"},
		{"facets=month&facet_limit=0", "facet_limit"},
		{"facets=month&facet_limit=1001", "facet_limit"},
		{"facets=month&facet_limit=-3", "facet_limit"},
		{"facets=month&facet_limit=ten", "facet_limit"},
		{"facets=month&facet_limit=1.5", "facet_limit"},
		{"facet_limit=0", "facet_limit"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := s.do(req{method: "GET", path: eventsPath + "?" + tc.query})
			if res.status != http.StatusBadRequest {
				t.Fatalf("%d %s", res.status, res.body)
			}
			body := res.json(t)
			params, _ := body["data"].(map[string]any)["params"].(map[string]any)
			if body["code"] != "rest_invalid_param" || params[tc.param] == nil || len(params) != 1 {
				t.Errorf("want rest_invalid_param naming %s, got %s", tc.param, res.body)
			}
		})
	}
	for _, query := range []string{"facets=month&facet_limit=1", "facets=month&facet_limit=1000", "facet_limit=5"} {
		if res := s.do(req{method: "GET", path: eventsPath + "?" + query}); res.status != http.StatusOK {
			t.Errorf("%s: %d %s", query, res.status, res.body)
		}
	}
}
