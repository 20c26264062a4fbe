package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/index"
)

// heldIndex holds every events search inside Events until release is closed, saying so on entered.
type heldIndex struct {
	Index
	entered chan struct{}
	release chan struct{}
}

func (x *heldIndex) Events(ctx context.Context, f *index.EventFilter) (index.Page, error) {
	x.entered <- struct{}{}
	<-x.release
	return x.Index.Events(ctx, f)
}

// Feeds are rendered feedRenders at a time: past them, a feed waits for a slot, for no longer than its
// deadline, and the other routes go on.
func TestFeedRendersWaitForASlot(t *testing.T) {
	hh := compressionHandler(t)
	held := &heldIndex{Index: hh.index, entered: make(chan struct{}, 16), release: make(chan struct{})}
	h := New(Deps{Config: hh.cfg, Store: hh.db, Index: held, Log: zap.NewNop()})
	get := func(ctx context.Context, target string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", target, nil).WithContext(ctx))
		return w.Code
	}
	codes := make(chan int, feedRenders())
	for i := range feedRenders() {
		go func() {
			codes <- get(context.Background(), "/calendar/events/v1/events.ics?search=concert&per_page="+utoa(uint64(10+i)))
		}()
		<-held.entered
	}
	// Every slot is taken: another feed waits, and gives up at its deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if code := get(ctx, "/calendar/events/v1/events.ics?search=blues"); code != http.StatusServiceUnavailable {
		t.Errorf("a feed past the slots: %d, want 503 at its deadline", code)
	}
	if len(held.entered) != 0 {
		t.Errorf("a feed past the slots reached the index")
	}
	if code, _ := probe(t, h, "GET", "/healthz"); code != 200 {
		t.Errorf("healthz while the feeds render: %d", code)
	}
	close(held.release)
	for range feedRenders() {
		if code := <-codes; code != 200 {
			t.Errorf("a feed rendered in its slot: %d", code)
		}
	}
	if code := get(context.Background(), "/calendar/events/v1/events.ics?search=blues"); code != 200 {
		t.Errorf("a feed once the slots are free: %d", code)
	}
}
