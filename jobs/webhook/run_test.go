package webhook

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/calendard/calendard/storage"
)

// TestResyncAfterTrim: a subscription the change log was trimmed past (beyond the horizon) is told
// calendar.resync_required with the current cursor, verified with the library, then follows on.
func TestResyncAfterTrim(t *testing.T) {
	ctx := context.Background()
	db, w, _, deliveries := deliveryRig(t, storage.Webhook{Disabled: true}, Options{Window: time.Millisecond}, nil)
	wh, err := standardwebhooks.NewWebhook(w.Secret)
	if err != nil {
		t.Fatal(err)
	}
	addTag(t, db, "Missed")
	head, _ := db.ChangeHead(ctx)
	if _, err := db.TrimChanges(ctx, head); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateWebhook(ctx, w.ID, func(w *storage.Webhook) error { w.Disabled = false; return nil }); err != nil {
		t.Fatal(err)
	}

	var msg struct {
		Type string
		Data struct{ Since, Next string }
	}
	read := func() {
		t.Helper()
		d := <-deliveries
		if err := wh.Verify(d.body, d.header); err != nil || json.Unmarshal(d.body, &msg) != nil {
			t.Fatalf("delivery %s: %v", d.body, err)
		}
	}
	read()
	if msg.Type != TypeResyncRequired || msg.Data.Since != cursorString(w.Cursor) || msg.Data.Next != cursorString(head) {
		t.Fatalf("got %+v; want %s from %d up to %d", msg, TypeResyncRequired, w.Cursor, head)
	}
	addTag(t, db, "After")
	read()
	if msg.Type != TypeChanged || msg.Data.Since != cursorString(head) {
		t.Errorf("after the resync: %+v; want %s from %d", msg, TypeChanged, head)
	}
}

// staleCopy is a store whose reads of a subscription lag its writes, as a cluster node's copy may
// just after it is elected: its reads return the subscription as it was when created until a write
// goes through it, which returns once the copy has applied it and every commit before it.
type staleCopy struct {
	*storage.DB
	then   *storage.Webhook
	caught atomic.Bool
}

func (s *staleCopy) Webhook(ctx context.Context, id uint64) (*storage.Webhook, error) {
	if s.caught.Load() {
		return s.DB.Webhook(ctx, id)
	}
	return s.then, nil
}

func (s *staleCopy) UpdateWebhook(ctx context.Context, id uint64, fn func(*storage.Webhook) error) (*storage.Webhook, error) {
	defer s.caught.Store(true)
	return s.DB.UpdateWebhook(ctx, id, fn)
}

// TestStartsFromTheRecordedCursor: a follower starts from the cursor the store holds, not from what a
// lagging copy reads, so that it sends nothing again that was acknowledged.
func TestStartsFromTheRecordedCursor(t *testing.T) {
	ctx := context.Background()
	var stale staleCopy
	db, w, _, deliveries := deliveryRig(t, storage.Webhook{Disabled: true}, Options{Window: time.Millisecond},
		func(db *storage.DB) Store { stale.DB = db; return &stale })
	then := *w
	then.Disabled = false
	stale.then = &then
	addTag(t, db, "Acknowledged")
	head, _ := db.ChangeHead(ctx)
	// Delivered and recorded by the node that sent before.
	if _, err := db.UpdateWebhook(ctx, w.ID, func(w *storage.Webhook) error { w.Cursor, w.Disabled = head, false; return nil }); err != nil {
		t.Fatal(err)
	}
	addTag(t, db, "New")
	var msg struct{ Data struct{ Since string } }
	if d := <-deliveries; json.Unmarshal(d.body, &msg) != nil || msg.Data.Since != cursorString(head) {
		t.Errorf("first delivery %s; want it from the recorded cursor %d", d.body, head)
	}
}
