package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// poisonWords is how many distinct words sharing the prefix "qx" the poisoned draft holds: the
// dictionary an attacker with a contributor account can give one prefix.
const poisonWords = 6000

// poison writes one draft whose description is poisonWords distinct words beginning with "qx", and
// waits until the index has it.
func poison(b *testing.B, h *Handler) {
	b.Helper()
	ctx := context.Background()
	var sb strings.Builder
	for i := range poisonWords {
		sb.WriteString(" qx")
		for n := i + 26*26*26; n > 0; n /= 26 {
			sb.WriteByte(byte('a' + n%26))
		}
	}
	title, draft := "Poison", storage.StatusDraft
	description := sb.String()
	start, err := datetime.Parse("2027-01-01 10:00:00")
	if err != nil {
		b.Fatal(err)
	}
	_, err = h.db.CreateEvent(ctx, storage.Actor{UserID: 1, Role: storage.RoleAdministrator}, "en", &storage.EventInput{
		PostInput: storage.PostInput{Title: &title, Description: &description, Status: &draft}, Start: &start, End: &start})
	if err != nil {
		b.Fatal(err)
	}
	head, err := h.db.ChangeHead(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := indexOf(h).SyncOnce(ctx); err != nil {
		b.Fatal(err)
	}
	if err := h.index.WaitApplied(ctx, head); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHostileSearch measures search strings built to be expensive, against an index holding a
// draft of poisonWords words that share one prefix (docs/API.md "Events list parameters": a search's cost must not grow with
// the words sharing a term's prefix, nor with repeats). It builds 10k synthetic events, or serves the
// data directory named by CALENDARD_BENCH_DIR. Every request misses every cache: a new origin for the
// list and item caches, and trailing separators, which the search ignores, for the remembered matches.
func BenchmarkHostileSearch(b *testing.B) {
	var h http.Handler
	if dir := os.Getenv("CALENDARD_BENCH_DIR"); dir != "" {
		h = benchDirHandler(b, dir)
	} else {
		h = benchHandler(b, 10000)
	}
	poison(b, h.(*Handler))
	for _, tc := range hostileSearches() {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				i := benchRequests.Add(1)
				target := "/calendar/events/v1/events?per_page=10&search=" + url.QueryEscape(tc.search+strings.Repeat(",", int(i%4096)))
				r := httptest.NewRequest("GET", target, nil)
				r.Host = "cal" + strconv.FormatInt(i, 10) + ".test"
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkHostileParams measures the list parameters an anonymous client controls at their most
// expensive (docs/SECURITY.md): the longest lists, the widest dates and circle, the last page, a
// long _fields, and everything at once. Like BenchmarkHostileSearch it builds 10k synthetic events
// or serves CALENDARD_BENCH_DIR, and every request misses every cache.
func BenchmarkHostileParams(b *testing.B) {
	var h http.Handler
	if dir := os.Getenv("CALENDARD_BENCH_DIR"); dir != "" {
		h = benchDirHandler(b, dir)
	} else {
		h = benchHandler(b, 10000)
	}
	ctx := context.Background()
	ids := func(tax storage.Taxonomy) string {
		terms, err := h.(*Handler).db.Terms(ctx, tax)
		if err != nil {
			b.Fatal(err)
		}
		var out []string
		for i := 0; len(out) < 100; i++ {
			out = append(out, strconv.FormatUint(terms[i%len(terms)].ID, 10))
		}
		return strings.Join(out, ",")
	}
	var include []string
	for i := range 100 {
		include = append(include, strconv.Itoa(1000+i*37))
	}
	fields := strings.TrimSuffix(strings.Repeat("id,title,venue.venue,organizer.organizer,categories.name,", 100), ",")
	wide := "start_date=1970-01-01&end_date=2100-12-31"
	circle := "geoloc=1&geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=20000"
	for _, tc := range []struct{ name, query string }{
		{"default-page", "per_page=100"},
		{"include-x100", "per_page=100&include=" + strings.Join(include, ",")},
		{"categories-x100", "per_page=100&categories=" + ids(storage.TaxCategory)},
		{"tags-x100", "per_page=100&tags=" + ids(storage.TaxTag)},
		{"whole-calendar", "per_page=100&" + wide},
		{"whole-calendar-facets", "per_page=100&" + wide + "&facets=categories,tags,venue,organizer,month&facet_limit=1000"},
		{"whole-earth", "per_page=100&" + wide + "&" + circle},
		{"last-page", "per_page=100&page=2147483647&" + wide},
		{"fields-x500", "per_page=100&_fields=" + fields},
		{"everything", "per_page=100&page=3&" + wide + "&" + circle + "&featured=0&search=a+b+c&categories=" +
			ids(storage.TaxCategory) + "&tags=" + ids(storage.TaxTag) + "&_fields=" + fields},
		// Orders other than the default sort every event the list matches (docs/API.md "Ordering").
		{"modified-whole-calendar", "per_page=100&orderby=modified&" + wide},
		{"distance-whole-earth", "per_page=100&orderby=distance&" + wide + "&" + circle},
		{"relevance-whole-calendar", "per_page=100&orderby=relevance&search=th&" + wide}, // "th" begins a word of nearly every English event
		{"venues-search", "/venues?per_page=100&search=a+b+c+d+e+f+g+h"},
		{"tags-search", "/tags?per_page=100&search=a"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			path, query := "/events", tc.query
			if strings.HasPrefix(query, "/") {
				path, query, _ = strings.Cut(query, "?")
			}
			for b.Loop() {
				i := benchRequests.Add(1)
				r := httptest.NewRequest("GET", "/calendar/events/v1"+path+"?"+query, nil)
				r.Host = "cal" + strconv.FormatInt(i, 10) + ".test"
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK && w.Code != http.StatusNotFound {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// hostileSearch is a search string built to be expensive, named.
type hostileSearch struct{ name, search string }

// hostileSearches are the strings of BenchmarkHostileSearch, for any route that searches: repeats,
// many terms, long words and phrases, prefixes of the poisoned dictionary (poison), and searches
// answered again with typo tolerance.
func hostileSearches() []hostileSearch {
	distinct := make([]string, 0, 40)
	for i := range 40 {
		distinct = append(distinct, "qx"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	long := strings.Repeat("q", 1000)
	common := strings.Fields("ja co ma fe th wo ni su bl op ai ch ja co ma fe th wo ni su bl op ai ch ja co ma fe th wo ni su")
	for i := range common {
		common[i] += string(rune('a' + i%3))
	}
	return []hostileSearch{
		{"prefix", "qx"},
		{"prefix-x10", strings.TrimSpace(strings.Repeat("qx ", 10))},
		{"prefix-x1000", strings.TrimSpace(strings.Repeat("qx ", 1000))},
		{"distinct-prefixes-x40", strings.Join(distinct, " ")},
		{"negated-prefixes-x40", "jazz -" + strings.Join(distinct, " -")},
		{"phrase-of-prefixes", `"` + strings.Join(distinct, " ") + `"`},
		{"long-word", long},
		{"common-prefixes-x32", strings.Join(common, " ")},
		{"long-phrase-of-common-words", `"` + strings.TrimSpace(strings.Repeat("jazz concert ", 2000)) + `"`},
		{"common-word", "jazz"},
		// Found as typed by nothing: answered again with typo tolerance, one edit and two.
		{"typo-near-common-word", "concret"},
		{"typo-near-poisoned-prefix", "qxaaaaaaa"},
		{"typo-x32", strings.Join(distinct, "zzzzzzz ") + "zzzzzzz"},
	}
}
