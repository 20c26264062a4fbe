package handlers

import (
	"context"
	"strings"
	"testing"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// BenchmarkListHighlight measures what highlight=true adds to a searching list page of 10 (docs/API.md
// "Highlighted matches"): each search with and without it, in the modes of benchServe.
func BenchmarkListHighlight(b *testing.B) {
	h := benchLists(b)
	for _, q := range []string{
		"per_page=10&search=jazz",
		"per_page=10&search=concert+night",
		"per_page=10&search=jaz",
		"per_page=10&search=concret", // typo tolerance: its corrections are walked again
	} {
		for _, mode := range []string{"uncached", "items-cached", "cached"} {
			for _, hl := range []string{"", "&highlight=true"} {
				b.Run(mode+"/"+q+hl, func(b *testing.B) {
					w := benchServe(b, h, "/calendar/events/v1/events?"+q+hl, mode)
					b.ReportMetric(float64(w.Body.Len()), "body-bytes")
				})
			}
		}
	}
}

// BenchmarkHostileHighlight measures the most text one highlighted page makes the server read: 100
// events whose titles and descriptions (65,535 characters, the most the store takes) are the searched
// word over and over, every word of them a match, every request missing every cache (docs/SECURITY.md).
func BenchmarkHostileHighlight(b *testing.B) {
	h := benchHandler(b, 0).(*Handler)
	ctx := context.Background()
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	title, description := strings.Repeat("jazz ", 200), strings.Repeat("jazz ", 65535/5)
	start, err := datetime.Parse("2027-01-01 10:00:00")
	if err != nil {
		b.Fatal(err)
	}
	for range 100 {
		_, err := h.db.CreateEvent(ctx, admin, "en", &storage.EventInput{
			PostInput: storage.PostInput{Title: &title, Description: &description}, Excerpt: &description, Start: &start, End: &start})
		if err != nil {
			b.Fatal(err)
		}
	}
	head, err := h.db.ChangeHead(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for h.index.Applied() < head { // a sync takes a bounded amount of text at a time
		if _, err := indexOf(h).SyncOnce(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for _, hl := range []string{"", "&highlight=true"} {
		b.Run("per_page=100"+hl, func(b *testing.B) {
			w := benchServe(b, h, "/calendar/events/v1/events?per_page=100&search=jazz"+hl, "uncached")
			if !strings.Contains(w.Body.String(), `"total":100,`) {
				b.Fatal("the page is not the 100 events")
			}
		})
	}
}
