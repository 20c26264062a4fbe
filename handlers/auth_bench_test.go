package handlers

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/calendard/calendard/storage"
)

// BenchmarkAuthenticate measures what authentication and authorization add to a request
// (budget: 20 µs). The get/* runs serve the same GET of one published event through the real handler
// anonymously, with Basic credentials and with a Bearer token: the difference between get/anonymous
// and the others is the overhead. The authenticate/* runs time the header check (decode, keyed hash,
// store lookup) and the record-level checks of a draft alone.
func BenchmarkAuthenticate(b *testing.B) {
	h, db := newTestHandler(b, Config{})
	body := `{"title":"Jazz concert","description":"An evening of jazz","start_date":"2027-05-01 20:00",` +
		`"end_date":"2027-05-01 22:00","categories":"Music","venue":{"venue":"Hall"},"organizer":{"organizer":"Org"}}`
	if w := serve(h, "POST", "/calendar/events/v1/events", "application/json", body); w.Code != http.StatusCreated {
		b.Fatalf("%d %s", w.Code, w.Body)
	}
	draft, _, err := db.Event(b.Context(), 1)
	if err != nil {
		b.Fatal(err)
	}
	draft.Status = storage.StatusDraft
	credentials := []struct{ name, header string }{
		{"anonymous", ""},
		{"basic", "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+adminPassword))},
		{"bearer", "Bearer " + adminPassword},
	}
	for _, c := range credentials {
		b.Run("get/"+c.name, func(b *testing.B) {
			for b.Loop() {
				r := httptest.NewRequest("GET", "/calendar/events/v1/events/1", nil)
				if c.header != "" {
					r.Header.Set("Authorization", c.header)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
	for _, c := range credentials[1:] {
		b.Run("authenticate/"+c.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/calendar/events/v1/events/1", nil)
			r.Header.Set("Authorization", c.header)
			for b.Loop() {
				rq := &request{r: r}
				if err := h.(*Handler).authenticate(rq); err != nil {
					b.Fatal(err)
				}
				if !rq.actor.CanRead(&draft.Post) || !rq.actor.CanEdit(&draft.Post) || !rq.actor.CanDelete(&draft.Post) {
					b.Fatal("the administrator may not touch the draft")
				}
			}
		})
	}
}
