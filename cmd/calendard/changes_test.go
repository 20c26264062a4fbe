package main

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"testing"

	"github.com/calendard/calendard/storage"
)

// feed is an answer of GET {ns}/changes.
type feed struct {
	Changes []struct {
		Cursor, Type, Action string
		ID                   uint64
		ModifiedUTC          string `json:"modified_utc"`
		Record               json.RawMessage
	}
	Next string
	More bool
}

func (s *server) changes(t *testing.T, path, auth string) feed {
	t.Helper()
	res := s.do(req{method: "GET", path: path, auth: auth})
	if res.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, res.status, res.body)
	}
	var f feed
	if err := json.Unmarshal(res.body, &f); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, res.body)
	}
	return f
}

// actions maps "type id" to the action of each change.
func (f feed) actions() map[string]string {
	m := map[string]string{}
	for _, c := range f.Changes {
		m[c.Type+" "+utoa(c.ID)] = c.Action
	}
	return m
}

const changesPath = "/calendar/events/v1/changes"

// TestChangeFeed: list, then follow (the change feed).
func TestChangeFeed(t *testing.T) {
	s := startServer(t)
	start := s.changes(t, changesPath, "")
	if len(start.Changes) != 0 || start.Next == "" || start.More {
		t.Fatalf("without since: %+v, want no changes and a cursor", start)
	}

	id := s.create("/calendar/events/v1/events", concert())
	f := s.changes(t, changesPath+"?since="+start.Next, "")
	kinds := map[string]int{}
	for _, c := range f.Changes {
		if c.Action == "upsert" {
			kinds[c.Type]++
		}
	}
	// The concert brings its venue, its organizer, two categories and a tag.
	if kinds["event"] != 1 || kinds["venue"] != 1 || kinds["organizer"] != 1 || kinds["category"] != 2 || kinds["tag"] != 1 {
		t.Errorf("after a create: upserts by type %v", kinds)
	}
	single := s.do(req{method: "GET", path: "/calendar/events/v1/events/" + utoa(id)})
	for _, c := range f.Changes {
		if c.Type == "event" {
			var a, b any
			json.Unmarshal(c.Record, &a)
			json.Unmarshal(single.body, &b)
			if toJSON(t, a) != toJSON(t, b) || c.ModifiedUTC == "" {
				t.Errorf("the feed's record is not the single GET's:\n%s\n%s", c.Record, single.body)
			}
		}
	}

	// Only the latest state of a record, once, however often it changed.
	for _, title := range []string{"Jazz Night II", "Jazz Night III"} {
		if res := s.do(req{method: "PATCH", path: "/calendar/events/v1/events/" + utoa(id), auth: adminAuth, body: map[string]any{"title": title}}); res.status != 200 {
			t.Fatalf("update: %d %s", res.status, res.body)
		}
	}
	f = s.changes(t, changesPath+"?since="+f.Next, "")
	var titles []string
	for _, c := range f.Changes {
		if c.Type == "event" {
			var rec struct{ Title string }
			json.Unmarshal(c.Record, &rec)
			titles = append(titles, rec.Title)
		}
	}
	if len(titles) != 1 || titles[0] != "Jazz Night III" {
		t.Errorf("two updates: event changes with titles %q, want one with the latest", titles)
	}

	// A record hidden from the caller is a delete for that caller, and its content never shows.
	before := f.Next
	if res := s.do(req{method: "PATCH", path: "/calendar/events/v1/events/" + utoa(id), auth: adminAuth, body: map[string]any{"status": "draft"}}); res.status != 200 {
		t.Fatalf("unpublish: %d %s", res.status, res.body)
	}
	anon := s.changes(t, changesPath+"?since="+before, "")
	for _, c := range anon.Changes {
		if c.Type == "event" && (c.Action != "delete" || c.Record != nil) {
			t.Errorf("anonymous after unpublishing: %s %s %s, want a delete without the record", c.Action, c.Type, c.Record)
		}
	}
	if anon.actions()["event "+utoa(id)] != "delete" {
		t.Errorf("anonymous after unpublishing: %v, want the event deleted", anon.actions())
	}
	if admin := s.changes(t, changesPath+"?since="+before, adminAuth); admin.actions()["event "+utoa(id)] != "upsert" {
		t.Errorf("administrator after unpublishing: %v, want an upsert", admin.actions())
	}

	// limit pages through the changes.
	one := s.changes(t, changesPath+"?limit=1&since="+start.Next, adminAuth)
	if len(one.Changes) != 1 || !one.More {
		t.Fatalf("limit=1: %+v", one)
	}
	rest := s.changes(t, changesPath+"?limit=1000&since="+one.Next, adminAuth)
	if rest.More || len(rest.Changes) == 0 {
		t.Errorf("the rest: %+v", rest)
	}

	// Records of another language are in that language's feed only.
	fr := concert()
	fr["title"] = "Nuit du jazz"
	frID := s.create("/fr/calendar/events/v1/events", fr)
	if got := s.changes(t, changesPath+"?since="+anon.Next, "").actions(); got["event "+utoa(frID)] != "" {
		t.Errorf("a French event in the default feed: %v", got)
	}
	if got := s.changes(t, "/fr"+changesPath+"?since="+anon.Next, "").actions(); got["event "+utoa(frID)] != "upsert" {
		t.Errorf("the French feed: %v", got)
	}
}

// TestChangeFeedLongPoll: a wait ends with the first change; with none, when the time is up.
func TestChangeFeedLongPoll(t *testing.T) {
	s := startServer(t)
	head := s.changes(t, changesPath, "").Next
	answered := make(chan feed, 1)
	go func() { answered <- s.changes(t, changesPath+"?wait=30&since="+head, "") }()
	// Whether the write lands before or during the wait, the answer holds it.
	id := s.create("/calendar/events/v1/events", concert())
	if f := <-answered; f.actions()["event "+utoa(id)] != "upsert" {
		t.Errorf("long poll: %+v, want the new event", f)
	}
	last := s.changes(t, changesPath, "").Next
	if f := s.changes(t, changesPath+"?wait=1&since="+last, ""); len(f.Changes) != 0 || f.Next != last {
		t.Errorf("a wait with nothing new: %+v", f)
	}
}

func TestChangeFeedErrors(t *testing.T) {
	// No horizon, so that the log can be trimmed past a cursor at once; cluster mode keeps at least an
	// hour, so the file it is.
	s := startServer(t, "CALENDAR_CHANGES_HORIZON=0", fileEnv)
	old := s.changes(t, changesPath, "").Next
	s.create("/calendar/events/v1/events", concert())
	for _, c := range []struct {
		query, wantCode string
		wantStatus      int
	}{
		{"?since=abc", "rest_invalid_param", 400},
		{"?since=999999", "rest_changes_expired", 410}, // ahead of the log: a restored store's
		{"?since=-1", "rest_invalid_param", 400},
		{"?since=0&limit=0", "rest_invalid_param", 400},
		{"?since=0&limit=1001", "rest_invalid_param", 400},
		{"?since=0&wait=61", "rest_invalid_param", 400},
	} {
		if res := s.do(req{method: "GET", path: changesPath + c.query}); res.status != c.wantStatus || res.json(t)["code"] != c.wantCode {
			t.Errorf("%s: %d %s, want %d %s", c.query, res.status, res.body, c.wantStatus, c.wantCode)
		}
	}

	// A cursor the trimmed change log has passed: the client must list again.
	s.settle()
	head, err := s.app.db.ChangeHead(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.app.db.TrimChanges(context.Background(), head); err != nil {
		t.Fatal(err)
	}
	if res := s.do(req{method: "GET", path: changesPath + "?since=" + old}); res.status != http.StatusGone || res.json(t)["code"] != "rest_changes_expired" {
		t.Errorf("an expired cursor: %d %s, want 410 rest_changes_expired", res.status, res.body)
	}
	if f := s.changes(t, changesPath+"?since="+utoa(head), ""); len(f.Changes) != 0 {
		t.Errorf("from the head after a trim: %+v", f)
	}
}

// TestChangeFeedTombstones: a caller is told of a record's removal only if it could have seen the
// record: a draft written and trashed leaves nothing in an anonymous feed (neither how many nor when),
// while its author and an editor, who could read it, get the delete; a record once published and
// then trashed is a delete for everyone. A hidden event is in the feed as the single GET shows it.
func TestChangeFeedTombstones(t *testing.T) {
	s := startServer(t)
	author := s.user("ann", storage.RoleAuthor)
	editor := s.user("ed", storage.RoleEditor)
	start := s.changes(t, changesPath, "").Next

	draft := map[string]any{"title": "Secret plan", "status": "draft", "start_date": "2027-01-05 10:00:00", "end_date": "2027-01-05 11:00:00"}
	res := s.do(req{method: "POST", path: eventsPath, auth: author, body: draft})
	if res.status != http.StatusCreated {
		t.Fatalf("draft: %d %s", res.status, res.body)
	}
	neverShown := utoa(uint64(res.json(t)["id"].(float64)))
	published := s.create(eventsPath, map[string]any{"title": "Gig", "start_date": "2027-01-06 10:00:00", "end_date": "2027-01-06 11:00:00"})
	hidden := s.create(eventsPath, map[string]any{"title": "Quiet gig", "hide_from_listings": true, "start_date": "2027-01-07 10:00:00", "end_date": "2027-01-07 11:00:00"})
	for _, id := range []string{neverShown, utoa(published)} {
		if res := s.do(req{method: "DELETE", path: eventsPath + "/" + id, auth: adminAuth}); res.status != http.StatusOK {
			t.Fatalf("trash %s: %d %s", id, res.status, res.body)
		}
	}

	for _, tc := range []struct {
		caller, auth string
		want         map[string]string // event ID → action; absent: not in the feed
	}{
		{"anonymous", "", map[string]string{utoa(published): "delete", utoa(hidden): "upsert"}},
		{"the draft's author", author, map[string]string{neverShown: "delete", utoa(published): "delete", utoa(hidden): "upsert"}},
		{"editor", editor, map[string]string{neverShown: "delete", utoa(published): "delete", utoa(hidden): "upsert"}},
	} {
		got := map[string]string{}
		for _, c := range s.changes(t, changesPath+"?since="+start, tc.auth).Changes {
			if c.Type == "event" {
				got[utoa(c.ID)] = c.Action
			}
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: event changes %v, want %v", tc.caller, got, tc.want)
		}
	}
}
