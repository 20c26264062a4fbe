package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/jobs/webhook"
	"github.com/calendard/calendard/storage"
)

// webhookEnv makes a failed delivery's retries quick and its timeout short, so that a test sees a
// schedule through in a second.
var webhookEnv = []string{"CALENDAR_WEBHOOK_RETRIES=50ms,50ms,50ms", "CALENDAR_WEBHOOK_TIMEOUT=500ms"}

// waitBound bounds every wait for a delivery: a test that reaches it has failed.
const waitBound = 60 * time.Second

// delivery is one request a receiver got, as it got it.
type delivery struct {
	header   http.Header
	body     webhookBody
	verified error
}

type webhookBody struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      struct {
		Since   string          `json:"since"`
		Next    string          `json:"next"`
		More    bool            `json:"more"`
		Changes []webhookChange `json:"changes"`
	} `json:"data"`
}

// receiver is a webhook receiver on loopback: it verifies each delivery with the Standard Webhooks
// library and answers it with answer (200 when nil), which gets the delivery's number from 0.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	got    chan delivery
	mu     sync.Mutex
	secret string
	n      int
	answer func(n int, w http.ResponseWriter, r *http.Request)
	// told holds every change of the deliveries next returned.
	told []webhookChange
}

// webhookChange is one change of a delivery.
type webhookChange struct {
	Type        string `json:"type"`
	ID          uint64 `json:"id"`
	Action      string `json:"action"`
	ModifiedUTC string `json:"modified_utc"`
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	rc := &receiver{t: t, got: make(chan delivery, 100), answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		rc.mu.Lock()
		n, secret := rc.n, rc.secret
		rc.n++
		rc.mu.Unlock()
		d := delivery{header: r.Header.Clone(), verified: err}
		if err == nil {
			var wh *standardwebhooks.Webhook
			if wh, d.verified = standardwebhooks.NewWebhook(secret); d.verified == nil { // no secret given yet
				d.verified = errors.Join(wh.Verify(raw, r.Header), json.Unmarshal(raw, &d.body))
			}
		}
		rc.got <- d
		if rc.answer != nil {
			rc.answer(n, w, r)
		}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) setSecret(s string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = s
}

// next returns the next delivery, checked: signed with the secret and carrying every header the
// issue names.
func (rc *receiver) next() delivery {
	rc.t.Helper()
	select {
	case d := <-rc.got:
		if d.verified != nil {
			rc.t.Fatalf("a delivery does not verify: %v", d.verified)
		}
		id := d.header.Get("webhook-id")
		if !strings.HasPrefix(id, "msg_") || strings.Contains(id, ".") || d.header.Get("Content-Type") != "application/json" ||
			!strings.HasPrefix(d.header.Get("User-Agent"), "calendard/") {
			rc.t.Fatalf("headers: %v", d.header)
		}
		rc.told = append(rc.told, d.body.Data.Changes...)
		return d
	case <-time.After(waitBound):
		rc.t.Fatal("no delivery")
	}
	return delivery{}
}

var createdWebhook = regexp.MustCompile(`created webhook (\d+)\nsecret: (whsec_\S+)`)

// subscribe runs `calendard webhook create` on dir for rc with the given flags and gives rc the
// secret it prints; it returns the webhook's ID.
func subscribe(t *testing.T, dir string, rc *receiver, flags ...string) uint64 {
	t.Helper()
	out, err := runCmd(t, dir, append([]string{"webhook", "create", "--url", rc.srv.URL, "--allow-http", "--allow-private"}, flags...)...)
	m := createdWebhook.FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("webhook create: %v %q", err, out)
	}
	rc.setSecret(m[2])
	id, _ := strconv.ParseUint(m[1], 10, 64)
	return id
}

// webhookServer serves a new data directory with webhookEnv and env, and subscribes a new receiver
// that answers with answer (see newReceiver) with the given flags of webhook create.
//
// Once the server has stopped, it fails the test if the log of its control socket or its deliveries
// holds a webhook secret.
func webhookServer(t *testing.T, answer func(int, http.ResponseWriter, *http.Request), env []string, flags ...string) (*loop, *receiver, uint64) {
	t.Helper()
	dir := t.TempDir()
	core, logs := observer.New(zapcore.DebugLevel)
	t.Cleanup(func() {
		for _, e := range logs.All() {
			if line := fmt.Sprint(e.Message, e.ContextMap()); strings.Contains(line, storage.WebhookSecretPrefix) {
				t.Errorf("a secret in the log: %s", line)
			}
		}
	})
	observe := func(a *app) {
		a.log = zap.New(zapcore.NewTee(a.log.Core(), core))
		a.webhooks = newDeliverer(a.cfg, a.db, a.log.Named("webhook"))
	}
	l := serveLoop(t, dir, observe, append(webhookEnv, env...)...)
	l.ready(t)
	rc := newReceiver(t, answer)
	return l, rc, subscribe(t, dir, rc, flags...)
}

// until reads deliveries until one carries event last, each starting where the one before ended
// (from since, when set), and returns the events seen with their actions and the last next.
func (rc *receiver) until(last uint64, since string) (seen map[uint64]string, next string) {
	rc.t.Helper()
	seen = map[uint64]string{}
	for seen[last] == "" {
		d := rc.next()
		if d.body.Type != webhook.TypeChanged || (since != "" && d.body.Data.Since != since) {
			rc.t.Fatalf("a delivery %s from %s after one up to %s: not in cursor order", d.body.Type, d.body.Data.Since, since)
		}
		since = d.body.Data.Next
		for id, action := range eventsIn(d) {
			seen[id] = action
		}
	}
	return seen, since
}

// postEvent creates an event through the API of the server at base and returns its ID.
func postEvent(t *testing.T, base string, fields map[string]any) uint64 {
	t.Helper()
	body, _ := json.Marshal(fields)
	status, got := httpDo(t, "POST", base+"/calendar/events/v1/events", string(body))
	var ev struct{ ID uint64 }
	if status != http.StatusCreated || json.Unmarshal(got, &ev) != nil {
		t.Fatalf("create event: %d %s", status, got)
	}
	return ev.ID
}

func event(title, status string) map[string]any {
	return map[string]any{"title": title, "status": status, "start_date": "2030-05-01 20:00:00", "end_date": "2030-05-01 22:00:00"}
}

// waitWebhook waits until the stored subscription satisfies ok, reading it again after each commit.
func waitWebhook(t *testing.T, db *storage.DB, id uint64, ok func(*storage.Webhook) bool) *storage.Webhook {
	t.Helper()
	changed, unsubscribe := db.Subscribe()
	defer unsubscribe()
	deadline := time.After(waitBound)
	for {
		w, err := db.Webhook(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if ok(w) {
			return w
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("webhook %d never reached the state: %+v", id, w)
		}
	}
}

// eventsIn lists the IDs of the events a delivery upserts.
func eventsIn(d delivery) map[uint64]string {
	out := map[uint64]string{}
	for _, c := range d.body.Data.Changes {
		if c.Type == "event" {
			out[c.ID] = c.Action
		}
	}
	return out
}

// TestWebhookDeliversRESTEdits: edits made through the API reach an anonymous subscription with
// their IDs, in order, signed, and with a next the change feed accepts; a draft never reaches it,
// while a subscription acting as the administrator gets it.
func TestWebhookDeliversRESTEdits(t *testing.T) {
	l, anon, _ := webhookServer(t, nil, nil)
	admin := newReceiver(t, nil)
	subscribe(t, l.app.cfg.DataDir, admin, "--as", "admin", "--types", "event")

	published := postEvent(t, l.base, event("Open rehearsal", "publish"))
	draft := postEvent(t, l.base, event("Secret plans", "draft"))
	last := postEvent(t, l.base, event("Closing night", "publish"))

	seen, next := anon.until(last, "")
	if seen[published] != "upsert" || seen[draft] != "" {
		t.Errorf("anonymous subscription saw %v; want %d upserted and the draft %d never", seen, published, draft)
	}
	status, body := httpDo(t, "GET", l.base+"/calendar/events/v1/changes?since="+next, "")
	if status != http.StatusOK || !strings.Contains(string(body), `"changes":[]`) {
		t.Errorf("the feed from the last next %s: %d %s; want 200 and nothing new", next, status, body)
	}
	if adminSeen, _ := admin.until(last, ""); adminSeen[draft] != "upsert" {
		t.Errorf("the administrator's subscription saw %v; want the draft %d", adminSeen, draft)
	}
}

// TestWebhookRetriesUnderOneID: a receiver that answers 500, then times out, then 200 gets the same
// delivery three times under one webhook-id, and the change committed meanwhile in the next one.
func TestWebhookRetriesUnderOneID(t *testing.T) {
	l, rc, id := webhookServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 0:
			w.WriteHeader(http.StatusInternalServerError)
		case 1:
			<-r.Context().Done() // past the delivery timeout
		}
	}, nil)
	first := postEvent(t, l.base, event("First", "publish"))
	d := rc.next()
	meanwhile := postEvent(t, l.base, event("Meanwhile", "publish"))
	for range 2 {
		again := rc.next()
		if again.header.Get("webhook-id") != d.header.Get("webhook-id") || again.body.Data.Next != d.body.Data.Next {
			t.Fatalf("a retry is %s up to %s; want %s up to %s", again.header.Get("webhook-id"), again.body.Data.Next,
				d.header.Get("webhook-id"), d.body.Data.Next)
		}
	}
	if eventsIn(d)[first] != "upsert" {
		t.Fatalf("the first delivery has %v, want event %d", eventsIn(d), first)
	}
	rc.until(meanwhile, d.body.Data.Next)

	// The metrics count the three outcomes, time every attempt, and show the backlog once delivered.
	head, err := l.app.db.ChangeHead(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waitWebhook(t, l.app.db, id, func(w *storage.Webhook) bool { return w.Cursor == head })
	m := scrape(t, l.base+"/metrics")
	for _, outcome := range []string{webhook.OutcomeSuccess, webhook.OutcomeHTTPError, webhook.OutcomeNetworkError} {
		if v, ok := m.value("calendard_webhook_deliveries_total", "outcome", outcome); !ok || v < 1 {
			t.Errorf("deliveries with outcome %s: %v %v; want at least 1", outcome, v, ok)
		}
	}
	if v, _ := m.value("calendard_webhook_delivery_seconds"); v < 4 {
		t.Errorf("delivery latency counted %v attempts, want at least 4", v)
	}
	if v, ok := m.value("calendard_webhook_backlog_entries", "webhook", utoa(id)); !ok || v != 0 {
		t.Errorf("backlog once delivered: %v %v; want 0", v, ok)
	}
	if v, ok := m.value("calendard_webhook_enabled", "webhook", utoa(id)); !ok || v != 1 {
		t.Errorf("enabled: %v %v; want 1", v, ok)
	}
}

// TestWebhookGoneDisables: a 410 disables the subscription at once.
func TestWebhookGoneDisables(t *testing.T) {
	l, rc, id := webhookServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) }, nil)
	postEvent(t, l.base, event("Gone", "publish"))
	rc.next()
	w := waitWebhook(t, l.app.db, id, func(w *storage.Webhook) bool { return w.Disabled })
	if !strings.Contains(w.Reason, "410") || w.Failures != 0 {
		t.Errorf("disabled with %q after %d failures; want the 410 at once", w.Reason, w.Failures)
	}
	if out, err := runCmd(t, l.app.cfg.DataDir, "webhook", "list"); err != nil || !strings.Contains(out, "disabled: the receiver answered 410") {
		t.Errorf("webhook list: %v %q", err, out)
	}
}

// TestWebhookRetryAfter: a 503 with Retry-After waits that long, not the schedule's 50 ms; the
// retries exhausted disable the subscription.
func TestWebhookRetryAfter(t *testing.T) {
	l, rc, id := webhookServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			w.Header().Set("Retry-After", "2")
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}, nil)
	postEvent(t, l.base, event("Busy", "publish"))
	first := rc.next()
	w := waitWebhook(t, l.app.db, id, func(w *storage.Webhook) bool { return w.Failures == 1 })
	sent, _ := strconv.ParseInt(first.header.Get("webhook-timestamp"), 10, 64)
	if w.RetryAt.Before(time.Unix(sent, 0).Add(time.Second)) {
		t.Errorf("retry at %s after an attempt at %d; want Retry-After's 2 s later", w.RetryAt, sent)
	}
	second := rc.next()
	if at, _ := strconv.ParseInt(second.header.Get("webhook-timestamp"), 10, 64); at < sent+1 {
		t.Errorf("the retry left at %d, the attempt at %d: Retry-After not honoured", at, sent)
	}
	// Without Retry-After, the schedule (three retries) runs out, and the subscription is disabled.
	w = waitWebhook(t, l.app.db, id, func(w *storage.Webhook) bool { return w.Disabled })
	if w.Failures != 4 || !strings.Contains(w.Reason, "4 attempts failed") {
		t.Errorf("disabled after %d failures: %q", w.Failures, w.Reason)
	}
}

// TestWebhookPrivateAddress: a receiver on loopback is refused without --allow-private when the
// subscription is created, and at delivery time too (a host that resolves elsewhere later).
func TestWebhookPrivateAddress(t *testing.T) {
	dir := t.TempDir()
	l := serveLoop(t, dir, nil, webhookEnv...)
	l.ready(t)
	rc := newReceiver(t, nil)
	for _, url := range []string{rc.srv.URL, strings.Replace(rc.srv.URL, "127.0.0.1", "localhost", 1)} {
		if out, err := runCmd(t, dir, "webhook", "create", "--url", url, "--allow-http"); err == nil || !strings.Contains(err.Error(), "private") {
			t.Errorf("create for %s without --allow-private: %v %q; want refused", url, err, out)
		}
	}
	// Stored as if the name had resolved to a public address then.
	w, err := l.app.db.CreateWebhook(context.Background(), storage.Webhook{URL: rc.srv.URL, AllowHTTP: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	postEvent(t, l.base, event("Rebound", "publish"))
	waitWebhook(t, l.app.db, w.ID, func(w *storage.Webhook) bool { return w.Failures > 0 })
	if n := l.app.webhooks.Stats().Attempts[webhook.OutcomeNetworkError]; n == 0 {
		t.Errorf("network errors counted: %d", n)
	}
	select {
	case d := <-rc.got:
		t.Errorf("a receiver on a private address got a delivery: %v", d.header)
	default:
	}
}

// TestWebhookCommands: the operator commands without a server, on the store itself, and their errors.
func TestWebhookCommands(t *testing.T) {
	dir := t.TempDir()
	keepOnFile(t, dir)
	rc := newReceiver(t, nil)
	id := subscribe(t, dir, rc, "--types", "event,venue", "--lang", "fr")
	for _, tc := range []struct {
		args    []string
		wantOut string
		wantErr string
	}{
		{[]string{"webhook", "list"}, "event,venue", ""},
		{[]string{"webhook", "test", utoa(id)}, "answered 200", ""},
		{[]string{"webhook", "disable", utoa(id)}, "disabled webhook", ""},
		{[]string{"webhook", "list"}, "disabled: disabled by an operator", ""},
		{[]string{"webhook", "enable", utoa(id), "--data-dir", dir}, "enabled webhook", ""},
		{[]string{"webhook", "disable", utoa(id), "2"}, "", "needs the webhook's ID"},
		{[]string{"webhook", "list", "3"}, "", "takes no argument"},
		{[]string{"webhook", "create"}, "", "needs --url"},
		{[]string{"webhook", "rotate-secret", utoa(id)}, "secret: whsec_", ""},
		{[]string{"webhook", "disable"}, "", "needs the webhook's ID"},
		{[]string{"webhook", "disable", "x"}, "", "not a webhook ID"},
		{[]string{"webhook", "enable", "99"}, "", "not found"},
		{[]string{"webhook", "create", "--url", "ftp://example.org/"}, "", "https://"},
		{[]string{"webhook", "create", "--url", "http://example.org/"}, "", "--allow-http"},
		{[]string{"webhook", "create", "--url", "https://u:p@example.org/"}, "", "credentials"},
		{[]string{"webhook", "create", "--url", rc.srv.URL, "--allow-http", "--allow-private", "--types", "events"}, "", "events"},
		{[]string{"webhook", "create", "--url", rc.srv.URL, "--allow-http", "--allow-private", "--lang", "xx"}, "", "xx"},
		{[]string{"webhook", "create", "--url", rc.srv.URL, "--allow-http", "--allow-private", "--as", "nobody"}, "", "not found"},
		{[]string{"webhook", "delete", utoa(id)}, "deleted webhook", ""},
		{[]string{"webhook", "list"}, "ID", ""},
	} {
		out, err := runCmd(t, dir, tc.args...)
		switch {
		case tc.wantErr == "" && (err != nil || !strings.Contains(out, tc.wantOut)):
			t.Errorf("%v: %v %q; want %q", tc.args, err, out, tc.wantOut)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: %v; want an error with %q", tc.args, err, tc.wantErr)
		}
	}
	if d := rc.next(); d.body.Type != webhook.TypeTest {
		t.Errorf("webhook test sent %q", d.body.Type)
	}
}

// TestWebhookRotatedSecret: after rotate-secret a delivery carries two signatures, and a receiver
// holding either secret verifies it.
func TestWebhookRotatedSecret(t *testing.T) {
	l, rc, id := webhookServer(t, nil, nil)
	out, err := runCmd(t, l.app.cfg.DataDir, "webhook", "rotate-secret", utoa(id))
	m := regexp.MustCompile(`secret: (whsec_\S+)`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("rotate-secret: %v %q", err, out)
	}
	postEvent(t, l.base, event("Rotated", "publish"))
	d := rc.next() // verified with the old secret
	if sigs := strings.Fields(d.header.Get("webhook-signature")); len(sigs) != 2 {
		t.Fatalf("signatures %q; want the new and the old", sigs)
	}
	rc.setSecret(m[1])
	postEvent(t, l.base, event("Rotated again", "publish"))
	rc.next() // verified with the new one
}

// TestWebhookSurvivesKill: a server killed with SIGKILL while a delivery is in flight delivers it
// after the restart, under the same webhook-id.
func TestWebhookSurvivesKill(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	keepOnFile(t, dir)
	hold := make(chan struct{})
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 0 {
			select { // the first delivery hangs until the process is gone
			case <-r.Context().Done():
			case <-hold:
			}
		}
	})
	subscribe(t, dir, rc)
	p := startBinary(t, bin, dir)
	status, body, err := p.request("POST", "/calendar/events/v1/events", event("Killed", "publish"))
	if err != nil || status != http.StatusCreated {
		t.Fatalf("create: %d %s %v", status, body, err)
	}
	var ev struct{ ID uint64 }
	_ = json.Unmarshal(body, &ev)
	first := rc.next()
	p.kill()
	close(hold)
	startBinary(t, bin, dir)
	again := rc.next()
	if again.header.Get("webhook-id") != first.header.Get("webhook-id") || eventsIn(again)[ev.ID] != "upsert" {
		t.Errorf("after the restart: %s with %v; want %s with event %d", again.header.Get("webhook-id"), eventsIn(again),
			first.header.Get("webhook-id"), ev.ID)
	}
}

// TestWebhookMoreFollowsAtOnce: a backlog of more than 100 documents goes in deliveries of 100 at
// most, each but the last with more, each from the previous one's next.
func TestWebhookMoreFollowsAtOnce(t *testing.T) {
	l, rc, id := webhookServer(t, nil, nil)
	dir := l.app.cfg.DataDir
	if _, err := runCmd(t, dir, "webhook", "disable", utoa(id)); err != nil {
		t.Fatal(err)
	}
	var want []uint64
	for i := range webhook.MaxChanges + 5 {
		want = append(want, postEvent(t, l.base, event("Backlog "+strconv.Itoa(i), "publish")))
	}
	if _, err := runCmd(t, dir, "webhook", "enable", utoa(id)); err != nil {
		t.Fatal(err)
	}
	first := rc.next()
	if n := len(first.body.Data.Changes); n != webhook.MaxChanges || !first.body.Data.More {
		t.Fatalf("first delivery: %d changes, more %v; want %d and more", n, first.body.Data.More, webhook.MaxChanges)
	}
	got, _ := rc.until(want[len(want)-1], first.body.Data.Next)
	maps.Copy(got, eventsIn(first))
	for _, id := range want {
		if got[id] == "" {
			t.Errorf("event %d never delivered", id)
		}
	}
}

// TestWebhookResyncRequired: a subscription whose cursor the log no longer holds (here, a store
// restored from a backup older than the cursor; a trim past it is jobs/webhook's TestResyncAfterTrim)
// gets calendar.resync_required with the current cursor, and goes on from there.
func TestWebhookResyncRequired(t *testing.T) {
	l, rc, id := webhookServer(t, nil, nil)
	dir := l.app.cfg.DataDir
	if _, err := runCmd(t, dir, "webhook", "disable", utoa(id)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	head, err := l.app.db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.app.db.UpdateWebhook(ctx, id, func(w *storage.Webhook) error { w.Cursor = head + 1000; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, dir, "webhook", "enable", utoa(id)); err != nil {
		t.Fatal(err)
	}
	d := rc.next()
	if d.body.Type != webhook.TypeResyncRequired || d.body.Data.Next != utoa(head) || len(d.body.Data.Changes) != 0 {
		t.Fatalf("a cursor ahead of the log: %s up to %s with %d changes; want %s up to %d", d.body.Type, d.body.Data.Next,
			len(d.body.Data.Changes), webhook.TypeResyncRequired, head)
	}
	after := postEvent(t, l.base, event("After", "publish"))
	if n := rc.next(); n.body.Data.Since != utoa(head) || eventsIn(n)[after] != "upsert" {
		t.Errorf("after the resync: from %s with %v; want from %d with event %d", n.body.Data.Since, eventsIn(n), head, after)
	}
}

// TestWebhookOneSenderInACluster: of two nodes on one cluster, one sends the deliveries, whichever
// node the writes go through; when it stops, the other takes over from the last acknowledged one.
func TestWebhookOneSenderInACluster(t *testing.T) {
	cluster := append(clusterEnv(t), webhookEnv...)
	nodes := []*server{startServer(t, cluster...), startServer(t, cluster...)}
	stops := make([]func(), len(nodes))
	for i, n := range nodes {
		stops[i] = n.app.startWebhooks(context.Background())
		t.Cleanup(func() { stops[i]() })
	}
	rc := newReceiver(t, nil)
	w, err := nodes[0].app.db.CreateWebhook(context.Background(), storage.Webhook{URL: rc.srv.URL, AllowHTTP: true, AllowPrivate: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	rc.setSecret(w.Secret)
	attempts := func(n *server) uint64 {
		var sum uint64
		for _, v := range n.app.webhooks.Stats().Attempts {
			sum += v
		}
		return sum
	}

	since := ""
	for i, n := range nodes {
		id := n.create("/calendar/events/v1/events", event("Written on node "+strconv.Itoa(i), "publish"))
		_, since = rc.until(id, since)
	}
	sender := slices.IndexFunc(nodes, func(n *server) bool { return attempts(n) > 0 })
	if sender < 0 || attempts(nodes[1-sender]) != 0 {
		t.Fatalf("attempts per node: %d, %d; want every one from one node", attempts(nodes[0]), attempts(nodes[1]))
	}
	// Once the sender has recorded the last delivery: one cut short by the stop would come again.
	waitWebhook(t, nodes[sender].app.db, w.ID, func(w *storage.Webhook) bool { return utoa(w.Cursor) == since })
	stops[sender]() // resigns
	stops[sender] = func() {}
	other := nodes[1-sender]
	id := other.create("/calendar/events/v1/events", event("After the sender stopped", "publish"))
	_, next := rc.until(id, since)
	waitWebhook(t, other.app.db, w.ID, func(w *storage.Webhook) bool { return utoa(w.Cursor) == next })
	if attempts(other) == 0 {
		t.Error("the delivery after the sender stopped did not come from the other node")
	}
}

// TestWebhookRedirectIsAFailure: a 3xx is the answer, and a failure: the redirect is not followed.
func TestWebhookRedirectIsAFailure(t *testing.T) {
	elsewhere := newReceiver(t, nil)
	l, rc, id := webhookServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.srv.URL, http.StatusTemporaryRedirect)
	}, nil)
	postEvent(t, l.base, event("Moved", "publish"))
	rc.next()
	waitWebhook(t, l.app.db, id, func(w *storage.Webhook) bool { return w.Failures > 0 })
	if st := l.app.webhooks.Stats(); st.Attempts[webhook.OutcomeHTTPError] == 0 || st.Attempts[webhook.OutcomeNetworkError] != 0 {
		t.Errorf("attempts %v; want only HTTP errors: the redirect, answered", st.Attempts)
	}
	select {
	case d := <-elsewhere.got:
		t.Errorf("the redirect was followed: %v", d.header)
	default:
	}
}

// TestWebhookTypesAndLanguages: --types and --lang narrow what a subscription is told.
func TestWebhookTypesAndLanguages(t *testing.T) {
	l, rc, _ := webhookServer(t, nil, nil, "--types", "event", "--lang", "fr")
	english := postEvent(t, l.base, event("Concert", "publish"))
	if status, body := httpDo(t, "POST", l.base+"/calendar/events/v1/tags", `{"name":"live"}`); status != http.StatusCreated {
		t.Fatalf("create tag: %d %s", status, body)
	}
	body, _ := json.Marshal(event("Concert en français", "publish"))
	status, got := httpDo(t, "POST", l.base+"/fr/calendar/events/v1/events", string(body))
	var french struct{ ID uint64 }
	if status != http.StatusCreated || json.Unmarshal(got, &french) != nil {
		t.Fatalf("create French event: %d %s", status, got)
	}
	rc.until(french.ID, "")
	for _, c := range rc.told {
		if c.Type != "event" || c.ID == english {
			t.Errorf("a French event subscription was told of %s %d", c.Type, c.ID)
		}
	}
}

// TestWebhookTestOutwaitsTheControlSocket: `webhook test` through a running server waits for a slow
// receiver as long as a delivery would (--webhook-timeout), past the control socket's bound for
// quick commands.
func TestWebhookTestOutwaitsTheControlSocket(t *testing.T) {
	t.Parallel()
	l, rc, id := webhookServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		time.Sleep(controlTimeout + time.Second)
		w.WriteHeader(http.StatusNoContent)
	}, []string{"CALENDAR_WEBHOOK_TIMEOUT=30s"})
	out, err := runCmd(t, l.app.cfg.DataDir, "webhook", "test", utoa(id))
	if err != nil || !strings.Contains(out, "204") {
		t.Fatalf("webhook test: %v %q", err, out)
	}
	if d := rc.next(); d.body.Type != webhook.TypeTest {
		t.Errorf("webhook test sent %q", d.body.Type)
	}
}

func TestCommandTimeout(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want time.Duration
	}{
		{"backup", backupTimeout},
		{"webhook test", controlTimeout + 15*time.Second},
		{"webhook list", controlTimeout},
		{"user create", controlTimeout},
	} {
		if got := commandTimeout(tc.cmd, 15*time.Second); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.cmd, got, tc.want)
		}
	}
}
