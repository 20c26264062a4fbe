package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/handlers/respcache"
)

// TestListCacheFollowsWrites asks the same list before and after writes: a cached body must never
// outlive a change of the store or the index.
func TestListCacheFollowsWrites(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	hh := h.(*Handler)
	ctx := context.Background()
	list := func() string {
		w := httptest.NewRecorder()
		hh.ServeHTTP(w, httptest.NewRequest("GET", "/calendar/events/v1/events?search=concert", nil))
		if w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		return w.Body.String()
	}
	sync := func() {
		for {
			n, err := indexOf(hh).SyncOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	empty := list()
	if again := list(); again != empty {
		t.Fatalf("a repeated request differs:\n%s\n%s", empty, again)
	}
	w := serve(h, "POST", "/calendar/events/v1/events", "application/json",
		`{"title":"Summer concert","start_date":"2027-01-01 20:00","end_date":"2027-01-01 22:00"}`)
	if w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	// The store moved on but the index has not applied the write yet: no cached answer may be
	// served for the new head, and the fresh one is computed from what the index has.
	if got := list(); !strings.Contains(got, `"total":0`) {
		t.Fatalf("before the index applied the write: %s", got)
	}
	sync()
	if got := list(); !strings.Contains(got, `"total":1`) || !strings.Contains(got, "Summer concert") {
		t.Fatalf("after the write: %s", got)
	}
	w = serve(h, "PATCH", "/calendar/events/v1/events/1", "application/json", `{"title":"Winter concert"}`)
	if w.Code != 200 {
		t.Fatalf("update: %d %s", w.Code, w.Body)
	}
	sync()
	if got := list(); !strings.Contains(got, "Winter concert") {
		t.Fatalf("after the update: %s", got)
	}
}

// TestListCacheFollowsTime moves the clock past the instants at which time alone changes a list: a
// scheduled event's publication and an event's start.
func TestListCacheFollowsTime(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	h, _ := newClockedHandler(t, Config{}, func() time.Time { return now })
	hh := h.(*Handler)
	ctx := context.Background()
	get := func(target string) string {
		w := httptest.NewRecorder()
		hh.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", target, w.Code, w.Body)
		}
		return w.Body.String()
	}
	post := func(body string) {
		if w := serve(h, "POST", "/calendar/events/v1/events", "application/json", body); w.Code != 201 {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
		for {
			if n, err := indexOf(hh).SyncOnce(ctx); err != nil || n == 0 {
				return
			}
		}
	}
	// Scheduled for 10:20, starting 10:30 the same day.
	post(`{"title":"Scheduled","date":"2026-11-22 10:20:00","start_date":"2026-11-22 10:30:00","end_date":"2026-11-22 11:00:00","venue":{"venue":"Hall"}}`)
	events := "/calendar/events/v1/events"
	upcoming := "/calendar/events/v1/venues?only_with_upcoming=1"
	if got := get(events); !strings.Contains(got, `"total":0`) {
		t.Fatalf("before publication: %s", got)
	}
	get(upcoming)                  // cache both lists
	now = now.Add(5 * time.Minute) // 10:20:30: published
	if got := get(events); !strings.Contains(got, `"total":1`) {
		t.Fatalf("after the publication date: %s", got)
	}
	if got := get(upcoming); !strings.Contains(got, `"total":1`) {
		t.Fatalf("before the start: %s", got)
	}
	now = now.Add(15 * time.Minute) // 10:35:30: started, no longer upcoming
	if got := get(upcoming); !strings.Contains(got, `"total":0`) {
		t.Fatalf("after the start: %s", got)
	}
}

// TestListCacheKeepsPerRequestHeaders: a cached list must not replay another caller's CORS origin.
func TestListCacheKeepsPerRequestHeaders(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	for _, origin := range []string{"https://a.example", "https://b.example"} {
		r := httptest.NewRequest("GET", "/calendar/events/v1/events", nil)
		r.Header.Set("Origin", origin)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got := w.Header().Get("Access-Control-Allow-Origin"); got != origin {
			t.Errorf("Origin %s: Access-Control-Allow-Origin %q", origin, got)
		}
		if !hasHeader(w.Header(), "X-TEC-Total") {
			t.Errorf("Origin %s: the list's own headers are missing", origin)
		}
	}
}

// hasHeader finds a header whatever its spelling: the list headers are set as the reference spells
// them, which http.Header.Get would canonicalise away.
func hasHeader(h http.Header, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// TestCachesNeverChangeAnswers asks every list of a handler whose caches have seen the store before,
// and of a new handler with empty caches, after each change to what list items embed (a venue, a term, an
// organizer, a translation, the clock): the answers must be equal, for every caller, origin and
// language prefix.
func TestCachesNeverChangeAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"built-in bounds", Config{}},
		// Caches for a few entries, full from the first lists: answers and items are turned away
		// (respcache.Cache.Admit) and evicted.
		{"full caches", Config{ListCacheBytes: 8 << 10, ItemCacheBytes: 8 << 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
			h, _ := newClockedHandler(t, tc.cfg, func() time.Time { return now })
			hh := h.(*Handler)
			write := func(method, target, body string) string {
				t.Helper()
				return writeSynced(t, hh, method, target, body).Body.String()
			}
			lists := []string{
				"/calendar/events/v1/events",
				"/calendar/events/v1/events?per_page=1&page=2",
				"/calendar/events/v1/events?search=concert",
				"/calendar/events/v1/events?search=concert&highlight=true",
				"/calendar/events/v1/venues?search=hall&highlight=true&_fields=id,search_highlight",
				"/fr/calendar/events/v1/events",
				"/calendar/events/v1/events?translation_language=fr",
				"/de/calendar/events/v1/events?status=publish,future",
				"/calendar/events/v1/venues",
				"/calendar/events/v1/organizers",
				"/calendar/events/v1/events?_fields=id,venue.venue",
				"/calendar/events/v1/events.ics",
				"/fr/calendar/events/v1/events.ics?search=concert",
				"/calendar/events/v1/search?search=concert",
				"/fr/calendar/events/v1/search?search=concert&per_type=2",
			}
			check := func(step string) {
				t.Helper()
				for _, target := range lists {
					for _, host := range []string{"cal.example", "other.example"} {
						for _, admin := range []bool{false, true} {
							ask := func(h http.Handler) *httptest.ResponseRecorder {
								r := httptest.NewRequest("GET", target, nil)
								r.Host = host
								if admin {
									r.SetBasicAuth("admin", adminPassword)
								}
								w := httptest.NewRecorder()
								h.ServeHTTP(w, r)
								return w
							}
							warm, fresh := ask(hh), ask(New(Deps{Config: hh.cfg, Store: hh.db, Index: hh.index, Log: zap.NewNop()}))
							if warm.Code != fresh.Code || warm.Body.String() != fresh.Body.String() {
								t.Errorf("%s: GET %s (host %s, admin %v):\ncached %d %s\nfresh  %d %s", step, target, host, admin,
									warm.Code, warm.Body, fresh.Code, fresh.Body)
							}
						}
					}
				}
			}
			var jazz struct {
				ID         uint64                `json:"id"`
				Venue      struct{ ID uint64 }   `json:"venue"`
				Organizer  []struct{ ID uint64 } `json:"organizer"`
				Categories []struct{ ID uint64 } `json:"categories"`
			}
			created := write("POST", "/calendar/events/v1/events", `{"title":"Jazz concert","start_date":"2026-12-01 20:00",`+
				`"end_date":"2026-12-01 22:00","venue":{"venue":"Hall","city":"Paris"},"organizer":[{"organizer":"Org"}],"categories":"Music"}`)
			if err := json.Unmarshal([]byte(created), &jazz); err != nil || len(jazz.Organizer) != 1 || len(jazz.Categories) != 1 {
				t.Fatalf("create: %v %s", err, created)
			}
			id, venue, org, cat := utoa(jazz.ID), utoa(jazz.Venue.ID), utoa(jazz.Organizer[0].ID), utoa(jazz.Categories[0].ID)
			write("POST", "/calendar/events/v1/events", `{"title":"Blues concert","start_date":"2026-12-02 20:00",`+
				`"end_date":"2026-12-02 22:00","venue":`+venue+`}`)
			check("created")
			write("POST", "/fr/calendar/events/v1/events", `{"title":"Concert de jazz","status":"private","translation_of":`+id+`,"categories":"Music",`+
				`"start_date":"2026-12-01 20:00","end_date":"2026-12-01 22:00"}`)
			check("private translation")
			write("PATCH", "/calendar/events/v1/venues/"+venue, `{"venue":"Great Hall"}`)
			check("venue renamed")
			write("PATCH", "/calendar/events/v1/categories/"+cat, `{"name":"Live music"}`)
			check("category renamed")
			// The count in the category every Music event embeds changes; only the category's entry says so.
			write("POST", "/calendar/events/v1/events", `{"title":"Soul","start_date":"2026-12-03 20:00","end_date":"2026-12-03 22:00",`+
				`"categories":`+cat+`}`)
			check("category counts another event")
			// A scheduled event joins the category's count at its date without a write, and leaves it when
			// trashed before the publish job rewrote it.
			var gospel struct{ ID uint64 }
			json.Unmarshal([]byte(write("POST", "/calendar/events/v1/events", `{"title":"Gospel","date":"2026-11-22 10:18:00",`+
				`"start_date":"2026-12-04 20:00","end_date":"2026-12-04 22:00","categories":`+cat+`}`)), &gospel)
			check("event scheduled in the category")
			now = time.Date(2026, 11, 22, 10, 19, 0, 0, time.UTC)
			check("scheduled event due")
			write("DELETE", "/calendar/events/v1/events/"+utoa(gospel.ID), "")
			check("due event trashed")
			write("POST", "/de/calendar/events/v1/events", `{"title":"Jazzkonzert","date":"2026-11-22 10:20:00","translation_of":`+id+`,`+
				`"start_date":"2026-12-01 20:00","end_date":"2026-12-01 22:00"}`)
			check("scheduled translation")
			now = now.Add(10 * time.Minute) // the translation is published, without a write
			check("translation published")
			write("DELETE", "/calendar/events/v1/organizers/"+org, "")
			check("organizer trashed")
			write("PATCH", "/calendar/events/v1/events/"+id, `{"title":"Jazz night"}`)
			check("event renamed")
		})
	}
}

// writeSynced serves a write and has the index apply it, as the running syncer would.
func writeSynced(t *testing.T, h *Handler, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	w := serve(h, method, target, "application/json", body)
	if w.Code >= 300 {
		t.Fatalf("%s %s: %d %s", method, target, w.Code, w.Body)
	}
	for {
		if n, err := indexOf(h).SyncOnce(context.Background()); err != nil || n == 0 {
			return w
		}
	}
}

// TestItemsOutliveUnrelatedWrites: an item is rendered once per version of what it embeds. A write that
// names none of its documents leaves it cached; a write to its venue does not.
func TestItemsOutliveUnrelatedWrites(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	hh := h.(*Handler)
	write := func(method, target, body string) uint64 {
		t.Helper()
		var rec struct{ ID uint64 }
		json.Unmarshal(writeSynced(t, hh, method, target, body).Body.Bytes(), &rec)
		return rec.ID
	}
	list := func() {
		t.Helper()
		w := httptest.NewRecorder()
		hh.ServeHTTP(w, httptest.NewRequest("GET", "/calendar/events/v1/events", nil))
		if w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	item := func(id uint64) *respcache.Entry {
		return hh.items.Peek(utoa(id) + itemSuffix(&request{origin: "http://example.com"}))
	}
	jazz := write("POST", "/calendar/events/v1/events", `{"title":"Jazz","start_date":"2027-01-01 20:00","end_date":"2027-01-01 22:00",`+
		`"venue":{"venue":"Hall"},"tags":"live"}`)
	list()
	first := item(jazz)
	if first == nil {
		t.Fatal("no cached item after a list")
	}
	write("POST", "/calendar/events/v1/events", `{"title":"Blues","start_date":"2027-01-02 20:00","end_date":"2027-01-02 22:00",`+
		`"venue":{"venue":"Club"},"tags":"acoustic"}`)
	list()
	if item(jazz) != first {
		t.Error("an unrelated write rendered the item again")
	}
	var venue struct{ Venue struct{ ID uint64 } }
	json.Unmarshal(serve(h, "GET", "/calendar/events/v1/events/"+utoa(jazz), "", "").Body.Bytes(), &venue)
	write("PATCH", "/calendar/events/v1/venues/"+utoa(venue.Venue.ID), `{"venue":"Great Hall"}`)
	list()
	e := item(jazz)
	if e == first || e == nil {
		t.Fatalf("after its venue was renamed the item is %v", e)
	}
	if body, err := respcache.Unpack(new(bytes.Buffer), e.Packed, e.Dict); err != nil || !strings.Contains(string(body), "Great Hall") {
		t.Errorf("after its venue was renamed the item is %s (%v)", body, err)
	}
	if body, _ := respcache.Unpack(new(bytes.Buffer), e.Packed, e.Dict); e.Dict == nil || len(e.Packed) >= len(respcache.Pack(nil, body)) {
		t.Errorf("an item of %d bytes is kept in %d, %d without a dictionary (%v)", len(body), len(e.Packed), len(respcache.Pack(nil, body)), e.Dict)
	}
}

// TestItemsExpireWhenWhatTheyEmbedPublishes: an item expires at the date of a scheduled record it
// embeds, known from the records it was rendered from even while the index has not yet applied the
// write that scheduled it.
func TestItemsExpireWhenWhatTheyEmbedPublishes(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	h, _ := newClockedHandler(t, Config{}, func() time.Time { return now })
	hh := h.(*Handler)
	var e struct{ Venue struct{ ID uint64 } }
	json.Unmarshal(writeSynced(t, hh, "POST", "/calendar/events/v1/events", `{"title":"Jazz","start_date":"2026-12-01 20:00",`+
		`"end_date":"2026-12-01 22:00","venue":{"venue":"Hall"}}`).Body.Bytes(), &e)
	// Scheduled without the index applying it: only the venue record knows its date.
	if w := serve(h, "PATCH", "/calendar/events/v1/venues/"+utoa(e.Venue.ID), "application/json",
		`{"status":"future","date":"2026-11-22 10:17:00"}`); w.Code != 200 {
		t.Fatalf("schedule the venue: %d %s", w.Code, w.Body)
	}
	ask := func(h http.Handler, target string) string {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", target, nil)
		r.SetBasicAuth("admin", adminPassword)
		h.ServeHTTP(w, r)
		return w.Body.String()
	}
	if body := ask(hh, "/calendar/events/v1/events?per_page=5"); !strings.Contains(body, `"status":"future"`) {
		t.Fatalf("the venue is not shown scheduled: %s", body)
	}
	now = now.Add(2 * time.Minute)
	// Another query, so that the list cache has no answer and the items are looked up.
	warm, fresh := ask(hh, "/calendar/events/v1/events?per_page=6"), ask(New(Deps{Config: hh.cfg, Store: hh.db, Index: hh.index, Log: zap.NewNop()}), "/calendar/events/v1/events?per_page=6")
	if warm != fresh {
		t.Errorf("after the venue's date:\ncached %s\nfresh  %s", warm, fresh)
	}
}

// TestPageNeverMixesSnapshots lists two events of one venue while the venue is renamed over and over,
// with pages of one event (which cache the first item alone) between pages of both: every page of
// both must show one venue name, whatever each item's cached state.
func TestPageNeverMixesSnapshots(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	hh := h.(*Handler)
	ctx := context.Background()
	var venue int64
	for i, day := range []string{"01", "02"} {
		body := `{"title":"Concert","start_date":"2026-12-` + day + ` 20:00","end_date":"2026-12-` + day + ` 22:00","venue":`
		if i == 0 {
			body += `{"venue":"Hall 0"}}`
		} else {
			body += itoa(venue) + `}`
		}
		w := serve(h, "POST", "/calendar/events/v1/events", "application/json", body)
		var created struct{ Venue struct{ ID int64 } }
		if w.Code != 201 || json.Unmarshal(w.Body.Bytes(), &created) != nil {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
		venue = created.Venue.ID
	}
	for {
		if n, err := indexOf(hh).SyncOnce(ctx); err != nil || n == 0 {
			break
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := 1; i <= 100; i++ {
			if w := serve(h, "PATCH", "/calendar/events/v1/venues/"+itoa(venue), "application/json", `{"venue":"Hall `+itoa(int64(i))+`"}`); w.Code != 200 {
				t.Errorf("rename: %d %s", w.Code, w.Body)
				return
			}
		}
	})
	for r := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				// A parameter no route knows makes every page new to the list cache.
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("GET", "/calendar/events/v1/events?per_page="+itoa(int64(1+i%2))+"&r="+itoa(int64(r*1e6+i)), nil))
				var page struct {
					Events []struct{ Venue struct{ Venue string } }
				}
				if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &page) != nil {
					t.Errorf("list: %d %s", w.Code, w.Body)
					return
				}
				if len(page.Events) == 2 && page.Events[0].Venue.Venue != page.Events[1].Venue.Venue {
					t.Errorf("one page shows two states of the venue: %q and %q", page.Events[0].Venue.Venue, page.Events[1].Venue.Venue)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Parameters a route does not take do not make a new entry of the list cache, nor does their order:
// a client that varies them gets the cached answer, as the feed's clients do.
func TestCacheKeyIgnoresUnknownParameters(t *testing.T) {
	h := compressionHandler(t)
	for _, route := range []string{"/calendar/events/v1/events.ics", "/calendar/events/v1/events", "/calendar/events/v1/search"} {
		first := ask(h, "GET", route+"?search=concert&per_page=5&junk=1", nil)
		if first.Code != 200 {
			t.Fatalf("%s: %d %s", route, first.Code, first.Body)
		}
		before := h.lists.Stats()
		for _, q := range []string{"?search=concert&per_page=5&junk=2", "?per_page=5&other=x&search=concert", "?per_page=5&search=concert"} {
			w := ask(h, "GET", route+q, nil)
			if w.Code != 200 || w.Body.String() != first.Body.String() {
				t.Errorf("%s%s: %d, another answer than the first", route, q, w.Code)
			}
		}
		if after := h.lists.Stats(); after.Hits != before.Hits+3 || after.Entries != before.Entries {
			t.Errorf("%s: %d hits and %d entries after three asks that differ in unknown parameters, want %d and %d",
				route, after.Hits-before.Hits, after.Entries, 3, before.Entries)
		}
		// A parameter the route takes does make a new answer.
		if w := ask(h, "GET", route+"?search=blues&per_page=5", nil); w.Code != 200 || w.Body.String() == first.Body.String() {
			t.Errorf("%s: search=blues answered as search=concert", route)
		}
	}
}
