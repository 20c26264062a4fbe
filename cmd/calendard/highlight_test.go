package main

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// highlightedItems GETs path and returns its list's items (under key) as sent, after checking the
// status.
func (s *server) highlightedItems(path, key string) ([]json.RawMessage, *response) {
	s.t.Helper()
	res := s.do(req{method: "GET", path: path})
	if res.status != http.StatusOK {
		s.t.Fatalf("GET %s: status %d\n%s", path, res.status, res.body)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(res.body, &body); err != nil {
		s.t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body[key], &items); err != nil {
		s.t.Fatalf("GET %s: %s is not a list: %v", path, key, err)
	}
	return items, res
}

// splitHighlight returns item without its search_highlight member, and that member's fields.
func splitHighlight(t *testing.T, item json.RawMessage) ([]byte, map[string]string) {
	t.Helper()
	at := bytes.LastIndex(item, []byte(`,"search_highlight":`))
	if at < 0 {
		t.Fatalf("item has no search_highlight: %s", item)
	}
	var marks map[string]string
	if err := json.Unmarshal(item[at+len(`,"search_highlight":`):len(item)-1], &marks); err != nil {
		t.Fatalf("search_highlight is not an object of strings: %v\n%s", err, item)
	}
	return append(bytes.Clone(item[:at]), '}'), marks
}

// markup is every tag-like run of a highlight: only <mark> and </mark> may be there.
var markup = regexp.MustCompile(`<[^>]*>?`)

// shown is what a reader sees of a highlight inserted as HTML: its text without the marks.
func shown(s string) string {
	return html.UnescapeString(strings.NewReplacer("<mark>", "", "</mark>", "").Replace(s))
}

// TestHighlightedLists: with highlight=true and a search, each item of the events, venues and
// organizers lists gains search_highlight with its matched fields (a long description as a snippet
// of at most 200 characters around its match), HTML-escaped with <mark> as the only markup, and is
// otherwise the item of the plain answer byte for byte; the plain answer is not changed by it, and
// highlight without search is ignored.
func TestHighlightedLists(t *testing.T) {
	s := startServer(t)
	filler := strings.Repeat("Doors open early and the bar serves drinks all evening long. ", 5)
	long := s.create(eventsPath, map[string]any{"title": "The Jazz Night", "start_date": "2027-01-05 20:00:00", "end_date": "2027-01-05 23:00:00",
		"description": "<p>" + filler + "</p><p>Join us for an evening of jazz standards.</p><p>" + filler + "</p>"})
	hostile := s.create(eventsPath, map[string]any{"title": `<script>alert(1)</script>Jazz & "Blues" &lt;mark&gt;it&lt;/mark&gt; 'n' <b>Soul</b>`,
		"start_date": "2027-01-06 20:00:00", "end_date": "2027-01-06 23:00:00", "description": "Żółć — jazz for everyone"})
	s.create(eventsPath, map[string]any{"title": "Folk evening", "start_date": "2027-01-07 20:00:00", "end_date": "2027-01-07 23:00:00"})
	s.create(venuesPath, map[string]any{"venue": "Jazz Cellar", "city": "Jazzhausen", "address": "1 Main Street"})
	s.create(organizersPath, map[string]any{"organizer": "Night Owls", "description": "Friends of jazz since 1990", "phone": "555 0100"})
	s.create("/de"+eventsPath, map[string]any{"title": "Ein Konzert im Park", "start_date": "2027-01-08 20:00:00", "end_date": "2027-01-08 22:00:00"})
	s.settle()

	tests := []struct {
		name, path, key string
		want            map[string]map[string]string // by title as listed: the highlight's fields, a snippet by what it must hold
	}{
		{"events", eventsPath + "?search=jazz", "events", map[string]map[string]string{
			"The Jazz Night": {"title": "The <mark>Jazz</mark> Night", "description": "an evening of <mark>jazz</mark> standards."},
			`<script>alert(1)</script>Jazz & "Blues" &lt;mark&gt;it&lt;/mark&gt; 'n' <b>Soul</b>`: {
				"title":       "<mark>Jazz</mark> &amp; &#34;Blues&#34; &lt;mark&gt;it&lt;/mark&gt; &#39;n&#39; Soul",
				"description": "Żółć — <mark>jazz</mark> for everyone"},
		}},
		{"events with typo tolerance", eventsPath + "?search=standrads", "events", map[string]map[string]string{
			"The Jazz Night": {"description": "an evening of jazz <mark>standards</mark>."},
		}},
		{"events in German, by stem", "/de" + eventsPath + "?search=Konzerte", "events", map[string]map[string]string{
			"Ein Konzert im Park": {"title": "Ein <mark>Konzert</mark> im Park"},
		}},
		{"venues", venuesPath + "?search=jazz", "venues", map[string]map[string]string{
			"Jazz Cellar": {"venue": "<mark>Jazz</mark> Cellar", "city": "<mark>Jazzhausen</mark>"},
		}},
		{"organizers", organizersPath + "?search=jazz", "organizers", map[string]map[string]string{
			"Night Owls": {"description": "Friends of <mark>jazz</mark> since 1990"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plain, plainRes := s.highlightedItems(tc.path, tc.key)
			marked, markedRes := s.highlightedItems(tc.path+"&highlight=true", tc.key)
			if len(marked) != len(tc.want) || len(plain) != len(marked) {
				t.Fatalf("%d items, %d plain; want %d", len(marked), len(plain), len(tc.want))
			}
			if got, want := markedRes.header.Get("X-Calendar-Search"), plainRes.header.Get("X-Calendar-Search"); got != want {
				t.Errorf("X-Calendar-Search %q, plain %q", got, want)
			}
			if rest := markedRes.json(t)["rest_url"].(string); !strings.HasSuffix(rest, "&highlight=1") {
				t.Errorf("rest_url %s does not ask for the highlight", rest)
			}
			for i, item := range marked {
				rest, marks := splitHighlight(t, item)
				if !bytes.Equal(rest, plain[i]) {
					t.Errorf("item %d without search_highlight:\n%s\nplain:\n%s", i, rest, plain[i])
				}
				var fields map[string]any
				if err := json.Unmarshal(item, &fields); err != nil {
					t.Fatal(err)
				}
				name, _ := fields["title"].(string)
				if name == "" {
					name, _ = fields[tc.key[:len(tc.key)-1]].(string)
				}
				want, ok := tc.want[name]
				if !ok {
					t.Fatalf("unexpected item %q", name)
				}
				if len(marks) != len(want) {
					t.Errorf("%q: highlighted fields %v, want those of %v", name, marks, want)
				}
				for field, w := range want {
					got, ok := marks[field]
					switch {
					case !ok:
						t.Errorf("%q: no %s in %v", name, field, marks)
					case field == "description" && strings.HasPrefix(got, "… "):
						if !strings.Contains(got, w) || !strings.HasSuffix(got, " …") || utf8.RuneCountInString(shown(got)) > 200 {
							t.Errorf("%q: description snippet %q (%d characters), want one of at most 200 around %q with both ends cut",
								name, got, utf8.RuneCountInString(shown(got)), w)
						}
					case got != w:
						t.Errorf("%q: %s %q, want %q", name, field, got, w)
					}
					for _, tag := range markup.FindAllString(got, -1) {
						if tag != "<mark>" && tag != "</mark>" {
							t.Errorf("%q: %s holds markup %q", name, field, tag)
						}
					}
				}
			}
		})
	}

	// The long description's snippet is cut at both ends; the plain answer after a highlighted one is
	// the one before it, byte for byte: the item cache holds no highlight.
	before := s.do(req{method: "GET", path: eventsPath + "?search=jazz"})
	s.do(req{method: "GET", path: eventsPath + "?search=jazz&highlight=true&_fields=id,search_highlight"})
	if after := s.do(req{method: "GET", path: eventsPath + "?search=jazz"}); !bytes.Equal(after.body, before.body) {
		t.Errorf("the plain answer changed after a highlighted one:\n%s\nbefore:\n%s", after.body, before.body)
	}

	// _fields selects search_highlight like any member.
	picked, _ := s.highlightedItems(eventsPath+"?search=jazz&highlight=true&_fields=id,search_highlight", "events")
	var ids []string
	for _, item := range picked {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(item, &fields); err != nil {
			t.Fatal(err)
		}
		if len(fields) != 2 || fields["search_highlight"] == nil {
			t.Errorf("_fields=id,search_highlight gives %s", item)
		}
		ids = append(ids, string(fields["id"]))
	}
	if want := []string{utoa(long), utoa(hostile)}; strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("_fields items are events %v, want %v", ids, want)
	}

	// Without search, or false, highlight is ignored: the answer is the plain one, byte for byte.
	for plain, ignored := range map[string]string{eventsPath: eventsPath + "?highlight=true", venuesPath + "?search=jazz": venuesPath + "?search=jazz&highlight=false"} {
		want, got := s.do(req{method: "GET", path: plain}), s.do(req{method: "GET", path: ignored})
		if got.status != http.StatusOK || !bytes.Equal(got.body, want.body) {
			t.Errorf("GET %s: status %d\n%s\nwant the answer to %s:\n%s", ignored, got.status, got.body, plain, want.body)
		}
	}

	// A value that is not a boolean is refused, naming the parameter.
	res := s.do(req{method: "GET", path: eventsPath + "?search=jazz&highlight=" + url.QueryEscape("maybe")})
	if res.status != http.StatusBadRequest || !strings.Contains(string(res.body), `"rest_invalid_param"`) || !strings.Contains(string(res.body), `"highlight"`) {
		t.Errorf("highlight=maybe: status %d\n%s", res.status, res.body)
	}
}

// TestHighlightOfALongDescription: a description longer than what is highlighted (its first 8 KB)
// ends its snippet with an ellipsis also when the snippet reaches the end of what was read, and a
// match past that is not marked.
func TestHighlightOfALongDescription(t *testing.T) {
	s := startServer(t)
	// Markup makes the plain text much shorter than the stored one: the read part ends just after jazz.
	s.create(eventsPath, map[string]any{"title": "Tail", "start_date": "2027-01-05 20:00:00", "end_date": "2027-01-05 23:00:00",
		"description": strings.Repeat("<b>word</b> ", 745) + "jazz " + strings.Repeat("more ", 3000) + "blues"})
	s.settle()
	for search, want := range map[string]string{"jazz": "<mark>jazz</mark> more", "blues": ""} {
		items, _ := s.highlightedItems(eventsPath+"?search="+search+"&highlight=true", "events")
		if len(items) != 1 {
			t.Fatalf("search %s: %d items, want the event", search, len(items))
		}
		_, marks := splitHighlight(t, items[0])
		got := marks["description"]
		if want == "" && got != "" || want != "" && (!strings.Contains(got, want) || !strings.HasSuffix(got, " …") ||
			utf8.RuneCountInString(shown(got)) > 200) {
			t.Errorf("search %s: description %q, want a snippet holding %q cut at its end (empty: none)", search, got, want)
		}
	}
}
