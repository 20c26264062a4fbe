package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// termsFailingStore is the real store whose Terms fails with err while err is set: the category and
// tag lists, the one box's last kinds, read the terms through it.
type termsFailingStore struct {
	Store
	err error
}

func (s *termsFailingStore) Terms(ctx context.Context, tax storage.Taxonomy) ([]*storage.Term, error) {
	if s.err != nil {
		return nil, s.err
	}
	return s.Store.Terms(ctx, tax)
}

// TestSearchAllListFailures: a list that fails makes the one box fail with that list's error, in the
// error envelope (its internal message kept from the client), and the failure is not cached: once the
// store answers again, so does the one box.
func TestSearchAllListFailures(t *testing.T) {
	disk := errors.New("input/output error on /var/lib/calendard/calendar.db")
	for _, tc := range []struct {
		name           string
		err            error
		wantStatus     int
		wantCode       string
		wantRetryAfter string
	}{
		{"a store that cannot read", disk, 500, "rest_internal_error", ""},
		{"a store whose cluster is out of reach", fmt.Errorf("%w: no leader", storage.ErrUnavailable), 503, "rest_store_unavailable", "5"},
		{"a request out of time", context.DeadlineExceeded, 503, "rest_timeout", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, db := newTestHandler(t, Config{})
			writeSynced(t, base.(*Handler), "POST", "/calendar/events/v1/events",
				`{"title":"Jazz night","start_date":"2027-05-01 20:00","end_date":"2027-05-01 22:00","categories":"Jazz"}`)
			fake := &termsFailingStore{Store: db, err: tc.err}
			h := New(Deps{Config: base.(*Handler).cfg, Store: fake, Index: base.(*Handler).index, Log: zap.NewNop()})
			w := serve(h, "GET", "/calendar/events/v1/search?search=jazz", "", "")
			checkEnvelope(t, w)
			if w.Code != tc.wantStatus || !strings.Contains(w.Body.String(), `"`+tc.wantCode+`"`) || w.Header().Get("Retry-After") != tc.wantRetryAfter {
				t.Errorf("got %d %s, Retry-After %q; want %d %s, %q", w.Code, w.Body, w.Header().Get("Retry-After"), tc.wantStatus, tc.wantCode, tc.wantRetryAfter)
			}
			if strings.Contains(w.Body.String(), "calendar.db") || w.Header().Get("ETag") != "" {
				t.Errorf("the internal error or an ETag reached the client: %s %v", w.Body, w.Header())
			}
			fake.err = nil
			if w := serve(h, "GET", "/calendar/events/v1/search?search=jazz", "", ""); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Jazz night") {
				t.Errorf("once the store answers: %d %s", w.Code, w.Body)
			}
		})
	}
}
