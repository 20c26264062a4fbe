package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

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
		"search[]=a&per_page[x]=1", "%zz",
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
