package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage"
)

// trashStatuses reads the status of records ids of type t from the store of dir, which no server holds.
func trashStatuses(t *testing.T, dir string, pt storage.PostType, ids ...uint64) map[uint64]storage.Status {
	t.Helper()
	db := openDirStore(t, "serve", lookup(map[string]string{"CALENDAR_DATA_DIR": dir}))
	defer db.Close()
	recs, _, err := db.Load(context.Background(), pt, ids)
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64]storage.Status{}
	for _, e := range recs.Events {
		got[e.ID] = e.Status
	}
	for _, v := range recs.Venues {
		got[v.ID] = v.Status
	}
	for _, o := range recs.Organizers {
		got[o.ID] = o.Status
	}
	return got
}

// placeIDs returns the IDs of the venue and the organizer event id links, as its response gives them.
func placeIDs(t *testing.T, s *server, id uint64) (venue, organizer uint64) {
	t.Helper()
	e := s.event(t, id)
	venue = uint64(e["venue"].(map[string]any)["id"].(float64))
	organizer = uint64(e["organizer"].([]any)[0].(map[string]any)["id"].(float64))
	return venue, organizer
}

// TestTrashCommandWithoutServer: with no server on the data directory, calendard trash opens the
// store and moves each type of record to the trash as DELETE does, a series' parent with its series.
func TestTrashCommandWithoutServer(t *testing.T) {
	dir := t.TempDir()
	s := startServerIn(t, dir)
	event := s.create(eventsURL, concert())
	venue, organizer := placeIDs(t, s, event)
	parent := s.create(eventsURL, choir("RRULE:FREQ=WEEKLY;COUNT=3"))
	s.settle()
	var occurrences []uint64
	for _, e := range s.list(t, fmt.Sprintf("post_parent=%d", parent)).events {
		occurrences = append(occurrences, uint64(e["id"].(float64)))
	}
	if len(occurrences) != 2 {
		t.Fatalf("occurrences %v, want 2", occurrences)
	}
	s.stop()

	tests := []struct {
		name, typ string
		pt        storage.PostType
		id        uint64
		wantOut   string
		// alsoTrashed are the other records the command trashes.
		alsoTrashed []uint64
	}{
		{"event", "event", storage.TypeEvent, event, fmt.Sprintf("trashed event %d \"Jazz Night\"\n", event), nil},
		{"venue", "venue", storage.TypeVenue, venue, fmt.Sprintf("trashed venue %d \"Salle Pleyel\"\n", venue), nil},
		{"organizer", "organizer", storage.TypeOrganizer, organizer, fmt.Sprintf("trashed organizer %d \"Org A\"\n", organizer), nil},
		{"series", "event", storage.TypeEvent, parent, fmt.Sprintf("trashed event %d \"Choir\" and the occurrences of its series\n", parent), occurrences},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runCmd(t, dir, "trash", "--type", tc.typ, "--id", utoa(tc.id))
			if err != nil || out != tc.wantOut {
				t.Fatalf("trash: %v %q, want %q", err, out, tc.wantOut)
			}
			ids := append([]uint64{tc.id}, tc.alsoTrashed...)
			got := trashStatuses(t, dir, tc.pt, ids...)
			for _, id := range ids {
				if got[id] != storage.StatusTrash {
					t.Errorf("%s %d has status %q, want trash", tc.pt, id, got[id])
				}
			}
		})
	}

	// As with DELETE, the trashed venue and organizer left the event, and the API says it is trashed.
	db := openDirStore(t, "serve", lookup(map[string]string{"CALENDAR_DATA_DIR": dir}))
	e, _, err := db.Event(context.Background(), event)
	db.Close()
	if err != nil || e.VenueID != 0 || len(e.OrganizerIDs) != 0 {
		t.Errorf("the trashed event links venue %d, organizers %v (%v), want none", e.VenueID, e.OrganizerIDs, err)
	}
	s = startServerIn(t, dir)
	res := s.do(req{method: "GET", path: eventsURL + "/" + utoa(event), auth: adminAuth})
	if code := res.json(t)["code"]; res.status != http.StatusForbidden || code != "event-no-longer-available" {
		t.Errorf("GET the trashed event: %d %v", res.status, code)
	}
}

// TestTrashCommandErrors: a command that names no record, or one that is not there, fails with a
// message naming the mistake; a malformed one touches no data directory.
func TestTrashCommandErrors(t *testing.T) {
	dir := t.TempDir()
	s := startServerIn(t, dir)
	event := s.create(eventsURL, concert())
	venue, organizer := placeIDs(t, s, event)
	if res := s.do(req{method: "DELETE", path: "/calendar/events/v1/organizers/" + utoa(organizer), auth: adminAuth}); res.status != http.StatusOK {
		t.Fatalf("DELETE organizer: %d %s", res.status, res.body)
	}
	s.stop()
	missing := filepath.Join(t.TempDir(), "none")

	tests := []struct {
		name, dir string
		args      []string
		wantErr   string
	}{
		{"no type", missing, []string{"--id", "1"}, "usage: calendard trash"},
		{"no id", missing, []string{"--type", "event"}, "usage: calendard trash"},
		{"unknown type", missing, []string{"--type", "concert", "--id", "1"}, `unknown record type "concert"`},
		{"id not a number", missing, []string{"--type", "event", "--id", "one"}, `invalid value "one" for flag -id`},
		{"unknown id", dir, []string{"--type", "event", "--id", "999"}, "no event has ID 999"},
		{"unknown venue id", dir, []string{"--type", "venue", "--id", "999"}, "no venue has ID 999"},
		{"a venue as an event", dir, []string{"--type", "event", "--id", utoa(venue)}, fmt.Sprintf("ID %d is of type venue, not event: run with --type venue", venue)},
		{"an event as an organizer", dir, []string{"--type", "organizer", "--id", utoa(event)}, fmt.Sprintf("ID %d is of type event, not organizer", event)},
		{"already trashed", dir, []string{"--type", "organizer", "--id", utoa(organizer)}, fmt.Sprintf("organizer %d is already in the trash", organizer)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runCmd(t, tc.dir, append([]string{"trash"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v (output %q), want an error containing %q", err, out, tc.wantErr)
			}
			if _, err := os.Stat(missing); !os.IsNotExist(err) {
				t.Errorf("the command created the data directory %s: %v", missing, err)
			}
		})
	}
	if got := trashStatuses(t, dir, storage.TypeEvent, event)[event]; got != storage.StatusPublish {
		t.Errorf("the event's status is %q after the failed commands, want publish", got)
	}
}

// waitApplied returns once the index of l has applied every change the store holds.
func (l *loop) waitApplied(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	head, err := l.app.db.PrimaryChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.app.index.WaitApplied(ctx, head); err != nil {
		t.Fatalf("index has not applied change %d: %v", head, err)
	}
}

// searchJazz returns the IDs of the events an anonymous search for jazz lists from l.
func searchJazz(t *testing.T, l *loop) []float64 {
	t.Helper()
	res, err := http.Get(l.base + eventsURL + "?search=jazz&start_date=2030-01-01&end_date=2031-01-01")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list struct{ Events []struct{ ID float64 } }
	if err := json.NewDecoder(res.Body).Decode(&list); res.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("search: %d %v", res.StatusCode, err)
	}
	var ids []float64
	for _, e := range list.Events {
		ids = append(ids, e.ID)
	}
	return ids
}

// firstEvent returns the ID of the first event in the store of dir, which no server holds.
func firstEvent(t *testing.T, dir string) uint64 {
	t.Helper()
	db := openDirStore(t, "serve", lookup(map[string]string{"CALENDAR_DATA_DIR": dir}))
	defer db.Close()
	recs, err := db.Scan(context.Background(), storage.TypeEvent, 0, 1)
	if err != nil || len(recs.Events) != 1 {
		t.Fatalf("scan: %v %v", recs, err)
	}
	return recs.Events[0].ID
}

// TestTrashCommandOnARunningServer: while a server runs, calendard trash goes through its control
// socket, whether its index is loaded or still loading, and the index follows the change: an
// anonymous search no longer lists the event.
func TestTrashCommandOnARunningServer(t *testing.T) {
	tests := []struct {
		name string
		// serve starts the server on dir and returns it with, for a held load, the function that lets
		// the load go on.
		serve func(t *testing.T, dir string) (l *loop, release func())
	}{
		{"index loaded", func(t *testing.T, dir string) (*loop, func()) {
			l := serveLoop(t, dir, nil)
			l.ready(t)
			return l, nil
		}},
		{"index loading", func(t *testing.T, dir string) (*loop, func()) {
			l, h := serveHeld(t, dir)
			return l, func() { close(h.release) }
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := loadingDir(t)
			id := firstEvent(t, dir)
			l, release := tc.serve(t, dir)
			if release != nil {
				// The API cannot serve yet: this is what the command is for.
				if code, body := httpDo(t, "GET", l.base+eventsURL+"/"+utoa(id), ""); code != http.StatusServiceUnavailable {
					t.Fatalf("GET while loading: %d %s, want 503", code, body)
				}
			} else if got := searchJazz(t, l); len(got) != 3 {
				t.Fatalf("before: search lists %v, want 3 events", got)
			}

			// The server holds the store, so the command can only succeed through the socket.
			out, err := runCmd(t, dir, "trash", "--type", "event", "--id", utoa(id))
			if want := fmt.Sprintf("trashed event %d \"Jazz Night 0\"\n", id); err != nil || out != want {
				t.Fatalf("trash: %v %q, want %q", err, out, want)
			}
			if _, err := runCmd(t, dir, "trash", "--type", "event", "--id", utoa(id)); err == nil || !strings.Contains(err.Error(), "already in the trash") {
				t.Errorf("trash again: %v, want already in the trash", err)
			}
			if release != nil {
				release()
				l.ready(t)
			}
			l.waitApplied(t)

			got := searchJazz(t, l)
			if len(got) != 2 {
				t.Errorf("after: search lists %v, want the 2 others", got)
			}
			for _, e := range got {
				if e == float64(id) {
					t.Errorf("after: search still lists the trashed event %d", id)
				}
			}
			if code, body := httpDo(t, "GET", l.base+eventsURL+"/"+utoa(id), ""); code != http.StatusForbidden || !strings.Contains(string(body), "event-no-longer-available") {
				t.Errorf("GET the trashed event: %d %s", code, body)
			}
		})
	}
}

// TestHelpListsTrash: calendard help names the command.
func TestHelpListsTrash(t *testing.T) {
	out, err := runCmd(t, t.TempDir(), "help")
	if err != nil || !strings.Contains(out, "\n  trash ") || !strings.Contains(out, "--type event|venue|organizer --id N") {
		t.Errorf("help: %v\n%s", err, out)
	}
}

// TestTrashCommandIsLogged: the server's log line of a trash through the control socket names the
// record, which its output (never logged) would otherwise be the only trace of.
func TestTrashCommandIsLogged(t *testing.T) {
	dir, _ := loadingDir(t)
	id := firstEvent(t, dir)
	db := openDirStore(t, "serve", lookup(map[string]string{"CALENDAR_DATA_DIR": dir}))
	defer db.Close()
	core, logs := observer.New(zapcore.InfoLevel)
	a := &app{log: zap.New(core), db: db}
	client, conn := net.Pipe()
	defer client.Close()
	sent := make(chan error, 1)
	go func() {
		sent <- json.NewEncoder(client).Encode(controlRequest{Cmd: "trash", Args: adminArgs{Type: "event", ID: id}})
	}()
	if err := a.runControl(conn, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	entries := logs.FilterMessage("control command").All()
	if len(entries) != 1 {
		t.Fatalf("%d control command lines, want 1", len(entries))
	}
	got := entries[0].ContextMap()
	if got["cmd"] != "trash" || got["ok"] != true || got["type"] != "event" || got["id"] != id {
		t.Errorf("control command line %v, want cmd trash, ok, type event, id %d", got, id)
	}
}
