package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// TestFeedCap: a feed holds the first 5000 events of the list's order, and X-TEC-Total says how many
// matched; a series cut there ends there.
func TestFeedCap(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	const n = 5003
	writes := make([]func(*storage.Bulk) error, n)
	for i := range n {
		// Descending starts, so the list's order is not the order of the IDs.
		start, err := datetime.Parse(time.Date(2027, 1, 1, 3*(n-i), 0, 0, 0, time.UTC).Format(datetime.DB))
		if err != nil {
			t.Fatal(err)
		}
		title := fmt.Sprint("Event ", i)
		writes[i] = func(b *storage.Bulk) error {
			_, err := b.CreateEvent("en", &storage.EventInput{PostInput: storage.PostInput{Title: &title}, Start: &start, End: &start})
			return err
		}
	}
	// In cluster mode, in as many transactions as etcd's limits take.
	if err := (&bulkWriter{db: s.app.db, a: admin}).write(ctx, writes); err != nil {
		t.Fatal(err)
	}
	s.settle()
	res, cal := s.feedOf(t, feedPath+"?end_date=2040-01-01", "")
	if got := res.header.Get("X-TEC-Total"); got != strconv.Itoa(n) {
		t.Errorf("X-TEC-Total %q, want %d", got, n)
	}
	ids := feedIDs(t, cal)
	if len(ids) != 5000 {
		t.Fatalf("%d events, want 5000", len(ids))
	}
	// The 5000th event of the list is the last of the feed.
	page := s.do(req{method: "GET", path: eventsPath + "?end_date=2040-01-01&per_page=100&page=50"}).json(t)
	items := listItemsOf(page, "events")
	if got, want := ids[len(ids)-1], uint64(items[len(items)-1]["id"].(float64)); got != want {
		t.Errorf("the feed ends with event %d, the list's 5000th is %d", got, want)
	}

	// A weekly series without an end among them ends at its last occurrence within the 5000.
	s.create(eventsURL, map[string]any{"title": "Weekly Class", "start_date": "2027-01-04 10:00:00", "end_date": "2027-01-04 11:00:00",
		"recurrence": []string{"RRULE:FREQ=WEEKLY"}})
	s.settle()
	cal = s.checkFeedExpandsToList(t, "end_date=2040-01-01", "")
	var rules []string
	for _, ev := range cal.Events() {
		if p := ev.GetProperty(ics.ComponentPropertyRrule); p != nil {
			rules = append(rules, p.Value)
		}
	}
	if len(rules) != 1 || !strings.HasPrefix(rules[0], "FREQ=WEEKLY;UNTIL=2028") {
		t.Errorf("RRULEs %q, want one ending in 2028, where the feed does", rules)
	}
}

// TestFeedsPerClient: a client with CALENDAR_FEEDS_PER_CLIENT feed answers in flight (here two
// connections that read them slowly) has its next feeds wait, handlers.FeedQueue of them, and one
// more refused with 429 rest_too_many_requests and Retry-After, while other clients, behind the
// trusted proxy or not, get theirs; once the answers in flight are written, the waiting ones are
// answered whole. The feed is larger than the kernel's socket buffers, so that an answer whose client
// reads nothing stays in flight.
func TestFeedsPerClient(t *testing.T) {
	s := startServer(t, "CALENDAR_FEEDS_PER_CLIENT=2", "CALENDAR_TRUSTED_PROXIES=127.0.0.1/32")
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	description := strings.Repeat("A long evening of jazz standards. ", 64_000/34)
	writes := make([]func(*storage.Bulk) error, 160) // a feed of 10 MB
	for i := range writes {
		title := fmt.Sprint("Long night ", i)
		start, err := datetime.Parse(time.Date(2027, 1, 1+i%28, 20, 0, 0, 0, time.UTC).Format(datetime.DB))
		if err != nil {
			t.Fatal(err)
		}
		writes[i] = func(b *storage.Bulk) error {
			_, err := b.CreateEvent("en", &storage.EventInput{PostInput: storage.PostInput{Title: &title, Description: &description}, Start: &start, End: &start})
			return err
		}
	}
	// Ten at a time, 640 KB a transaction: within etcd's request limit in cluster mode, so that the
	// write is not split and retried (the 10 MB feed is what the test needs, not a large transaction).
	for part := range slices.Chunk(writes, 10) {
		if err := (&bulkWriter{db: s.app.db, a: admin}).write(context.Background(), part); err != nil {
			t.Fatal(err)
		}
	}
	s.settle()
	const path = feedPath + "?end_date=2027-12-31"
	const client = "203.0.113.7"
	first := s.do(req{method: "GET", path: path, header: map[string]string{"X-Forwarded-For": "198.51.100.1"}})
	if first.status != http.StatusOK || len(first.body) < 8<<20 {
		t.Fatalf("the feed: %d, %d bytes, want 200 and more than the socket buffers hold", first.status, len(first.body))
	}

	// stalled asks for the feed as client on a connection of its own that receives into a buffer of a
	// few kilobytes, and reads the status line only: the server then writes the answer until the
	// kernel's buffers are full, and waits, holding one of the client's places.
	stalled := func() (net.Conn, *bufio.Reader) {
		t.Helper()
		d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
			var err error
			if cerr := c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
				return cerr
			}
			return err
		}}
		conn, err := d.Dial("tcp", s.ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		br := bufio.NewReaderSize(conn, 512)
		return conn, br
	}
	ask := func(conn net.Conn, br *bufio.Reader) {
		t.Helper()
		if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: cal.test\r\nX-Forwarded-For: %s\r\n\r\n", path, client); err != nil {
			t.Fatal(err)
		}
		if line, err := br.ReadString('\n'); err != nil || line != "HTTP/1.1 200 OK\r\n" {
			t.Fatalf("status line %q (%v), want 200", line, err)
		}
	}
	// drain reads the rest of the answer whose status line was read.
	drain := func(br *bufio.Reader) []byte {
		t.Helper()
		res, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader("HTTP/1.1 200 OK\r\n"), br)), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	connA, brA := stalled()
	ask(connA, brA)
	connB, brB := stalled()
	ask(connB, brB)

	// The client's next requests: FeedQueue of them wait, the one more is refused at once.
	queued := make(chan *response, handlers.FeedQueue+1)
	for range handlers.FeedQueue + 1 {
		go func() {
			queued <- s.do(req{method: "GET", path: path, header: map[string]string{"X-Forwarded-For": client}})
		}()
	}
	refused := <-queued
	if env := refused.json(t); refused.status != http.StatusTooManyRequests || env["code"] != "rest_too_many_requests" || refused.header.Get("Retry-After") != "1" {
		t.Errorf("the client past its queue: %d, code %v, Retry-After %q; want 429, rest_too_many_requests and 1", refused.status, env["code"], refused.header.Get("Retry-After"))
	}

	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"another client behind the proxy", map[string]string{"X-Forwarded-For": "198.51.100.2"}, http.StatusOK},
		{"the proxy's own address", nil, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(req{method: "GET", path: path, header: tc.header})
			if res.status != tc.want {
				t.Fatalf("%d, want %d", res.status, tc.want)
			}
			if tc.want == http.StatusOK {
				if !bytes.Equal(res.body, first.body) {
					t.Errorf("a body of %d bytes, not the feed's %d", len(res.body), len(first.body))
				}
				return
			}
			if env := res.json(t); env["code"] != "rest_too_many_requests" || res.header.Get("Retry-After") != "1" {
				t.Errorf("code %v, Retry-After %q; want rest_too_many_requests and 1", env["code"], res.header.Get("Retry-After"))
			}
		})
	}

	// Once the stalled answers are written, the waiting requests take their places in turn.
	for _, br := range []*bufio.Reader{brA, brB} {
		if body := drain(br); !bytes.Equal(body, first.body) {
			t.Fatalf("a stalled answer: %d bytes, not the feed's %d", len(body), len(first.body))
		}
	}
	for range handlers.FeedQueue {
		if res := <-queued; res.status != http.StatusOK || !bytes.Equal(res.body, first.body) {
			t.Fatalf("a waiting request: %d, %d bytes; want 200 and the feed", res.status, len(res.body))
		}
	}
}
