package webhook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
)

// received is one request a test receiver got.
type received struct {
	header http.Header
	body   []byte
}

// deliveryRig opens a bbolt store holding one subscription like w, to a loopback receiver that answers
// 200, and runs a Deliverer with opts on it (through wrap, when set) until the test ends. It returns
// the store, the subscription as stored, the Deliverer and the receiver's requests.
func deliveryRig(t *testing.T, w storage.Webhook, opts Options, wrap func(*storage.DB) Store) (*storage.DB, *storage.Webhook, *Deliverer, <-chan received) {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(t.TempDir(), "calendar.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	got := make(chan received, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), b}
	}))
	t.Cleanup(srv.Close)
	w.URL, w.AllowHTTP, w.AllowPrivate = srv.URL, true, true
	stored, err := db.CreateWebhook(ctx, w, "")
	if err != nil {
		t.Fatal(err)
	}
	opts.Logger = zaptest.NewLogger(t)
	var st Store = db
	if wrap != nil {
		st = wrap(db)
	}
	d := New(st, opts)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error)
	go func() { ran <- d.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-ran }) // registered last, so it runs first
	return db, stored, d, got
}

// addTag writes a tag: one change-log entry.
func addTag(t *testing.T, db *storage.DB, name string) {
	t.Helper()
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	if _, err := db.CreateTerm(context.Background(), admin, storage.TaxTag, &storage.TermInput{Name: &name}); err != nil {
		t.Fatal(err)
	}
}
