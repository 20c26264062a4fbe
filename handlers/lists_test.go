package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestListParamLookupFails covers every list parameter whose check reads the store: when the read
// fails, the answer is the failure's own envelope, not a 400 blaming the parameter, and no internal
// text reaches the client. An internal failure is logged once; a request out of time, or whose client
// went away, is not an error of the service.
func TestListParamLookupFails(t *testing.T) {
	targets := []string{
		"events?categories=jazz", "events?tags=1", "events?venue=1", "events?organizer=1", "events?post_parent=1",
		"venues?event=1", "organizers?event=1",
		"categories?include=1", "categories?exclude=1", "categories?parent=1", "categories?post=1",
		"tags?event=1",
	}
	modes := []struct {
		name       string
		cfg        Config
		closeStore bool
		// cancelled sends each request with its context already cancelled: the client went away.
		cancelled bool
		wantCode  int
		wantBody  string
		wantLogs  int
	}{
		{
			name:       "store closed",
			closeStore: true,
			wantCode:   http.StatusInternalServerError,
			wantBody:   `{"code":"rest_internal_error","message":"An internal error occurred.","data":{"status":500}}`,
			wantLogs:   1,
		},
		{
			name:     "deadline passed",
			cfg:      Config{HandlerTimeout: time.Nanosecond},
			wantCode: http.StatusServiceUnavailable,
			wantBody: `{"code":"rest_timeout","message":"The request took too long to process.","data":{"status":503}}`,
		},
		{
			name:      "request cancelled",
			cancelled: true,
			wantCode:  http.StatusServiceUnavailable,
			wantBody:  `{"code":"rest_timeout","message":"The request took too long to process.","data":{"status":503}}`,
		},
	}
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.InfoLevel)
			h, db := newLoggedHandler(t, m.cfg, func() time.Time { return now }, zap.New(core))
			if m.closeStore {
				db.Close()
			}
			for _, target := range targets {
				t.Run(target, func(t *testing.T) {
					logs.TakeAll()
					r := httptest.NewRequest("GET", "/calendar/events/v1/"+target, nil)
					if m.cancelled {
						r = r.WithContext(gone)
					}
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if got := strings.TrimSpace(w.Body.String()); w.Code != m.wantCode || got != m.wantBody {
						t.Errorf("got %d %s, want %d %s", w.Code, got, m.wantCode, m.wantBody)
					}
					if got := logs.FilterLevelExact(zapcore.ErrorLevel).Len(); got != m.wantLogs {
						t.Errorf("got %d error log lines, want %d: %v", got, m.wantLogs, logs.All())
					}
				})
			}
		})
	}
}

// FuzzListQuery sends arbitrary query strings to every list route, as an anonymous caller and as an
// administrator, over a store with a few linked records: whatever arrives, the answer is JSON in the
// contract's envelope and never a 500.
func FuzzListQuery(f *testing.F) {
	for _, seed := range []string{
		"", "per_page=10&search=jazz", "page=2&per_page=1", "page=999999", "per_page=-1", "per_page=1e3",
		"start_date=tomorrow&end_date=%2B3+months", "start_date=2026-13-45", "end_date=now&start_date=next+monday",
		"categories=music,1&tags=x", "venue=2&organizer=3", "include=1,2,3", "post_parent=1",
		"geoloc=1&geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=10", "geoloc=1&geoloc_lat=91", "geoloc=true",
		"search=%22jazz+night%22+-blues+conc", "status=draft,trash", "featured=0&hide_from_listings=1",
		"_fields=id,title,venue.venue", "translation_language=fr", "has_events=1&only_with_upcoming=true",
		"event=1", "hide_empty=1&orderby=count&order=DESC", "slug=music&exclude=1&parent=0", "post=1",
		"search[]=a&per_page[x]=1", "%zz", "_fields[]=&_fields[]=.",
	} {
		for route := range uint8(10) {
			f.Add(route, seed)
		}
	}
	h, _ := newTestHandler(f, Config{})
	for _, body := range []string{
		`{"title":"Jazz night","start_date":"2026-12-01 20:00","end_date":"2026-12-01 22:00",` +
			`"venue":{"venue":"Hall","geo_lat":48.85,"geo_lng":2.35},"organizer":[{"organizer":"Club"}],"categories":"Music","tags":"late"}`,
		`{"title":"Blues draft","status":"draft","start_date":"2027-01-01 20:00","end_date":"2027-01-01 22:00","venue":2}`,
	} {
		if w := serve(h, "POST", "/calendar/events/v1/events", "application/json", body); w.Code != http.StatusCreated {
			f.Fatalf("create: %d %s", w.Code, w.Body)
		}
	}
	routes := []string{"events", "venues", "organizers", "categories", "tags"}
	f.Fuzz(func(t *testing.T, route uint8, query string) {
		r, err := http.NewRequest("GET", "/calendar/events/v1/"+routes[int(route)%len(routes)]+"?"+query, nil)
		if err != nil {
			return // not a request line a client could send
		}
		if route/uint8(len(routes))%2 == 1 {
			r.SetBasicAuth("admin", adminPassword)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		checkEnvelope(t, w)
		if w.Code >= 500 {
			t.Fatalf("GET %s: %d %s", r.URL, w.Code, w.Body)
		}
	})
}
