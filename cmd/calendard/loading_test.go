package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// heldStore is the store as the index sees it, with the scan of events held until release closes or
// the load's context ends: a load stopped midway, at a known point, without timing.
type heldStore struct {
	index.Store
	held     chan struct{} // closed when the scan of events is held
	holdOnce sync.Once     // the load scans ranges of events in parallel: the first one closes held
	release  chan struct{}
}

func (s *heldStore) Scan(ctx context.Context, t storage.PostType, after uint64, limit int) (*storage.Records, error) {
	if t == storage.TypeEvent && limit > 0 {
		s.holdOnce.Do(func() { close(s.held) })
		select {
		case <-s.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.Store.Scan(ctx, t, after, limit)
}

// loadingDir is a data directory holding events whose index has to be built at the next start.
func loadingDir(t *testing.T) (dir string, records int) {
	t.Helper()
	dir = t.TempDir()
	s := startServerIn(t, dir)
	for i := range 3 {
		body := concert()
		body["title"] = "Jazz Night " + strconv.Itoa(i)
		s.create("/calendar/events/v1/events", body)
	}
	for _, pt := range []storage.PostType{storage.TypeEvent, storage.TypeVenue, storage.TypeOrganizer} {
		n, err := s.app.db.Count(context.Background(), pt)
		if err != nil {
			t.Fatal(err)
		}
		records += n
	}
	s.stop()
	if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	return dir, records
}

// serveHeld starts the serve loop on dir with its index load held at the scan of events.
func serveHeld(t *testing.T, dir string) (*loop, *heldStore) {
	t.Helper()
	var h *heldStore
	l := serveLoop(t, dir, func(a *app) {
		h = &heldStore{Store: a.indexStore, held: make(chan struct{}), release: make(chan struct{})}
		a.indexStore = h
	})
	select {
	case <-h.held:
	case err := <-l.done:
		t.Fatalf("serve ended before loading: %v", err)
	}
	return l, h
}

// TestAliveWhileLoading: a server listens before its index is loaded; meanwhile /healthz is 200,
// /readyz 503 with the progress, and every API request 503 rest_not_ready with Retry-After and the
// common headers (docs/API.md "Errors"); once loaded, it serves.
func TestAliveWhileLoading(t *testing.T) {
	dir, records := loadingDir(t)
	l, h := serveHeld(t, dir)

	code, body := httpDo(t, "GET", l.base+"/healthz", "")
	if code != http.StatusOK {
		t.Errorf("healthz while loading: %d %s", code, body)
	}
	code, body = httpDo(t, "GET", l.base+"/readyz", "")
	var ready struct {
		Status      string
		Done, Total uint64
	}
	if err := json.Unmarshal(body, &ready); err != nil {
		t.Fatal(err)
	}
	// Venues and organizers are scanned before events, where the load is held.
	if code != http.StatusServiceUnavailable || ready.Status != index.PhaseBuilding || ready.Total != uint64(records) || ready.Done != uint64(records-3) {
		t.Errorf("readyz while loading: %d %s, want 503 building %d of %d", code, body, records-3, records)
	}

	for _, c := range []struct{ method, path, origin string }{
		{"GET", "/calendar/events/v1/events", ""},
		{"GET", "/fr/calendar/events/v1/events/1", ""},
		{"POST", "/calendar/events/v1/events", "https://app.example"},
		{"OPTIONS", "/calendar/events/v1/venues", "https://app.example"},
		{"HEAD", "/calendar/events/v1/", ""},
		{"GET", "/nowhere", ""},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r, _ := http.NewRequest(c.method, l.base+c.path, nil)
			r.SetBasicAuth("admin", "a wrong password: nothing is checked yet")
			if c.origin != "" {
				r.Header.Set("Origin", c.origin)
			}
			res, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("status %d, want 503", res.StatusCode)
			}
			// Whole seconds, at least 1, at most handlers' bound of 30.
			if after, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || after < 1 || after > 30 {
				t.Errorf("Retry-After %q, want whole seconds in [1, 30]", res.Header.Get("Retry-After"))
			}
			if got := res.Header.Get("Link"); got != `<`+testOrigin+`/>; rel="https://api.w.org/"` {
				t.Errorf("Link %q", got)
			}
			if c.origin != "" && res.Header.Get("Access-Control-Allow-Origin") != c.origin {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", res.Header.Get("Access-Control-Allow-Origin"), c.origin)
			}
			if c.method == "HEAD" {
				return
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=UTF-8" {
				t.Errorf("Content-Type %q", ct)
			}
			var e struct {
				Code string
				Data struct{ Status int }
			}
			if err := json.NewDecoder(res.Body).Decode(&e); err != nil || e.Code != "rest_not_ready" || e.Data.Status != 503 {
				t.Errorf("body: %+v %v, want rest_not_ready with data.status 503", e, err)
			}
		})
	}

	close(h.release)
	for {
		code, body := httpDo(t, "GET", l.base+"/readyz", "")
		if code == http.StatusOK {
			break
		}
		select {
		case err := <-l.done:
			t.Fatalf("serve ended while loading: %v", err)
		default:
		}
		if code != http.StatusServiceUnavailable {
			t.Fatalf("readyz: %d %s", code, body)
		}
	}
	code, body = httpDo(t, "GET", l.base+"/calendar/events/v1/events?search=jazz&start_date=2030-01-01&end_date=2031-01-01", "")
	var list struct{ Total int }
	if err := json.Unmarshal(body, &list); code != http.StatusOK || err != nil || list.Total != 3 {
		t.Errorf("events once loaded: %d %s", code, body)
	}
}

// TestStopWhileLoading: a shutdown during the index build ends serve without an error and leaves a
// directory the next start completes.
func TestStopWhileLoading(t *testing.T) {
	dir, _ := loadingDir(t)
	l, _ := serveHeld(t, dir)
	stopped := make(chan struct{})
	go func() { l.stop(); close(stopped) }() // stop reports serve's error, if any
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop while loading")
	}
	base, _ := serveDir(t, dir)
	code, body := httpDo(t, "GET", base+"/calendar/events/v1/events?search=jazz&start_date=2030-01-01&end_date=2031-01-01", "")
	var list struct{ Total int }
	if err := json.Unmarshal(body, &list); code != http.StatusOK || err != nil || list.Total != 3 {
		t.Errorf("events after the interrupted load: %d %s", code, body)
	}
}
