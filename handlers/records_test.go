package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// countingStore counts the single-record lookups made through it.
type countingStore struct {
	Store
	lookups int
}

func (s *countingStore) Event(ctx context.Context, id uint64) (*storage.Event, *storage.Related, error) {
	s.lookups++
	return s.Store.Event(ctx, id)
}

func (s *countingStore) EventBySlug(ctx context.Context, lang storage.Lang, slug string) (*storage.Event, *storage.Related, error) {
	s.lookups++
	return s.Store.EventBySlug(ctx, lang, slug)
}

func (s *countingStore) Venue(ctx context.Context, id uint64) (*storage.Venue, *storage.Related, error) {
	s.lookups++
	return s.Store.Venue(ctx, id)
}

func (s *countingStore) Organizer(ctx context.Context, id uint64) (*storage.Organizer, *storage.Related, error) {
	s.lookups++
	return s.Store.Organizer(ctx, id)
}

// TestOneLookupPerWrite: a write looks its record up once, for the permission check of its Allow
// header and for its own, and reads it once more after writing, for the answer.
func TestOneLookupPerWrite(t *testing.T) {
	base, db := newTestHandler(t, Config{})
	hh := base.(*Handler)
	created := map[string]uint64{}
	for route, body := range map[string]string{
		"events":     `{"title":"Concert","slug":"concert","start_date":"2030-05-01 20:00","end_date":"2030-05-01 22:00"}`,
		"venues":     `{"venue":"Hall"}`,
		"organizers": `{"organizer":"Org"}`,
	} {
		w := serve(base, "POST", "/calendar/events/v1/"+route, "application/json", body)
		var rec struct{ ID uint64 }
		if err := json.Unmarshal(w.Body.Bytes(), &rec); err != nil || w.Code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", route, w.Code, w.Body)
		}
		created[route] = rec.ID
	}
	for _, tc := range []struct {
		name, method, path, body string
	}{
		{"event update by ID", "PUT", "/calendar/events/v1/events/" + utoa(created["events"]), `{"title":"Jazz"}`},
		{"event update by slug", "PATCH", "/calendar/events/v1/events/by-slug/concert", `{"title":"Jazz night"}`},
		{"venue update", "POST", "/calendar/events/v1/venues/" + utoa(created["venues"]), `{"venue":"Big Hall"}`},
		{"organizer update", "PUT", "/calendar/events/v1/organizers/" + utoa(created["organizers"]), `{"organizer":"Org B"}`},
		{"event trash", "DELETE", "/calendar/events/v1/events/" + utoa(created["events"]), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &countingStore{Store: db}
			h := New(Deps{Config: hh.cfg, Store: store, Index: hh.index, Log: zap.NewNop()})
			if w := serve(h, tc.method, tc.path, "application/json", tc.body); w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if store.lookups != 2 {
				t.Errorf("%d lookups, want 2: one before the write, one for the answer", store.lookups)
			}
		})
	}
}
