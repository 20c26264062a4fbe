package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// TestMinRevision: every answer carries X-Calendar-Revision; a request naming a revision the server
// has applied is answered; one naming a later revision is held until the index applies it, or answers
// 503 rest_revision_pending with Retry-After once the wait is over; a malformed one is 400.
func TestMinRevision(t *testing.T) {
	ctx := context.Background()
	h, db := newTestHandler(t, Config{RevisionWait: 50 * time.Millisecond})
	hh := h.(*Handler)
	if _, err := indexOf(hh).SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	create := serve(h, "POST", "/calendar/events/v1/events", "application/json",
		`{"title":"Jazz","start_date":"2027-01-05 19:00","end_date":"2027-01-05 21:00"}`)
	if create.Code != http.StatusCreated || create.Header().Get(revisionHeader) == "" {
		t.Fatalf("create: %d, revision %q", create.Code, create.Header().Get(revisionHeader))
	}
	head, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	applied := indexOf(hh).Applied()
	if applied >= head {
		t.Fatalf("the test handler's index applied %d of %d before any sync: the test needs it behind", applied, head)
	}
	ask := func(min string) (int, http.Header) {
		t.Helper()
		r := httptest.NewRequest("GET", "/calendar/events/v1/events", nil)
		r.Header.Set(minRevisionHeader, min)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		checkEnvelope(t, w)
		return w.Code, w.Header()
	}
	want := strconv.FormatUint(head, 10)
	if code, hd := ask(want); code != http.StatusServiceUnavailable || hd.Get("Retry-After") != "1" {
		t.Errorf("a revision not applied: %d, Retry-After %q", code, hd.Get("Retry-After"))
	}
	if code, _ := ask("not a number"); code != http.StatusBadRequest {
		t.Errorf("a malformed revision: %d", code)
	}
	// Applied while the request waits: it is answered.
	hh.cfg.RevisionWait = 10 * time.Second
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = indexOf(hh).SyncOnce(ctx)
	}()
	code, hd := ask(want)
	if code != http.StatusOK {
		t.Fatalf("a revision applied during the wait: %d", code)
	}
	if got, _ := strconv.ParseUint(hd.Get(revisionHeader), 10, 64); got < head {
		t.Errorf("X-Calendar-Revision %d after applying %d", got, head)
	}
	if code, _ := ask(strconv.FormatUint(applied, 10)); code != http.StatusOK {
		t.Errorf("a revision applied long ago: %d", code)
	}
}

// TestRevisionsValue: the header's value follows the applied revision, and is formatted once per
// revision: answers stamped with the same revision share it.
func TestRevisionsValue(t *testing.T) {
	var applied uint64
	r := &revisions{applied: func() uint64 { return applied }}
	for _, tc := range []struct {
		applied uint64
		want    string
		shared  bool // the same slice as the previous value
	}{
		{applied: 0, want: "0"},
		{applied: 0, want: "0", shared: true},
		{applied: 17, want: "17"},
		{applied: 17, want: "17", shared: true},
		{applied: 1 << 40, want: "1099511627776"},
	} {
		prev := r.last.Load()
		applied = tc.applied
		got := r.value()
		if len(got) != 1 || got[0] != tc.want {
			t.Fatalf("applied %d: %q, want %q", tc.applied, got, tc.want)
		}
		if shared := prev != nil && &prev.value[0] == &got[0]; shared != tc.shared {
			t.Errorf("applied %d: shared %v, want %v", tc.applied, shared, tc.shared)
		}
	}
}
