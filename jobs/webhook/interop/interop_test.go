//go:build interop

// Package interop checks calendard's webhook signatures with the npm standardwebhooks library under
// Node.js, an implementation independent of the Go library calendard signs with. It needs node and
// npm, so make test does not build it: make webhook-interop runs npm ci, then these tests.
package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calendard/calendard/jobs/webhook"
	"github.com/calendard/calendard/storage"
)

// nodeVerify runs verify.mjs on a delivery and returns its error, nil when node verified it.
func nodeVerify(t *testing.T, secret string, header http.Header, body []byte) error {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"secret": secret, "body": string(body), "headers": map[string]string{
		"webhook-id": header.Get("webhook-id"), "webhook-timestamp": header.Get("webhook-timestamp"),
		"webhook-signature": header.Get("webhook-signature")}})
	cmd := exec.Command("node", "verify.mjs")
	cmd.Stdin = bytes.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return &nodeError{err, stderr.String()}
	}
	return nil
}

type nodeError struct {
	err    error
	stderr string
}

func (e *nodeError) Error() string { return e.err.Error() + ": " + e.stderr }

// TestNodeVerifiesDeliveries: a delivery of a change and a test message, signed with one secret and
// then with a rotated pair, verify under node with every secret that signed them, and a tampered body
// does not.
func TestNodeVerifiesDeliveries(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type got struct {
		header http.Header
		body   []byte
	}
	deliveries := make(chan got, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		deliveries <- got{r.Header.Clone(), b}
	}))
	defer srv.Close()
	w, err := db.CreateWebhook(ctx, storage.Webhook{URL: srv.URL, AllowHTTP: true, AllowPrivate: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	d := webhook.New(db, webhook.Options{UserAgent: "calendard/interop"})
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error)
	go func() { ran <- d.Run(runCtx) }()
	defer func() { stop(); <-ran }()

	name := "Interop"
	if _, err := db.CreateTerm(ctx, storage.Actor{UserID: 1, Role: storage.RoleAdministrator}, storage.TaxTag, &storage.TermInput{Name: &name}); err != nil {
		t.Fatal(err)
	}
	changed := <-deliveries
	if _, err := d.Test(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	test := <-deliveries
	for _, g := range []got{changed, test} {
		if err := nodeVerify(t, w.Secret, g.header, g.body); err != nil {
			t.Errorf("node does not verify %s: %v", g.body, err)
		}
		if err := nodeVerify(t, w.Secret, g.header, append(bytes.Clone(g.body), ' ')); err == nil {
			t.Errorf("node verifies a tampered body")
		}
	}

	r, err := db.RotateWebhookSecret(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Test(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	rotated := <-deliveries
	for _, secret := range []string{w.Secret, r.Secret} {
		if err := nodeVerify(t, secret, rotated.header, rotated.body); err != nil {
			t.Errorf("after rotation, node does not verify with one of the two secrets: %v", err)
		}
	}
}
