package main

import (
	"net/url"
	"strconv"
	"testing"
)

// searchTotal is the total of an anonymous events search in language prefix lp, with the answer's
// X-Calendar-Search header.
func (s *server) searchTotal(lp, search string) (int, string) {
	s.t.Helper()
	path := lp + eventsPath + "?search=" + url.QueryEscape(search)
	res := s.do(req{method: "GET", path: path})
	if res.status != 200 {
		s.t.Fatalf("GET %s: status %d\n%s", path, res.status, res.body)
	}
	return int(res.json(s.t)["total"].(float64)), res.header.Get("X-Calendar-Search")
}

// TestPolishWordFormsInTheDemoCalendar: in the demo calendar, the Polish word forms find the
// same events as each other, with and without diacritics (docs/API.md "Events list parameters": word forms).
func TestPolishWordFormsInTheDemoCalendar(t *testing.T) {
	s := startServer(t, "CALENDAR_DEMO_EVENTS=2000")
	for _, forms := range [][]string{
		{"koncert", "koncerty", "koncertów", "koncertow", "koncertach"},
		{"festiwal", "festiwale", "festiwalu"},
		{"wystawa", "wystawy", "wystawę", "wystawe"},
		{"warsztaty", "warsztatów", "warsztat"},
	} {
		want, _ := s.searchTotal("/pl", forms[0])
		if want == 0 {
			t.Fatalf("%q finds no Polish demo event", forms[0])
		}
		for _, form := range forms[1:] {
			if got, mark := s.searchTotal("/pl", form); got != want || mark != "" {
				t.Errorf("%q finds %d events (%q), %q %d", form, got, mark, forms[0], want)
			}
		}
	}
}

// TestTypoTolerantSearch: a search that finds nothing is answered again with typo tolerance and marked
// so, also when the answer comes from the list cache; one that finds something is not widened, and a
// word unrelated to the data finds nothing.
func TestTypoTolerantSearch(t *testing.T) {
	s := startServer(t, "CALENDAR_DEMO_EVENTS=2000")
	exact, _ := s.searchTotal("/pl", "koncert")
	tests := []struct {
		lp, search string
		wantSome   bool
		wantMark   string
	}{
		{"/pl", "koncert", true, ""},
		{"/pl", "koncret", true, "typo-tolerant"},
		{"/pl", "festiwla", true, "typo-tolerant"},
		{"", "conecrt", true, "typo-tolerant"},
		{"/de", "Ausstelung", true, "typo-tolerant"},
		{"", "xylophonist", false, "typo-tolerant"},
		{"", "zqj", false, ""}, // too short to widen
	}
	for _, tc := range tests {
		for _, pass := range []string{"computed", "cached"} {
			total, mark := s.searchTotal(tc.lp, tc.search)
			if (total > 0) != tc.wantSome || mark != tc.wantMark {
				t.Errorf("%s %q (%s): %d events, X-Calendar-Search %q; want some %v, %q", tc.lp, tc.search, pass, total, mark, tc.wantSome, tc.wantMark)
			}
		}
	}
	if got, _ := s.searchTotal("/pl", "koncret"); got < exact {
		t.Errorf("koncret finds %d events, fewer than koncert's %d", got, exact)
	}
	// The iCalendar feed is the list's other representation: it answers the same way.
	for search, want := range map[string]string{"koncret": "typo-tolerant", "koncert": ""} {
		res := s.do(req{method: "GET", path: "/pl" + feedPath + "?search=" + search})
		if res.status != 200 || res.header.Get("X-Calendar-Search") != want || res.header.Get("X-TEC-Total") != strconv.Itoa(exact) {
			t.Errorf("feed of %q: status %d, X-Calendar-Search %q, X-TEC-Total %s; want %q and %d", search, res.status,
				res.header.Get("X-Calendar-Search"), res.header.Get("X-TEC-Total"), want, exact)
		}
	}
}
