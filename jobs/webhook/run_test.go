package webhook

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
)

// TestResyncAfterTrim: a subscription the change log was trimmed past (beyond the horizon) is told
// calendar.resync_required with the current cursor, verified with the library, then follows on.
func TestResyncAfterTrim(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type got struct {
		body []byte
		err  error
	}
	deliveries := make(chan got, 10)
	var secret string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err == nil {
			wh, _ := standardwebhooks.NewWebhook(secret)
			err = wh.Verify(b, r.Header)
		}
		deliveries <- got{b, err}
	}))
	defer srv.Close()
	w, err := db.CreateWebhook(ctx, storage.Webhook{URL: srv.URL, AllowHTTP: true, AllowPrivate: true, Disabled: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	secret = w.Secret
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	name := "Missed"
	if _, err := db.CreateTerm(ctx, admin, storage.TaxTag, &storage.TermInput{Name: &name}); err != nil {
		t.Fatal(err)
	}
	head, _ := db.ChangeHead(ctx)
	if _, err := db.TrimChanges(ctx, head); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateWebhook(ctx, w.ID, func(w *storage.Webhook) error { w.Disabled = false; return nil }); err != nil {
		t.Fatal(err)
	}

	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error)
	go func() { ran <- New(db, Options{Logger: zaptest.NewLogger(t), Window: time.Millisecond}).Run(runCtx) }()
	defer func() { stop(); <-ran }()

	var msg struct {
		Type string
		Data struct{ Since, Next string }
	}
	d := <-deliveries
	if d.err != nil || json.Unmarshal(d.body, &msg) != nil {
		t.Fatalf("delivery %s: %v", d.body, d.err)
	}
	if msg.Type != TypeResyncRequired || msg.Data.Since != cursorString(w.Cursor) || msg.Data.Next != cursorString(head) {
		t.Fatalf("got %s; want %s from %d up to %d", d.body, TypeResyncRequired, w.Cursor, head)
	}
	name = "After"
	if _, err := db.CreateTerm(ctx, admin, storage.TaxTag, &storage.TermInput{Name: &name}); err != nil {
		t.Fatal(err)
	}
	d = <-deliveries
	if d.err != nil || json.Unmarshal(d.body, &msg) != nil || msg.Type != TypeChanged || msg.Data.Since != cursorString(head) {
		t.Errorf("after the resync: %s, %v; want %s from %d", d.body, d.err, TypeChanged, head)
	}
}
