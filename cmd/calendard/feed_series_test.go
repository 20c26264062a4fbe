package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/google/go-cmp/cmp"
	"github.com/teambition/rrule-go"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/storage/datetime"
)

// expandFeed returns the instances of every VEVENT of cal, sorted.
func expandFeed(t *testing.T, cal *ics.Calendar) []string {
	t.Helper()
	type instance struct{ start, title string }
	var out []string
	series := map[string]map[string]instance{} // UID → instance key → instance
	var overrides []*ics.VEvent
	for _, ev := range cal.Events() {
		if ev.GetProperty(ics.ComponentPropertyRecurrenceId) != nil {
			overrides = append(overrides, ev)
			continue
		}
		uid := ev.GetProperty(ics.ComponentPropertyUniqueId).Value
		title := ev.GetProperty(ics.ComponentPropertySummary).Value
		start, allDay := icsTime(t, ev.GetProperty(ics.ComponentPropertyDtStart), time.UTC)
		set := &rrule.Set{}
		set.RDate(start)
		for _, p := range ev.Properties {
			switch ics.ComponentProperty(p.IANAToken) {
			case ics.ComponentPropertyRrule:
				opt, err := rrule.StrToROptionInLocation(p.Value, start.Location())
				if err != nil {
					t.Fatalf("rrule-go: RRULE:%s: %v", p.Value, err)
				}
				opt.Dtstart = start
				r, err := rrule.NewRRule(*opt)
				if err != nil {
					t.Fatalf("rrule-go: RRULE:%s: %v", p.Value, err)
				}
				if first := r.After(start, true); opt.Count > 0 && !first.Equal(start) {
					// DTSTART is the first of COUNT instances even when the rule does not give it,
					// where rrule-go, as python-dateutil, counts only the rule's own.
					if opt.Count--; opt.Count == 0 {
						continue
					}
					if r, err = rrule.NewRRule(*opt); err != nil {
						t.Fatalf("rrule-go: RRULE:%s: %v", p.Value, err)
					}
				}
				set.RRule(r)
			case ics.ComponentPropertyRdate, ics.ComponentPropertyExdate:
				for _, v := range strings.Split(p.Value, ",") {
					one := p
					one.Value = v
					at, _ := icsTime(t, &ics.IANAProperty{BaseProperty: one.BaseProperty}, start.Location())
					if p.IANAToken == string(ics.ComponentPropertyRdate) {
						set.RDate(at)
					} else {
						set.ExDate(at)
					}
				}
			}
		}
		instances := map[string]instance{}
		next := set.Iterator()
		for at, ok := next(); ok; at, ok = next() {
			if len(instances) == maxExpanded {
				t.Fatalf("%s: more than %d instances: a rule without an end", uid, maxExpanded)
			}
			instances[instanceOf(at, allDay)] = instance{instanceOf(at, allDay), title}
		}
		if series[uid] != nil {
			t.Fatalf("UID %s names two series", uid)
		}
		series[uid] = instances
	}
	for _, ev := range overrides {
		uid := ev.GetProperty(ics.ComponentPropertyUniqueId).Value
		id, allDay := icsTime(t, ev.GetProperty(ics.ComponentPropertyRecurrenceId), time.UTC)
		key := instanceOf(id, allDay)
		if _, ok := series[uid][key]; !ok {
			t.Fatalf("%s: RECURRENCE-ID %s names no instance of its series", uid, key)
		}
		start, allDay := icsTime(t, ev.GetProperty(ics.ComponentPropertyDtStart), time.UTC)
		series[uid][key] = instance{instanceOf(start, allDay), ev.GetProperty(ics.ComponentPropertySummary).Value}
	}
	for _, instances := range series {
		for _, in := range instances {
			out = append(out, in.start+" "+in.title)
		}
	}
	slices.Sort(out)
	return out
}

// icsTime reads a DTSTART, RECURRENCE-ID, RDATE or EXDATE value: a date, a UTC date-time, or a
// date-time in its TZID, else in loc. It reports whether it is a date.
func icsTime(t *testing.T, p *ics.IANAProperty, loc *time.Location) (time.Time, bool) {
	t.Helper()
	if tzid := p.ICalParameters["TZID"]; len(tzid) == 1 {
		var err error
		if loc, err = time.LoadLocation(tzid[0]); err != nil {
			t.Fatalf("TZID %q: %v", tzid[0], err)
		}
	}
	for _, f := range []struct {
		layout string
		allDay bool
	}{{"20060102", true}, {"20060102T150405Z", false}, {"20060102T150405", false}} {
		if len(p.Value) != len(f.layout) {
			continue
		}
		at, err := time.ParseInLocation(f.layout, p.Value, loc)
		if f.layout[len(f.layout)-1] == 'Z' {
			at, err = time.Parse(f.layout, p.Value)
		}
		if err == nil {
			return at, f.allDay
		}
	}
	t.Fatalf("%s: %q is not a date or date-time", p.IANAToken, p.Value)
	return time.Time{}, false
}

// instanceOf writes an instance's start: its date when all-day, else its UTC instant.
func instanceOf(at time.Time, allDay bool) string {
	if allDay {
		return at.Format(time.DateOnly)
	}
	return at.UTC().Format(datetime.DB) + "Z"
}

// listedInstances returns the events the list answers for query and caller, as many as a feed holds
// (the first pages up to handlers.MaxFeedEvents), as expandFeed writes instances, sorted.
func (s *server) listedInstances(t *testing.T, query, auth string) []string {
	t.Helper()
	var out []string
	for page, pages := 1, 1; page <= min(pages, handlers.MaxFeedEvents/100); page++ {
		res := s.do(req{method: "GET", path: fmt.Sprintf("%s?per_page=100&page=%d&%s", eventsPath, page, query), auth: auth})
		if res.status != http.StatusOK {
			t.Fatalf("GET events?%s: %d %s", query, res.status, res.body)
		}
		pages, _ = strconv.Atoi(res.header.Get("X-TEC-TotalPages"))
		for _, e := range listItemsOf(res.json(t), "events") {
			start := fmt.Sprint(e["utc_start_date"]) + "Z"
			if e["all_day"] == true {
				start = fmt.Sprint(e["start_date"])[:10]
			}
			out = append(out, start+" "+fmt.Sprint(e["title"]))
		}
	}
	slices.Sort(out)
	return out
}

// checkFeedExpandsToList fails unless the feed for query and caller, expanded, is the list's events.
func (s *server) checkFeedExpandsToList(t *testing.T, query, auth string) *ics.Calendar {
	t.Helper()
	_, cal := s.feedOf(t, feedPath+"?"+query, auth)
	if diff := cmp.Diff(s.listedInstances(t, query, auth), expandFeed(t, cal)); diff != "" {
		t.Errorf("%s (caller %q): feed expanded (-list +feed):\n%s", query, auth, diff)
	}
	return cal
}

// TestFeedSeriesNoPhantom: the series of ten whose occurrences were edited out of the request's
// filters one by one (retitled out of a search, recategorised out of a category, moved out of the
// dates, made a draft the anonymous caller cannot see) shows, expanded, exactly the list's events
// for every filter: the rule no longer gives the occurrences the list leaves out.
func TestFeedSeriesNoPhantom(t *testing.T) {
	s := startServer(t)
	singing := s.create(categoriesPath, map[string]any{"name": "Singing"})
	dance := s.create(categoriesPath, map[string]any{"name": "Dance"})
	body := choir("RRULE:FREQ=WEEKLY;COUNT=10")
	body["categories"] = []uint64{singing}
	parent := s.create(eventsURL, body)
	s.settle()
	occ := s.list(t, fmt.Sprintf("post_parent=%d", parent)).events // 12-08 … 2027-02-02, nine
	s.patch(t, occ[1]["id"], map[string]any{"title": "Orchestra"})
	s.patch(t, occ[3]["id"], map[string]any{"categories": []uint64{dance}})
	s.patch(t, occ[5]["id"], map[string]any{"start_date": "2027-03-16 19:00:00", "end_date": "2027-03-16 21:00:00"})
	s.patch(t, occ[6]["id"], map[string]any{"start_date": "2027-01-19 20:30:00", "end_date": "2027-01-19 22:30:00"})
	s.patch(t, occ[7]["id"], map[string]any{"status": "draft"})
	s.settle()

	dates := "start_date=2026-11-30&end_date=2027-02-28"
	for _, q := range []string{
		"",
		"search=choir",
		"categories=" + utoa(singing),
		dates,
		"search=choir&categories=" + utoa(singing) + "&" + dates,
		"end_date=2026-12-20",
		"start_date=2026-12-01&end_date=2026-12-01",
		"hide_subsequent_recurrences=1",
		"post_parent=" + utoa(parent),
		"include=" + fmt.Sprint(parent, ",", occ[2]["id"]),
	} {
		for _, auth := range []string{"", adminAuth} {
			t.Run(q+" "+auth, func(t *testing.T) { s.checkFeedExpandsToList(t, q, auth) })
		}
	}
	s.checkFeedExpandsToList(t, "status=publish,draft", adminAuth)

	// The case: the search leaves out the retitled occurrence, the category the recategorised
	// one, the dates the moved one; the series stays one VEVENT, and the rule excludes the three.
	cal := s.checkFeedExpandsToList(t, "search=choir&categories="+utoa(singing)+"&"+dates, adminAuth)
	if got := len(expandFeed(t, cal)); got != 7 {
		t.Errorf("%d events, want the ten less three", got)
	}
	var rules, exdates []string
	for _, ev := range cal.Events() {
		if p := ev.GetProperty(ics.ComponentPropertyRrule); p != nil {
			rules = append(rules, p.Value)
			for _, p := range ev.Properties {
				if p.IANAToken == string(ics.ComponentPropertyExdate) {
					exdates = append(exdates, p.Value)
				}
			}
		}
	}
	if want := []string{"FREQ=WEEKLY;COUNT=10"}; !slices.Equal(rules, want) {
		t.Errorf("RRULEs %q, want %q", rules, want)
	}
	if want := []string{"20261215T190000,20261229T190000,20270112T190000"}; !slices.Equal(exdates, want) {
		t.Errorf("EXDATEs %q, want %q", exdates, want)
	}
}

// TestFeedSeriesProperty: for random series (daily, weekly and monthly rules with a COUNT, an UNTIL
// or no end, in zones with and without DST, all-day or not, starting before or after today) whose
// occurrences were moved, retitled, recategorised, trashed, made drafts, hidden, moved to another zone
// or made all-day (or timed), every feed of random filters, for an anonymous caller or an
// administrator, expands to exactly the list's events.
func TestFeedSeriesProperty(t *testing.T) {
	s := startServer(t)
	rng := rand.New(rand.NewPCG(36, 1))
	pick := func(n int) int { return rng.IntN(n) }
	words := []string{"Alpha", "Bravo", "Charlie", "Delta", "Echo"}
	var cats []uint64
	for _, name := range []string{"Red", "Green", "Blue"} {
		cats = append(cats, s.create(categoriesPath, map[string]any{"name": name}))
	}
	title := func() string { return words[pick(len(words))] + " " + words[pick(len(words))] }
	zones := []string{"Europe/Paris", "America/New_York", "UTC", "UTC+5"}
	rules := []string{"FREQ=DAILY;COUNT=%d", "FREQ=DAILY;INTERVAL=2;UNTIL=20270301T000000Z", "FREQ=WEEKLY;COUNT=%d",
		"FREQ=WEEKLY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=%d", "FREQ=MONTHLY;COUNT=%d", "FREQ=MONTHLY;BYMONTHDAY=-1"}
	var parents []uint64
	for range 12 {
		start := time.Date(2026, 10, 1, pick(24), 30*pick(2), 0, 0, time.UTC).AddDate(0, 0, pick(150))
		end := start.Add(time.Duration(1+pick(3)) * time.Hour)
		rule := rules[pick(len(rules))]
		if strings.Contains(rule, "%d") {
			rule = fmt.Sprintf(rule, 2+pick(14))
		}
		body := map[string]any{"title": title(), "timezone": zones[pick(len(zones))], "categories": []uint64{cats[pick(len(cats))]},
			"start_date": start.Format(datetime.DB), "end_date": end.Format(datetime.DB), "recurrence": []string{"RRULE:" + rule}}
		if pick(5) == 0 {
			body["all_day"] = true
			body["start_date"], body["end_date"] = start.Format(time.DateOnly), start.AddDate(0, 0, pick(2)).Format(time.DateOnly)
		}
		parents = append(parents, s.create(eventsURL, body))
	}
	s.settle()
	for _, parent := range parents {
		occ := s.list(t, fmt.Sprintf("post_parent=%d&per_page=100&start_date=2026-01-01&end_date=2029-12-31", parent)).events
		for _, o := range occ {
			path := fmt.Sprintf("%s/%v", eventsURL, o["id"])
			var change map[string]any
			switch pick(16) {
			case 0:
				start, err := time.Parse(datetime.DB, o["start_date"].(string))
				if err != nil {
					t.Fatal(err)
				}
				end, err := time.Parse(datetime.DB, o["end_date"].(string))
				if err != nil {
					t.Fatal(err)
				}
				by := time.Duration(pick(96)-48) * time.Hour
				change = map[string]any{"start_date": start.Add(by).Format(datetime.DB), "end_date": end.Add(by).Format(datetime.DB)}
			case 1:
				change = map[string]any{"title": title()}
			case 2:
				change = map[string]any{"categories": []uint64{cats[pick(len(cats))]}}
			case 3:
				if res := s.do(req{method: "DELETE", path: path, auth: adminAuth}); res.status != http.StatusOK {
					t.Fatalf("DELETE %s: %d %s", path, res.status, res.body)
				}
			case 4:
				change = map[string]any{"status": "draft"}
			case 5:
				change = map[string]any{"hide_from_listings": true}
			case 6:
				change = map[string]any{"timezone": zones[pick(len(zones))]}
			case 7:
				day := o["start_date"].(string)[:10]
				change = map[string]any{"all_day": true, "start_date": day, "end_date": day}
				if o["all_day"] == true {
					change = map[string]any{"all_day": false, "start_date": day + " 12:00:00", "end_date": day + " 13:00:00"}
				}
			}
			if change != nil {
				s.patch(t, o["id"], change)
			}
		}
	}
	s.settle()

	day := func() string {
		return time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC).AddDate(0, 0, pick(300)).Format(time.DateOnly)
	}
	for i := range 60 {
		var q []string
		if pick(2) == 0 {
			q = append(q, "search="+strings.ToLower(words[pick(len(words))]))
		}
		if pick(3) == 0 {
			q = append(q, fmt.Sprint("categories=", cats[pick(len(cats))]))
		}
		if pick(2) == 0 {
			q = append(q, "start_date="+day())
		}
		if pick(2) == 0 {
			q = append(q, "end_date="+day())
		}
		if pick(8) == 0 {
			q = append(q, "hide_subsequent_recurrences=1")
		}
		auth := ""
		if pick(2) == 0 {
			auth = adminAuth
			if pick(3) == 0 {
				q = append(q, "status=publish,draft")
			}
		}
		query := strings.Join(q, "&")
		t.Run(fmt.Sprint(i, " ", query, " ", auth != ""), func(t *testing.T) { s.checkFeedExpandsToList(t, query, auth) })
	}
}

// TestFeedSeriesForms: the other forms a series takes in the feed, each expanding to the list. An
// occurrence kept after its parent's rule stopped giving its date, or made all-day in a series that is
// not, is an event of its own, one moved to another zone still an override; a series whose dates left
// out would outnumber its events in the answer, or whose rule excludes its parent, is written as those
// events, without a rule.
func TestFeedSeriesForms(t *testing.T) {
	s := startServer(t)
	yoga := map[string]any{"title": "Yoga", "timezone": "Europe/Paris", "start_date": "2026-12-02 09:00:00",
		"end_date": "2026-12-02 10:00:00", "recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=6"}}
	parent := s.create(eventsURL, yoga)
	s.settle()
	occ := s.list(t, fmt.Sprintf("post_parent=%d", parent)).events
	kept := occ[3]["id"]
	s.patch(t, kept, map[string]any{"title": "Yoga with guests"})
	s.patch(t, occ[0]["id"], map[string]any{"title": "Yoga retreat", "all_day": true, "start_date": "2026-12-09", "end_date": "2026-12-10"})
	s.patch(t, occ[1]["id"], map[string]any{"title": "Yoga in New York", "timezone": "America/New_York",
		"start_date": "2026-12-16 09:00:00", "end_date": "2026-12-16 10:00:00"})
	s.patch(t, parent, map[string]any{"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=4"}})

	pilates := map[string]any{"title": "Pilates", "start_date": "2026-12-03 18:00:00", "end_date": "2026-12-03 19:00:00",
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=6"}}
	daily := s.create(eventsURL, pilates)
	// A series that excludes its own first date: whether the list shows the parent or not, the feed
	// shows the same.
	s.create(eventsURL, map[string]any{"title": "Tai chi", "timezone": "Europe/Paris", "start_date": "2026-12-05 09:00:00",
		"end_date": "2026-12-05 10:00:00", "recurrence": []string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=Europe/Paris:20261205T090000"}})
	s.settle()
	for _, o := range s.list(t, fmt.Sprintf("post_parent=%d", daily)).events[:4] {
		s.patch(t, o["id"], map[string]any{"title": "Stretching"})
	}
	s.settle()

	// uids returns the UID of each VEVENT with the given SUMMARY, and whether one has a rule.
	uids := func(cal *ics.Calendar, summary string) (ids []string, rule bool) {
		for _, ev := range cal.Events() {
			if ev.GetProperty(ics.ComponentPropertySummary).Value == summary {
				ids = append(ids, ev.GetProperty(ics.ComponentPropertyUniqueId).Value)
				rule = rule || ev.GetProperty(ics.ComponentPropertyRrule) != nil
			}
		}
		return ids, rule
	}
	cal := s.checkFeedExpandsToList(t, "", "")
	for _, tc := range []struct {
		title string
		want  any
	}{
		{"Yoga with guests", kept},     // the rule no longer gives its date
		{"Yoga retreat", occ[0]["id"]}, // all-day in a series that is not
		{"Yoga in New York", parent},   // another zone: still an override
	} {
		if ids, _ := uids(cal, tc.title); !slices.Equal(ids, []string{fmt.Sprint(tc.want, "@cal.test")}) {
			t.Errorf("%s: UIDs %q, want %v@cal.test", tc.title, ids, tc.want)
		}
	}
	if _, rule := uids(cal, "Pilates"); !rule {
		t.Error("unfiltered, the daily series has no rule")
	}
	cal = s.checkFeedExpandsToList(t, "search=pilates", "")
	if ids, rule := uids(cal, "Pilates"); len(ids) != 2 || rule {
		t.Errorf("the daily series among its retitled occurrences: UIDs %q, a rule %v; want two events without", ids, rule)
	}
}
