package webhook

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// Message types, the `type` of a delivery's body.
const (
	TypeChanged        = "calendar.changed"
	TypeResyncRequired = "calendar.resync_required"
	TypeTest           = "calendar.test"
)

// feedPage is how many log entries one read of the feed takes.
const feedPage = 1000

// maxAnswer bounds what is read of a receiver's answer, which is then dropped: reading it lets the
// connection serve the next delivery.
const maxAnswer = 64 << 10

// body is a delivery's JSON: Standard Webhooks' {type, timestamp, data}.
type body struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      any    `json:"data"`
}

// changes is the data of a calendar.changed or calendar.resync_required delivery: the cursor it
// starts from, the one that resumes the feed after it, whether more follow, and what changed.
type changes struct {
	Since   string   `json:"since"`
	Next    string   `json:"next"`
	More    bool     `json:"more"`
	Changes []change `json:"changes"`
}

// change is one document of a delivery: what GET {ns}/changes answers, without the record.
type change struct {
	Type        string `json:"type"`
	ID          uint64 `json:"id"`
	Action      string `json:"action"`
	ModifiedUTC string `json:"modified_utc,omitempty"`
}

// outgoing is a delivery ready to send.
type outgoing struct {
	id   string
	body []byte
}

func newOutgoing(id, typ string, now time.Time, data any) (*outgoing, error) {
	b, err := json.Marshal(body{Type: typ, Timestamp: now.UTC().Format(time.RFC3339), Data: data})
	if err != nil {
		return nil, err
	}
	return &outgoing{id: id, body: b}, nil
}

func cursorString(c uint64) string { return strconv.FormatUint(c, 10) }

// nextMessage builds the subscription's next delivery and returns the cursor after it; no message
// when the log after the cursor holds nothing the subscription is told of (then next may still move
// past changes it does not follow).
func (d *Deliverer) nextMessage(ctx context.Context, w *storage.Webhook) (*outgoing, uint64, error) {
	now := d.opts.Now()
	head, err := d.db.ChangeHead(ctx)
	if err != nil {
		return nil, 0, err
	}
	var docs []index.FeedDoc
	var next uint64
	var more bool
	if w.Cursor > head {
		err = storage.ErrCompacted // a store restored from a backup older than the cursor
	} else {
		docs, next, more, err = index.ChangedDocs(ctx, d.db, index.FeedRange{Since: w.Cursor, UpTo: w.Pending, Page: feedPage}, MaxChanges)
	}
	if errors.Is(err, storage.ErrCompacted) {
		next = cmp.Or(w.Pending, head)
		msg, err := newOutgoing(messageID(w.ID, w.Cursor), TypeResyncRequired, now,
			changes{Since: cursorString(w.Cursor), Next: cursorString(next), Changes: []change{}})
		return msg, next, err
	}
	if err != nil || len(docs) == 0 {
		return nil, w.Cursor, err
	}
	wanted := docs[:0:0]
	for _, doc := range docs {
		if w.Wants(doc.Doc.Kind) {
			wanted = append(wanted, doc)
		}
	}
	rd := index.FeedReader{Langs: w.Langs, Now: d.db.Now()}
	if w.UserID != 0 {
		u, err := d.db.User(ctx, w.UserID)
		if err != nil {
			return nil, 0, fmt.Errorf("webhook %d: its user: %w", w.ID, err)
		}
		rd.Actor = storage.Actor{UserID: u.ID, Role: u.Role}
	}
	feed, err := rd.Changes(ctx, d.db, wanted)
	if err != nil || len(feed) == 0 {
		return nil, next, err
	}
	out := changes{Since: cursorString(w.Cursor), Next: cursorString(next), More: more || next < head}
	for _, c := range feed {
		ch := change{Type: c.Doc.Kind.String(), ID: c.Doc.ID, Action: "upsert"}
		if c.Delete {
			ch.Action = "delete"
		} else if p := c.Post(); p != nil {
			ch.ModifiedUTC = p.Modified.UTC().Format(datetime.DB)
		}
		out.Changes = append(out.Changes, ch)
	}
	msg, err := newOutgoing(messageID(w.ID, w.Cursor), TypeChanged, now, out)
	return msg, next, err
}

// result is the outcome of one attempt.
type result struct {
	status     int
	err        error
	retryAfter time.Duration
	latency    time.Duration
}

func (r result) ok() bool { return r.err == nil && r.status >= 200 && r.status < 300 }

func (r result) String() string {
	if r.err != nil {
		return r.err.Error()
	}
	return "HTTP " + strconv.Itoa(r.status)
}

// outcome is the metrics' name of the result.
func (r result) outcome() string {
	switch {
	case r.ok():
		return OutcomeSuccess
	case r.err != nil:
		return OutcomeNetworkError
	}
	return OutcomeHTTPError
}

// send makes one attempt at delivering msg to the subscription's receiver.
func (d *Deliverer) send(ctx context.Context, w *storage.Webhook, msg *outgoing) result {
	now := d.opts.Now()
	var sigs []string
	// The overlap of a rotation is on the store's clock, which stamped it.
	for _, secret := range w.Signs(d.db.Now()) {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			return result{err: fmt.Errorf("webhook %d: its secret: %w", w.ID, err)}
		}
		sig, err := wh.Sign(msg.id, now, msg.body)
		if err != nil {
			return result{err: fmt.Errorf("webhook %d: sign: %w", w.ID, err)}
		}
		sigs = append(sigs, sig)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(msg.body))
	if err != nil {
		return result{err: err}
	}
	req.Header.Set("webhook-id", msg.id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", strings.Join(sigs, " "))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", d.opts.UserAgent)
	client := d.public
	if w.AllowPrivate {
		client = d.private
	}
	start := time.Now()
	resp, err := client.Do(req)
	res := result{latency: time.Since(start), err: err}
	if err != nil {
		return res
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	res.status = resp.StatusCode
	if res.status == http.StatusTooManyRequests || res.status == http.StatusServiceUnavailable {
		res.retryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
	}
	return res
}

// retryAfter reads a Retry-After header, seconds or an HTTP date; zero when absent or malformed.
func retryAfter(v string, now time.Time) time.Duration {
	if s, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32); err == nil {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Test sends a calendar.test message to the subscription's receiver, signed as deliveries are, and
// returns the receiver's status. It changes nothing of the subscription. Returns storage.ErrNotFound
// for an unknown subscription.
func (d *Deliverer) Test(ctx context.Context, id uint64) (int, error) {
	w, err := d.db.Webhook(ctx, id)
	if err != nil {
		return 0, err
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	msg, err := newOutgoing("msg_test_"+hex.EncodeToString(nonce[:]), TypeTest, d.opts.Now(), struct{}{})
	if err != nil {
		return 0, err
	}
	res := d.send(ctx, w, msg)
	if res.err != nil {
		return 0, res.err
	}
	return res.status, nil
}
