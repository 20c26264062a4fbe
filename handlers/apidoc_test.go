package handlers

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// apiDocPath is the API reference that ships with the repository.
const apiDocPath = "../docs/API.md"

// apiDoc is docs/API.md, read as the few structures the tests below check: headings, and the tables
// under them.
type apiDoc struct {
	lines []string
}

// section returns the lines of the section whose heading has anchor, up to the next heading of the
// same or a higher level; nil if no heading has it.
func (d apiDoc) section(anchor string) []string {
	for i, l := range d.lines {
		level, title := heading(l)
		if level == 0 || headingAnchor(title) != anchor {
			continue
		}
		end := i + 1
		for ; end < len(d.lines); end++ {
			if l, _ := heading(d.lines[end]); l > 0 && l <= level {
				break
			}
		}
		return d.lines[i:end]
	}
	return nil
}

// heading returns the level and text of a Markdown heading line, or 0.
func heading(line string) (level int, title string) {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n == 0 || n > 6 || !strings.HasPrefix(line[n:], " ") {
		return 0, ""
	}
	return n, strings.TrimSpace(line[n:])
}

// headingAnchor is the anchor GitHub gives a heading: lower case, spaces to hyphens, punctuation
// dropped.
func headingAnchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// tables returns the rows (cells trimmed) of the tables in lines whose first header cell is one of
// headers, header and separator rows left out.
func tables(lines []string, headers ...string) [][]string {
	var rows [][]string
	in := false
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			in = false
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if i == 0 || !strings.HasPrefix(lines[i-1], "|") { // a header row
			in = slices.Contains(headers, cells[0])
			continue
		}
		if in && !strings.HasPrefix(cells[0], "---") {
			rows = append(rows, cells)
		}
	}
	return rows
}

var (
	codeSpan   = regexp.MustCompile("`([^`]+)`")
	anchorLink = regexp.MustCompile(`\]\(#([^)]+)\)`)
)

// codeSpans returns the `quoted` names of a cell.
func codeSpans(cell string) []string {
	var names []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		names = append(names, m[1])
	}
	return names
}

func readAPIDoc(t *testing.T) apiDoc {
	t.Helper()
	data, err := os.ReadFile(apiDocPath)
	if err != nil {
		t.Fatal(err)
	}
	return apiDoc{lines: strings.Split(string(data), "\n")}
}

// documentedRoute is a row of the Routes table of docs/API.md.
type documentedRoute struct {
	methods  []string
	sections []string // the anchors of the sections documenting its parameters
}

func documentedRoutes(t *testing.T, doc apiDoc) map[string]documentedRoute {
	t.Helper()
	routes := map[string]documentedRoute{}
	for _, row := range tables(doc.section("routes"), "Route") {
		names := codeSpans(row[0])
		if len(names) != 1 || len(row) < 3 {
			t.Errorf("docs/API.md: the routes table's row %q is not | `route` | methods | sections |", row)
			continue
		}
		r := documentedRoute{}
		for _, m := range strings.Split(row[1], ",") {
			r.methods = append(r.methods, strings.TrimSpace(m))
		}
		for _, m := range anchorLink.FindAllStringSubmatch(row[2], -1) {
			r.sections = append(r.sections, m[1])
		}
		routes[names[0]] = r
	}
	if len(routes) == 0 {
		t.Fatal("docs/API.md has no routes table (| Route | Methods | Sections | under ## Routes)")
	}
	return routes
}

// routedHandler is a handler with every route registered, the metrics' included.
func routedHandler() *Handler {
	h := newHandler(Deps{Config: Config{ServeMetrics: true}, Metrics: NewMetrics(zap.NewNop())})
	h.router = h.routes()
	return h
}

// outsideRoutes are the routes registered beside the route table (health.go, metrics.go,
// explore.go): GET and HEAD each.
var outsideRoutes = []string{healthzPath, readyzPath, metricsPath, ExplorePath}

// TestAPIDocRoutes: docs/API.md lists every route the router serves with its methods, and nothing it
// does not serve.
func TestAPIDocRoutes(t *testing.T) {
	doc := readAPIDoc(t)
	documented := documentedRoutes(t, doc)
	h := routedHandler()
	want := map[string][]string{"/": {"GET"}} // the root index, registered beside the table
	for _, rt := range h.table {
		var methods []string
		for _, ep := range rt.endpoints {
			methods = append(methods, ep.methods...)
		}
		want[routeLabel(rt)] = methods
	}
	for _, p := range outsideRoutes {
		want[p] = []string{"GET", "HEAD"}
	}
	for route, methods := range want {
		d, ok := documented[route]
		if !ok {
			t.Errorf("docs/API.md does not document the route %s (%s)", route, strings.Join(methods, ", "))
			continue
		}
		if !sameSet(d.methods, methods) {
			t.Errorf("docs/API.md documents %s with %v; it answers %v", route, d.methods, methods)
		}
	}
	for route, d := range documented {
		if _, ok := want[route]; ok {
			continue
		}
		for _, m := range d.methods {
			if handle, _, _ := h.router.Lookup(m, route); handle == nil {
				t.Errorf("docs/API.md documents %s %s, which no route serves", m, route)
			}
		}
	}
}

// TestAPIDocParameters: every parameter of every endpoint's table is in a parameter table ("| Parameter"
// or "| Field" header) of a section the route links to, and every name in those tables is a parameter
// of a route that links there.
func TestAPIDocParameters(t *testing.T) {
	doc := readAPIDoc(t)
	documented := documentedRoutes(t, doc)
	h := routedHandler()
	type endpointParams struct {
		route  string
		params []string
	}
	var eps []endpointParams
	for _, rt := range h.table {
		for _, ep := range rt.endpoints {
			var names []string
			for _, p := range ep.params {
				names = append(names, p.Name)
			}
			eps = append(eps, endpointParams{routeLabel(rt), names})
		}
	}
	eps = append(eps, endpointParams{"/", []string{langParam.Name}}) // the root index
	// inSection is the parameter names of each section's tables; accepted those the section's routes
	// take.
	inSection, accepted := map[string][]string{}, map[string]map[string]bool{}
	for _, d := range documented {
		for _, a := range d.sections {
			if _, ok := inSection[a]; ok {
				continue
			}
			lines := doc.section(a)
			if lines == nil {
				t.Errorf("docs/API.md: the routes table links to #%s, which no heading has", a)
			}
			for _, row := range tables(lines, "Parameter", "Field") {
				inSection[a] = append(inSection[a], codeSpans(row[0])...)
			}
			accepted[a] = map[string]bool{}
		}
	}
	for _, ep := range eps {
		sections := documented[ep.route].sections
		for _, name := range ep.params {
			found := false
			for _, a := range sections {
				found = found || slices.Contains(inSection[a], name)
				if accepted[a] != nil {
					accepted[a][name] = true
				}
			}
			if !found {
				t.Errorf("docs/API.md: %s takes %q, which no parameter table of its sections %v has", ep.route, name, sections)
			}
		}
	}
	for a, names := range inSection {
		for _, name := range names {
			if !accepted[a][name] {
				t.Errorf("docs/API.md: section #%s documents %q, which none of its routes takes", a, name)
			}
		}
	}
}

// TestAPIDocErrors: the error table of docs/API.md has every code of the table in errors.go, with
// its statuses, and no other.
func TestAPIDocErrors(t *testing.T) {
	doc := readAPIDoc(t)
	want := map[string][]string{}
	for _, row := range answers {
		for _, s := range []int{row.status, row.anonymous} {
			if st := strconv.Itoa(s); s != 0 && !slices.Contains(want[row.code], st) {
				want[row.code] = append(want[row.code], st)
			}
		}
	}
	got := map[string]string{}
	for _, row := range tables(doc.section("errors"), "Code") {
		for _, code := range codeSpans(row[0]) {
			got[code] = row[1]
		}
	}
	if len(got) == 0 {
		t.Fatal("docs/API.md has no error table (| Code | Status | When | under ## Errors)")
	}
	for code, statuses := range want {
		status, ok := got[code]
		if !ok {
			t.Errorf("docs/API.md does not document the error code %s (%s)", code, strings.Join(statuses, ", "))
			continue
		}
		for _, s := range statuses {
			if !strings.Contains(status, s) {
				t.Errorf("docs/API.md gives %s the status %q; it is answered with %s", code, status, s)
			}
		}
	}
	for code := range got {
		if _, ok := want[code]; !ok {
			t.Errorf("docs/API.md documents the error code %s, which errors.go does not answer", code)
		}
	}
}

// TestAPIDocShapes: every key of the objects the API answers (the component schemas of /doc) is named
// in the section of docs/API.md that describes the object.
func TestAPIDocShapes(t *testing.T) {
	doc := readAPIDoc(t)
	data, err := OpenAPI(Config{}, "http://cal.test")
	if err != nil {
		t.Fatal(err)
	}
	var openAPI struct {
		Components struct {
			Schemas map[string]struct{ Properties map[string]any }
		}
	}
	if err := json.Unmarshal(data, &openAPI); err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{"Event": "the-event-object", "Venue": "the-venue-and-organizer-objects",
		"Organizer": "the-venue-and-organizer-objects", "Term": "the-term-object"}
	for schema, anchor := range sections {
		lines := doc.section(anchor)
		if lines == nil {
			t.Errorf("docs/API.md has no section #%s", anchor)
			continue
		}
		named := codeSpans(strings.Join(lines, "\n"))
		for key := range openAPI.Components.Schemas[schema].Properties {
			if !slices.Contains(named, key) {
				t.Errorf("docs/API.md: #%s does not name the %s key %q", anchor, schema, key)
			}
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
