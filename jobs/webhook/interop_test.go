//go:build interop

// The webhooks' signatures checked with the npm standardwebhooks library under Node.js, an
// implementation independent of the Go library calendard signs with. It needs node and npm, so make
// test does not build it: make webhook-interop runs npm ci in interop/, then this test.

package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/calendard/calendard/storage"
)

// nodeVerify runs verify.mjs on a delivery and returns its error, nil when node verified it.
func nodeVerify(t *testing.T, secret string, header http.Header, body []byte) error {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"secret": secret, "body": string(body), "headers": map[string]string{
		"webhook-id": header.Get("webhook-id"), "webhook-timestamp": header.Get("webhook-timestamp"),
		"webhook-signature": header.Get("webhook-signature")}})
	cmd := exec.Command("node", "verify.mjs")
	cmd.Dir = "interop"
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
	db, w, d, deliveries := deliveryRig(t, storage.Webhook{}, Options{UserAgent: "calendard/interop"}, nil)
	addTag(t, db, "Interop")
	changed := <-deliveries
	if _, err := d.Test(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	test := <-deliveries
	for _, g := range []received{changed, test} {
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
