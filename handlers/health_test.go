package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

func probe(t *testing.T, h http.Handler, method, path string) (int, map[string]any) {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(method, path, nil)
	r.Header.Set("Authorization", "Basic bm9ib2R5Ondyb25n") // bad credentials do not matter to a probe
	h.ServeHTTP(w, r)
	var body map[string]any
	if method != http.MethodHead {
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s %s: %d %v\n%s", method, path, w.Code, err, w.Body)
		}
	}
	return w.Code, body
}

func TestHealthAndReadiness(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	if code, body := probe(t, h, "GET", "/healthz"); code != 200 || body["status"] != "ok" {
		t.Errorf("healthz: %d %v", code, body)
	}
	if code, _ := probe(t, h, "HEAD", "/healthz"); code != 200 {
		t.Errorf("HEAD healthz: %d", code)
	}
	if code, body := probe(t, h, "GET", "/readyz"); code != 200 || body["status"] != "ready" {
		t.Fatalf("readyz on a fresh store: %d %v", code, body)
	}
	// No syncer runs in this handler: after a write the index stays behind the change log.
	if w := serve(h, "POST", "/calendar/events/v1/categories", "application/json", `{"name":"Music"}`); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	code, body := probe(t, h, "GET", "/readyz")
	if code != 503 || body["status"] != "catching up" || body["behind"].(float64) < 1 {
		t.Fatalf("readyz with the index behind: %d %v", code, body)
	}
	if code, _ := probe(t, h, "HEAD", "/readyz"); code != 503 {
		t.Errorf("HEAD readyz behind: %d", code)
	}
	if code, _ := probe(t, h, "GET", "/healthz"); code != 200 {
		t.Errorf("healthz while catching up: %d", code)
	}
	if _, err := indexOf(h.(*Handler)).SyncOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code, body := probe(t, h, "GET", "/readyz"); code != 200 || body["status"] != "ready" {
		t.Errorf("readyz after the index caught up: %d %v", code, body)
	}
	// Only GET and HEAD; other methods and prefixed paths are no route.
	for _, c := range []struct{ method, path string }{{"POST", "/healthz"}, {"GET", "/en/healthz"}, {"GET", "/calendar/events/v1/healthz"}} {
		w := serve(h, c.method, c.path, "", "")
		if w.Code != 404 || !strings.Contains(w.Body.String(), "rest_no_route") {
			t.Errorf("%s %s: %d %s", c.method, c.path, w.Code, w.Body)
		}
	}
	// The namespace index does not list the probes.
	if w := serve(h, "GET", "/calendar/events/v1", "", ""); strings.Contains(w.Body.String(), "healthz") || strings.Contains(w.Body.String(), "readyz") {
		t.Error("the namespace index lists a probe")
	}
}

// overStore is a test handler whose store is wrap's wrapper of the test store.
func overStore(t *testing.T, wrap func(Store) Store) http.Handler {
	base, db := newTestHandler(t, Config{})
	hh := base.(*Handler)
	return New(Deps{Config: hh.cfg, Store: wrap(db), Index: hh.index, Log: zap.NewNop()})
}

// fullStore is the store of a disk that filled up, until space is set.
type fullStore struct {
	Store
	space bool
}

func (s *fullStore) Full() bool { return !s.space }

func (s *fullStore) CheckSpace(context.Context) error {
	if !s.space {
		return fmt.Errorf("%w: write calendar.db: %w", storage.ErrNoSpace, syscall.ENOSPC)
	}
	return nil
}

// TestReadinessOnAFullDisk: a node that cannot write leaves the rotation with the reason, and comes
// back by itself once space is freed, with no client write needed to find out.
func TestReadinessOnAFullDisk(t *testing.T) {
	store := &fullStore{}
	h := overStore(t, func(db Store) Store { store.Store = db; return store })
	if code, body := probe(t, h, "GET", "/readyz"); code != 503 || body["status"] != "disk full" {
		t.Errorf("readyz on a full disk: %d %v", code, body)
	}
	if code, _ := probe(t, h, "GET", "/healthz"); code != 200 {
		t.Errorf("healthz on a full disk: %d: the process is alive", code)
	}
	store.space = true
	if code, body := probe(t, h, "GET", "/readyz"); code != 200 || body["status"] != "ready" {
		t.Errorf("readyz once space is back: %d %v", code, body)
	}
}

// silentCluster is the store of a node whose cluster does not answer: the change-log head it is
// asked for waits for the caller's context to end, as a read of an etcd cluster without a quorum
// does, and fails with the context's error. One asked without a deadline fails at once, and says so.
type silentCluster struct {
	Store
	// within is how long the caller allowed, as the context's deadline said when asked.
	within time.Duration
}

func (s *silentCluster) PrimaryChangeHead(ctx context.Context) (uint64, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return 0, errors.New("asked without a deadline")
	}
	s.within = time.Until(deadline)
	<-ctx.Done()
	return 0, ctx.Err()
}

// TestReadinessWithTheClusterSilent: a node whose cluster does not answer reports its stale reads
// within a second (Kubernetes' default probe timeout) rather than waiting for the cluster: it asks
// the store with a deadline of its own, and a deadline that passes means out of reach.
func TestReadinessWithTheClusterSilent(t *testing.T) {
	store := &silentCluster{}
	h := overStore(t, func(db Store) Store { store.Store = db; return store })
	if code, body := probe(t, h, "GET", "/readyz"); code != 200 || body["status"] != "stale" {
		t.Errorf("readyz with the cluster silent: %d %v, want 200 stale", code, body)
	}
	if store.within <= 0 || store.within > time.Second {
		t.Errorf("readyz gave the store %v to answer, want at most a second", store.within)
	}
}
