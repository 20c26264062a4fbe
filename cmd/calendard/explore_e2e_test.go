//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The explorer (/explore/) driven in a real browser, headless Chromium: make e2e runs these tests
// (go test -tags e2e), so that make test needs only Go and make.

// browserNames are the commands Chromium goes by, Debian's first.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// browser starts a headless Chromium for one test and returns its first tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Fatalf("no Chromium on PATH (looked for %s): install it with apt-get update && apt-get install -y chromium",
			strings.Join(browserNames, ", "))
	}
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // tests may run as root, where Chromium's sandbox refuses to start
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	ctx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	// The first action starts the browser, which lives as long as that action's context.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// stepTimeout bounds each step, so that a page that never shows what is waited for fails the test.
const stepTimeout = 20 * time.Second

func step(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, stepTimeout)
}

// explorer is the page in one tab, beside the server it explores.
type explorer struct {
	t   *testing.T
	ctx context.Context
	s   *server
	// problems are the page's uncaught exceptions and the browser's complaints about it (a blocked
	// script or style is one: the Content-Security-Policy must let the page do all it does).
	mu       sync.Mutex
	problems []string
}

// watch collects the problems of the tab from now on.
func (e *explorer) watch() {
	e.t.Helper()
	err := chromedp.Listen(e.ctx, func(ev any) {
		var problem string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problem = (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error()
		case *cdplog.EventEntryAdded:
			// Network errors are the answers the test asks for (a 400, a 401) and the favicon's 404.
			if ev.Entry.Level == cdplog.EntryLevelError && ev.Entry.Source != cdplog.EntrySourceNetwork {
				problem = string(ev.Entry.Source) + ": " + ev.Entry.Text
			}
		}
		if problem != "" {
			e.mu.Lock()
			e.problems = append(e.problems, problem)
			e.mu.Unlock()
		}
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *explorer) checkProblems() {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.problems {
		e.t.Errorf("the browser reports: %s", p)
	}
}

func (e *explorer) run(actions ...chromedp.Action[chromedp.Void]) {
	e.t.Helper()
	ctx, cancel := step(e.ctx)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		e.t.Fatal(err)
	}
}

// eval runs a JavaScript expression in the page and decodes its value into out.
func (e *explorer) eval(expr string, out any) {
	e.t.Helper()
	ctx, cancel := step(e.ctx)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr))
	if err != nil {
		e.t.Fatalf("%s: %v", expr, err)
	}
	if out != nil {
		if err := json.Unmarshal(v, out); err != nil {
			e.t.Fatalf("%s: %v", expr, err)
		}
	}
}

// until waits until the JavaScript expression is true.
func (e *explorer) until(expr string) {
	e.t.Helper()
	ctx, cancel := step(e.ctx)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		state, _ := chromedp.Run(e.ctx, chromedp.Evaluate[string](`["list","month","detail"].map(v =>
			v + ": " + document.getElementById(v + "-route").textContent + " | " + document.getElementById(v + "-status").textContent).join("\n")`))
		e.t.Fatalf("waiting for %s: %v\n%s", expr, err, state)
	}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// set gives a field a value and fires the event a person's change fires.
func (e *explorer) set(id, value, event string) {
	e.t.Helper()
	e.eval(fmt.Sprintf(`(f => { f.value = %s; f.dispatchEvent(new Event(%s)); true })(document.getElementById(%s))`,
		js(value), js(event), js(id)), nil)
}

// routeRE is how a view shows the route it called: the path, its status and the time the answer took.
var routeRE = regexp.MustCompile(`^GET (\S+) → (\d{3}) in \d+ ms$`)

// called waits until view (list, month or detail) shows that it called route and has the answer, and
// returns the status shown.
func (e *explorer) called(view, route string) int {
	e.t.Helper()
	e.until(fmt.Sprintf(`document.querySelector("#%s-route a")?.textContent === %s && !document.getElementById("results").hasAttribute("aria-busy")`,
		view, js(route)))
	var shown string
	e.eval(fmt.Sprintf(`document.getElementById("%s-route").textContent`, view), &shown)
	m := routeRE.FindStringSubmatch(shown)
	if m == nil || m[1] != route {
		e.t.Fatalf("%s view shows %q, want GET %s with its status and time", view, shown, route)
	}
	status, _ := strconv.Atoi(m[2])
	return status
}

// shownEvent is an event button of the list or the grid.
type shownEvent struct {
	ID    uint64 `json:"id"`
	Title string `json:"title"`
}

func (e *explorer) shown(container string) []shownEvent {
	e.t.Helper()
	var out []shownEvent
	e.eval(fmt.Sprintf(`[...document.querySelectorAll("%s button.event")].map(b => ({id: Number(b.dataset.id), title: b.querySelector("strong").textContent}))`, container), &out)
	return out
}

// apiList is what the API answers to route, called the way the page calls it.
type apiList struct {
	events       []shownEvent
	starts       []string
	total, pages int
}

func (e *explorer) api(route, auth string) apiList {
	e.t.Helper()
	res := e.s.do(req{method: "GET", path: route, auth: auth})
	if res.status != 200 {
		e.t.Fatalf("GET %s: %d %s", route, res.status, res.body)
	}
	var body struct {
		Events []struct {
			ID              uint64 `json:"id"`
			Title           string `json:"title"`
			StartDate       string `json:"start_date"`
			SearchHighlight struct {
				Title string `json:"title"`
			} `json:"search_highlight"`
		} `json:"events"`
	}
	if err := json.Unmarshal(res.body, &body); err != nil {
		e.t.Fatal(err)
	}
	l := apiList{}
	l.total, _ = strconv.Atoi(res.header.Get("X-TEC-Total"))
	l.pages, _ = strconv.Atoi(res.header.Get("X-TEC-TotalPages"))
	for _, ev := range body.Events {
		l.events = append(l.events, shownEvent{ID: ev.ID, Title: shownText(ev.Title, ev.SearchHighlight.Title)})
		l.starts = append(l.starts, ev.StartDate)
	}
	return l
}

// shownText is the text the page shows of an item's title: its highlighted title's when the search
// marked it (docs/API.md "Highlighted matches"), else the title's, its entities decoded.
func shownText(title, highlighted string) string {
	if highlighted != "" {
		title = strings.NewReplacer("<mark>", "", "</mark>", "").Replace(highlighted)
	}
	return html.UnescapeString(title)
}

// listShows waits for the list view's answer to route and checks that it shows what the API answers
// there: the same events in the same order, the total and the page count of its headers.
func (e *explorer) listShows(route, auth string, page int) apiList {
	e.t.Helper()
	if status := e.called("list", route); status != 200 {
		e.t.Fatalf("list view: %s answered %d", route, status)
	}
	want := e.api(route, auth)
	if got := e.shown("#list"); !slices.Equal(got, want.events) {
		e.t.Errorf("list of %s shows\n%v\nthe API answers\n%v", route, got, want.events)
	}
	var status, pageOf string
	e.eval(`document.getElementById("list-status").textContent`, &status)
	e.eval(`document.getElementById("page-of").textContent`, &pageOf)
	if !regexp.MustCompile(`^` + strconv.Itoa(want.total) + ` events? · answered in \d+ ms$`).MatchString(status) {
		e.t.Errorf("list status %q, want the total %d and the time", status, want.total)
	}
	if want.pages > 0 && pageOf != fmt.Sprintf("Page %d of %d", page, want.pages) {
		e.t.Errorf("pager shows %q, want page %d of %d", pageOf, page, want.pages)
	}
	return want
}

// TestE2EExplorer types a word, pages, opens an event, looks at the month, filters, changes the
// language and signs in, and checks at each step that the page shows the route it called and what the
// API answers there.
func TestE2EExplorer(t *testing.T) {
	// No base URL: the API's URLs then name the address the browser uses.
	s := startServer(t, "CALENDAR_DEMO_EVENTS=400", "CALENDAR_BASE_URL=")
	e := &explorer{t: t, ctx: browser(t), s: s}
	const ns = "/calendar/events/v1"
	word := searchWord(t, s)

	e.watch()
	defer e.checkProblems()
	e.run(chromedp.Navigate(s.ts.URL + "/explore"))
	// The page lists the upcoming events on its own, twenty a page.
	e.listShows(ns+"/events?per_page=20"+facetsParam, "", 1)

	e.set("per-page", "10", "change")
	e.listShows(ns+"/events?per_page=10"+facetsParam, "", 1)
	e.run(chromedp.SendKeys(chromedp.CSS("#q"), word))
	first := e.listShows(ns+"/events?search="+word+"&per_page=10"+facetsParam+"&highlight=true", "", 1)
	if len(first.events) == 0 || first.pages < 2 {
		t.Fatalf("%q finds %d pages", word, first.pages)
	}

	e.run(chromedp.Click(chromedp.CSS("#next")))
	second := e.listShows(ns+"/events?search="+word+"&per_page=10"+facetsParam+"&highlight=true&page=2", "", 2)
	if slices.Equal(first.events, second.events) {
		t.Error("page 2 shows page 1's events")
	}

	// Open an event of page 2 that starts well inside its month, which the month grid shows next.
	open := -1
	for i, start := range second.starts {
		if day, _ := strconv.Atoi(start[8:10]); day > 1 && day < 28 {
			open = i
			break
		}
	}
	if open < 0 {
		t.Fatalf("no event of page 2 starts between the 2nd and the 27th: %v", second.starts)
	}
	id := second.events[open].ID
	e.run(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#list button.event[data-id="%d"]`, id))))
	eventRoute := fmt.Sprintf("%s/events/%d", ns, id)
	e.until(fmt.Sprintf(`document.querySelector("#detail-route a")?.textContent === %s`, js(eventRoute)))
	if status := e.called("detail", eventRoute); status != 200 {
		t.Fatalf("detail: %d", status)
	}
	var shownJSON string
	e.eval(`document.getElementById("detail-json").textContent`, &shownJSON)
	var got, want map[string]any
	if err := json.Unmarshal([]byte(shownJSON), &got); err != nil {
		t.Fatalf("the detail is not JSON: %v\n%s", err, shownJSON)
	}
	want = s.do(req{method: "GET", path: eventRoute}).json(t)
	if js(got) != js(want) {
		t.Errorf("the detail shows\n%s\nthe API answers\n%s", js(got), js(want))
	}

	// The month grid of the From date's month holds what the API lists between its first and last days.
	start := second.starts[open][:10]
	startDay, _ := time.Parse(time.DateOnly, start)
	monthFirst := startDay.AddDate(0, 0, 1-startDay.Day())
	monthLast := monthFirst.AddDate(0, 1, -1)
	e.set("start", start, "change")
	e.listShows(ns+"/events?search="+word+"&start_date="+start+"&per_page=10"+facetsParam+"&highlight=true", "", 1)
	e.run(chromedp.Click(chromedp.CSS("#show-month")))
	monthRoute := fmt.Sprintf("%s/events?search=%s&start_date=%s&end_date=%s&per_page=100",
		ns, word, monthFirst.Format(time.DateOnly), monthLast.Format(time.DateOnly))
	if status := e.called("month", monthRoute); status != 200 {
		t.Fatalf("month: %d", status)
	}
	grid, inMonth := e.shown("#month"), e.api(monthRoute, "")
	byID := func(a, b shownEvent) int { return int(a.ID) - int(b.ID) }
	slices.SortFunc(grid, byID)
	slices.SortFunc(inMonth.events, byID)
	if !slices.Equal(grid, inMonth.events) {
		t.Errorf("the grid shows\n%v\nthe API lists\n%v", grid, inMonth.events)
	}
	if !slices.ContainsFunc(grid, func(ev shownEvent) bool { return ev.ID == id }) {
		t.Errorf("the grid of %s misses event %d, which starts on %s", monthFirst.Format("2006-01"), id, start)
	}
	var cellOfDay string
	e.eval(fmt.Sprintf(`document.querySelector('#month button.event[data-id="%d"]').closest("td").querySelector("button.day").textContent`, id), &cellOfDay)
	if cellOfDay != strconv.Itoa(startDay.Day()) {
		t.Errorf("event %d, which starts on %s, is in the cell of day %s", id, start, cellOfDay)
	}

	// Back to the list, without the search and the date: filters by category, by venue, near a point.
	e.run(chromedp.Click(chromedp.CSS("#show-list")))
	e.set("start", "", "change")
	e.set("q", "", "input")
	e.listShows(ns+"/events?per_page=10"+facetsParam, "", 1)
	for _, filter := range []struct{ field, param string }{{"category", "categories"}, {"venue", "venue"}} {
		var choice string
		e.until(fmt.Sprintf(`document.getElementById(%s).options.length > 1`, js(filter.field)))
		e.eval(fmt.Sprintf(`document.getElementById(%s).options[1].value`, js(filter.field)), &choice)
		e.set(filter.field, choice, "change")
		e.listShows(ns+"/events?"+filter.param+"="+choice+"&per_page=10"+facetsParam, "", 1)
		e.set(filter.field, "", "change")
		e.listShows(ns+"/events?per_page=10"+facetsParam, "", 1)
	}
	// One coordinate is not a point: the page shows the API's 400 and what is missing.
	e.set("lat", "48.8566", "change")
	if status := e.called("list", ns+"/events?geoloc=1&geoloc_lat=48.8566&geoloc_radius=25&per_page=10"+facetsParam); status != 400 {
		t.Fatalf("a latitude alone: %d", status)
	}
	var errShown string
	e.eval(`document.getElementById("list-status").textContent`, &errShown)
	if !strings.HasPrefix(errShown, "400 rest_invalid_param") || !strings.Contains(errShown, "geoloc_lng") {
		t.Errorf("a latitude alone shows %q", errShown)
	}
	e.set("lng", "2.3522", "change")
	e.set("radius", "500", "change")
	e.listShows(ns+"/events?geoloc=1&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=500&per_page=10"+facetsParam, "", 1)
	e.set("lat", "", "change")
	e.set("lng", "", "change")

	// The language is the path prefix. Venues have a language: the English venue chosen is not
	// offered in French, so the list drops it.
	var venue string
	e.eval(`document.getElementById("venue").options[1].value`, &venue)
	e.set("venue", venue, "change")
	e.listShows(ns+"/events?venue="+venue+"&per_page=10"+facetsParam, "", 1)
	e.set("lang", "fr", "change")
	e.listShows("/fr"+ns+"/events?per_page=10"+facetsParam, "", 1)
	e.until(`document.getElementById("venue").value === ""`)

	// An application password typed in goes with every request, and nowhere else.
	signIn := func(password string) {
		e.set("login", "admin", "input")
		e.set("password", password, "input")
		e.run(chromedp.Click(chromedp.CSS(`#auth button[type="submit"]`)))
	}
	signIn("WrongPassword00000000000")
	e.until(`document.getElementById("list-status").textContent.startsWith("401 incorrect_password")`)
	signIn(adminPass)
	e.until(`document.getElementById("list-status").textContent.includes("answered in")`)
	e.listShows("/fr"+ns+"/events?per_page=10"+facetsParam, adminAuth, 1)
	var kept string
	e.eval(`document.getElementById("password").value + localStorage.length + sessionStorage.length + document.cookie`, &kept)
	if kept != "00" {
		t.Errorf("the password is kept outside the page's memory: password field, storages and cookies %q", kept)
	}
}

// searchWord finds a word of the demo titles that finds more than one page of ten events.
func searchWord(t *testing.T, s *server) string {
	t.Helper()
	res := s.do(req{method: "GET", path: "/calendar/events/v1/events?per_page=100&_fields=title"})
	var body struct {
		Events []struct{ Title string } `json:"events"`
	}
	if err := json.Unmarshal(res.body, &body); err != nil {
		t.Fatal(err)
	}
	tried := map[string]bool{}
	for _, ev := range body.Events {
		for _, w := range strings.Fields(strings.ToLower(html.UnescapeString(ev.Title))) {
			if len(w) < 5 || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" || tried[w] {
				continue
			}
			tried[w] = true
			r := s.do(req{method: "GET", path: "/calendar/events/v1/events?per_page=10&search=" + w})
			if pages, _ := strconv.Atoi(r.header.Get("X-TEC-TotalPages")); pages >= 2 {
				return w
			}
		}
	}
	t.Fatal("no word of the demo titles finds two pages of events")
	return ""
}

// TestE2ECrossSiteWriteRefused has a page of another site post a form, and send a credentialed simple
// fetch, to the API: the service refuses both before it looks at credentials (docs/API.md "Authentication and permissions"), so a
// browser that holds the user's credentials lends them to no one, and nothing is created.
func TestE2ECrossSiteWriteRefused(t *testing.T) {
	s := startServer(t, "CALENDAR_BASE_URL=")
	ctx := browser(t)
	api := s.ts.URL + "/calendar/events/v1/events"
	const title = "Forgedcrosssite"
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>elsewhere</title>
<form method="post" action="%[1]s"><input name="title" value="%[2]s"><input name="status" value="publish">
<input name="start_date" value="2030-01-01 10:00"><input name="end_date" value="2030-01-01 11:00"></form>
<script>
fetch(%[3]s, {method: "POST", credentials: "include", mode: "no-cors", body: new URLSearchParams({title: %[4]s})})
  .finally(() => document.forms[0].submit());
</script>`, html.EscapeString(api), title, js(api), js(title))
	}))
	t.Cleanup(evil.Close)
	// localhost is another site than 127.0.0.1, where the API is.
	elsewhere := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
	if err := chromedp.Do(ctx, chromedp.Navigate(elsewhere)); err != nil {
		t.Fatal(err)
	}
	// The form's answer replaces the page: a wait that the navigation interrupts starts again in the
	// new document.
	wait, cancel := step(ctx)
	defer cancel()
	answered := `location.href === ` + js(api) + ` && document.readyState === "complete"`
	for {
		_, err := chromedp.Run(wait, chromedp.Poll[chromedp.Void](answered))
		if err == nil {
			break
		}
		if wait.Err() != nil {
			t.Fatalf("the cross-site form was not answered: %v", err)
		}
	}
	body, err := chromedp.Run(wait, chromedp.TextContent(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	var answer map[string]any
	if err := json.Unmarshal([]byte(body), &answer); err != nil || answer["code"] != "rest_cross_site_request" {
		t.Errorf("the cross-site form's answer: %s", body)
	}
	list := s.do(req{method: "GET", path: "/calendar/events/v1/events?status=publish,draft&search=" + title, auth: adminAuth})
	if list.status != 200 || list.header.Get("X-TEC-Total") != "0" {
		t.Errorf("a cross-site write created an event: %d %s", list.status, list.body)
	}
}
