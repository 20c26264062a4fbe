//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// facetsParam is what the explorer's list asks for beside the events (docs/API.md "Facet counts"), as
// URLSearchParams writes it.
const facetsParam = "&facets=" + "categories%2Cvenue%2Cmonth"

// TestE2ESearchExperience drives what the explorer builds on the search routes: the facet counts
// beside the filters (a month chosen from them filters), the matches marked in the results of a
// search for a hostile title that must not run, the orders a search and a point allow, and the
// suggestions of every kind while one types.
func TestE2ESearchExperience(t *testing.T) {
	s := startServer(t, "CALENDAR_DEMO_EVENTS=400", "CALENDAR_BASE_URL=")
	const ns = "/calendar/events/v1"
	start := time.Now().AddDate(0, 0, 3).Format(time.DateOnly)
	hostile := `Zyzzhostile <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> &amp; "night"`
	created := s.do(req{method: "POST", path: ns + "/events", auth: adminAuth, body: map[string]any{
		"title": hostile, "status": "publish", "start_date": start + " 20:00", "end_date": start + " 22:00",
		"description": `<p>Before <b>the</b> zyzzhostile <script>window.pwned=3</script> after.</p>`,
	}})
	if created.status != 201 {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	var ev struct {
		ID uint64 `json:"id"`
	}
	if err := json.Unmarshal(created.body, &ev); err != nil {
		t.Fatal(err)
	}

	e := &explorer{t: t, ctx: browser(t), s: s}
	e.watch()
	defer e.checkProblems()
	e.run(chromedp.Navigate(s.ts.URL + "/explore/"))
	first := ns + "/events?per_page=20" + facetsParam
	e.listShows(first, "", 1)

	// The counts beside the choices and the months are the API's facets of the same request.
	var facets struct {
		Categories []struct {
			ID    uint64 `json:"id"`
			Count int    `json:"count"`
		} `json:"categories"`
		Month []struct {
			Value string `json:"value"`
			Count int    `json:"count"`
		} `json:"month"`
	}
	if err := json.Unmarshal(s.do(req{method: "GET", path: first}).body, &struct {
		Facets any `json:"facets"`
	}{&facets}); err != nil {
		t.Fatal(err)
	}
	if len(facets.Categories) == 0 || len(facets.Month) == 0 {
		t.Fatalf("the demo's list has no category or month facet: %+v", facets)
	}
	c := facets.Categories[0]
	e.until(fmt.Sprintf(`document.querySelector('#category option[value="%d"]')?.text.endsWith(" (%d)")`, c.ID, c.Count))
	var months []string
	e.eval(`[...document.querySelectorAll("#month-facets button")].map(b => b.textContent)`, &months)
	if len(months) != len(facets.Month) {
		t.Fatalf("the page shows %d months, the API counts %d: %v", len(months), len(facets.Month), months)
	}
	for i, m := range facets.Month {
		if !strings.HasSuffix(months[i], fmt.Sprintf(" (%d)", m.Count)) {
			t.Errorf("month %s shows %q, want its count %d", m.Value, months[i], m.Count)
		}
	}
	// Choosing a month lists its events: its first and last days are the date bounds.
	m := facets.Month[len(facets.Month)-1]
	day, _ := time.Parse("2006-01", m.Value)
	e.run(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#month-facets li:nth-child(%d) button`, len(facets.Month)))))
	got := e.listShows(fmt.Sprintf("%s/events?start_date=%s&end_date=%s&per_page=20%s", ns,
		day.Format(time.DateOnly), day.AddDate(0, 1, -1).Format(time.DateOnly), facetsParam), "", 1)
	if got.total != m.Count {
		t.Errorf("month %s lists %d events, its facet counted %d", m.Value, got.total, m.Count)
	}
	e.set("start", "", "change")
	e.set("end", "", "change")

	// A search marks its matches; nothing of the hostile title or description runs or becomes markup.
	e.run(chromedp.SendKeys(chromedp.CSS("#q"), "zyzzhostile"))
	e.listShows(ns+"/events?search=zyzzhostile&per_page=20"+facetsParam+"&highlight=true", "", 1)
	var marks []string
	e.eval(`[...document.querySelectorAll("#list mark")].map(m => m.textContent)`, &marks)
	if len(marks) != 2 || !strings.EqualFold(marks[0], "zyzzhostile") || !strings.EqualFold(marks[1], "zyzzhostile") {
		t.Errorf("marked in the results: %q, want the word in the title and in the description", marks)
	}
	var ran string
	e.eval(`String(window.pwned) + document.querySelectorAll("#list img, #list script, #suggest img, #suggest script").length`, &ran)
	if ran != "undefined0" {
		t.Errorf("the hostile title ran or became markup: %s", ran)
	}

	// Relevance is offered with a search, and goes with it.
	e.set("orderby", "relevance", "change")
	e.listShows(ns+"/events?search=zyzzhostile&per_page=20"+facetsParam+"&highlight=true&orderby=relevance", "", 1)

	// The suggestions: the best matches of each kind from /search, marked as the one box marks them;
	// the keyboard opens the event.
	e.until(`!document.getElementById("suggest").hidden && document.querySelector('#suggest [role="option"][data-kind="events"]') !== null`)
	var box struct {
		Events []struct {
			Title           string `json:"title"`
			SearchHighlight struct {
				Title string `json:"title"`
			} `json:"search_highlight"`
		} `json:"events"`
	}
	if err := json.Unmarshal(s.do(req{method: "GET", path: ns + "/search?search=zyzzhostile&per_type=5&highlight=true"}).body, &box); err != nil || len(box.Events) != 1 {
		t.Fatalf("the one box: %v %+v", err, box)
	}
	var suggested []string
	e.eval(`[...document.querySelectorAll('#suggest [role="option"]')].map(o => o.dataset.kind + ":" + o.textContent)`, &suggested)
	if want := "events:" + shownText(box.Events[0].Title, box.Events[0].SearchHighlight.Title); len(suggested) != 1 || suggested[0] != want {
		t.Errorf("suggestions %q, want %q", suggested, want)
	}
	var suggestMarks int
	e.eval(`document.querySelectorAll("#suggest mark").length`, &suggestMarks)
	if suggestMarks != 1 {
		t.Errorf("%d words marked in the suggestions, want 1", suggestMarks)
	}
	key := func(k string) {
		e.eval(fmt.Sprintf(`document.getElementById("q").dispatchEvent(new KeyboardEvent("keydown", {key: %s, bubbles: true, cancelable: true}))`, js(k)), nil)
	}
	key("ArrowDown")
	e.until(`document.getElementById("q").getAttribute("aria-activedescendant") === "suggest-0"`)
	key("Enter")
	if status := e.called("detail", fmt.Sprintf("%s/events/%d", ns, ev.ID)); status != 200 {
		t.Fatalf("the suggestion opened: %d", status)
	}
	e.eval(`String(window.pwned) + document.querySelectorAll("#list img, #list script, #suggest img, #suggest script").length`, &ran)
	if ran != "undefined0" {
		t.Errorf("the hostile title ran or became markup: %s", ran)
	}

	// Clearing the search takes relevance away; a point offers distance, each event with its distance.
	e.set("q", "", "input")
	e.until(`document.getElementById("orderby").value === "" && document.querySelector('#orderby [value="relevance"]').disabled`)
	e.listShows(ns+"/events?per_page=20"+facetsParam, "", 1)
	e.set("lat", "48.8566", "input")
	e.set("lng", "2.3522", "input")
	e.set("radius", "20000", "change")
	e.set("orderby", "distance", "change")
	near := ns + "/events?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=20000&per_page=20" + facetsParam + "&orderby=distance"
	e.listShows(near, "", 1)
	var distances []string
	e.eval(`[...document.querySelectorAll("#list button.event span:not(.snippet)")].map(s => s.textContent.match(/ · ([0-9.]+) km/)?.[1] ?? "")`, &distances)
	res := s.do(req{method: "GET", path: near})
	var body struct {
		Events []struct {
			DistanceKm json.Number `json:"distance_km"`
		} `json:"events"`
	}
	if err := json.Unmarshal(res.body, &body); err != nil || len(body.Events) == 0 {
		t.Fatalf("%s: %v %s", near, err, res.body)
	}
	for i, d := range body.Events {
		if i >= len(distances) || distances[i] != d.DistanceKm.String() {
			t.Errorf("event %d shows distance %q, the API %s", i, distances, d.DistanceKm)
			break
		}
	}
}
