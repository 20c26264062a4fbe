package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// failingStore is the real store with some methods failing, set through func fields: a fake in front
// of one method reaches failures a closed store cannot (that one fails every lookup before the write).
type failingStore struct {
	Store
	updateEvent       func() error
	authenticateBasic func() error
}

func (s *failingStore) UpdateEvent(ctx context.Context, a storage.Actor, id uint64, in *storage.EventInput) (*storage.Event, error) {
	if s.updateEvent != nil {
		// As the store reports a failed operation (storage.Error).
		return nil, &storage.Error{Op: storage.OpUpdate, Resource: storage.DocEvent, ID: id, Err: s.updateEvent()}
	}
	return s.Store.UpdateEvent(ctx, a, id, in)
}

func (s *failingStore) AuthenticateBasic(ctx context.Context, name, password string) (*storage.User, error) {
	if s.authenticateBasic != nil {
		return nil, s.authenticateBasic()
	}
	return s.Store.AuthenticateBasic(ctx, name, password)
}

func TestStoreFailures(t *testing.T) {
	disk := errors.New("input/output error on /var/lib/calendard/calendar.db")
	for _, tc := range []struct {
		name       string
		fail       func(*failingStore)
		method     string
		wantStatus int
		wantCode   string
		// wantRetryAfter is the Retry-After header, "" for none.
		wantRetryAfter string
	}{
		{"an update the store cannot write", func(s *failingStore) { s.updateEvent = func() error { return disk } },
			"POST", 500, "could-not-update-event", ""},
		{"credentials the store cannot check", func(s *failingStore) { s.authenticateBasic = func() error { return disk } },
			"GET", 500, "rest_internal_error", ""},
		{"an update out of time", func(s *failingStore) { s.updateEvent = func() error { return context.DeadlineExceeded } },
			"POST", 503, "rest_timeout", ""},
		{"an update on a full disk", func(s *failingStore) {
			s.updateEvent = func() error { return fmt.Errorf("%w: write calendar.db: %w", storage.ErrNoSpace, syscall.ENOSPC) }
		}, "POST", 507, "rest_insufficient_storage", ""},
		{"an update with the store's cluster out of reach", func(s *failingStore) {
			s.updateEvent = func() error { return fmt.Errorf("%w: context deadline exceeded", storage.ErrUnavailable) }
		}, "POST", 503, "rest_store_unavailable", "5"},
		{"an update larger than the store's transactions", func(s *failingStore) {
			s.updateEvent = func() error { return fmt.Errorf("%w: 159 operations", storage.ErrTooLarge) }
		}, "POST", 400, "rest_write_too_large", ""},
		{"credentials with the store's cluster out of reach", func(s *failingStore) {
			s.authenticateBasic = func() error { return fmt.Errorf("%w: no leader", storage.ErrUnavailable) }
		}, "GET", 503, "rest_store_unavailable", "5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, db := newTestHandler(t, Config{})
			hh := base.(*Handler)
			created := serve(base, "POST", "/calendar/events/v1/events", "application/json",
				`{"title":"Concert","start_date":"2030-05-01 20:00","end_date":"2030-05-01 22:00"}`)
			var e struct{ ID uint64 }
			if err := json.Unmarshal(created.Body.Bytes(), &e); err != nil || created.Code != http.StatusCreated {
				t.Fatalf("create: %d %s", created.Code, created.Body)
			}
			fake := &failingStore{Store: db}
			tc.fail(fake)
			h := New(Deps{Config: hh.cfg, Store: fake, Index: hh.index, Log: zap.NewNop()})
			w := serve(h, tc.method, "/calendar/events/v1/events/"+utoa(e.ID), "application/json", `{"title":"Jazz"}`)
			checkEnvelope(t, w)
			if got := w.Header().Get("Retry-After"); got != tc.wantRetryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.wantRetryAfter)
			}
			if w.Code != tc.wantStatus || !strings.Contains(w.Body.String(), `"`+tc.wantCode+`"`) {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantCode)
			}
			if strings.Contains(w.Body.String(), "calendar.db") {
				t.Errorf("the internal error reached the client: %s", w.Body)
			}
		})
	}
}
