package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// seeded is what a test reads back from a seeded data directory.
type seeded struct {
	// records holds the JSON of every event, venue and organizer, in ID order.
	records    []string
	events     []*storage.Event
	venues     map[uint64]*storage.Venue
	organizers map[uint64]*storage.Organizer
	categories []*storage.Term
	tags       []*storage.Term
}

// seedTestEnv is the environment of the seed command in these tests: the harness's frozen clock, so
// that two runs are comparable, and its administrator password, so that its server accepts adminAuth.
func seedTestEnv(dir string) func(string) string {
	vars := map[string]string{"CALENDAR_DATA_DIR": dir, "CALENDAR_NOW": testNow, "CALENDAR_ADMIN_APP_PASSWORD": adminPass}
	return func(k string) string { return vars[k] }
}

// seedInto runs "calendard seed" on a new data directory, with env's settings over seedTestEnv, and
// returns it. The command's store is the one the directory's servers would have (-backend), unless
// env names etcd endpoints.
func seedInto(t *testing.T, events int, seedValue uint64, env ...string) string {
	t.Helper()
	dir := t.TempDir()
	var stdout bytes.Buffer
	args := []string{"seed", "--events", strconv.Itoa(events), "--seed", strconv.FormatUint(seedValue, 10)}
	getenv := overlay(seedTestEnv(dir), append(backendEnv(t, dir, env), env...))
	if err := run(context.Background(), args, getenv, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "seeded "+strconv.Itoa(events)+" events") {
		t.Errorf("summary %q", stdout.String())
	}
	return dir
}

// readSeeded reads every record of dir, with env's settings over seedTestEnv, through the store's
// paged scan.
func readSeeded(t *testing.T, dir string, env ...string) *seeded {
	t.Helper()
	ctx := context.Background()
	db := openDirStore(t, "seed", overlay(seedTestEnv(dir), env))
	defer db.Close()
	var err error
	out := &seeded{venues: map[uint64]*storage.Venue{}, organizers: map[uint64]*storage.Organizer{}}
	for _, typ := range []storage.PostType{storage.TypeEvent, storage.TypeVenue, storage.TypeOrganizer} {
		for after := uint64(0); ; {
			page, err := db.Scan(ctx, typ, after, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var recs []any
			for _, e := range page.Events {
				out.events = append(out.events, e)
				recs, after = append(recs, e), e.ID
			}
			for _, v := range page.Venues {
				out.venues[v.ID] = v
				recs, after = append(recs, v), v.ID
			}
			for _, o := range page.Organizers {
				out.organizers[o.ID] = o
				recs, after = append(recs, o), o.ID
			}
			if len(recs) == 0 {
				break
			}
			for _, r := range recs {
				out.records = append(out.records, toJSON(t, r))
			}
		}
	}
	if out.categories, err = db.Terms(ctx, storage.TaxCategory); err != nil {
		t.Fatal(err)
	}
	if out.tags, err = db.Terms(ctx, storage.TaxTag); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSeedIsDeterministic(t *testing.T) {
	t.Parallel()
	const events = 200
	first := readSeeded(t, seedInto(t, events, 7))
	again := readSeeded(t, seedInto(t, events, 7))
	other := readSeeded(t, seedInto(t, events, 8))
	if diff := cmp.Diff(first.records, again.records); diff != "" {
		t.Errorf("the same seed gave different records (-first +again):\n%s", diff)
	}
	if len(first.records) == len(other.records) && cmp.Equal(first.records, other.records) {
		t.Error("another seed gave the same records")
	}
}

// TestSeedInClusterMode: with etcd's default limits (128 operations a transaction), far below what
// the terms and places or a chunk of events write, the seed is written in smaller transactions and
// gives the same records, with the same IDs, as on the backend of the other tests.
func TestSeedInClusterMode(t *testing.T) {
	t.Parallel()
	const events = 300
	want := readSeeded(t, seedInto(t, events, 5))
	env := clusterEnv(t)
	got := readSeeded(t, seedInto(t, events, 5, env...), env...)
	if len(got.records) == 0 {
		t.Fatal("no record in the cluster")
	}
	if diff := cmp.Diff(want.records, got.records); diff != "" {
		t.Errorf("records of the cluster (-want +got):\n%s", diff)
	}
	for _, terms := range []struct{ want, got []*storage.Term }{{want.categories, got.categories}, {want.tags, got.tags}} {
		if diff := cmp.Diff(toJSON(t, terms.want), toJSON(t, terms.got)); diff != "" {
			t.Errorf("terms of the cluster (-want +got):\n%s", diff)
		}
	}
}

func TestSeedContent(t *testing.T) {
	t.Parallel()
	const events = 500
	dir := seedInto(t, events, 1)
	got := readSeeded(t, dir)
	now, err := time.Parse(time.RFC3339, testNow)
	if err != nil {
		t.Fatal(err)
	}

	perLang := map[storage.Lang]int{}
	var featured, hidden, drafts, private, allDay, withCost int
	for _, e := range got.events {
		perLang[e.Lang]++
		if e.Featured {
			featured++
		}
		if e.HideFromListings {
			hidden++
		}
		switch e.Status {
		case storage.StatusDraft:
			drafts++
		case storage.StatusPrivate:
			private++
		}
		if e.AllDay {
			allDay++
		}
		if len(e.Cost) > 0 {
			withCost++
		}
		if v := got.venues[e.VenueID]; v == nil || v.Lang != e.Lang {
			t.Errorf("event %d (%s) has venue %d, which is not a venue of its language", e.ID, e.Lang, e.VenueID)
		}
		for _, id := range e.OrganizerIDs {
			if o := got.organizers[id]; o == nil || o.Lang != e.Lang {
				t.Errorf("event %d (%s) has organizer %d, which is not an organizer of its language", e.ID, e.Lang, id)
			}
		}
		if strings.Contains(e.Title+e.Description, "{") {
			t.Errorf("event %d has an unfilled template: %q %q", e.ID, e.Title, e.Description)
		}
		if n := len(e.Categories); n < 1 || n > 2 {
			t.Errorf("event %d has %d categories, want 1 or 2", e.ID, n)
		}
		if len(e.Tags) > 4 || len(e.OrganizerIDs) > 3 {
			t.Errorf("event %d has %d tags and %d organizers, want at most 4 and 3", e.ID, len(e.Tags), len(e.OrganizerIDs))
		}
		if e.StartUTC.Before(now.AddDate(0, 0, -pastDays-1)) || e.StartUTC.After(now.AddDate(0, 0, futureDays+1)) {
			t.Errorf("event %d starts at %s, outside the past month and the next two years", e.ID, e.StartUTC)
		}
		if d := e.EndUTC.Sub(e.StartUTC); !e.AllDay && (d < time.Hour || d > 6*time.Hour) {
			t.Errorf("event %d lasts %s, want 1 to 6 hours", e.ID, d)
		}
	}
	for _, l := range storage.Langs {
		if perLang[l] == 0 {
			t.Errorf("no event in %s", l)
		}
	}

	venues, organizers := map[storage.Lang]int{}, map[storage.Lang]int{}
	for _, v := range got.venues {
		venues[v.Lang]++
		if v.Geo == nil || v.City == "" || v.Country == "" || v.Address == "" {
			t.Errorf("venue %d (%s) lacks coordinates or an address: %+v", v.ID, v.Title, v)
		}
	}
	for _, o := range got.organizers {
		organizers[o.Lang]++
		if o.Email == "" || o.Phone == "" || o.Website == "" {
			t.Errorf("organizer %d (%s) lacks contact details", o.ID, o.Title)
		}
	}
	for _, l := range storage.Langs {
		wantVenues := max(minPlaces, (perLang[l]+eventsPerVenue-1)/eventsPerVenue)
		wantOrgs := max(minPlaces, (perLang[l]+eventsPerOrganizer-1)/eventsPerOrganizer)
		if venues[l] != wantVenues || organizers[l] != wantOrgs {
			t.Errorf("%s: %d venues and %d organizers for %d events, want %d and %d", l, venues[l], organizers[l], perLang[l], wantVenues, wantOrgs)
		}
	}

	children := 0
	for _, c := range got.categories {
		if c.Parent != 0 {
			children++
		}
	}
	for _, tc := range []struct {
		name      string
		got       int
		want, tol float64 // fractions of the events, or counts when of is 1
		of        int
	}{
		{"events", len(got.events), events, 0, 1},
		{"categories", len(got.categories), 40, 0, 1},
		{"child categories", children, 32, 0, 1},
		{"tags", len(got.tags), seedTags, 0, 1},
		{"english", perLang["en"], 0.26, 0.06, events},
		{"polish", perLang["pl"], 0.05, 0.03, events},
		{"featured", featured, 0.10, 0.04, events},
		{"hidden from listings", hidden, 0.03, 0.025, events},
		{"drafts", drafts, 0.05, 0.03, events},
		{"private", private, 0.02, 0.02, events},
		{"all day", allDay, 0.08, 0.04, events},
		{"with a cost", withCost, 0.60, 0.07, events},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := float64(tc.got) / float64(tc.of); got < tc.want-tc.tol || got > tc.want+tc.tol {
				t.Errorf("got %d (%.3g), want %.3g ± %.3g", tc.got, got, tc.want, tc.tol)
			}
		})
	}

	if _, err := os.Stat(filepath.Join(dir, "index")); !os.IsNotExist(err) {
		t.Errorf("the index directory is still there after seeding (%v)", err)
	}
	s := startServerIn(t, dir)
	res := s.do(req{method: "GET", path: "/calendar/events/v1/events"})
	if total, _ := res.json(t)["total"].(float64); res.status != 200 || total == 0 {
		t.Fatalf("the events list of the seeded store: status %d, total %v", res.status, res.json(t)["total"])
	}
	// A word of the French vocabulary, accents included, finds French events.
	word := frenchWordOf(got.events)
	res = s.do(req{method: "GET", path: "/fr/calendar/events/v1/events?search=" + word + "&start_date=2000-01-01"})
	if total, _ := res.json(t)["total"].(float64); res.status != 200 || total == 0 {
		t.Errorf("searching %q in French: status %d, total %v", word, res.status, res.json(t)["total"])
	}
}

// frenchWordOf returns a French theme used in the title of a published, listed French event.
func frenchWordOf(events []*storage.Event) string {
	for _, e := range events {
		if e.Lang != "fr" || e.Status != storage.StatusPublish || e.HideFromListings {
			continue
		}
		for _, theme := range vocabs["fr"].themes {
			if !strings.Contains(theme, " ") && slices.Contains(strings.Fields(strings.ToLower(e.Title)), theme) && strings.ContainsAny(theme, "éèêàùç") {
				return theme
			}
		}
	}
	return "jazz"
}

// TestSeedVocabularies checks the word lists by hand-written rules that the generated data relies on.
func TestSeedVocabularies(t *testing.T) {
	t.Parallel()
	if len(langWeights) != len(storage.Langs) {
		t.Fatalf("%d language weights for %d languages", len(langWeights), len(storage.Langs))
	}
	placeholder := regexp.MustCompile(`\{[A-Za-z0-9]+\}`)
	known := []string{"{K}", "{k}", "{T}", "{t}", "{T2}", "{t2}", "{M}", "{m}", "{C}", "{IN}", "{V}"}
	for _, l := range storage.Langs {
		t.Run(string(l), func(t *testing.T) {
			v := vocabs[l]
			if v == nil {
				t.Fatal("no vocabulary")
			}
			words := len(v.kinds) + len(v.themes) + len(v.moods) + len(v.names) + len(v.venueKinds) + len(v.orgKinds)
			if words < 60 || words > 120 {
				t.Errorf("%d words, want 60 to 120", words)
			}
			for _, tmpl := range append(slices.Clone(v.titles), v.sentences...) {
				for _, p := range placeholder.FindAllString(tmpl, -1) {
					if !slices.Contains(known, p) {
						t.Errorf("template %q: unknown placeholder %s", tmpl, p)
					}
				}
			}
			for _, c := range v.cities {
				if _, err := datetime.ParseZone(c.zone); err != nil || len(c.zips) == 0 || c.in == "" || c.phone == "" {
					t.Errorf("city %s is incomplete (%v)", c.name, err)
				}
			}
		})
	}
}

// TestSeedReportsProgress: seedStore tells its caller every event it adds, chunk by chunk, so the
// command's progress reaches its total.
func TestSeedReportsProgress(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseConfig("seed", nil, seedTestEnv(dir), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	db := openDirStore(t, "seed", seedTestEnv(dir))
	defer db.Close()
	var calls, events int64
	const n = 2*seedChunk + 7
	_, err = seedStore(context.Background(), &app{cfg: cfg, log: zap.NewNop(), db: db}, n, 1, io.Discard,
		func(k int64) int64 { calls++; events += k; return events })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || events != n {
		t.Errorf("%d reports of %d events, want 3 chunks adding up to %d", calls, events, n)
	}
}
