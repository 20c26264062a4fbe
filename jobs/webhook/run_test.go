package webhook

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/calendard/calendard/storage"
)

// TestResyncAfterTrim: a subscription the change log was trimmed past (beyond the horizon) is told
// calendar.resync_required with the current cursor, verified with the library, then follows on.
func TestResyncAfterTrim(t *testing.T) {
	ctx := context.Background()
	db, w, _, deliveries := deliveryRig(t, storage.Webhook{Disabled: true}, Options{Window: time.Millisecond})
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
