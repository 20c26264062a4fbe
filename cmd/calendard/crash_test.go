package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
)

// Sizes of the crash test: it stays well under 25 seconds, also with the race detector.
const (
	crashRounds  = 3
	crashWriters = 4
	// The kill comes at a random moment between crashKillMin and crashKillMin+crashKillSpan of load.
	crashKillMin  = 100 * time.Millisecond
	crashKillSpan = 500 * time.Millisecond
	crashStartMax = 15 * time.Second
)

// TestCrashSafety runs the real binary under a concurrent write load, kills it with SIGKILL at a
// random moment, restarts it on the same data directory and checks, several times over, that every
// acknowledged write is there, that no write is half applied, and that the lists agree with the store.
func TestCrashSafety(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	// The binary's store is the file, whose acknowledged writes must survive SIGKILL.
	keepOnFile(t, dir)
	acked := map[uint64]string{} // id → title of every event created with a 201
	p := startBinary(t, bin, dir)
	for round := range crashRounds {
		after := crashKillMin + rand.N(crashKillSpan)
		t.Logf("round %d: SIGKILL after %s of load", round+1, after)
		got := p.writeLoad(t, round, after)
		t.Logf("round %d: %d writes acknowledged", round+1, len(got))
		for id, title := range got {
			acked[id] = title
		}
		stored := checkStore(t, dir, acked)
		p = startBinary(t, bin, dir)
		p.checkLists(t, stored, acked)
	}
}

// buildBinary builds calendard into a temporary directory (buildArgs) and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "calendard")
	if out, err := exec.Command("go", buildArgs(bin)...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// buildArgs builds the binary as this test binary was built: under -race the packages are already
// compiled that way, so only the link remains, and the server's own code runs under the race detector.
func buildArgs(bin string) []string {
	args := []string{"build", "-o", bin}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append(args, "-race")
			}
		}
	}
	return append(args, ".")
}

// crashTitle is the title of the n-th write of a writer in a round; its last word is unique, so that a
// search for the title finds this event among the others.
func crashTitle(round, writer, n int) string {
	return fmt.Sprintf("Crash test r%dw%dn%d", round, writer, n)
}

// crashTag is the unique word of a title, which names the event's venue and organizer.
func crashTag(title string) string { return title[strings.LastIndexByte(title, ' ')+1:] }

// proc is one running calendard process.
type proc struct {
	cmd    *exec.Cmd
	base   string
	client *http.Client
	done   chan struct{} // closed once the process has exited and its log is read
	mu     sync.Mutex
	log    bytes.Buffer
}

// startBinary starts bin serve on dir at a free loopback port and returns once it serves. The process
// is killed at the end of the test at the latest.
func startBinary(t *testing.T, bin, dir string) *proc {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &proc{
		cmd:    exec.Command(bin, "serve"),
		base:   "http://" + addr,
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: crashWriters}},
		done:   make(chan struct{}),
	}
	// Only what the test chooses: no CALENDAR_* setting of the environment leaks in.
	p.cmd.Env = []string{
		"CALENDAR_DATA_DIR=" + dir,
		"CALENDAR_LISTEN_ADDR=" + addr,
		"CALENDAR_ADMIN_APP_PASSWORD=" + adminPass,
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.kill()
		p.client.CloseIdleConnections()
		if t.Failed() {
			p.mu.Lock()
			t.Logf("log of the server on %s:\n%s", addr, p.log.String())
			p.mu.Unlock()
		}
	})
	ready := make(chan struct{})
	go func(ready chan struct{}) {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.log.Write(sc.Bytes())
			p.log.WriteByte('\n')
			p.mu.Unlock()
			// serve logs "serving" once its index is loaded and it answers the API.
			if ready != nil && strings.Contains(sc.Text(), `"msg":"serving"`) {
				close(ready)
				ready = nil
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		_ = p.cmd.Wait()
	}(ready)
	select {
	case <-ready:
		return p
	case <-p.done:
		t.Fatalf("calendard exited before serving:\n%s", p.log.String())
	case <-time.After(crashStartMax):
		t.Fatalf("calendard did not serve within %s", crashStartMax)
	}
	return nil
}

// kill sends SIGKILL and waits for the process to be gone; it is harmless on an ended process.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

func (p *proc) request(method, path string, body any) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(data)
	}
	hr, err := http.NewRequest(method, p.base+path, r)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(adminAuth)))
	res, err := p.client.Do(hr)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res.StatusCode, data, err
}

// writeLoad creates events from crashWriters goroutines until the process is killed after the given
// time, and returns the acknowledged ones (201 received) by ID.
func (p *proc) writeLoad(t *testing.T, round int, after time.Duration) map[uint64]string {
	t.Helper()
	start := time.Now().AddDate(0, 2, 0).Format("2006-01-02") + " 20:00"
	end := time.Now().AddDate(0, 2, 0).Format("2006-01-02") + " 22:00"
	var (
		mu    sync.Mutex
		acked = map[uint64]string{}
		wg    sync.WaitGroup
		errs  = make(chan error, crashWriters)
		first = make(chan struct{})
	)
	for w := range crashWriters {
		wg.Go(func() {
			for n := 0; ; n++ {
				title := crashTitle(round, w, n)
				tag := crashTag(title)
				status, body, err := p.request("POST", eventsPath, map[string]any{
					"title": title, "start_date": start, "end_date": end, "timezone": "Europe/Paris",
					"venue":      map[string]any{"venue": "Hall " + tag, "city": "Lyon"},
					"organizer":  []map[string]any{{"organizer": "Org " + tag}},
					"categories": "Crash", "tags": "Load",
				})
				if err != nil {
					return // the process is gone: this write is not acknowledged
				}
				if status != http.StatusCreated {
					errs <- fmt.Errorf("POST %q: status %d\n%s", title, status, body)
					return
				}
				var ev struct {
					ID uint64 `json:"id"`
				}
				if err := json.Unmarshal(body, &ev); err != nil || ev.ID == 0 {
					errs <- fmt.Errorf("POST %q: no id (%v)\n%s", title, err, body)
					return
				}
				mu.Lock()
				acked[ev.ID] = title
				if len(acked) == 1 {
					close(first)
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(after) // the kill must land at an arbitrary moment of the load
	// On a busy machine the first write may take longer; a round without any acknowledged write
	// would check nothing.
	select {
	case <-first:
	case <-time.After(crashStartMax):
		t.Errorf("no write acknowledged within %s", crashStartMax)
	}
	p.kill()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return acked
}

// checkStore opens the store of the killed process directly: every acknowledged event must be there
// with its title, and every event must be whole (venue, organizer, category and tag). It returns the
// stored events by ID.
func checkStore(t *testing.T, dir string, acked map[uint64]string) map[uint64]*storage.Event {
	t.Helper()
	db := openDirStore(t, "check", func(k string) string { return map[string]string{"CALENDAR_DATA_DIR": dir}[k] })
	defer db.Close()
	stored := map[uint64]*storage.Event{}
	for after := uint64(0); ; {
		page, err := db.Scan(context.Background(), storage.TypeEvent, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Events) == 0 {
			break
		}
		for _, e := range page.Events {
			stored[e.ID] = e
			if e.VenueID == 0 || len(e.OrganizerIDs) != 1 || len(e.Categories) != 1 || len(e.Tags) != 1 {
				t.Errorf("event %d %q is half applied: venue %d organizers %v categories %v tags %v",
					e.ID, e.Title, e.VenueID, e.OrganizerIDs, e.Categories, e.Tags)
			}
		}
		after = page.Events[len(page.Events)-1].ID
	}
	for id, title := range acked {
		if e, ok := stored[id]; !ok || e.Title != title {
			t.Errorf("acknowledged event %d %q is lost after the kill", id, title)
		}
	}
	return stored
}

// listedEvent is the part of a listed or fetched event the test checks.
type listedEvent struct {
	ID    uint64 `json:"id"`
	Title string `json:"title"`
	Venue struct {
		Venue string `json:"venue"`
	} `json:"venue"`
	Organizer []struct {
		Organizer string `json:"organizer"`
	} `json:"organizer"`
	Categories []struct {
		Name string `json:"name"`
	} `json:"categories"`
	Tags []struct {
		Name string `json:"name"`
	} `json:"tags"`
}

// whole reports what is missing from an event of the load, or "".
func (e *listedEvent) whole() string {
	tag := crashTag(e.Title)
	switch {
	case e.Venue.Venue != "Hall "+tag:
		return fmt.Sprintf("venue %q", e.Venue.Venue)
	case len(e.Organizer) != 1 || e.Organizer[0].Organizer != "Org "+tag:
		return fmt.Sprintf("organizer %v", e.Organizer)
	case len(e.Categories) != 1 || e.Categories[0].Name != "Crash":
		return fmt.Sprintf("categories %v", e.Categories)
	case len(e.Tags) != 1 || e.Tags[0].Name != "Load":
		return fmt.Sprintf("tags %v", e.Tags)
	}
	return ""
}

// checkLists checks the restarted server against the store: the event list holds exactly the stored
// events, each of them whole; every acknowledged event is served by ID and found by a search for its
// title.
func (p *proc) checkLists(t *testing.T, stored map[uint64]*storage.Event, acked map[uint64]string) {
	t.Helper()
	var listed []uint64
	for page := 1; ; page++ {
		status, body, err := p.request("GET", fmt.Sprintf("%s?per_page=100&page=%d", eventsPath, page), nil)
		if err != nil {
			t.Fatal(err)
		}
		if status == http.StatusNotFound && page > 1 {
			break // past the last page
		}
		var l struct {
			Total  int           `json:"total"`
			Events []listedEvent `json:"events"`
		}
		if status != http.StatusOK || json.Unmarshal(body, &l) != nil {
			t.Fatalf("list page %d: status %d\n%s", page, status, body)
		}
		if l.Total != len(stored) {
			t.Errorf("list total %d, the store holds %d events", l.Total, len(stored))
		}
		for _, e := range l.Events {
			listed = append(listed, e.ID)
			if missing := e.whole(); missing != "" {
				t.Errorf("listed event %d %q is half applied: %s", e.ID, e.Title, missing)
			}
		}
		if len(l.Events) < 100 {
			break
		}
	}
	slices.Sort(listed)
	var want []uint64
	for id := range stored {
		want = append(want, id)
	}
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("listed IDs differ from the stored ones: %d listed, %d stored", len(listed), len(want))
	}

	// By ID and by search, from a few goroutines: a round can acknowledge hundreds of writes.
	ids := make(chan uint64)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for id := range ids {
				if err := p.checkAcked(id, acked[id]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for id := range acked {
		ids <- id
	}
	close(ids)
	wg.Wait()
}

func (p *proc) checkAcked(id uint64, title string) error {
	status, body, err := p.request("GET", eventsPath+"/"+utoa(id), nil)
	if err != nil {
		return err
	}
	var e listedEvent
	if status != http.StatusOK || json.Unmarshal(body, &e) != nil || e.Title != title {
		return fmt.Errorf("GET acknowledged event %d %q: status %d\n%s", id, title, status, body)
	}
	if missing := e.whole(); missing != "" {
		return fmt.Errorf("acknowledged event %d %q is half applied: %s", id, title, missing)
	}
	q := url.Values{"search": {title}, "include": {utoa(id)}}
	status, body, err = p.request("GET", eventsPath+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	var l struct {
		Total int `json:"total"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &l) != nil || l.Total != 1 {
		return fmt.Errorf("search for acknowledged event %d %q: status %d\n%s", id, title, status, body)
	}
	return nil
}
